package render

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/dom"
	"actionspace/metrics"
)

var testCounter = sync.OnceValues(func() (*metrics.Counter, error) {
	return metrics.NewCounter(metrics.CL100K, metrics.O200K)
})

func mustCounter(t testing.TB) *metrics.Counter {
	t.Helper()
	c, err := testCounter()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// loginView is a small synthetic page with five IDs, in document order
// I1 B1 B2 L1 L2.
func loginView() *dom.View {
	checked := 0
	c := &dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{
		URL: "http://shop.test/login", Title: "Log in", ViewportWidth: 1280, ViewportHeight: 720,
		DocWidth: 1280, DocHeight: 720, Time: 1764547200000}}
	add := func(n dom.Node) int {
		n.Visible = true
		if n.Rect == (dom.Rect{}) {
			n.Rect = dom.Rect{10, 100, 100, 20}
		}
		c.Nodes = append(c.Nodes, n)
		return len(c.Nodes) - 1
	}
	html := add(dom.Node{Kind: dom.ElementNode, Parent: -1, Tag: "html", Block: 1})
	body := add(dom.Node{Kind: dom.ElementNode, Parent: html, Tag: "body", Block: 1})
	main := add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "main", Block: 1})
	h1 := add(dom.Node{Kind: dom.ElementNode, Parent: main, Tag: "h1", Block: 1})
	add(dom.Node{Kind: dom.TextNode, Parent: h1, Text: "Sign in"})
	form := add(dom.Node{Kind: dom.ElementNode, Parent: main, Tag: "form", Block: 1, Attrs: [][2]string{{"action", "/session"}}})
	add(dom.Node{Kind: dom.ElementNode, Parent: form, Tag: "input", Signals: []string{"tag"},
		Attrs: [][2]string{{"type", "email"}, {"name", "email"}, {"placeholder", "Email"}}})
	add(dom.Node{Kind: dom.ElementNode, Parent: form, Tag: "input", Signals: []string{"tag"}, Checked: &checked,
		Attrs: [][2]string{{"type", "checkbox"}, {"name", "remember"}}})
	btn := add(dom.Node{Kind: dom.ElementNode, Parent: form, Tag: "button", Signals: []string{"tag"}, Attrs: [][2]string{{"type", "submit"}}})
	add(dom.Node{Kind: dom.TextNode, Parent: btn, Text: "Sign in"})
	nav := add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "nav", Block: 1, Attrs: [][2]string{{"aria-label", "Main"}}})
	a1 := add(dom.Node{Kind: dom.ElementNode, Parent: nav, Tag: "a", Signals: []string{"tag"}, Attrs: [][2]string{{"href", "/"}}})
	add(dom.Node{Kind: dom.TextNode, Parent: a1, Text: "Home"})
	a2 := add(dom.Node{Kind: dom.ElementNode, Parent: nav, Tag: "a", Signals: []string{"tag"}, Attrs: [][2]string{{"href", "/signup"}}})
	add(dom.Node{Kind: dom.TextNode, Parent: a2, Text: "Sign up"})
	p := add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "p", Block: 1})
	add(dom.Node{Kind: dom.TextNode, Parent: p, Text: "Forgot your password?"})
	return dom.NewTree(c).Select(dom.Options{Expansion: 0})
}

func TestPromptTree_Login(t *testing.T) {
	got := PromptTree(loginView())
	want := `Page: Log in (http://shop.test/login)
main
  h1 "Sign in"
  form action=/session
    [I1] textbox "Email" type=email name=email
    [B1] checkbox "remember" type=checkbox
    [B2] button "Sign in" type=submit
navigation "Main"
  [L1] link "Home" href=/
  [L2] link "Sign up" href=/signup
"Forgot your password?"
`
	if got != want {
		t.Errorf("PromptTree:\n%s\nwant:\n%s", got, want)
	}
}

