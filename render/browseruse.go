package render

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"actionspace/dom"
	"actionspace/oracle"
)

// BrowserUseMaxChars is browser-use's own cut: the text its agent reads
// is cut at this many characters.
const BrowserUseMaxChars = 40000

// browserUseMaxValue caps each attribute value the browser-use format
// prints, in characters ("..." marks a cut).
const browserUseMaxValue = 100

// buTags are the tags that make an element interactive in the browser-use
// format.
var buTags = map[string]bool{"button": true, "input": true, "select": true, "textarea": true, "a": true,
	"details": true, "summary": true, "option": true, "optgroup": true}

// buHandlers are the attributes that make an element interactive.
var buHandlers = []string{"onclick", "onmousedown", "onmouseup", "onkeydown", "onkeyup", "tabindex"}

// buRoles are the roles that make an element interactive.
var buRoles = map[string]bool{"button": true, "link": true, "menuitem": true, "option": true, "radio": true,
	"checkbox": true, "tab": true, "textbox": true, "combobox": true, "slider": true, "spinbutton": true,
	"search": true, "searchbox": true, "row": true, "cell": true, "gridcell": true, "listbox": true}

// buKeepRoles are the roles that keep a descendant's index inside a box
// passer (containment).
var buKeepRoles = map[string]bool{"button": true, "link": true, "checkbox": true, "radio": true, "tab": true,
	"menuitem": true, "option": true}

// buAttrs is the include list of attributes, in no order of its own: a
// line takes them in the element's order.
var buAttrs = map[string]bool{}

func init() {
	for _, a := range strings.Fields(`title type checked id name role value placeholder data-date-format alt
		aria-label aria-expanded data-state aria-checked aria-valuemin aria-valuemax aria-valuenow
		aria-placeholder pattern min max minlength maxlength step accept multiple inputmode autocomplete
		aria-autocomplete list contenteditable`) {
		buAttrs[a] = true
	}
}

// buProtected are the keys whose values are never dropped as repeats.
var buProtected = map[string]bool{"placeholder": true, "value": true, "aria-label": true, "title": true}

// buFormats are the format hints of date and time inputs.
var buFormats = map[string]string{"date": "YYYY-MM-DD", "time": "HH:MM", "datetime-local": "YYYY-MM-DDTHH:MM",
	"month": "YYYY-MM", "week": "YYYY-W##"}

// buUAShadow are the input types Chromium gives a user-agent shadow root
// (an inner text editor), which browser-use prints as an open shadow
// host; textareas have one too.
var buUAShadow = map[string]bool{"": true, "text": true, "password": true, "email": true, "search": true,
	"tel": true, "url": true, "number": true}

// BrowserUseOptions are the settings of the browser-use format.
type BrowserUseOptions struct {
	// Expansion is the window's viewport_expansion (dom.WholePage for
	// the whole page).
	Expansion int
	// Index returns the index an element prints with; nil means its index
	// in the capture (what stands in for browser-use's backend DOM node
	// id: a per-capture key of the element, stable within the page
	// state).
	Index func(node int) int
	// MaxChars cuts the text at this many characters; 0 means
	// BrowserUseMaxChars, negative no cut.
	MaxChars int
}

