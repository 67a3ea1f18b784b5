package render

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"actionspace/internal/deeptest"
)

// scriptedClient is a ChatClient that answers each call with the next
// step of its script (the last step repeats when repeat is set). It
// reports what a real client reports — attempts, HTTP time, usage, which
// variant of the request it answered — and keeps a log of it, like a
// server's, that the accounting checks compare the render with. The HTTP
// client itself is tested in package llm.
type scriptedClient struct {
	t      testing.TB
	repeat bool

	mu    sync.Mutex
	steps []step
	// requests are the calls received, in order.
	requests []ChatRequest
	// answered are the messages sent by the calls that got a reply.
	answered [][]Message
	// attempts, elapsed, prompt and completion sum what the calls
	// reported.
	attempts           int
	elapsed            time.Duration
	prompt, completion int64
}

// step answers one call.
type step func(req ChatRequest) reply

// reply is a step's answer.
type reply struct {
	content string
	// fallback answers the request's tagged-text variant, as a client
	// does for a server without structured output.
	fallback bool
	// attempts is the number of HTTP requests the call reports (0: one).
	attempts int
	// noUsage leaves out the usage.
	noUsage bool
	// err fails the call.
	err error
}

var _ ChatClient = (*scriptedClient)(nil)

func newScripted(t testing.TB, steps ...step) *scriptedClient {
	return &scriptedClient{t: t, steps: steps}
}

// attemptTime is the HTTP time the client reports per attempt.
const attemptTime = time.Millisecond

func (c *scriptedClient) Complete(_ context.Context, req ChatRequest) (ChatResponse, error) {
	c.mu.Lock()
	c.requests = append(c.requests, req)
	n := len(c.requests)
	s := deeptest.Step(c.steps, n, c.repeat)
	c.mu.Unlock()
	if s == nil {
		c.t.Errorf("scripted client: unscripted call %d", n)
		return ChatResponse{}, errors.New("unscripted call")
	}
	rep := s(req)
	attempts := max(rep.attempts, 1)
	resp := ChatResponse{Attempts: attempts, Elapsed: time.Duration(attempts) * attemptTime,
		Structured: req.Schema != nil && !rep.fallback}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.attempts += resp.Attempts
	c.elapsed += resp.Elapsed
	if rep.err != nil {
		return resp, rep.err
	}
	resp.Content, resp.FinishReason, resp.Model = rep.content, "stop", "scripted-model"
	sent := req.Sent(resp.Structured)
	if !rep.noUsage {
		p, cmp := deeptest.Usage(len(JoinMessages(sent)), rep.content)
		resp.Usage = &Usage{PromptTokens: p, CompletionTokens: cmp}
		c.prompt += p
		c.completion += cmp
	}
	c.answered = append(c.answered, sent)
	return resp, nil
}

// received returns the calls received so far.
func (c *scriptedClient) received() []ChatRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.requests)
}

// request returns call i, failing the test when it was not received.
func (c *scriptedClient) request(i int) ChatRequest {
	reqs := c.received()
	if i >= len(reqs) {
		c.t.Fatalf("scripted client: call %d not received (%d received)", i, len(reqs))
	}
	return reqs[i]
}

// accounting is the part of a DeepSpace that the client's log explains.
type accounting struct {
	Calls                    int
	APIKnown                 bool
	PromptAPI, CompletionAPI int64
	Local                    int64
	LLMTime                  time.Duration
}

func accountingOf(ds DeepSpace) accounting {
	a := accounting{Calls: ds.Calls, Local: ds.PromptTokensLocal, LLMTime: ds.LLMTime}
	if ds.PromptTokensAPI != nil && ds.CompletionTokensAPI != nil {
		a.APIKnown, a.PromptAPI, a.CompletionAPI = true, *ds.PromptTokensAPI, *ds.CompletionTokensAPI
	}
	return a
}

// wantAccounting is what a render should report after the calls in the
// log: the attempts and time the client reported, its usage sums (when
// every reply carried usage), and the local count of the messages of the
// calls that got a reply.
func (c *scriptedClient) wantAccounting(t *testing.T, usageKnown bool) accounting {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	a := accounting{Calls: c.attempts, LLMTime: c.elapsed}
	if usageKnown {
		a.APIKnown, a.PromptAPI, a.CompletionAPI = true, c.prompt, c.completion
	}
	for _, msgs := range c.answered {
		n, err := deeptest.Counter(t).Count(LocalEncoding, JoinMessages(msgs))
		if err != nil {
			t.Fatal(err)
		}
		a.Local += n
	}
	return a
}

// checkAccounting asserts that the render's figures match the client's
// log.
func checkAccounting(t *testing.T, c *scriptedClient, got DeepSpace, usageKnown bool) {
	t.Helper()
	if got, want := accountingOf(got), c.wantAccounting(t, usageKnown); got != want {
		t.Errorf("accounting = %+v, want %+v (from the client's log)", got, want)
	}
}

// firstUser returns the first user message of msgs (the one with the page
// tree; a re-ask after an unparseable reply appends more).
func firstUser(msgs []Message) string {
	if i := slices.IndexFunc(msgs, func(m Message) bool { return m.Role == RoleUser }); i >= 0 {
		return msgs[i].Content
	}
	return ""
}

// say answers with fixed content.
func say(content string) step {
	return func(ChatRequest) reply { return reply{content: content} }
}

// describe answers a tagging request in JSON, describing the requested
// IDs for which keep returns true ([deeptest.Describe]).
func describe(keep func(id string) bool) step {
	return func(req ChatRequest) reply {
		return reply{content: deeptest.Describe(firstUser(req.Messages), keep)}
	}
}

// describeAll answers every requested ID.
func describeAll() step { return describe(nil) }

// fakeTag answers the tagged-text variant, describing every requested ID
// ([deeptest.Tagged]); attempts counts the request refused with the
// schema.
func fakeTag(attempts int) step {
	return func(req ChatRequest) reply {
		return reply{content: deeptest.Tagged(firstUser(req.Sent(false))), fallback: true, attempts: attempts}
	}
}

// retried reports n attempts for the call s answers, as a client does
// that retried a 429 or a 5xx before it got the reply.
func retried(n int, s step) step {
	return func(req ChatRequest) reply {
		r := s(req)
		r.attempts = n
		return r
	}
}

// failing fails every call after n attempts.
func failing(n int, err error) step {
	return func(ChatRequest) reply { return reply{attempts: n, err: err} }
}