// newDeep returns a renderer talking to the fake server.
func newDeep(t testing.TB, f *fakeLLM, cache *Cache) *Deep {
	t.Helper()
	var client ChatClient
	if f != nil {
		c, err := NewOpenAIClient(LLMConfig{BaseURL: f.url(), Model: "test-model", APIKey: "sk-test-secret", Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		c.backoff = time.Millisecond
		client = c
	}
	return &Deep{Client: client, Model: "test-model", Cache: cache, Counter: mustCounter(t), Logger: quietLogger()}
}

// checkAccounting asserts that the render's figures match the server's
// log: HTTP requests, usage sums, and the local count of the messages the
// server received in the requests it answered.
func checkAccounting(t *testing.T, f *fakeLLM, got DeepSpace, usageKnown bool) {
	t.Helper()
	if got.Calls != f.calls() {
		t.Errorf("Calls = %d, server saw %d requests", got.Calls, f.calls())
	}
	if usageKnown {
		if got.PromptTokensAPI == nil || got.CompletionTokensAPI == nil {
			t.Fatalf("API token figures are nil, want the server's sums")
		}
		if *got.PromptTokensAPI != f.prompt || *got.CompletionTokensAPI != f.completion {
			t.Errorf("API tokens = %d/%d, server reported %d/%d", *got.PromptTokensAPI, *got.CompletionTokensAPI, f.prompt, f.completion)
		}
	} else if got.PromptTokensAPI != nil || got.CompletionTokensAPI != nil {
		t.Errorf("API token figures set although usage was missing")
	}
	var local int64
	for _, r := range f.answered {
		n, err := mustCounter(t).Count(metrics.CL100K, JoinMessages(r.Messages))
		if err != nil {
			t.Fatal(err)
		}
		local += n
	}
	if got.PromptTokensLocal != local {
		t.Errorf("PromptTokensLocal = %d, want %d (cl100k of the answered requests' messages)", got.PromptTokensLocal, local)
	}
	if got.LLMTime <= 0 && got.Calls > 0 {
		t.Errorf("LLMTime = %v, want > 0", got.LLMTime)
	}
}

const loginAllText = `A test page.
# Form
* I1: Use I1 (value: string)
# Actions
* B1: Use B1
* B2: Use B2
# Navigation
* L1: Use L1
* L2: Use L2
`

// describeFirst describes only the first requested ID.
func describeFirst() fakeStep {
	var mu sync.Mutex
	return func(req fakeRequest) fakeReply {
		mu.Lock()
		defer mu.Unlock()
		first := ""
		if ids := requestedIDs(req); len(ids) > 0 {
			first = ids[0]
		}
		return describe(func(id string) bool { return id == first })(req)
	}
}

func TestDeep_Render(t *testing.T) {
	const good = `{"summary":"A test page.","actions":[{"id":"I1","description":"Use I1","category":"Form","params":"value: string"},` +
		`{"id":"B1","description":"Use B1","category":"Actions","params":""},{"id":"B2","description":"Use B2","category":"Actions","params":""},` +
		`{"id":"L1","description":"Use L1","category":"Navigation","params":""},{"id":"L2","description":"Use L2","category":"Navigation","params":""}]}`
	tests := []struct {
		name             string
		steps            []fakeStep
		repeat           bool
		wantCalls        int
		wantRounds       int
		wantCoverage     float64
		wantHallucinated int
		wantDropped      int
		wantText         string
		noUsage          bool
		check            func(t *testing.T, f *fakeLLM, got DeepSpace)
	}{
		{
			name:  "complete reply",
			steps: []fakeStep{describeAll()}, wantCalls: 1, wantRounds: 1, wantCoverage: 1, wantText: loginAllText,
			check: func(t *testing.T, f *fakeLLM, got DeepSpace) {
				r := f.request(0)
				if r.ResponseFormat == nil || r.ResponseFormat.Type != "json_schema" || !r.ResponseFormat.JSONSchema.Strict ||
					r.ResponseFormat.JSONSchema.Name != "action_tags" {
					t.Errorf("response_format = %+v, want a strict json_schema", r.ResponseFormat)
				}
				if r.Temperature == nil || *r.Temperature != 0 || string(r.Raw["temperature"]) != "0" {
					t.Errorf("temperature = %s, want 0", r.Raw["temperature"])
				}
				if r.Seed == nil || *r.Seed != DeepSeed {
					t.Errorf("seed = %v, want %d", r.Seed, DeepSeed)
				}
				if r.Model != "test-model" {
					t.Errorf("model = %q", r.Model)
				}
				if got.Prompt != JoinMessages(r.Messages) {
					t.Errorf("Prompt is not the first request's messages:\n%s", got.Prompt)
				}
				if got.Descriptions["I1"] != (Description{Description: "Use I1", Category: "Form", Params: "value: string", Round: 1}) {
					t.Errorf("I1 = %+v", got.Descriptions["I1"])
				}
				if !strings.HasPrefix(got.Perception, "[Start of page]\nURL: http://shop.test/login\n") || !strings.Contains(got.Perception, loginAllText) {
					t.Errorf("Perception:\n%s", got.Perception)
				}
			},
		},
		{
			name:      "partial reply forces incremental rounds",
			steps:     []fakeStep{describe(func(id string) bool { return id[0] != 'L' }), describe(func(id string) bool { return id == "L1" }), describeAll()},
			wantCalls: 3, wantRounds: 3, wantCoverage: 1, wantText: loginAllText,
			check: func(t *testing.T, f *fakeLLM, got DeepSpace) {
				for i, want := range [][]string{{"I1", "B1", "B2", "L1", "L2"}, {"L1", "L2"}, {"L2"}} {
					r := f.request(i)
					if ids := requestedIDs(r); !slices.Equal(ids, want) {
						t.Errorf("request %d asks for %v, want %v", i, ids, want)
					}
					if !strings.Contains(r.user(), "Page tree:\nPage: Log in") || !strings.Contains(r.user(), "[I1] textbox") {
						t.Errorf("request %d does not carry the page tree:\n%s", i, r.user())
					}
				}
				if !strings.Contains(f.request(1).user(), "Describe only these actions (2): L1, L2.") {
					t.Errorf("second request:\n%s", f.request(1).user())
				}
				if d := got.Descriptions["L2"]; d.Round != 3 {
					t.Errorf("L2 described in round %d, want 3", d.Round)
				}
			},
		},
		{
			name: "rounds stop at the cap", steps: []fakeStep{describeFirst()}, repeat: true,
			wantCalls: 4, wantRounds: 4, wantCoverage: 0.8,
			wantText: "A test page.\n# Form\n* I1: Use I1 (value: string)\n# Actions\n* B1: Use B1\n* B2: Use B2\n# Navigation\n* L1: Use L1\n",
		},
		{
			name: "rounds stop when one adds nothing", steps: []fakeStep{describe(func(id string) bool { return id != "L2" })}, repeat: true,
			wantCalls: 2, wantRounds: 2, wantCoverage: 0.8,
			wantText: "A test page.\n# Form\n* I1: Use I1 (value: string)\n# Actions\n* B1: Use B1\n* B2: Use B2\n# Navigation\n* L1: Use L1\n",
		},
		{
			name:  "malformed reply then a good one",
			steps: []fakeStep{say("Sorry, I cannot help with that."), describeAll()}, wantCalls: 2, wantRounds: 1, wantCoverage: 1, wantText: loginAllText,
			check: func(t *testing.T, f *fakeLLM, got DeepSpace) {
				msgs := f.request(1).Messages
				if len(msgs) != 4 || msgs[2].Role != RoleAssistant || msgs[2].Content != "Sorry, I cannot help with that." ||
					msgs[3].Role != RoleUser || !strings.Contains(msgs[3].Content, "could not be read") {
					t.Errorf("retry conversation = %+v", msgs)
				}
				if f.request(1).ResponseFormat == nil {
					t.Error("retry dropped response_format")
				}
			},
		},
		{
			name: "429 then success",
			steps: []fakeStep{fail(429, `{"error":{"message":"rate limited","type":"rate_limit"}}`, map[string]string{"Retry-After": "0"}),
				describeAll()},
			wantCalls: 2, wantRounds: 1, wantCoverage: 1, wantText: loginAllText,
		},
		{
			name: "500 twice then success", steps: []fakeStep{fail(500, "oops", nil), fail(503, "", nil), describeAll()},
			wantCalls: 3, wantRounds: 1, wantCoverage: 1, wantText: loginAllText,
		},
		{
			name: "unknown IDs are dropped and counted",
			steps: []fakeStep{say(strings.Replace(good, `"actions":[`, `"actions":[{"id":"B9","description":"Ghost","category":"X","params":""},`+
				`{"id":"Z1","description":"Ghost","category":"X","params":""},{"id":"I1","description":"","category":"Form","params":""},`+
				`{"id":"not an id","description":"Ghost","category":"X","params":""},`, 1))},
			wantCalls: 1, wantRounds: 1, wantCoverage: 1, wantHallucinated: 2, wantDropped: 2, wantText: loginAllText,
		},
		{
			name:      "server without structured output",
			steps:     []fakeStep{fail(400, `{"error":{"message":"Unsupported parameter: response_format"}}`, nil), fakeTag()},
			wantCalls: 2, wantRounds: 1, wantCoverage: 1,
			wantText: "A test page.\n# Form\n* I1: Use I1\n# Actions\n* B1: Use B1\n* B2: Use B2\n# Navigation\n* L1: Use L1\n* L2: Use L2\n",
			check: func(t *testing.T, f *fakeLLM, got DeepSpace) {
				if f.request(0).ResponseFormat == nil {
					t.Error("first request had no response_format")
				}
				r := f.request(1)
				if r.ResponseFormat != nil || r.Raw["response_format"] != nil {
					t.Errorf("fallback request still has response_format %s", r.Raw["response_format"])
				}
				if !strings.Contains(r.Messages[0].Content, "SUMMARY:") || strings.Contains(r.Messages[0].Content, "JSON object") {
					t.Errorf("fallback system prompt does not describe the tagged format:\n%s", r.Messages[0].Content)
				}
			},
		},
		{
			name:      "JSON in fences with trailing text",
			steps:     []fakeStep{say("Here you go:\n```json\n" + good + "\n```\nLet me know if you need more.")},
			wantCalls: 1, wantRounds: 1, wantCoverage: 1, wantText: loginAllText,
		},
		{
			name: "server reports no usage",
			steps: []fakeStep{func(req fakeRequest) fakeReply {
				return fakeReply{content: good}
			}},
			wantCalls: 1, wantRounds: 1, wantCoverage: 1, wantText: loginAllText, noUsage: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, tt.steps...)
			f.repeat = tt.repeat
			d := newDeep(t, f, nil)
			got, err := d.Render(context.Background(), loginView())
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if got.Calls != tt.wantCalls || got.Rounds != tt.wantRounds {
				t.Errorf("calls, rounds = %d, %d, want %d, %d", got.Calls, got.Rounds, tt.wantCalls, tt.wantRounds)
			}
			if got.Coverage != tt.wantCoverage {
				t.Errorf("Coverage = %v, want %v", got.Coverage, tt.wantCoverage)
			}
			if got.HallucinatedIDs != tt.wantHallucinated || got.DroppedEntries != tt.wantDropped {
				t.Errorf("hallucinated, dropped = %d, %d, want %d, %d", got.HallucinatedIDs, got.DroppedEntries, tt.wantHallucinated, tt.wantDropped)
			}
			if got.Text != tt.wantText {
				t.Errorf("Text:\n%s\nwant:\n%s", got.Text, tt.wantText)
			}
			if !got.LLMRan || got.Model != "test-model" || got.CacheHits != 0 {
				t.Errorf("LLMRan, Model, CacheHits = %v, %q, %d", got.LLMRan, got.Model, got.CacheHits)
			}
			if got.Fast.ActionSpace != Fast(loginView()).ActionSpace {
				t.Error("Fast is not the fast rendering of the view")
			}
			checkAccounting(t, f, got, !tt.noUsage)
			if tt.check != nil {
				tt.check(t, f, got)
			}
		})
	}
}

