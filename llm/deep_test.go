package llm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"actionspace/internal/deeptest"
	"actionspace/render"
)

// These tests run the deep renderer over this client against a local
// chat-completions server: what the renderer asks for goes on the wire as
// it should, and what the client does on the wire (retries, the
// structured-output fallback) is what the renderer accounts for. The
// renderer's own logic is tested in render with an in-test client.

// newDeep returns a renderer talking to the fake server through a Client.
func newDeep(t testing.TB, f *fakeLLM) *render.Deep {
	t.Helper()
	c, err := NewClient(Config{BaseURL: f.url(), Model: "test-model", APIKey: "sk-test-secret", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	return &render.Deep{Client: c, Model: "test-model", Counter: deeptest.Counter(t), Logger: quietLogger()}
}

// checkAccounting asserts that the render's figures match the server's
// log: HTTP requests, usage sums, and the local count of the messages the
// server received in the requests it answered.
func checkAccounting(t *testing.T, f *fakeLLM, got render.DeepSpace, usageKnown bool) {
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
		n, err := deeptest.Counter(t).Count(render.LocalEncoding, render.JoinMessages(r.Messages))
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

func TestDeepOverHTTP_Render(t *testing.T) {
	tests := []struct {
		name     string
		steps    []fakeStep
		wantText string
		// wantCalls is the number of HTTP requests; every case takes one
		// round with full coverage.
		wantCalls int
		noUsage   bool
		check     func(t *testing.T, f *fakeLLM, got render.DeepSpace)
	}{
		{
			name:  "complete reply",
			steps: []fakeStep{describeAll()}, wantCalls: 1, wantText: deeptest.LoginAllText,
			check: func(t *testing.T, f *fakeLLM, got render.DeepSpace) {
				r := f.request(0)
				if r.ResponseFormat == nil || r.ResponseFormat.Type != "json_schema" || !r.ResponseFormat.JSONSchema.Strict ||
					r.ResponseFormat.JSONSchema.Name != "action_tags" {
					t.Errorf("response_format = %+v, want a strict json_schema", r.ResponseFormat)
				}
				if r.Temperature == nil || *r.Temperature != 0 || string(r.Raw["temperature"]) != "0" {
					t.Errorf("temperature = %s, want 0", r.Raw["temperature"])
				}
				if r.Seed == nil || *r.Seed != render.DeepSeed {
					t.Errorf("seed = %v, want %d", r.Seed, render.DeepSeed)
				}
				if r.Model != "test-model" {
					t.Errorf("model = %q", r.Model)
				}
				if got.Prompt != render.JoinMessages(r.Messages) {
					t.Errorf("Prompt is not the first request's messages:\n%s", got.Prompt)
				}
			},
		},
		{
			name: "429 then success",
			steps: []fakeStep{fail(429, `{"error":{"message":"rate limited","type":"rate_limit"}}`, map[string]string{"Retry-After": "0"}),
				describeAll()},
			wantCalls: 2, wantText: deeptest.LoginAllText,
		},
		{
			name: "500 twice then success", steps: []fakeStep{fail(500, "oops", nil), fail(503, "", nil), describeAll()},
			wantCalls: 3, wantText: deeptest.LoginAllText,
		},
		{
			name:      "server without structured output",
			steps:     []fakeStep{fail(400, `{"error":{"message":"Unsupported parameter: response_format"}}`, nil), fakeTag()},
			wantCalls: 2,
			wantText:  "A test page.\n# Form\n* I1: Use I1\n# Actions\n* B1: Use B1\n* B2: Use B2\n# Navigation\n* L1: Use L1\n* L2: Use L2\n",
			check: func(t *testing.T, f *fakeLLM, got render.DeepSpace) {
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
			name: "server reports no usage",
			steps: []fakeStep{func(req fakeRequest) fakeReply {
				return fakeReply{content: deeptest.Describe(req.user(), nil)}
			}},
			wantCalls: 1, wantText: deeptest.LoginAllText, noUsage: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, tt.steps...)
			got, err := newDeep(t, f).Render(context.Background(), deeptest.LoginView())
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if got.Calls != tt.wantCalls || got.Rounds != 1 {
				t.Errorf("calls, rounds = %d, %d, want %d, 1", got.Calls, got.Rounds, tt.wantCalls)
			}
			if got.Coverage != 1 || got.HallucinatedIDs != 0 || got.DroppedEntries != 0 {
				t.Errorf("coverage, hallucinated, dropped = %v, %d, %d, want 1, 0, 0", got.Coverage, got.HallucinatedIDs, got.DroppedEntries)
			}
			if got.Text != tt.wantText {
				t.Errorf("Text:\n%s\nwant:\n%s", got.Text, tt.wantText)
			}
			if !got.LLMRan || got.Model != "test-model" || got.CacheHits != 0 {
				t.Errorf("LLMRan, Model, CacheHits = %v, %q, %d", got.LLMRan, got.Model, got.CacheHits)
			}
			checkAccounting(t, f, got, !tt.noUsage)
			if tt.check != nil {
				tt.check(t, f, got)
			}
		})
	}
}

func TestDeepOverHTTP_FallbackIsRemembered(t *testing.T) {
	f := newFakeLLM(t, fail(400, `{"error":{"message":"response_format not supported"}}`, nil), fakeTag(), fakeTag())
	d := newDeep(t, f)
	for i := range 2 {
		got, err := d.Render(context.Background(), deeptest.LoginView())
		if err != nil {
			t.Fatalf("render %d: %v", i, err)
		}
		if got.Coverage != 1 {
			t.Errorf("render %d: coverage %v", i, got.Coverage)
		}
		// The local count covers the fallback messages actually sent:
		// each render's one answered request.
		n, err := deeptest.Counter(t).Count(render.LocalEncoding, render.JoinMessages(f.answered[i].Messages))
		if err != nil {
			t.Fatal(err)
		}
		if got.PromptTokensLocal != n {
			t.Errorf("render %d: PromptTokensLocal = %d, want %d", i, got.PromptTokensLocal, n)
		}
	}
	if n := f.calls(); n != 3 {
		t.Fatalf("server saw %d requests, want 3 (400, fallback, fallback)", n)
	}
	if f.request(2).ResponseFormat != nil {
		t.Error("the client sent response_format again after the server rejected it")
	}
}

func TestDeepOverHTTP_Errors(t *testing.T) {
	tests := []struct {
		name      string
		steps     []fakeStep
		wantCalls int
		wantErr   func(error) bool
	}{
		{"unparseable after retries", []fakeStep{say("nope")}, 4, func(err error) bool { return errors.Is(err, render.ErrUnparseable) }},
		{"server error after retries", []fakeStep{fail(502, "bad gateway", nil)}, 4, func(err error) bool {
			var le *Error
			return errors.As(err, &le) && le.StatusCode == 502 && le.Attempts == 4
		}},
		{"400 without schema problem", []fakeStep{fail(400, `{"error":{"message":"context too long"}}`, nil)}, 2, func(err error) bool {
			var le *Error
			return errors.As(err, &le) && le.StatusCode == 400 && strings.Contains(err.Error(), "context too long")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, tt.steps...)
			f.repeat = true
			got, err := newDeep(t, f).Render(context.Background(), deeptest.LoginView())
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
