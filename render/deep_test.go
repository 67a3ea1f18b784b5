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
	"testing"
	"time"

	"actionspace/dom"
	"actionspace/internal/deeptest"
	"actionspace/metrics"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestPromptTree_Login(t *testing.T) {
	got := PromptTree(deeptest.LoginView())
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

// newDeep returns a renderer calling c (a dry run when c is nil).
func newDeep(t testing.TB, c *scriptedClient, cache *Cache) *Deep {
	t.Helper()
	d := &Deep{Model: "test-model", Cache: cache, Counter: deeptest.Counter(t), Logger: quietLogger()}
	if c != nil {
		d.Client = c
	}
	return d
}

// describeFirst describes only the first requested ID.
func describeFirst() step {
	return func(req ChatRequest) reply {
		first := ""
		if ids := deeptest.RequestedIDs(firstUser(req.Messages)); len(ids) > 0 {
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
		steps            []step
		repeat           bool
		wantCalls        int
		wantRounds       int
		wantCoverage     float64
		wantHallucinated int
		wantDropped      int
		wantText         string
		noUsage          bool
		check            func(t *testing.T, c *scriptedClient, got DeepSpace)
	}{
		{
			name:  "complete reply",
			steps: []step{describeAll()}, wantCalls: 1, wantRounds: 1, wantCoverage: 1, wantText: deeptest.LoginAllText,
			check: func(t *testing.T, c *scriptedClient, got DeepSpace) {
				r := c.request(0)
				if r.Schema == nil || !r.Schema.Strict || r.Schema.Name != "action_tags" || !json.Valid(r.Schema.Schema) {
					t.Errorf("schema = %+v, want the strict action_tags schema", r.Schema)
				}
				if r.Temperature != 0 {
					t.Errorf("temperature = %v, want 0", r.Temperature)
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
				if !strings.HasPrefix(got.Perception, "[Start of page]\nURL: http://shop.test/login\n") || !strings.Contains(got.Perception, deeptest.LoginAllText) {
					t.Errorf("Perception:\n%s", got.Perception)
				}
			},
		},
		{
			name:      "partial reply forces incremental rounds",
			steps:     []step{describe(func(id string) bool { return id[0] != 'L' }), describe(func(id string) bool { return id == "L1" }), describeAll()},
			wantCalls: 3, wantRounds: 3, wantCoverage: 1, wantText: deeptest.LoginAllText,
			check: func(t *testing.T, c *scriptedClient, got DeepSpace) {
				for i, want := range [][]string{{"I1", "B1", "B2", "L1", "L2"}, {"L1", "L2"}, {"L2"}} {
					u := firstUser(c.request(i).Messages)
					if ids := deeptest.RequestedIDs(u); !slices.Equal(ids, want) {
						t.Errorf("request %d asks for %v, want %v", i, ids, want)
					}
					if !strings.Contains(u, "Page tree:\nPage: Log in") || !strings.Contains(u, "[I1] textbox") {
						t.Errorf("request %d does not carry the page tree:\n%s", i, u)
					}
				}
				if u := firstUser(c.request(1).Messages); !strings.Contains(u, "Describe only these actions (2): L1, L2.") {
					t.Errorf("second request:\n%s", u)
				}
				if d := got.Descriptions["L2"]; d.Round != 3 {
					t.Errorf("L2 described in round %d, want 3", d.Round)
				}
			},
		},
		{
			name: "rounds stop at the cap", steps: []step{describeFirst()}, repeat: true,
			wantCalls: 4, wantRounds: 4, wantCoverage: 0.8,
			wantText: "A test page.\n# Form\n* I1: Use I1 (value: string)\n# Actions\n* B1: Use B1\n* B2: Use B2\n# Navigation\n* L1: Use L1\n",
		},
		{
			name: "rounds stop when one adds nothing", steps: []step{describe(func(id string) bool { return id != "L2" })}, repeat: true,
			wantCalls: 2, wantRounds: 2, wantCoverage: 0.8,
			wantText: "A test page.\n# Form\n* I1: Use I1 (value: string)\n# Actions\n* B1: Use B1\n* B2: Use B2\n# Navigation\n* L1: Use L1\n",
		},
		{
			name:  "malformed reply then a good one",
			steps: []step{say("Sorry, I cannot help with that."), describeAll()}, wantCalls: 2, wantRounds: 1, wantCoverage: 1, wantText: deeptest.LoginAllText,
			check: func(t *testing.T, c *scriptedClient, got DeepSpace) {
				msgs := c.request(1).Messages
				if len(msgs) != 4 || msgs[2].Role != RoleAssistant || msgs[2].Content != "Sorry, I cannot help with that." ||
					msgs[3].Role != RoleUser || !strings.Contains(msgs[3].Content, "could not be read") {
					t.Errorf("retry conversation = %+v", msgs)
				}
				if c.request(1).Schema == nil {
					t.Error("retry dropped the schema")
				}
			},
		},
		{
			// The client retried a 429 (or 5xx) before its reply: the
			// render counts every HTTP request (the HTTP side: package llm).
			name:  "client retries are counted",
			steps: []step{retried(3, describeAll())}, wantCalls: 3, wantRounds: 1, wantCoverage: 1, wantText: deeptest.LoginAllText,
		},
		{
			name: "unknown IDs are dropped and counted",
			steps: []step{say(strings.Replace(good, `"actions":[`, `"actions":[{"id":"B9","description":"Ghost","category":"X","params":""},`+
				`{"id":"Z1","description":"Ghost","category":"X","params":""},{"id":"I1","description":"","category":"Form","params":""},`+
				`{"id":"not an id","description":"Ghost","category":"X","params":""},`, 1))},
			wantCalls: 1, wantRounds: 1, wantCoverage: 1, wantHallucinated: 2, wantDropped: 2, wantText: deeptest.LoginAllText,
		},
		{
			name:      "server without structured output",
			steps:     []step{fakeTag(2)},
			wantCalls: 2, wantRounds: 1, wantCoverage: 1,
			wantText: "A test page.\n# Form\n* I1: Use I1\n# Actions\n* B1: Use B1\n* B2: Use B2\n# Navigation\n* L1: Use L1\n* L2: Use L2\n",
			check: func(t *testing.T, c *scriptedClient, got DeepSpace) {
				r := c.request(0)
				if r.Schema == nil || len(r.FallbackMessages) != 2 {
					t.Errorf("request has schema %v and %d fallback messages, want both", r.Schema, len(r.FallbackMessages))
				}
				if sys := r.FallbackMessages[0].Content; !strings.Contains(sys, "SUMMARY:") || strings.Contains(sys, "JSON object") {
					t.Errorf("fallback system prompt does not describe the tagged format:\n%s", sys)
				}
				if !strings.Contains(r.Messages[0].Content, "JSON object") {
					t.Errorf("structured system prompt does not ask for JSON:\n%s", r.Messages[0].Content)
				}
			},
		},
		{
			name:      "JSON in fences with trailing text",
			steps:     []step{say("Here you go:\n```json\n" + good + "\n```\nLet me know if you need more.")},
			wantCalls: 1, wantRounds: 1, wantCoverage: 1, wantText: deeptest.LoginAllText,
		},
		{
			name:      "server reports no usage",
			steps:     []step{func(ChatRequest) reply { return reply{content: good, noUsage: true} }},
			wantCalls: 1, wantRounds: 1, wantCoverage: 1, wantText: deeptest.LoginAllText, noUsage: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newScripted(t, tt.steps...)
			c.repeat = tt.repeat
			d := newDeep(t, c, nil)
			got, err := d.Render(context.Background(), deeptest.LoginView())
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
			if got.Fast.ActionSpace != Fast(deeptest.LoginView()).ActionSpace {
				t.Error("Fast is not the fast rendering of the view")
			}
			checkAccounting(t, c, got, !tt.noUsage)
			if tt.check != nil {
				tt.check(t, c, got)
			}
		})
	}
}

// TestDeep_FallbackCounted renders twice through a client that answers
// the tagged-text variant: the local count covers the fallback messages
// actually sent, and the re-ask after a bad reply keeps to that variant.
func TestDeep_FallbackCounted(t *testing.T) {
	c := newScripted(t, fakeTag(2), func(ChatRequest) reply { return reply{content: "no idea", fallback: true} }, fakeTag(1))
	d := newDeep(t, c, nil)
	for i, wantCalls := range []int{2, 2} {
		before := c.wantAccounting(t, true)
		got, err := d.Render(context.Background(), deeptest.LoginView())
		if err != nil {
			t.Fatalf("render %d: %v", i, err)
		}
		if got.Coverage != 1 || got.Calls != wantCalls {
			t.Errorf("render %d: coverage %v, calls %d, want 1, %d", i, got.Coverage, got.Calls, wantCalls)
		}
		after := c.wantAccounting(t, true)
		if got.PromptTokensLocal != after.Local-before.Local || got.PromptTokensLocal == 0 {
			t.Errorf("render %d: PromptTokensLocal = %d, want %d", i, got.PromptTokensLocal, after.Local-before.Local)
		}
	}
	reask := c.request(2)
	if reask.Schema != nil || reask.FallbackMessages != nil || !strings.Contains(reask.Messages[0].Content, "SUMMARY:") ||
		!strings.Contains(reask.Messages[3].Content, "exactly the format described above") {
		t.Errorf("re-ask after a bad tagged reply = %+v", reask)
	}
}

// clientFunc adapts a function to ChatClient.
type clientFunc func(ctx context.Context, req ChatRequest) (ChatResponse, error)

func (f clientFunc) Complete(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	return f(ctx, req)
}

// TestDeep_CallCost checks how the render counts a call by what its
// client reports (the contract on ChatClient).
func TestDeep_CallCost(t *testing.T) {
	errDown := errors.New("server down")
	const pause = 5 * time.Millisecond
	tests := []struct {
		name      string
		resp      ChatResponse
		err       error
		wantCalls int
		// wantTime is the LLMTime wanted; -1 means the wall time of the call.
		wantTime time.Duration
	}{
		{"success that says its cost", ChatResponse{Attempts: 2, Elapsed: 3 * time.Millisecond}, nil, 2, 3 * time.Millisecond},
		{"success that says nothing", ChatResponse{}, nil, 1, -1},
		{"failure that says its cost", ChatResponse{Attempts: 4, Elapsed: 7 * time.Millisecond}, errDown, 4, 7 * time.Millisecond},
		{"failure before any HTTP time", ChatResponse{Attempts: 1}, errDown, 1, 0},
		{"failure that says nothing", ChatResponse{}, errDown, 1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeep(t, nil, nil)
			d.MaxParseRetries, d.MaxExtraRounds = -1, -1
			d.Client = clientFunc(func(_ context.Context, req ChatRequest) (ChatResponse, error) {
				time.Sleep(pause)
				resp := tt.resp
				if tt.err == nil {
					resp.Content, resp.Structured = deeptest.Describe(firstUser(req.Messages), nil), true
				}
				return resp, tt.err
			})
			got, err := d.Render(context.Background(), deeptest.LoginView())
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if got.Calls != tt.wantCalls {
				t.Errorf("Calls = %d, want %d", got.Calls, tt.wantCalls)
			}
			if tt.wantTime >= 0 && got.LLMTime != tt.wantTime {
				t.Errorf("LLMTime = %v, want %v", got.LLMTime, tt.wantTime)
			}
			if tt.wantTime < 0 && got.LLMTime < pause {
				t.Errorf("LLMTime = %v, want the wall time of the call (at least %v)", got.LLMTime, pause)
			}
		})
	}
}

func TestDeep_CachedRerun(t *testing.T) {
	dir := t.TempDir()
	cache, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := newScripted(t, say("no idea"), describe(func(id string) bool { return id[0] != 'L' }), describeAll())
	d := newDeep(t, c, cache)
	d.ClassifyPage = true
	c.steps = append(c.steps, say(`{"category": "login"}`))
	first, err := d.Render(context.Background(), deeptest.LoginView())
	if err != nil {
		t.Fatal(err)
	}
	if first.Calls != 4 || first.CacheHits != 0 || first.PageCategory != "login" || first.Coverage != 1 {
		t.Fatalf("first run: calls %d, hits %d, category %q, coverage %v", first.Calls, first.CacheHits, first.PageCategory, first.Coverage)
	}

	// A new client that must not be called, and a new renderer.
	c2 := newScripted(t)
	d2 := newDeep(t, c2, cache)
	d2.ClassifyPage = true
	second, err := d2.Render(context.Background(), deeptest.LoginView())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c2.received()); n != 0 {
		t.Errorf("cached rerun made %d calls, want 0", n)
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
	if first.Text != second.Text || first.Text != deeptest.LoginAllText {
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
	got, err := d.Render(context.Background(), deeptest.LoginView())
	if err != nil {
		t.Fatal(err)
	}
	if got.LLMRan || got.Calls != 0 || got.Rounds != 0 || got.PromptTokensAPI != nil || got.CompletionTokensAPI != nil ||
		got.Coverage != 0 || got.Text != "" || got.Perception != "" || got.LLMTime != 0 {
		t.Errorf("dry run = %+v", got)
	}
	want, err := deeptest.Counter(t).Count(metrics.CL100K, got.Prompt)
	if err != nil {
		t.Fatal(err)
	}
	if got.PromptTokensLocal != want || want == 0 {
		t.Errorf("PromptTokensLocal = %d, want %d", got.PromptTokensLocal, want)
	}
	if !strings.Contains(got.Prompt, PromptTree(deeptest.LoginView())) || !strings.HasPrefix(got.Prompt, "system\nYou label the actions") ||
		!strings.Contains(got.Prompt, "\n\nuser\nPage tree:\n") {
		t.Errorf("Prompt:\n%s", got.Prompt)
	}
	// The dry-run prompt is exactly what a real first round sends.
	c := newScripted(t, describeAll())
	live, err := newDeep(t, c, nil).Render(context.Background(), deeptest.LoginView())
	if err != nil {
		t.Fatal(err)
	}
	if JoinMessages(c.request(0).Messages) != got.Prompt || live.Prompt != got.Prompt {
		t.Error("dry-run prompt differs from the first request sent")
	}
	if live.PromptTokensLocal != got.PromptTokensLocal {
		t.Errorf("live first-round local tokens %d, dry run %d", live.PromptTokensLocal, got.PromptTokensLocal)
	}
}

func TestDeep_Errors(t *testing.T) {
	errDown := errors.New("HTTP 502 Bad Gateway")
	tests := []struct {
		name      string
		steps     []step
		wantCalls int
		wantErr   func(error) bool
	}{
		{"unparseable after retries", []step{say("nope")}, 4, func(err error) bool { return errors.Is(err, ErrUnparseable) }},
		{"client error after its retries", []step{failing(4, errDown)}, 4, func(err error) bool {
			return errors.Is(err, errDown) && strings.HasPrefix(err.Error(), "deep render: ")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newScripted(t, tt.steps...)
			c.repeat = true
			got, err := newDeep(t, c, nil).Render(context.Background(), deeptest.LoginView())
			if err == nil || !tt.wantErr(err) {
				t.Fatalf("err = %v", err)
			}
			if want := c.wantAccounting(t, true); got.Calls != tt.wantCalls || want.Calls != tt.wantCalls || got.LLMTime != want.LLMTime {
				t.Errorf("calls = %d (client %d), llm time %v (client %v), want %d calls", got.Calls, want.Calls, got.LLMTime, want.LLMTime, tt.wantCalls)
			}
			if got.Rounds != 1 || got.Coverage != 0 || got.Text != "" {
				t.Errorf("rounds %d coverage %v text %q", got.Rounds, got.Coverage, got.Text)
			}
		})
	}
}

func TestDeep_ClassifyPage(t *testing.T) {
	c := newScripted(t, describeAll(), say("CATEGORY: Login"))
	d := newDeep(t, c, nil)
	d.ClassifyPage = true
	got, err := d.Render(context.Background(), deeptest.LoginView())
	if err != nil {
		t.Fatal(err)
	}
	if got.PageCategory != "login" || got.Calls != 2 || got.Rounds != 1 {
		t.Errorf("category %q, calls %d, rounds %d", got.PageCategory, got.Calls, got.Rounds)
	}
	if r := c.request(1); r.Schema == nil || r.Schema.Name != "page_category" {
		t.Errorf("classification request schema = %+v", r.Schema)
	}
	checkAccounting(t, c, got, true)
}

func TestDeep_NoIDs(t *testing.T) {
	cp := &dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{URL: "http://x.test/", Title: "Empty", ViewportWidth: 800, ViewportHeight: 600, DocWidth: 800, DocHeight: 600}}
	cp.Nodes = []dom.Node{
		{Kind: dom.ElementNode, Parent: -1, Tag: "html", Block: 1, Visible: true, Rect: dom.Rect{0, 0, 800, 600}},
		{Kind: dom.TextNode, Parent: 0, Text: "Nothing here", Visible: true, Rect: dom.Rect{0, 0, 100, 20}},
	}
	v := dom.NewTree(cp).Select(dom.Options{})
	c := newScripted(t, say(`{"summary":"An empty page.","actions":[]}`))
	got, err := newDeep(t, c, nil).Render(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	if got.Coverage != 1 || got.Calls != 1 || got.Text != "An empty page.\n" {
		t.Errorf("coverage %v calls %d text %q", got.Coverage, got.Calls, got.Text)
	}
	if u := firstUser(c.request(0).Messages); !strings.Contains(u, "The page has no actions") {
		t.Errorf("request:\n%s", u)
	}
}

func TestDeep_Validate(t *testing.T) {
	c := newScripted(t)
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
			d := newDeep(t, c, nil)
			tt.modify(d)
			_, err := d.Render(context.Background(), deeptest.LoginView())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one naming %s", err, tt.want)
			}
		})
	}
}

// TestDeep_StoredCapture renders a real stored corpus capture with a
// client that describes every ID it is asked about.
func TestDeep_StoredCapture(t *testing.T) {
	tree := loadTree(t, filepath.Join("testdata", "login", "capture.json.gz"))
	for _, e := range []int{0, dom.WholePage} {
		v := tree.Select(dom.Options{Expansion: e})
		c := newScripted(t, describeAll())
		got, err := newDeep(t, c, nil).Render(context.Background(), v)
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
		checkAccounting(t, c, got, true)
		// Every ID of the fast space, and only those, is in the tree sent.
		treeIDs := deeptest.TreeIDs(firstUser(c.request(0).Messages))
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