func TestDeep_FallbackIsRemembered(t *testing.T) {
	f := newFakeLLM(t, fail(400, `{"error":{"message":"response_format not supported"}}`, nil), fakeTag(), fakeTag())
	d := newDeep(t, f, nil)
	for i := range 2 {
		got, err := d.Render(context.Background(), loginView())
		if err != nil {
			t.Fatalf("render %d: %v", i, err)
		}
		if got.Coverage != 1 {
			t.Errorf("render %d: coverage %v", i, got.Coverage)
		}
		// The local count covers the fallback messages actually sent.
		checkAccountingFrom(t, f, got, i)
	}
	if n := f.calls(); n != 3 {
		t.Fatalf("server saw %d requests, want 3 (400, fallback, fallback)", n)
	}
	if f.request(2).ResponseFormat != nil {
		t.Error("the client sent response_format again after the server rejected it")
	}
}

// checkAccountingFrom checks the local count of render i of a sequence
// where each render's answered requests are one fallback request.
func checkAccountingFrom(t *testing.T, f *fakeLLM, got DeepSpace, i int) {
	t.Helper()
	n, err := mustCounter(t).Count(metrics.CL100K, JoinMessages(f.answered[i].Messages))
	if err != nil {
		t.Fatal(err)
	}
	if got.PromptTokensLocal != n {
		t.Errorf("render %d: PromptTokensLocal = %d, want %d", i, got.PromptTokensLocal, n)
	}
}

