package dom

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// SalientKind is the rule that made a piece of text salient.
type SalientKind string

// The salient-text rules (docs/oracles.md, "Salient text"), in the order
// Salient applies them to an element.
const (
	// SalientHeading: the text of an h1–h6 element or of role=heading.
	SalientHeading SalientKind = "heading"
	// SalientAlert: the text of a role=alert region.
	SalientAlert SalientKind = "alert"
	// SalientStatus: the text of a role=status region.
	SalientStatus SalientKind = "status"
	// SalientLive: the text of an aria-live region (any value but "off")
	// that is neither an alert nor a status.
	SalientLive SalientKind = "live"
	// SalientError: the text of an element that an invalid control
	// (aria-invalid, any value but "false") names in aria-errormessage or
	// aria-describedby.
	SalientError SalientKind = "error"
	// SalientPrice: a number with a currency sign or an ISO currency code
	// before or after it, inside one text node.
	SalientPrice SalientKind = "price"
)

// Bounds of Salient: the page decides how many salient items there are
// and how long their texts are.
const (
	// MaxSalient is the most items Salient returns; past it the rest are
	// left out and SalientTexts.Capped is set.
	MaxSalient = 1000
	// MaxSalientChars is the most characters (runes) of text an item
	// keeps; a longer item keeps its first text runs up to it (the last
	// one cut) and SalientTexts.Capped is set.
	MaxSalientChars = 300
)

// SalientText is one piece of text an agent needs and that the capture
// can find by rule: a price, an alert, a status or live region, an error
// message tied to an invalid control, a heading.
type SalientText struct {
	// Kind is the rule that found it.
	Kind SalientKind
	// Node is the element it is the text of, or, for a price, the text
	// node it was found in.
	Node int
	// Text is the item's text: its Parts joined by single spaces.
	Text string
	// Parts are the text runs that make it up, in document order: each
	// visible text node of the element, its words joined by single spaces
	// (one part, the match, for a price). An item appears in a format's
	// text when every part does (see SalientText.In).
	Parts []string
	// Texts are the capture's text nodes the parts come from; the item
	// meets a window when one of them does (see Tree.NodeInWindow).
	Texts []int
}

// SalientTexts is what Salient found on a page.
type SalientTexts struct {
	// Items are the salient items, in document order of their elements
	// (an element's own items before its descendants' prices).
	Items []SalientText
	// Capped is set when MaxSalient or MaxSalientChars left text out.
	Capped bool
}

// currencySigns and currencyCodes are what makes a number a price.
const (
	currencySigns = `[$€£¥₹₩₽₺₫₱₪฿¢]`
	currencyCodes = `(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|INR|CNY|RMB|SEK|NOK|DKK|PLN|CZK|HUF|BRL|MXN|ZAR|KRW|RUB|TRY|HKD|SGD|ILS|AED|SAR|THB|IDR|MYR|PHP|VND|UAH|RON)`
	priceNumber   = `\d{1,3}(?:[,.' \x{00A0}\x{202F}]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`
	priceSpace    = `[ \x{00A0}\x{202F}]?`
)

// priceRE finds a number with a currency sign or code before or after
// it. Longest-match semantics keep "1,234.56" whole.
var priceRE = func() *regexp.Regexp {
	re := regexp.MustCompile(`(?:(?:[A-Z]{1,2})?` + currencySigns + `|\b` + currencyCodes + `)` + priceSpace + `-?(?:` + priceNumber + `)` +
		`|(?:` + priceNumber + `)` + priceSpace + `(?:` + currencySigns + `|` + currencyCodes + `\b)`)
	re.Longest()
	return re
}()

// Salient finds the salient text of a captured page by rule: headings
// (h1–h6, role=heading); role=alert, role=status and aria-live regions
// (a region inside another region is part of it, not an item of its
// own); the error messages of invalid controls (the elements an
// aria-invalid control names in aria-errormessage or aria-describedby,
// by id, each once); and numbers with a currency sign or code (see
// SalientPrice). Only visible text counts: an element whose visible text
// is empty is no item. It is what the salient_recall measure scores and
// what a salient text policy keeps; it reads only the capture, so stored
// pages give the same items offline.
func Salient(t *Tree) SalientTexts {
	nodes := t.Capture.Nodes
	var out SalientTexts
	add := func(it SalientText) bool {
		if len(out.Items) >= MaxSalient {
			out.Capped = true
			return false
		}
		out.Items = append(out.Items, it)
		return true
	}
	errorsOf := t.errorMessages()
	// regionEnd is the last node of the region being walked (-1: none).
	regionEnd := -1
	for i := range nodes {
		nd := &nodes[i]
		if nd.Kind == TextNode {
			if !nd.Visible {
				continue
			}
			for _, m := range priceRE.FindAllString(nd.Text, -1) {
				m = strings.Join(strings.Fields(m), " ")
				if !add(SalientText{Kind: SalientPrice, Node: i, Text: m, Parts: []string{m}, Texts: []int{i}}) {
					return out
				}
			}
			continue
		}
		if i > regionEnd {
			regionEnd = -1
		}
		var kinds []SalientKind
		if nd.Tag == "h1" || nd.Tag == "h2" || nd.Tag == "h3" || nd.Tag == "h4" || nd.Tag == "h5" || nd.Tag == "h6" || t.Role(i) == "heading" {
			kinds = append(kinds, SalientHeading)
		}
		if k := regionKind(t.Role(i), nd); k != "" && regionEnd < 0 {
			kinds = append(kinds, k)
			regionEnd = t.end[i]
		}
		if errorsOf[i] {
			kinds = append(kinds, SalientError)
		}
		for _, k := range kinds {
			it, capped := t.salientText(k, i)
			out.Capped = out.Capped || capped
			if len(it.Parts) > 0 && !add(it) {
				return out
			}
		}
	}
	return out
}

