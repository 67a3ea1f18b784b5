package render

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"actionspace/dom"
)

// Limits of the fast rendering (docs/perception.md, "What a line looks like").
const (
	// MaxAttrValue caps each attribute value, in characters.
	MaxAttrValue = 60
	// MaxText caps an element's text and a context line, in characters.
	MaxText = 120
	// MaxOptions caps the options listed for a select box.
	MaxOptions = 10
)

// keptAttrs are the attributes a line shows, in this order.
var keptAttrs = []string{"type", "name", "role", "placeholder", "value", "aria-label", "title", "alt",
	"href", "src", "aria-expanded", "aria-checked", "aria-selected", "checked", "selected"}

// Action is one actionable element, structured.
type Action struct {
	ID   string
	Role string
	Tag  string
	// Kind is what an agent does with it: "click", "fill" (takes a value
	// parameter) or "select".
	Kind    string
	Name    string
	Locator string
	Rect    dom.Rect
}

// Action kinds.
const (
	KindClick  = "click"
	KindFill   = "fill"
	KindSelect = "select"
)

// Space is a rendered action space.
type Space struct {
	// ActionSpace holds the lines, one per action or context text.
	ActionSpace string
	// Perception wraps ActionSpace with page metadata and scroll markers.
	Perception string
	Actions    []Action
	// Counts is the number of IDs per letter.
	Counts map[byte]int
}

// Fast renders a view as the fast-mode action space.
func Fast(v *dom.View) Space {
	var b strings.Builder
	if strategic(v.Options) {
		writeStrategic(&b, v)
	} else {
		writeLines(&b, v, nil, defaultCaps)
	}
	return space(v, nil, b.String())
}

// caps are the lengths lines cut element texts and attribute values to.
type caps struct{ text, attr int }

// defaultCaps are the unbudgeted rendering's caps.
var defaultCaps = caps{text: MaxText, attr: MaxAttrValue}

// writeLines writes the lines of the view's items that show (all when show
// is nil), in document order, with element texts and attribute values cut
// to c. It returns how many texts and values came out shorter than under
// defaultCaps.
func writeLines(b *strings.Builder, v *dom.View, show []bool, c caps) (cuts int) {
	nodes := v.Tree.Capture.Nodes
	for k, it := range v.Items {
		if show != nil && !show[k] {
			continue
		}
		cuts += writeItem(b, nodes, it, c, false)
	}
	return cuts
}

// writeItem writes one line of a view: a context line, or an action's
// `ID[:]<element>` with its text and values cut to c and, with coarse,
// its position (dom.LayoutCoarse). It returns how many texts and values
// came out shorter than under defaultCaps.
func writeItem(b *strings.Builder, nodes []dom.Node, it dom.Item, c caps, coarse bool) (cuts int) {
	if !it.IsAction() {
		b.WriteString("_[:]")
		b.WriteString(truncate(it.Text, MaxText))
		b.WriteByte('\n')
		return 0
	}
	b.WriteString(it.ID)
	b.WriteString("[:]")
	cuts = writeElement(b, &nodes[it.Node], it.Text, c)
	if coarse {
		b.WriteString(position(&nodes[it.Node]))
	}
	b.WriteByte('\n')
	return cuts
}

// space assembles a Space from its action-space text: the perception
// wrapper, the structured actions and the per-letter counts of the items
// that show (all when show is nil).
func space(v *dom.View, show []bool, text string) Space {
	t := v.Tree
	nodes := t.Capture.Nodes
	sp := Space{ActionSpace: text, Perception: perception(v, text), Counts: v.Counts, Actions: make([]Action, 0, v.Actions())}
	if show != nil {
		sp.Counts = make(map[byte]int, len(dom.Letters))
	}
	for k, it := range v.Items {
		if !it.IsAction() || (show != nil && !show[k]) {
			continue
		}
		nd := &nodes[it.Node]
		if show != nil {
			sp.Counts[it.ID[0]]++
		}
		sp.Actions = append(sp.Actions, Action{
			ID:      it.ID,
			Role:    it.Role,
			Tag:     nd.Tag,
			Kind:    kindOf(nd, it.ID),
			Name:    name(nd, it.Text),
			Locator: t.Locator(it.Node),
			Rect:    nd.Rect,
		})
	}
	return sp
}

// writeElement writes `<tag attrs>text</tag>` with the text and attribute
// values cut to c, and returns how many of them came out shorter than
// under defaultCaps.
func writeElement(b *strings.Builder, nd *dom.Node, text string, c caps) (cuts int) {
	b.WriteByte('<')
	b.WriteString(nd.Tag)
	for _, name := range keptAttrs {
		val, ok := attrValue(nd, name)
		if !ok {
			continue
		}
		b.WriteByte(' ')
		b.WriteString(name)
		if val == "" && (name == "checked" || name == "selected") {
			continue
		}
		b.WriteString(`="`)
		b.WriteString(strings.ReplaceAll(cut(val, c.attr, MaxAttrValue, &cuts), `"`, "&quot;"))
		b.WriteByte('"')
	}
	b.WriteByte('>')
	if nd.Tag == "select" {
		list := selectText(nd) // capped on its own, keeping the count
		if c.text < MaxText {
			if short := selectTextCut(nd, c.text); len(short) < len(list) {
				list = short
				cuts++
			}
		}
		b.WriteString(list)
	} else {
		b.WriteString(cut(text, c.text, MaxText, &cuts))
	}
	b.WriteString("</")
	b.WriteString(nd.Tag)
	b.WriteByte('>')
	return cuts
}