func TestDeep_CachedRerun(t *testing.T) {
	dir := t.TempDir()
	cache, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeLLM(t, say("no idea"), describe(func(id string) bool { return id[0] != 'L' }), describeAll())
	d := newDeep(t, f, cache)
	d.ClassifyPage = true
	f.steps = append(f.steps, say(`{"category": "login"}`))
	first, err := d.Render(context.Background(), loginView())
	if err != nil {
		t.Fatal(err)
	}
	if first.Calls != 4 || first.CacheHits != 0 || first.PageCategory != "login" || first.Coverage != 1 {
		t.Fatalf("first run: calls %d, hits %d, category %q, coverage %v", first.Calls, first.CacheHits, first.PageCategory, first.Coverage)
	}

	// A new server that must not be called, a new client and renderer.
	f2 := newFakeLLM(t)
	d2 := newDeep(t, f2, cache)
	d2.ClassifyPage = true
	second, err := d2.Render(context.Background(), loginView())
	if err != nil {
		t.Fatal(err)
	}
	if n := f2.calls(); n != 0 {
		t.Errorf("cached rerun made %d HTTP calls, want 0", n)
	}
	if second.Calls != 0 || second.CacheHits != 4 || second.LLMTime != 0 {
		t.Errorf("cached rerun: calls %d, hits %d, llm time %v; want 0, 4, 0", second.Calls, second.CacheHits, second.LLMTime)
	}
	// Everything but this run's own work is identical.
	a, b := first, second
	a.Calls, a.CacheHits, a.LLMTime = 0, 0, 0
	b.Calls, b.CacheHits, b.LLMTime = 0, 0, 0
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("cached rerun differs:\n%s\n%s", ja, jb)
	}
	if first.Text != second.Text || first.Text != loginAllText {
		t.Errorf("texts differ:\n%s\n%s", first.Text, second.Text)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.json"))
	if len(entries) != 4 {
		t.Errorf("cache holds %d entries, want 4", len(entries))
	}
}

