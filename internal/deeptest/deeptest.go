// Package deeptest holds the fixtures that the deep renderer's tests (in
// render, against an in-test chat client) and the LLM client's tests (in
// llm, against a local chat-completions server) share: a small page with
// five IDs, and the replies of a scripted model that describes the IDs a
// prompt asks for, with the reading of a chat-completions request and the
// writing of its reply for the local servers that give them.
//
// It works on prompt and reply text (and their HTTP form) only and
// imports neither render nor llm, so that render's own tests can use it
// without an import cycle.
package deeptest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"actionspace/dom"
	"actionspace/metrics"
)

var counter = sync.OnceValues(func() (*metrics.Counter, error) { return metrics.NewCounter() })

// Counter returns a token counter with every supported encoding, loaded
// once per test binary.
func Counter(tb testing.TB) *metrics.Counter {
	tb.Helper()
	c, err := counter()
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// Step returns the step of a script that answers request n (1-based): the
// nth, or the last one when repeat is set and the script has run out; the
// zero value when there is none.
func Step[S any](script []S, n int, repeat bool) S {
	var s S
	switch {
	case n <= len(script):
		s = script[n-1]
	case repeat && len(script) > 0:
		s = script[len(script)-1]
	}
	return s
}

// LoginView is a small synthetic login page with five IDs, in document
// order I1 B1 B2 L1 L2.
func LoginView() *dom.View {
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

// LoginAllText is the deep text of LoginView when [Describe] describes
// every ID.
const LoginAllText = `A test page.
# Form
* I1: Use I1 (value: string)
# Actions
* B1: Use B1
* B2: Use B2
# Navigation
* L1: Use L1
* L2: Use L2
`

var (
	treeID      = regexp.MustCompile(`(?m)^\s*\[([A-Z][0-9]+)\] `)
	onlyTheseRe = regexp.MustCompile(`Describe only these actions \(\d+\): ([A-Z0-9, ]+)\.`)
)

// TreeIDs returns the IDs of the page tree in a prompt, in order.
func TreeIDs(prompt string) []string {
	var ids []string
	for _, m := range treeID.FindAllStringSubmatch(prompt, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// RequestedIDs returns the IDs a tagging prompt (its first user message)
// asks for: the listed missing IDs in an incremental round, every ID of
// the tree otherwise.
func RequestedIDs(prompt string) []string {
	if m := onlyTheseRe.FindStringSubmatch(prompt); m != nil {
		return strings.Split(m[1], ", ")
	}
	return TreeIDs(prompt)
}

// Describe is a JSON tagging reply to prompt: the summary in a first
// round, and "Use <ID>" with a category for each requested ID for which
// keep returns true (every one when keep is nil).
func Describe(prompt string, keep func(id string) bool) string {
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
	if onlyTheseRe.FindStringSubmatch(prompt) == nil {
		reply.Summary = "A test page."
	}
	for _, id := range RequestedIDs(prompt) {
		if keep != nil && !keep(id) {
			continue
		}
		e := entry{ID: id, Description: "Use " + id, Category: categoryOf(id)}
		if id[0] == 'I' {
			e.Params = "value: string"
		}
		reply.Actions = append(reply.Actions, e)
	}
	data, _ := json.Marshal(reply) // strings only: it cannot fail
	return string(data)
}

// Tagged is a tagged-text reply (the format without structured output)
// describing every ID prompt asks for.
func Tagged(prompt string) string {
	var b strings.Builder
	b.WriteString("SUMMARY: A test page.\n")
	for _, id := range RequestedIDs(prompt) {
		fmt.Fprintf(&b, "%s | %s | Use %s |\n", id, categoryOf(id), id)
	}
	return b.String()
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

// Usage is the usage a scripted model reports for a reply to a prompt of
// promptBytes bytes: a rough token count of each, distinct per request, so
// that sums of it check the accounting.
func Usage(promptBytes int, reply string) (prompt, completion int64) {
	return int64(promptBytes/4 + 7), int64(len(reply)/4 + 1)
}

// ReadChat reads a chat-completions request as a scripted server sees it:
// the contents of its messages, in order. When r is not such a request,
// it answers 400 Bad Request and returns false.
func ReadChat(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	var req struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return nil, false
	}
	msgs := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = m.Content
	}
	return msgs, true
}

// WriteReply answers a chat-completions request with content as the
// model's message, and the usage given.
func WriteReply(w http.ResponseWriter, content string, prompt, completion int64) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"test-model","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":%q}}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
		content, prompt, completion, prompt+completion)
}
