package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/render"
)

const testKey = "sk-test-0123456789abcdef"

// testSchema is a structured-output schema for requests that carry one.
var testSchema = render.JSONSchema{Name: "action_tags", Strict: true,
	Schema: json.RawMessage(`{"type":"object","properties":{"summary":{"type":"string"}},"required":["summary"],"additionalProperties":false}`)}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newTestClient(t *testing.T, f *fakeLLM, modify func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: f.url(), Model: "test-model", APIKey: testKey, Logger: quietLogger()}
	if modify != nil {
		modify(&cfg)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	return c
}

func simpleRequest() render.ChatRequest {
	seed := int64(render.DeepSeed)
	return render.ChatRequest{Messages: []render.Message{{Role: render.RoleSystem, Content: "sys"}, {Role: render.RoleUser, Content: "hi"}}, Seed: &seed}
}

func TestClient_Complete(t *testing.T) {
	tests := []struct {
		name         string
		steps        []fakeStep
		config       func(*Config)
		req          func() render.ChatRequest
		wantCalls    int
		wantContent  string
		wantUsage    *render.Usage
		wantStatus   int // of the Error, when one is expected
		wantErrPart  string
		wantDuration time.Duration // upper bound
	}{
		{
			name: "success with usage", steps: []fakeStep{func(fakeRequest) fakeReply {
				return fakeReply{content: "hello", usage: &render.Usage{PromptTokens: 11, CompletionTokens: 2}}
			}},
			wantCalls: 1, wantContent: "hello", wantUsage: &render.Usage{PromptTokens: 11, CompletionTokens: 2},
		},
		{
			name: "usage omitted", steps: []fakeStep{func(fakeRequest) fakeReply { return fakeReply{content: "x"} }},
			wantCalls: 1, wantContent: "x",
		},
		{
			name: "plain-text 429 then success",
			steps: []fakeStep{fail(429, "Too Many Requests", map[string]string{"Content-Type": "text/plain", "Retry-After": "0"}),
				func(fakeRequest) fakeReply { return fakeReply{content: "ok"} }},
			wantCalls: 2, wantContent: "ok",
		},
		{
			name:      "Retry-After is capped",
			steps:     []fakeStep{fail(503, "busy", map[string]string{"Retry-After": "3600"}), func(fakeRequest) fakeReply { return fakeReply{content: "ok"} }},
			config:    func(c *Config) { c.MaxRetryWait = 20 * time.Millisecond },
			wantCalls: 2, wantContent: "ok", wantDuration: 2 * time.Second,
		},
		{
			name:      "attempt timeout is retried",
			steps:     []fakeStep{func(fakeRequest) fakeReply { time.Sleep(300 * time.Millisecond); return fakeReply{content: "late"} }, func(fakeRequest) fakeReply { return fakeReply{content: "ok"} }},
			config:    func(c *Config) { c.Timeout = 50 * time.Millisecond },
			wantCalls: 2, wantContent: "ok",
		},
		{
			name:      "retries run out",
			steps:     []fakeStep{fail(500, `{"error":{"message":"boom"}}`, nil), fail(500, "", nil), fail(500, "", nil)},
			config:    func(c *Config) { c.MaxRetries = 2 },
			wantCalls: 3, wantStatus: 500,
		},
		{
			name:      "no retries",
			steps:     []fakeStep{fail(500, "boom", nil)},
			config:    func(c *Config) { c.MaxRetries = -1 },
			wantCalls: 1, wantStatus: 500, wantErrPart: "boom",
		},
		{
			name:      "404 is not retried",
			steps:     []fakeStep{fail(404, `{"error":{"message":"model not found"}}`, nil)},
			wantCalls: 1, wantStatus: 404, wantErrPart: "model not found",
		},
		{
			name: "vLLM-style 400 for the schema falls back",
			steps: []fakeStep{fail(400, `{"object":"error","message":"guided decoding is not enabled","type":"BadRequestError","code":400}`, nil),
				func(r fakeRequest) fakeReply { return fakeReply{content: r.Messages[0].Content} }},
			req: func() render.ChatRequest {
				r := simpleRequest()
				r.Schema = &testSchema
				r.FallbackMessages = []render.Message{{Role: render.RoleSystem, Content: "fallback sys"}, {Role: render.RoleUser, Content: "hi"}}
				return r
			},
			wantCalls: 2, wantContent: "fallback sys",
		},
		{
			name: "401 error does not contain the key",
			steps: []fakeStep{func(r fakeRequest) fakeReply {
				return fakeReply{status: 401, body: `{"error":{"message":"Incorrect API key provided: ` + strings.TrimPrefix(r.Auth, "Bearer ") + `"}}`}
			}},
			wantCalls: 1, wantStatus: 401, wantErrPart: "Incorrect API key provided: [redacted]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, tt.steps...)
			c := newTestClient(t, f, tt.config)
			req := simpleRequest()
			if tt.req != nil {
				req = tt.req()
			}
			start := time.Now()
			resp, err := c.Complete(context.Background(), req)
			took := time.Since(start)
			if tt.wantDuration > 0 && took > tt.wantDuration {
				t.Errorf("took %v, want at most %v", took, tt.wantDuration)
			}
			if f.calls() != tt.wantCalls {
				t.Errorf("server saw %d requests, want %d", f.calls(), tt.wantCalls)
			}
			if tt.wantStatus != 0 {
				var le *Error
				if !errors.As(err, &le) {
					t.Fatalf("err = %v, want an *Error", err)
				}
				if le.StatusCode != tt.wantStatus || le.Attempts != tt.wantCalls {
					t.Errorf("Error status %d attempts %d, want %d %d", le.StatusCode, le.Attempts, tt.wantStatus, tt.wantCalls)
				}
				// The renderer accounts for a failed call from its response.
				if resp.Attempts != le.Attempts || resp.Elapsed != le.Elapsed || resp.Elapsed <= 0 {
					t.Errorf("failed call's response says %d attempts in %v, its error %d in %v", resp.Attempts, resp.Elapsed, le.Attempts, le.Elapsed)
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("error message holds the API key: %v", err)
				}
				if tt.wantErrPart != "" && !strings.Contains(err.Error(), tt.wantErrPart) {
					t.Errorf("error %q does not contain %q", err, tt.wantErrPart)
				}
				if errors.Unwrap(err) != nil {
					t.Errorf("an API error unwraps to %v; it must not keep the SDK error (it holds the request headers)", errors.Unwrap(err))
				}
				return
			}
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if resp.Content != tt.wantContent || resp.Attempts != tt.wantCalls {
				t.Errorf("content %q attempts %d, want %q %d", resp.Content, resp.Attempts, tt.wantContent, tt.wantCalls)
			}
			if (resp.Usage == nil) != (tt.wantUsage == nil) || (resp.Usage != nil && *resp.Usage != *tt.wantUsage) {
				t.Errorf("usage %+v, want %+v", resp.Usage, tt.wantUsage)
			}
			if got := f.request(0).Auth; got != "Bearer "+testKey {
				t.Errorf("Authorization = %q", got)
			}
		})
	}
}

