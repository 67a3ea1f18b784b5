package render

import (
	"encoding/json"
	"strconv"
	"strings"

	"actionspace/dom"
)

// PromptTree renders a view as the compact page tree that deep mode gives
// the model. It uses the view's items, so it has exactly the IDs, window
// and text of the fast rendering of the same view. Layout:
//
//	Page: Log in (https://shop.test/login)
//	main
//	  h1 "Sign in"
//	  form action=/session
//	    [I1] textbox "Email" type=email name=email
//	    [B1] button "Sign in" type=submit
//	    "Forgot your password?"
//	    [L1] link "Sign up" href=/signup
//
// An action line is the ID in brackets, the role (the tag when the element
// has no role), the name in quotes and key attributes (type, name,
// placeholder, value, href, aria-expanded, checked, selected, the options
// of a select box), each value capped at [MaxAttrValue] characters. A
// context line is its text in quotes, prefixed with h1…h6 when it belongs
// to a heading; the dom package has already folded each block's text into
// one line. Containers (landmarks, forms, dialogs, articles, tables, menus
// and the like) holding at least one line open an indented level, labelled
// by aria-label or title. Images are left out: no src is shown and only
// images that are actions appear. Password values never appear. The
// output is deterministic.
func PromptTree(v *dom.View) string {
	t := v.Tree
	nodes := t.Capture.Nodes
	p := t.Capture.Page
	var b strings.Builder
	b.WriteString("Page: ")
	b.WriteString(truncate(p.Title, MaxText))
	if p.URL != "" {
		b.WriteString(" (" + p.URL + ")")
	}
	b.WriteByte('\n')
	if v.Modal {
		b.WriteString("A modal dialog is open: " + modalNote(v) + ".\n")
	}
	var open []int // container nodes currently open, outermost first
	var chain []int
	for _, it := range v.Items {
		chain = containers(t, it.Node, chain[:0])
		k := 0
		for k < len(open) && k < len(chain) && open[k] == chain[k] {
			k++
		}
		open = append(open[:k], chain[k:]...)
		for d := k; d < len(open); d++ {
			indent(&b, d)
			writeContainer(&b, t, open[d])
			b.WriteByte('\n')
		}
		indent(&b, len(open))
		if it.IsAction() {
			writeTreeAction(&b, &nodes[it.Node], it)
		} else {
			if h := heading(t, it.Node); h != "" {
				b.WriteString(h + " ")
			}
			b.WriteString(strconv.Quote(truncate(it.Text, MaxText)))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func indent(b *strings.Builder, depth int) {
	for range depth {
		b.WriteString("  ")
	}
}

// containerTags and containerRoles name the elements that open a level in
// the prompt tree, with the word the tree shows for them.
var (
	containerTags = map[string]string{
		"nav": "navigation", "header": "header", "footer": "footer", "main": "main",
		"aside": "aside", "form": "form", "dialog": "dialog", "fieldset": "fieldset",
		"article": "article", "table": "table", "search": "search",
	}
	containerRoles = map[string]bool{
		"navigation": true, "banner": true, "main": true, "contentinfo": true,
		"complementary": true, "form": true, "search": true, "region": true,
		"dialog": true, "alertdialog": true, "menu": true, "menubar": true,
		"tablist": true, "toolbar": true, "tree": true, "grid": true, "article": true,
	}
)

// containerKind returns the word for a container element, or "".
func containerKind(t *dom.Tree, i int) string {
	nd := &t.Capture.Nodes[i]
	if nd.Kind != dom.ElementNode {
		return ""
	}
	if r := t.Role(i); containerRoles[r] {
		if r == "region" {
			// A region counts only when it is named.
			if _, ok := nd.Attr("aria-label"); !ok {
				return ""
			}
		}
		return r
	}
	if k, ok := containerTags[nd.Tag]; ok {
		return k
	}
	if nd.Tag == "section" {
		if _, ok := nd.Attr("aria-label"); ok {
			return "section"
		}
	}
	return ""
}

// containers appends the container ancestors of node i to dst, outermost
// first.
func containers(t *dom.Tree, i int, dst []int) []int {
	nodes := t.Capture.Nodes
	start := len(dst)
	for j := nodes[i].Parent; j >= 0; j = nodes[j].Parent {
		if containerKind(t, j) != "" {
			dst = append(dst, j)
		}
	}
	for l, r := start, len(dst)-1; l < r; l, r = l+1, r-1 {
		dst[l], dst[r] = dst[r], dst[l]
	}
	return dst
}

func writeContainer(b *strings.Builder, t *dom.Tree, i int) {
	nd := &t.Capture.Nodes[i]
	b.WriteString(containerKind(t, i))
	for _, a := range []string{"aria-label", "title"} {
		if v, ok := nd.Attr(a); ok && strings.TrimSpace(v) != "" {
			b.WriteString(" " + strconv.Quote(truncate(v, MaxAttrValue)))
			break
		}
	}
	if nd.Tag == "form" {
		if v, ok := nd.Attr("action"); ok && v != "" {
			b.WriteString(" action=" + attrQuote(v))
		}
	}
}

// heading returns "h1"…"h6" when a context line's first text node sits in
// a heading element, else "".
func heading(t *dom.Tree, i int) string {
	nodes := t.Capture.Nodes
	for j := nodes[i].Parent; j >= 0; j = nodes[j].Parent {
		nd := &nodes[j]
		if len(nd.Tag) == 2 && nd.Tag[0] == 'h' && nd.Tag[1] >= '1' && nd.Tag[1] <= '6' {
			return nd.Tag
		}
		if nd.Block == 1 {
			return ""
		}
	}
	return ""
}

// treeAttrs are the attributes an action line shows, in this order.
var treeAttrs = []string{"type", "name", "placeholder", "value", "href", "aria-expanded", "checked", "aria-checked", "selected", "aria-selected"}

func writeTreeAction(b *strings.Builder, nd *dom.Node, it dom.Item) {
	b.WriteString("[" + it.ID + "] ")
	if it.Role != "" {
		b.WriteString(it.Role)
	} else {
		b.WriteString(nd.Tag)
	}
	nm := name(nd, it.Text)
	if nm != "" {
		b.WriteString(" " + strconv.Quote(nm))
	}
	for _, a := range treeAttrs {
		v, ok := attrValue(nd, a)
		if !ok {
			continue
		}
		switch a {
		case "type":
			if nd.Tag != "input" && nd.Tag != "button" {
				continue
			}
		case "name", "placeholder", "value":
			if strings.TrimSpace(v) == "" || truncate(v, MaxText) == nm {
				continue
			}
			if a == "value" && nd.Tag == "select" {
				continue // shown with the options below
			}
		case "href":
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(v)), "javascript:") {
				continue
			}
		}
		b.WriteString(" " + a)
		if v == "" && (a == "checked" || a == "selected") {
			continue
		}
		b.WriteString("=" + attrQuote(v))
	}
	if nd.Tag == "select" && len(nd.Options) > 0 {
		b.WriteString(" options=" + strconv.Quote(selectText(nd)))
		if len(nd.Selected) > 0 && nd.Selected[0] < len(nd.Options) {
			b.WriteString(" selected=" + attrQuote(nd.Options[nd.Selected[0]]))
		}
	}
}

// attrQuote caps an attribute value and quotes it unless it is a single
// plain word.
func attrQuote(v string) string {
	v = truncate(v, MaxAttrValue)
	if v != "" && !strings.ContainsAny(v, " \"'\\=") && strconv.CanBackquote(v) {
		return v
	}
	return strconv.Quote(v)
}

// JoinMessages is the text whose tokens deep mode counts locally
// (PromptTokensLocal) and stores as the prompt: each message as its role,
// a newline and its content, messages separated by a blank line:
//
//	system
//	<system content>
//
//	user
//	<user content>
//
// It leaves out what the server adds around messages (chat template
// markers, a few tokens per message) and the JSON schema sent as
// response_format, so the local count is a lower bound of the prompt
// tokens a server reports.
func JoinMessages(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(m.Role)
		b.WriteByte('\n')
		b.WriteString(m.Content)
	}
	return b.String()
}