// BrowserUse renders the browser-use format: the text browser-use's DOM
// serializer gives its agent, rendered from the capture by the rules of
// docs/browser-use.md. With an oracle o, Handled marks the oracle
// elements whose capture element (or a label of it) got an index that
// survived the cut.
func BrowserUse(t *dom.Tree, o *oracle.Oracle, opt BrowserUseOptions) FormatSpace {
	nodes := t.Capture.Nodes
	n := len(nodes)
	index := opt.Index
	if index == nil {
		index = func(i int) int { return i }
	}
	// passer[i]: the nearest box passer among i's ancestors, -1 for none;
	// skip[i]: inside an <svg>.
	passer := make([]int, n)
	skip := make([]bool, n)
	depth := make([]int, n) // the depth i's children print at
	var b strings.Builder
	var sp FormatSpace
	var indexed []int // capture elements with an index, one per handle line
	var closes []int  // per handle, the offset just past its "]"
	line := 0
	win := opt.Expansion
	for i := range nodes {
		nd := &nodes[i]
		passer[i] = -1
		d := 0
		if p := nd.Parent; p >= 0 {
			d = depth[p]
			skip[i] = skip[p] || (nodes[p].Tag == "svg")
			passer[i] = passer[p]
			if buPasser(&nodes[p]) {
				passer[i] = p
			}
		}
		depth[i] = d
		if skip[i] {
			continue
		}
		if nd.Kind == dom.TextNode {
			txt := strings.TrimSpace(nd.Text)
			if utf8.RuneCountInString(txt) <= 1 || !nd.Visible || !t.NodeInWindow(i, win) {
				continue
			}
			writeTabs(&b, d)
			b.WriteString(txt)
			b.WriteByte('\n')
			line++
			continue
		}
		shown := nd.Visible && t.NodeInWindow(i, win)
		idx := shown && buInteractive(nd) && !nd.Occluded() && !buContained(nodes, i, passer[i])
		frame := nd.Tag == "iframe" || nd.Tag == "frame"
		svg := nd.Tag == "svg"
		if !idx && !(shown && (frame || svg)) {
			continue
		}
		writeTabs(&b, d)
		if buShadow(nd) {
			b.WriteString("|SHADOW(open)|")
		}
		if idx {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(index(i)))
			b.WriteByte(']')
			closes = append(closes, b.Len())
			indexed = append(indexed, i)
			sp.HandleLines = append(sp.HandleLines, line)
			sp.HandleNodes = append(sp.HandleNodes, i)
		} else if nd.Tag == "iframe" {
			b.WriteString("|IFRAME|")
		} else if nd.Tag == "frame" {
			b.WriteString("|FRAME|")
		}
		b.WriteByte('<')
		b.WriteString(nd.Tag)
		for _, a := range buAttributes(nd) {
			b.WriteByte(' ')
			b.WriteString(a[0])
			b.WriteByte('=')
			if a[1] == "" {
				b.WriteString("''")
			} else {
				b.WriteString(a[1])
			}
		}
		b.WriteString(" />")
		if svg {
			b.WriteString(" <!-- SVG content collapsed -->")
		}
		b.WriteByte('\n')
		line++
		depth[i] = d + 1
	}
	text := b.String()
	limit := opt.MaxChars
	if limit == 0 {
		limit = BrowserUseMaxChars
	}
	if limit > 0 {
		text = cutChars(text, limit)
	}
	// A handle survives the cut when its "[index]" does.
	kept := 0
	for kept < len(closes) && closes[kept] <= len(text) {
		kept++
	}
	sp.Text = text
	sp.HandleLines, sp.HandleNodes = sp.HandleLines[:kept], sp.HandleNodes[:kept]
	sp.Handles = kept
	if o != nil {
		sp.Handled = make([]bool, len(o.Elements))
		sp.HandledLine = make([]int, len(o.Elements))
		for k := range sp.HandledLine {
			sp.HandledLine[k] = -1
		}
		for k, i := range indexed[:kept] {
			stands := o.StandsFor(nodes, i)
			if len(stands) > 0 {
				sp.Matched++
			}
			for _, e := range stands {
				if !sp.Handled[e] {
					sp.Handled[e], sp.HandledLine[e] = true, sp.HandleLines[k]
				}
			}
		}
	}
	return sp
}

// BrowserUseWrap wraps a browser-use text as its agent receives it: with
// "[Start of page]" before it when the window touches the top of the page
// and "[End of page]" after it when it touches the bottom.
func BrowserUseWrap(t *dom.Tree, e int, text string) string {
	p := t.Capture.Page
	win := t.Window(e)
	var b strings.Builder
	if e == dom.WholePage || win[1] <= 0 {
		b.WriteString("[Start of page]\n")
	}
	b.WriteString(text)
	if e == dom.WholePage || win[1]+win[3] >= p.DocHeight {
		b.WriteString("[End of page]\n")
	}
	return b.String()
}