func TestClient_NoKey(t *testing.T) {
	f := newFakeLLM(t, func(fakeRequest) fakeReply { return fakeReply{content: "ok"} })
	c := newTestClient(t, f, func(c *Config) { c.APIKey = "" })
	if _, err := c.Complete(context.Background(), simpleRequest()); err != nil {
		t.Fatal(err)
	}
	if a := f.request(0).Auth; a != "" {
		t.Errorf("Authorization = %q, want none without a key", a)
	}
}

func TestClient_TransportError(t *testing.T) {
	f := newFakeLLM(t)
	url := f.url()
	f.srv.Close()
	c, err := NewClient(Config{BaseURL: url, Model: "m", APIKey: testKey, MaxRetries: 2, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	_, err = c.Complete(context.Background(), simpleRequest())
	var le *Error
	if !errors.As(err, &le) || le.StatusCode != 0 || le.Attempts != 3 || errors.Unwrap(err) == nil {
		t.Fatalf("err = %v (%+v), want a transport Error after 3 attempts", err, le)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error holds the key: %v", err)
	}
}

func TestClient_ContextCanceledDuringBackoff(t *testing.T) {
	f := newFakeLLM(t, fail(503, "busy", map[string]string{"Retry-After": "10"}))
	c := newTestClient(t, f, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Complete(ctx, simpleRequest())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v after the context ended", d)
	}
}

func TestClient_Concurrency(t *testing.T) {
	f := newFakeLLM(t, func(fakeRequest) fakeReply { time.Sleep(20 * time.Millisecond); return fakeReply{content: "ok"} })
	f.repeat = true
	c := newTestClient(t, f, func(c *Config) { c.Concurrency = 2 })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.Complete(context.Background(), simpleRequest()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if f.maxFlight != 2 {
		t.Errorf("max requests in flight = %d, want 2", f.maxFlight)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{nil, 0, false},
		{map[string]string{"Retry-After": "2"}, 2 * time.Second, true},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{map[string]string{"Retry-After": now.Add(3 * time.Second).Format(http.TimeFormat)}, 3 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{map[string]string{"Retry-After": "soon"}, 0, false},
		{map[string]string{"Retry-After": "-1"}, 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		got, ok := retryAfter(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("retryAfter(%v) = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

func TestConfig_Validate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "BaseURL"},
		{Config{BaseURL: "localhost:8000"}, "BaseURL"},
		{Config{BaseURL: "http://x", Timeout: -1}, "Timeout"},
		{Config{BaseURL: "http://x", Concurrency: -1}, "Concurrency"},
		{Config{BaseURL: "http://x", MaxRetryWait: -1}, "MaxRetryWait"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want an error naming %s", tt.cfg, err, tt.want)
		}
	}
	if err := DefaultConfig().Validate(); err == nil {
		t.Error("the default config has no BaseURL but validates")
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://u:p@host/v1": "http://[redacted]@host/v1",
		"http://host/v1":     "http://host/v1",
		"http://host/a@b":    "http://host/a@b",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