func TestDeep_DryRun(t *testing.T) {
	d := newDeep(t, nil, nil)
	d.Model = "planned-model"
	got, err := d.Render(context.Background(), loginView())
	if err != nil {
		t.Fatal(err)
	}
	if got.LLMRan || got.Calls != 0 || got.Rounds != 0 || got.PromptTokensAPI != nil || got.CompletionTokensAPI != nil ||
		got.Coverage != 0 || got.Text != "" || got.Perception != "" || got.LLMTime != 0 {
		t.Errorf("dry run = %+v", got)
	}
	want, err := mustCounter(t).Count(metrics.CL100K, got.Prompt)
	if err != nil {
		t.Fatal(err)
	}
	if got.PromptTokensLocal != want || want == 0 {
		t.Errorf("PromptTokensLocal = %d, want %d", got.PromptTokensLocal, want)
	}
	if !strings.Contains(got.Prompt, PromptTree(loginView())) || !strings.HasPrefix(got.Prompt, "system\nYou label the actions") ||
		!strings.Contains(got.Prompt, "\n\nuser\nPage tree:\n") {
		t.Errorf("Prompt:\n%s", got.Prompt)
	}
	// The dry-run prompt is exactly what a real first round sends.
	f := newFakeLLM(t, describeAll())
	live, err := newDeep(t, f, nil).Render(context.Background(), loginView())
	if err != nil {
		t.Fatal(err)
	}
	if JoinMessages(f.request(0).Messages) != got.Prompt || live.Prompt != got.Prompt {
		t.Error("dry-run prompt differs from the first request sent")
	}
	if live.PromptTokensLocal != got.PromptTokensLocal {
		t.Errorf("live first-round local tokens %d, dry run %d", live.PromptTokensLocal, got.PromptTokensLocal)
	}
}