func writeTabs(b *strings.Builder, d int) {
	for range d {
		b.WriteByte('\t')
	}
}

// cutChars cuts s to its first max characters.
func cutChars(s string, max int) string {
	if len(s) <= max {
		return s
	}
	k := 0
	for i := range s {
		if k == max {
			return s[:i]
		}
		k++
	}
	return s
}

// buPasser reports whether an element passes its box down to its
// descendants (containment): <a>, <button>, and a div or span with role
// button or combobox.
func buPasser(nd *dom.Node) bool {
	switch nd.Tag {
	case "a", "button":
		return true
	case "div", "span":
		r, _ := nd.Attr("role")
		return r == "button" || r == "combobox"
	}
	return false
}

// buInteractive reports whether an element is interactive by the
// browser-use rules: an interactive tag, handler attribute or role, an
// icon-sized box with a naming attribute, or a pointer cursor; never when
// disabled.
func buInteractive(nd *dom.Node) bool {
	if nd.Disabled != "" {
		return false
	}
	if buTags[nd.Tag] {
		return true
	}
	for _, a := range buHandlers {
		if _, ok := nd.Attr(a); ok {
			return true
		}
	}
	if r, ok := nd.Attr("role"); ok && buRoles[strings.TrimSpace(r)] {
		return true
	}
	if nd.Role() == "listbox" {
		return true
	}
	if w, h := nd.Rect[2], nd.Rect[3]; w >= 10 && w <= 50 && h >= 10 && h <= 50 {
		for _, a := range []string{"class", "role", "onclick", "data-action", "aria-label"} {
			if _, ok := nd.Attr(a); ok {
				return true
			}
		}
	}
	for _, s := range nd.Signals {
		if s == "cursor" {
			return true
		}
	}
	return false
}

// buContained reports whether element i loses its index to containment:
// its box lies (99% of its area or more) inside the box of p, the nearest
// box passer above it, and nothing keeps it.
func buContained(nodes []dom.Node, i, p int) bool {
	if p < 0 {
		return false
	}
	nd := &nodes[i]
	r := nd.Rect
	if r[2] <= 0 || r[3] <= 0 || buPasser(nd) {
		return false
	}
	switch nd.Tag {
	case "input", "select", "textarea", "label":
		return false
	}
	if _, ok := nd.Attr("onclick"); ok {
		return false
	}
	if l, ok := nd.Attr("aria-label"); ok && strings.TrimSpace(l) != "" {
		return false
	}
	if buKeepRoles[nd.Role()] {
		return false
	}
	q := nodes[p].Rect
	w := min(r[0]+r[2], q[0]+q[2]) - max(r[0], q[0])
	h := min(r[1]+r[3], q[1]+q[3]) - max(r[1], q[1])
	return w > 0 && h > 0 && w*h >= 0.99*r[2]*r[3]
}

// buShadow reports whether an element prints as an open shadow host: the
// capture walked its open shadow root, or Chromium gives it a user-agent
// shadow root (text-entry inputs and textareas), which browser-use
// prints as open.
func buShadow(nd *dom.Node) bool {
	if nd.ShadowHost == 1 || nd.Tag == "textarea" {
		return true
	}
	if nd.Tag == "input" {
		t, _ := nd.Attr("type")
		return buUAShadow[strings.ToLower(t)]
	}
	return false
}