// regionKind is the live-region rule an element with role meets: alert,
// status, or live for any other aria-live value but "off"; "" for none.
func regionKind(role string, nd *Node) SalientKind {
	switch role {
	case "alert":
		return SalientAlert
	case "status":
		return SalientStatus
	}
	if v, ok := nd.Attr("aria-live"); ok {
		if v = strings.ToLower(strings.TrimSpace(v)); v != "off" && v != "" {
			return SalientLive
		}
	}
	return ""
}

// errorMessages returns the elements an invalid control names as its
// error message (aria-errormessage) or description (aria-describedby),
// by id: the first element carrying each id.
func (t *Tree) errorMessages() map[int]bool {
	nodes := t.Capture.Nodes
	var refs []string
	for i := range nodes {
		nd := &nodes[i]
		if nd.Kind != ElementNode {
			continue
		}
		v, ok := nd.Attr("aria-invalid")
		if !ok || strings.EqualFold(strings.TrimSpace(v), "false") {
			continue
		}
		for _, a := range []string{"aria-errormessage", "aria-describedby"} {
			if ids, ok := nd.Attr(a); ok {
				refs = append(refs, strings.Fields(ids)...)
			}
		}
	}
	out := map[int]bool{}
	if len(refs) == 0 {
		return out
	}
	want := make(map[string]bool, len(refs))
	for _, id := range refs {
		want[id] = true
	}
	for i := range nodes {
		nd := &nodes[i]
		if nd.Kind != ElementNode {
			continue
		}
		if id, ok := nd.Attr("id"); ok && want[id] {
			out[i] = true
			delete(want, id)
		}
	}
	return out
}

// salientText gathers element i's visible text runs into an item of kind
// k, up to MaxSalientChars; capped tells that text was left out.
func (t *Tree) salientText(k SalientKind, i int) (it SalientText, capped bool) {
	nodes := t.Capture.Nodes
	it = SalientText{Kind: k, Node: i}
	n := 0
	for j := i + 1; j <= t.end[i]; j++ {
		nd := &nodes[j]
		if nd.Kind != TextNode || !nd.Visible {
			continue
		}
		part := strings.Join(strings.Fields(nd.Text), " ")
		if part == "" {
			continue
		}
		if left := MaxSalientChars - n; utf8.RuneCountInString(part) > left {
			capped = true
			part = strings.TrimSpace(string([]rune(part)[:left]))
			if part == "" {
				break
			}
		}
		it.Parts = append(it.Parts, part)
		it.Texts = append(it.Texts, j)
		n += utf8.RuneCountInString(part) + 1
		if n >= MaxSalientChars {
			capped = capped || hasMoreText(nodes[j+1:t.end[i]+1])
			break
		}
	}
	it.Text = strings.Join(it.Parts, " ")
	return it, capped
}

// hasMoreText reports whether nodes hold a visible, non-blank text node.
func hasMoreText(nodes []Node) bool {
	for k := range nodes {
		if nodes[k].Kind == TextNode && nodes[k].Visible && strings.TrimSpace(nodes[k].Text) != "" {
			return true
		}
	}
	return false
}

// In reports whether the item appears verbatim in text, a format's text
// with its whitespace collapsed (CollapseSpace): every part of it, as a
// substring, case and all. A part is matched on its own because formats
// break an element's text into lines (an accessibility tree prints each
// text run of an alert on a line of its own).
func (s SalientText) In(collapsed string) bool {
	if len(s.Parts) == 0 {
		return false
	}
	for _, p := range s.Parts {
		if !strings.Contains(collapsed, p) {
			return false
		}
	}
	return true
}

// InWindow reports whether the item meets the window of expansion e: one
// of its text nodes does (see Tree.NodeInWindow).
func (s SalientText) InWindow(t *Tree, e int) bool {
	for _, j := range s.Texts {
		if t.NodeInWindow(j, e) {
			return true
		}
	}
	return false
}

// NodeInWindow reports whether node i's box meets the window of
// expansion e, by the rule a view applies to its elements and text: the
// part left visible by scroll boxes for a grown viewport, the whole box
// for the whole page.
func (t *Tree) NodeInWindow(i, e int) bool {
	return inWindow(&t.Capture.Nodes[i], t.Window(e), e)
}

// CollapseSpace returns s with every run of white space (Unicode's,
// no-break spaces included) turned into one space, and none at either
// end: the form SalientText.In compares.
func CollapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