func TestDeep_Errors(t *testing.T) {
	tests := []struct {
		name      string
		steps     []fakeStep
		wantCalls int
		wantErr   func(error) bool
	}{
		{"unparseable after retries", []fakeStep{say("nope")}, 4, func(err error) bool { return errors.Is(err, ErrUnparseable) }},
		{"server error after retries", []fakeStep{fail(502, "bad gateway", nil)}, 4, func(err error) bool {
			var le *LLMError
			return errors.As(err, &le) && le.StatusCode == 502 && le.Attempts == 4
		}},
		{"400 without schema problem", []fakeStep{fail(400, `{"error":{"message":"context too long"}}`, nil)}, 2, func(err error) bool {
			var le *LLMError
			return errors.As(err, &le) && le.StatusCode == 400 && strings.Contains(err.Error(), "context too long")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, tt.steps...)
			f.repeat = true
			got, err := newDeep(t, f, nil).Render(context.Background(), loginView())
			if err == nil || !tt.wantErr(err) {
				t.Fatalf("err = %v", err)
			}
			if got.Calls != tt.wantCalls || f.calls() != tt.wantCalls {
				t.Errorf("calls = %d (server %d), want %d", got.Calls, f.calls(), tt.wantCalls)
			}
			if got.Rounds != 1 || got.Coverage != 0 || got.Text != "" {
				t.Errorf("rounds %d coverage %v text %q", got.Rounds, got.Coverage, got.Text)
			}
		})
	}
}

func TestDeep_ClassifyPage(t *testing.T) {
	f := newFakeLLM(t, describeAll(), say("CATEGORY: Login"))
	d := newDeep(t, f, nil)
	d.ClassifyPage = true
	got, err := d.Render(context.Background(), loginView())
	if err != nil {
		t.Fatal(err)
	}
	if got.PageCategory != "login" || got.Calls != 2 || got.Rounds != 1 {
		t.Errorf("category %q, calls %d, rounds %d", got.PageCategory, got.Calls, got.Rounds)
	}
	if r := f.request(1); r.ResponseFormat == nil || r.ResponseFormat.JSONSchema.Name != "page_category" {
		t.Errorf("classification request response_format = %+v", r.ResponseFormat)
	}
	checkAccounting(t, f, got, true)
}

func TestDeep_NoIDs(t *testing.T) {
	c := &dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{URL: "http://x.test/", Title: "Empty", ViewportWidth: 800, ViewportHeight: 600, DocWidth: 800, DocHeight: 600}}
	c.Nodes = []dom.Node{
		{Kind: dom.ElementNode, Parent: -1, Tag: "html", Block: 1, Visible: true, Rect: dom.Rect{0, 0, 800, 600}},
		{Kind: dom.TextNode, Parent: 0, Text: "Nothing here", Visible: true, Rect: dom.Rect{0, 0, 100, 20}},
	}
	v := dom.NewTree(c).Select(dom.Options{})
	f := newFakeLLM(t, say(`{"summary":"An empty page.","actions":[]}`))
	got, err := newDeep(t, f, nil).Render(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	if got.Coverage != 1 || got.Calls != 1 || got.Text != "An empty page.\n" {
		t.Errorf("coverage %v calls %d text %q", got.Coverage, got.Calls, got.Text)
	}
	if !strings.Contains(f.request(0).user(), "The page has no actions") {
		t.Errorf("request:\n%s", f.request(0).user())
	}
}