// buAttributes returns the attributes an element's line prints, in order:
// the include list's in the element's order, the accessibility
// properties after them, and the format hint of date and time inputs,
// with the drops of docs/browser-use.md applied.
func buAttributes(nd *dom.Node) [][2]string {
	var out [][2]string
	password := false
	if nd.Tag == "input" {
		t, _ := nd.Attr("type")
		password = strings.EqualFold(t, "password")
	}
	sawValue := false
	for _, a := range nd.Attrs {
		if !buAttrs[a[0]] {
			continue
		}
		v := a[1]
		if a[0] == "value" {
			if password {
				continue
			}
			sawValue = true
			if nd.Value != "" {
				v = nd.Value
			}
		}
		out = append(out, [2]string{a[0], v})
	}
	if !sawValue && nd.Value != "" && !password {
		out = append(out, [2]string{"value", nd.Value})
	}
	// A property replaces an attribute of its name in place (the
	// serializer keeps one value per key).
	for _, p := range buProperties(nd) {
		replaced := false
		for k := range out {
			if out[k][0] == p[0] {
				out[k][1], replaced = p[1], true
			}
		}
		if !replaced {
			out = append(out, p)
		}
	}
	if nd.Tag == "input" {
		t, _ := nd.Attr("type")
		if f, ok := buFormats[strings.ToLower(t)]; ok {
			out = append(out, [2]string{"format", f})
		}
	}
	// Drops: type equal to the tag, invalid=false, a false required, and
	// a long value shown before under another key.
	seen := map[string]bool{}
	kept := out[:0]
	for _, a := range out {
		a[1] = strings.TrimSpace(a[1])
		if utf8.RuneCountInString(a[1]) > browserUseMaxValue {
			a[1] = string([]rune(a[1])[:browserUseMaxValue]) + "..."
		}
		switch {
		case a[0] == "type" && strings.EqualFold(a[1], nd.Tag):
			continue
		case (a[0] == "invalid" || a[0] == "required") && a[1] == "false":
			continue
		case utf8.RuneCountInString(a[1]) > 5 && seen[a[1]] && !buProtected[a[0]]:
			continue
		}
		seen[a[1]] = true
		kept = append(kept, a)
	}
	return kept
}

// buProperties stands in for the accessibility properties browser-use
// adds after the attributes (checked, selected, expanded, pressed,
// invalid, required, level, valuetext, haspopup), taken from the
// capture: the live checked state, the ARIA attributes that set them,
// the required attribute and a heading's level.
func buProperties(nd *dom.Node) [][2]string {
	var out [][2]string
	attr := func(name string) (string, bool) {
		v, ok := nd.Attr(name)
		return strings.TrimSpace(v), ok
	}
	switch {
	case nd.Checked != nil:
		out = append(out, [2]string{"checked", strconv.FormatBool(*nd.Checked == 1)})
	default:
		if v, ok := attr("aria-checked"); ok {
			out = append(out, [2]string{"checked", v})
		}
	}
	if v, ok := attr("aria-selected"); ok {
		out = append(out, [2]string{"selected", v})
	}
	if v, ok := attr("aria-expanded"); ok {
		out = append(out, [2]string{"expanded", v})
	}
	if v, ok := attr("aria-pressed"); ok {
		out = append(out, [2]string{"pressed", v})
	}
	if v, ok := attr("aria-invalid"); ok {
		out = append(out, [2]string{"invalid", v})
	}
	if _, ok := attr("required"); ok {
		out = append(out, [2]string{"required", "true"})
	} else if v, ok := attr("aria-required"); ok {
		out = append(out, [2]string{"required", v})
	}
	if v, ok := attr("aria-level"); ok {
		out = append(out, [2]string{"level", v})
	} else if len(nd.Tag) == 2 && nd.Tag[0] == 'h' && nd.Tag[1] >= '1' && nd.Tag[1] <= '6' {
		out = append(out, [2]string{"level", nd.Tag[1:]})
	}
	if v, ok := attr("aria-valuetext"); ok {
		out = append(out, [2]string{"valuetext", v})
	}
	if v, ok := attr("aria-haspopup"); ok {
		out = append(out, [2]string{"haspopup", v})
	}
	return out
}