// tagSchema is the structured-output schema of a tagging reply. It is the
// same for every page (so servers can cache it) and strict-mode
// compatible: every property required, no additional properties.
var tagSchema = JSONSchema{
	Name:   "action_tags",
	Strict: true,
	Schema: json.RawMessage(`{"type":"object","properties":{` +
		`"summary":{"type":"string"},` +
		`"actions":{"type":"array","items":{"type":"object","properties":{` +
		`"id":{"type":"string"},"description":{"type":"string"},"category":{"type":"string"},"params":{"type":"string"}},` +
		`"required":["id","description","category","params"],"additionalProperties":false}}},` +
		`"required":["summary","actions"],"additionalProperties":false}`),
}

// PageCategories are the page types the optional classification call
// chooses from.
var PageCategories = []string{
	"login", "signup", "search results", "product listing", "product detail", "cart",
	"checkout", "article", "news", "documentation", "form", "settings", "dashboard",
	"cookie banner", "home", "error", "other",
}

// categorySchema is the structured-output schema of a classification reply.
func categorySchema() JSONSchema {
	enum, _ := json.Marshal(PageCategories)
	return JSONSchema{
		Name:   "page_category",
		Strict: true,
		Schema: json.RawMessage(`{"type":"object","properties":{"category":{"type":"string","enum":` + string(enum) +
			`}},"required":["category"],"additionalProperties":false}`),
	}
}