func TestDeep_Validate(t *testing.T) {
	f := newFakeLLM(t)
	tests := []struct {
		name   string
		modify func(d *Deep)
		want   string
	}{
		{"no counter", func(d *Deep) { d.Counter = nil }, "Counter"},
		{"no model", func(d *Deep) { d.Model = "" }, "Model"},
		{"coverage", func(d *Deep) { d.Coverage = 1.5 }, "Coverage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeep(t, f, nil)
			tt.modify(d)
			_, err := d.Render(context.Background(), loginView())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one naming %s", err, tt.want)
			}
		})
	}
}

// TestDeep_StoredCapture renders a real stored corpus capture against a
// server that describes every ID it is asked about.
func TestDeep_StoredCapture(t *testing.T) {
	tree := loadTree(t, filepath.Join("testdata", "login", "capture.json.gz"))
	for _, e := range []int{0, dom.WholePage} {
		v := tree.Select(dom.Options{Expansion: e})
		f := newFakeLLM(t, describeAll())
		got, err := newDeep(t, f, nil).Render(context.Background(), v)
		if err != nil {
			t.Fatal(err)
		}
		fs := Fast(v)
		if len(fs.Actions) < 5 {
			t.Fatalf("E=%d: only %d actions in the stored login capture", e, len(fs.Actions))
		}
		if got.Coverage != 1 || got.Calls != 1 || got.Rounds != 1 || got.HallucinatedIDs != 0 {
			t.Errorf("E=%d: coverage %v calls %d rounds %d hallucinated %d", e, got.Coverage, got.Calls, got.Rounds, got.HallucinatedIDs)
		}
		checkAccounting(t, f, got, true)
		// Every ID of the fast space, and only those, is in the tree sent.
		var treeIDs []string
		for _, m := range treeID.FindAllStringSubmatch(f.request(0).user(), -1) {
			treeIDs = append(treeIDs, m[1])
		}
		var fastIDs []string
		for _, a := range fs.Actions {
			fastIDs = append(fastIDs, a.ID)
		}
		if !slices.Equal(treeIDs, fastIDs) {
			t.Errorf("E=%d: tree IDs %v, fast IDs %v", e, treeIDs, fastIDs)
		}
		checkDeepText(t, got.Text, fastIDs)
	}
}

var (
	headingLine = regexp.MustCompile(`^# [A-Z][A-Za-z ]*$`)
	itemLine    = regexp.MustCompile(`^\* ([A-Z][0-9]+): [^\n]+$`)
)

// checkDeepText checks the layout of a deep text: summary, then headings
// with item lines; every ID once; categories in the document order of
// their first ID; items in document order within a category.
func checkDeepText(t *testing.T, text string, ids []string) {
	t.Helper()
	if !strings.HasSuffix(text, "\n") {
		t.Errorf("text does not end in a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if lines[0] != "A test page." {
		t.Errorf("first line %q, want the summary", lines[0])
	}
	pos := map[string]int{}
	for i, id := range ids {
		pos[id] = i
	}
	seen := map[string]bool{}
	lastFirst, lastInGroup := -1, -1
	for _, l := range lines[1:] {
		switch {
		case headingLine.MatchString(l):
			lastInGroup = -1
		case itemLine.MatchString(l):
			id := itemLine.FindStringSubmatch(l)[1]
			if seen[id] {
				t.Errorf("%s listed twice", id)
			}
			seen[id] = true
			p := pos[id]
			if lastInGroup == -1 {
				if p < lastFirst {
					t.Errorf("category of %s out of document order", id)
				}
				lastFirst = p
			} else if p < lastInGroup {
				t.Errorf("%s out of document order in its category", id)
			}
			lastInGroup = p
		default:
			t.Errorf("unexpected line %q", l)
		}
	}
	if len(seen) != len(ids) {
		t.Errorf("text lists %d IDs, want %d", len(seen), len(ids))
	}
}