// cut truncates s to max characters when that shortens it below what
// truncating to the default cap gives, and counts it in cuts then.
func cut(s string, max, def int, cuts *int) string {
	out := truncate(s, def)
	if max < def {
		if short := truncate(s, max); len(short) < len(out) {
			*cuts++
			return short
		}
	}
	return out
}

// attrValue returns what a line shows for one kept attribute: the live
// form state where the capture has it, the attribute otherwise.
func attrValue(nd *dom.Node, name string) (string, bool) {
	switch name {
	case "value":
		if nd.Tag == "input" {
			if t, _ := nd.Attr("type"); strings.EqualFold(t, "password") {
				return "", false
			}
		}
		if nd.Value != "" {
			return nd.Value, true
		}
		if nd.Tag == "select" {
			if len(nd.Selected) > 0 && nd.Selected[0] < len(nd.Options) {
				return nd.Options[nd.Selected[0]], true
			}
			return "", false
		}
		if nd.Checked != nil || nd.Tag == "textarea" {
			// checkbox/radio values are static labels; a textarea's value
			// is in nd.Value when it has one.
			v, ok := nd.Attr("value")
			return v, ok && nd.Checked != nil
		}
	case "checked":
		if nd.Checked != nil {
			return "", *nd.Checked == 1
		}
	}
	v, ok := nd.Attr(name)
	return v, ok
}

// selectText lists a select box's options: the first MaxOptions, cut to
// MaxText characters, then the option count when not all of them show.
func selectText(nd *dom.Node) string { return selectTextCut(nd, MaxText) }

// selectTextCut is selectText with the list cut to max characters.
func selectTextCut(nd *dom.Node, max int) string {
	var b strings.Builder
	for i, o := range nd.Options {
		if i == MaxOptions {
			break
		}
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(o)
	}
	whole := truncate(b.String(), math.MaxInt32) // whitespace collapsed
	list := truncate(whole, max)
	if nd.OptionCount > MaxOptions || list != whole {
		list += " | … (" + strconv.Itoa(nd.OptionCount) + " options)"
	}
	return list
}

func kindOf(nd *dom.Node, id string) string {
	switch {
	case nd.Tag == "select" || id[0] == dom.LetterOption:
		return KindSelect
	case id[0] == dom.LetterInput:
		return KindFill
	}
	return KindClick
}

// name is the short human name of an action: its text, or the first
// naming attribute for icon-only and empty controls.
// ActionName is the name an action of element nd shows, given its
// visible text in the view (empty when it has none there): the text, else
// the first of aria-label, title, alt, placeholder, name and value.
func ActionName(nd *dom.Node, text string) string { return name(nd, text) }

func name(nd *dom.Node, text string) string {
	if text != "" {
		return truncate(text, MaxText)
	}
	for _, a := range []string{"aria-label", "title", "alt", "placeholder", "name", "value"} {
		if v, ok := nd.Attr(a); ok && strings.TrimSpace(v) != "" {
			return truncate(strings.Join(strings.Fields(v), " "), MaxText)
		}
	}
	return ""
}

// modalNote says what a view under an open modal dialog shows: the
// dialog alone, or under the salient text policy the dialog and the
// salient text behind it (dom.TextSalient).
func modalNote(v *dom.View) string {
	if v.Options.Text == dom.TextSalient {
		return "only its content has IDs; the salient text behind it is shown"
	}
	return "only its content is shown"
}

// truncate collapses whitespace and cuts s to max characters, marking the
// cut with "...".
func truncate(s string, max int) string {
	if strings.ContainsAny(s, "\n\t\r") || strings.Contains(s, "  ") {
		s = strings.Join(strings.Fields(s), " ")
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "..."
}

// perception wraps the action space (layout documented in docs/perception.md).
func perception(v *dom.View, space string) string {
	p := v.Tree.Capture.Page
	var b strings.Builder
	b.WriteString("[Start of page]\n")
	b.WriteString("URL: " + p.URL + "\n")
	b.WriteString("Title: " + truncate(p.Title, MaxText) + "\n")
	b.WriteString("Captured: " + time.UnixMilli(int64(p.Time)).UTC().Format(time.RFC3339) + "\n")
	b.WriteString("Viewport: " + strconv.Itoa(int(p.ViewportWidth)) + "x" + strconv.Itoa(int(p.ViewportHeight)) +
		", expansion " + strconv.Itoa(v.Options.Expansion) + ", text " + string(v.Options.Text) + strategyNote(v.Options) + "\n")
	if v.Modal {
		b.WriteString("Modal dialog open: " + modalNote(v) + ".\n")
	}
	if line := v.RemovedLine(); line != "" {
		b.WriteString(line + "\n")
	}
	if v.PixelsAbove > 0 {
		b.WriteString("... " + strconv.Itoa(v.PixelsAbove) + " pixels above - scroll up to see more ...\n")
	}
	b.WriteString(space)
	if v.PixelsBelow > 0 {
		b.WriteString("... " + strconv.Itoa(v.PixelsBelow) + " pixels below - scroll down to see more ...\n")
	}
	b.WriteString("[End of page]\n")
	return b.String()
}