const treeLegend = `The page is given as a compact tree. Lines starting with an ID in brackets ([B1], [I1], [L1], ...) are actions: the ID, the element's role, its name in quotes and key attributes. Other lines are containers (main, form, navigation, dialog, ...), headings (h1-h6) and visible text in quotes; indentation shows nesting. ID letters: L link; B button, checkbox, radio, tab or menu item; I text field, select box or slider; O option; F image; M other clickable element.`

const tagSystem = `You label the actions of a web page for a browser agent.

` + treeLegend + `

Give:
- summary: one paragraph (two to four sentences) saying what the page is and what a user can do on it.
- for each requested action:
  - id: the ID exactly as written in the tree (for example B1); only IDs from the tree, each once;
  - description: a short imperative sentence saying what the action does (for example "Submit the login form");
  - category: a short Title Case group name shared by related actions, such as Search, Navigation, Authentication, Cart, Form, Settings, Filter, Pagination, Account, Content, Cookie Consent or Footer;
  - params: the parameters the action takes as "name: type" pairs separated by commas (for example "value: string" for a text field, "option: Small | Medium | Large" for a select box); empty for a plain click.`

const tagJSONFormat = `

Reply with one JSON object and nothing else: {"summary": "...", "actions": [{"id": "B1", "description": "...", "category": "...", "params": ""}]}.`

const tagTextFormat = `

Reply in this plain-text format and nothing else. First a line starting with "SUMMARY:" followed by the summary on one line. Then one line per action: the ID, the category, the description and the params, separated by " | " (leave the params empty for a plain click). Example:
SUMMARY: A login page of an online shop where users sign in or create an account.
I1 | Authentication | Enter the account email address | value: string
B1 | Authentication | Submit the login form |
L1 | Navigation | Open the sign-up page |`

// tagRequest builds a tagging request. ids are the IDs to describe; all
// is true in the first round (every ID of the page), false in an
// incremental round (only the listed IDs, no summary).
func (d *Deep) tagRequest(tree string, ids []string, all bool) ChatRequest {
	var ask, askJSON, askText string
	switch {
	case all && len(ids) == 0:
		ask = "The page has no actions: give only the summary."
		askJSON, askText = ask+` Set "actions" to [].`, ask
	case all:
		ask = "Describe all " + strconv.Itoa(len(ids)) + " actions of the tree."
		askJSON, askText = ask, ask
	default:
		ask = "An earlier answer left some actions out. Describe only these actions (" + strconv.Itoa(len(ids)) + "): " + strings.Join(ids, ", ") + "."
		askJSON = ask + ` Set "summary" to "".`
		askText = ask + ` Leave out the SUMMARY line.`
	}
	user := "Page tree:\n" + tree + "\n"
	return d.request(
		[]Message{{RoleSystem, tagSystem + tagJSONFormat}, {RoleUser, user + askJSON}},
		[]Message{{RoleSystem, tagSystem + tagTextFormat}, {RoleUser, user + askText}},
		&tagSchema)
}

const categorySystem = `You classify web pages for a browser agent.

` + treeLegend

// categoryRequest builds the page classification request.
func (d *Deep) categoryRequest(tree string) ChatRequest {
	ask := "Which one of these page types fits the page best: " + strings.Join(PageCategories, ", ") + "?"
	user := "Page tree:\n" + tree + "\n" + ask
	s := categorySchema()
	return d.request(
		[]Message{{RoleSystem, categorySystem + "\n\n" + `Reply with one JSON object and nothing else: {"category": "..."}.`}, {RoleUser, user}},
		[]Message{{RoleSystem, categorySystem + "\n\n" + `Reply with one line and nothing else: CATEGORY: <page type>`}, {RoleUser, user}},
		&s)
}

// request assembles a request with the deep renderer's sampling settings.
func (d *Deep) request(msgs, fallback []Message, schema *JSONSchema) ChatRequest {
	seed := int64(DeepSeed)
	return ChatRequest{
		Model:            d.Model,
		Messages:         msgs,
		Schema:           schema,
		FallbackMessages: fallback,
		Temperature:      0,
		Seed:             &seed,
		MaxTokens:        d.MaxTokens,
	}
}

// fixRequest returns the request that re-asks after an unparseable reply:
// the conversation that was sent, the reply, and a note saying what was
// wrong. It keeps to the variant the server answered.
func fixRequest(req ChatRequest, resp ChatResponse, problem string) ChatRequest {
	msgs := append([]Message(nil), req.Sent(resp.Structured)...)
	note := "Your reply could not be read (" + problem + "). "
	if resp.Structured && req.Schema != nil {
		note += "Reply again with only the JSON object described above."
	} else {
		note += "Reply again in exactly the format described above."
	}
	msgs = append(msgs, Message{RoleAssistant, resp.Content}, Message{RoleUser, note})
	out := req
	out.Messages = msgs
	out.FallbackMessages = nil
	if !resp.Structured {
		out.Schema = nil
	}
	return out
}
