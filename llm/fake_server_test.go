package llm

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"actionspace/internal/deeptest"
	"actionspace/render"
)

// fakeLLM is a local OpenAI-compatible chat-completions server scripted
// per test: each request is answered by the next step of the script (the
// last step repeats when repeat is set). It records every request it
// receives and the usage it reports, like a server's own log.
type fakeLLM struct {
	t      testing.TB
	srv    *httptest.Server
	repeat bool

	mu       sync.Mutex
	steps    []fakeStep
	requests []fakeRequest
	// answered are the requests that got a completion (status 200).
	answered []fakeRequest
	// prompt and completion sum the usage the server reported.
	prompt, completion  int64
	inFlight, maxFlight int
}

// fakeRequest is a request as the server decoded it.
type fakeRequest struct {
	Raw            map[string]json.RawMessage `json:"-"`
	Model          string                     `json:"model"`
	Messages       []render.Message           `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema struct {
			Name   string          `json:"name"`
			Strict bool            `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	Temperature *float64 `json:"temperature"`
	Seed        *int64   `json:"seed"`
	Auth        string   `json:"-"`
}

// user returns the first user message (the one with the page tree; a
// re-ask after an unparseable reply appends more).
func (r fakeRequest) user() string {
	for i := range r.Messages {
		if r.Messages[i].Role == render.RoleUser {
			return r.Messages[i].Content
		}
	}
	return ""
}

// fakeStep answers one request. It returns the status, the headers, the
// body, and the usage it reports (nil: none), for the server's log.
type fakeStep func(req fakeRequest) fakeReply

type fakeReply struct {
	status  int
	header  map[string]string
	body    string
	content string // used when body is empty and status is 200
	usage   *render.Usage
}

func newFakeLLM(t testing.TB, steps ...fakeStep) *fakeLLM {
	f := &fakeLLM{t: t, steps: steps}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLLM) url() string { return f.srv.URL + "/v1" }

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		f.t.Errorf("fake llm: unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	data, _ := io.ReadAll(r.Body)
	var req fakeRequest
	if err := json.Unmarshal(data, &req); err != nil {
		f.t.Errorf("fake llm: decode request: %v", err)
	}
	_ = json.Unmarshal(data, &req.Raw)
	req.Auth = r.Header.Get("Authorization")

	f.mu.Lock()
	f.requests = append(f.requests, req)
	n := len(f.requests)
	step := deeptest.Step(f.steps, n, f.repeat)
	f.inFlight++
	f.maxFlight = max(f.maxFlight, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if step == nil {
		f.t.Errorf("fake llm: unscripted request %d", n)
		http.Error(w, `{"error":{"message":"unscripted"}}`, http.StatusInternalServerError)
		return
	}
	rep := step(req)
	if rep.status == 0 {
		rep.status = http.StatusOK
	}
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	body := rep.body
	if body == "" && rep.status == http.StatusOK {
		body = completionJSON(rep.content, rep.usage)
	}
	if rep.status == http.StatusOK {
		f.mu.Lock()
		f.answered = append(f.answered, req)
		if rep.usage != nil {
			f.prompt += rep.usage.PromptTokens
			f.completion += rep.usage.CompletionTokens
		}
		f.mu.Unlock()
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.status)
	io.WriteString(w, body)
}

// calls returns the number of requests received.
func (f *fakeLLM) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeLLM) request(i int) fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.requests) {
		f.t.Fatalf("fake llm: request %d not received (%d received)", i, len(f.requests))
	}
	return f.requests[i]
}

// completionJSON is a chat.completion body.
func completionJSON(content string, u *render.Usage) string {
	body := map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1767225600, "model": "fake-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
	}
	if u != nil {
		body["usage"] = map[string]any{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens,
			"total_tokens": u.PromptTokens + u.CompletionTokens}
	}
	data, _ := json.Marshal(body)
	return string(data)
}

// usageFor is the usage the fake reports (see [deeptest.Usage]).
func usageFor(req fakeRequest, content string) *render.Usage {
	p, c := deeptest.Usage(len(render.JoinMessages(req.Messages)), content)
	return &render.Usage{PromptTokens: p, CompletionTokens: c}
}

// say answers with fixed content and usage.
func say(content string) fakeStep {
	return func(req fakeRequest) fakeReply {
		return fakeReply{content: content, usage: usageFor(req, content)}
	}
}

// fail answers with an HTTP error.
func fail(status int, body string, header map[string]string) fakeStep {
	return func(fakeRequest) fakeReply {
		return fakeReply{status: status, body: body, header: header}
	}
}

// describeAll answers a tagging request in JSON, describing every
// requested ID ([deeptest.Describe]).
func describeAll() fakeStep {
	return func(req fakeRequest) fakeReply {
		content := deeptest.Describe(req.user(), nil)
		return fakeReply{content: content, usage: usageFor(req, content)}
	}
}

// fakeTag is a tagged-text answer to every requested ID
// ([deeptest.Tagged]).
func fakeTag() fakeStep {
	return func(req fakeRequest) fakeReply {
		content := deeptest.Tagged(req.user())
		return fakeReply{content: content, usage: usageFor(req, content)}
	}
}
