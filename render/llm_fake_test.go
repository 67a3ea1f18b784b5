package render

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
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
	Messages       []Message                  `json:"messages"`
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
		if r.Messages[i].Role == RoleUser {
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
	usage   *Usage
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
	var step fakeStep
	switch {
	case n <= len(f.steps):
		step = f.steps[n-1]
	case f.repeat && len(f.steps) > 0:
		step = f.steps[len(f.steps)-1]
	}
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
func completionJSON(content string, u *Usage) string {
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

// usageFor is the usage the fake reports: a rough count of the request's
// characters and the reply's, distinct per request.
func usageFor(req fakeRequest, content string) *Usage {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return &Usage{PromptTokens: int64(n/4 + 7), CompletionTokens: int64(len(content)/4 + 1)}
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

var (
	treeID      = regexp.MustCompile(`(?m)^\s*\[([A-Z][0-9]+)\] `)
	onlyTheseRe = regexp.MustCompile(`Describe only these actions \(\d+\): ([A-Z0-9, ]+)\.`)
)

// requestedIDs returns the IDs a tagging request asks for: the listed
// missing IDs in an incremental round, every ID of the tree otherwise.
func requestedIDs(req fakeRequest) []string {
	u := req.user()
	if m := onlyTheseRe.FindStringSubmatch(u); m != nil {
		return strings.Split(m[1], ", ")
	}
	var ids []string
	for _, m := range treeID.FindAllStringSubmatch(u, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// describe answers a tagging request in JSON (or tagged text when the
// request carried no response_format and text is set), describing the
// requested IDs for which keep returns true.
func describe(keep func(id string) bool) fakeStep {
	return func(req fakeRequest) fakeReply {
		type entry struct {
			ID          string `json:"id"`
			Description string `json:"description"`
			Category    string `json:"category"`
			Params      string `json:"params"`
		}
		reply := struct {
			Summary string  `json:"summary"`
			Actions []entry `json:"actions"`
		}{Actions: []entry{}}
		if onlyTheseRe.FindStringSubmatch(req.user()) == nil {
			reply.Summary = "A test page."
		}
		for _, id := range requestedIDs(req) {
			if keep != nil && !keep(id) {
				continue
			}
			e := entry{ID: id, Description: "Use " + id, Category: categoryOf(id)}
			if id[0] == 'I' {
				e.Params = "value: string"
			}
			reply.Actions = append(reply.Actions, e)
		}
		data, _ := json.Marshal(reply)
		return fakeReply{content: string(data), usage: usageFor(req, string(data))}
	}
}

func categoryOf(id string) string {
	switch id[0] {
	case 'L':
		return "Navigation"
	case 'I':
		return "Form"
	}
	return "Actions"
}

// describeAll answers every requested ID.
func describeAll() fakeStep { return describe(nil) }

// fakeTag is a tagged-text answer to every requested ID.
func fakeTag() fakeStep {
	return func(req fakeRequest) fakeReply {
		var b strings.Builder
		b.WriteString("SUMMARY: A test page.\n")
		for _, id := range requestedIDs(req) {
			fmt.Fprintf(&b, "%s | %s | Use %s |\n", id, categoryOf(id), id)
		}
		return fakeReply{content: b.String(), usage: usageFor(req, b.String())}
	}
}
