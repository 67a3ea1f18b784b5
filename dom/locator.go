package dom

import (
	_ "embed"
	"strconv"
	"strings"
)

// DefaultMaxLocator is the most bytes [Tree.Locator] spends on a locator.
// A path longer than that is replaced by the element's position in tree
// order, so that the locators of a page grow with its number of actions,
// not with their depth.
const DefaultMaxLocator = 256

// LocatorSeparator joins the segments of a locator that crosses a frame or
// a shadow root.
const LocatorSeparator = " >> "

//go:embed locate.js
var locateJS string

// LocateScript returns the reference resolver of locators: a JavaScript
// function expression (locator) => Element[] that returns the elements the
// locator matches in the document it runs in (one, for a locator of that
// document). It enters same-origin frames and open shadow roots, and
// throws when a segment would have to run in a cross-origin frame: run the
// rest of the locator in that frame's own context.
func LocateScript() string { return locateJS }

// Locator returns a locator of element i that resolves to exactly that
// element in the page the capture was taken from, in at most
// DefaultMaxLocator bytes; "" for a text node, or when no locator fits
// (see [Tree.LocatorMax]).
//
// A locator is one XPath 1.0 expression per tree the element is nested in,
// outermost first, joined by [LocatorSeparator]:
//
//	/html/body/main/form/button[2]
//	id("search")/button
//	(//*)[1234]
//	/html/body/iframe[2] >> id("login")/input[1]
//	id("app") >> /div/my-menu >> id("open")
//
// The first segment runs in the top document. A segment after an iframe
// or frame element runs in that frame's document; a segment after any
// other element runs in its open shadow root, with a node of that shadow
// tree as the context node, so that "/" and id() refer to the shadow root.
// (Playwright's "xpath=" runs a one-segment locator as it is; it does not
// enter shadow roots.) [LocateScript] is a resolver.
//
// Each segment is, in order of preference:
//
//   - a path of child steps from the nearest element whose id no other
//     element of its tree carries ([Node.UniqueID]), as id("…"), or from
//     the tree's root, as "/html/…"; a step is the tag with its position
//     among the siblings with the same tag ("div[2]"), without it when the
//     element is the only one ("main"); elements outside the HTML
//     namespace and unusual tag names take the form *[local-name()="svg"];
//   - the element's position among all elements of its tree in tree
//     order, (//*)[k] ([Node.TreeIndex]), when the path does not fit.
func (t *Tree) Locator(i int) string { return t.LocatorMax(i, DefaultMaxLocator) }

// LocatorMax is [Tree.Locator] with a byte budget of its own. It prefers
// paths and replaces the longest ones by tree positions until the locator
// fits in maxBytes; it returns "" when even that does not fit (frames or
// shadow roots nested too deep), when a segment has neither form (a
// capture made before the locator facts were recorded, or a cut tag name
// with no tree position), and for text nodes.
func (t *Tree) LocatorMax(i, maxBytes int) string {
	nodes := t.Capture.Nodes
	if i < 0 || i >= len(nodes) || nodes[i].Kind != ElementNode {
		return ""
	}
	// Segments, innermost first; least is the shortest the locator can be.
	var segs []segment
	least := 0
	for e := i; e >= 0; {
		seg, host, ok := t.segment(e, maxBytes)
		if !ok || (seg.path == "" && seg.index == "") {
			return ""
		}
		if len(segs) > 0 {
			least += len(LocatorSeparator)
		}
		least += seg.shortest()
		if least > maxBytes {
			return ""
		}
		segs = append(segs, seg)
		e = host
	}
	// Paths first; then trade the path that saves the most for its index,
	// until the locator fits.
	chosen := make([]string, len(segs))
	total := len(LocatorSeparator) * (len(segs) - 1)
	for k, s := range segs {
		chosen[k] = s.path
		if chosen[k] == "" {
			chosen[k] = s.index
		}
		total += len(chosen[k])
	}
	for total > maxBytes {
		best, gain := -1, 0
		for k, s := range segs {
			if s.index != "" && chosen[k] == s.path && len(s.path)-len(s.index) > gain {
				best, gain = k, len(s.path)-len(s.index)
			}
		}
		if best < 0 {
			return ""
		}
		chosen[best] = segs[best].index
		total -= gain
	}
	var b strings.Builder
	b.Grow(total)
	for k := len(chosen) - 1; k >= 0; k-- {
		b.WriteString(chosen[k])
		if k > 0 {
			b.WriteString(LocatorSeparator)
		}
	}
	return b.String()
}

// segment is the XPath of an element within its own tree (a document or a
// shadow root), in its two forms; "" where a form is not available.
type segment struct {
	path, index string
}

func (s segment) shortest() int {
	switch {
	case s.path == "":
		return len(s.index)
	case s.index == "":
		return len(s.path)
	}
	return min(len(s.path), len(s.index))
}

// segment returns the forms of the segment that ends at element e, and
// the element whose segment comes before it: the iframe holding e's
// document or the host of e's shadow root, -1 for the top document. ok is
// false when the tree e belongs to cannot be told (a shadow root in a
// capture without the locator facts).
func (t *Tree) segment(e, maxBytes int) (seg segment, host int, ok bool) {
	nodes := t.Capture.Nodes
	if k := nodes[e].TreeIndex; k > 0 {
		seg.index = "(//*)[" + strconv.Itoa(k) + "]"
	}
	var steps []string
	size := 0
	building := true // still collecting steps of the path
	for j := e; ; {
		nd := &nodes[j]
		if building && nd.UniqueID == 1 {
			if id, _ := nd.Attr("id"); usableID(id) {
				if lit, ok := xpathLiteral(id); ok {
					seg.path = joinSteps("id("+lit+")", steps)
					building = false
				}
			}
		}
		if building {
			st, ok := t.step(j)
			size += len(st) + 1
			if !ok || size > maxBytes {
				building, steps = false, nil
			} else {
				steps = append(steps, st)
			}
		}
		if !building {
			// the path is settled (or given up): skip to the tree's top
			if j = t.top[j]; j < 0 {
				return segment{}, -1, false
			}
		}
		parent, top, host, known := t.lightParent(j)
		if !known {
			return segment{}, -1, false
		}
		if top {
			if building {
				seg.path = joinSteps("", steps)
			}
			return seg, host, true
		}
		j = parent
	}
}

// lightParent returns the parent of element j in its own tree, or, when j
// is the top element of a tree (top is true), the element whose segment
// comes before: the iframe of a frame document, the host of a shadow root,
// -1 for the top document. known is false when the record cannot tell
// (shadow content captured without [Node.ShadowHost]).
func (t *Tree) lightParent(j int) (parent int, top bool, host int, known bool) {
	nodes := t.Capture.Nodes
	nd := &nodes[j]
	if nd.LightParent > 0 {
		return nd.LightParent, false, -1, true
	}
	p := nd.Parent
	if p < 0 {
		return -1, true, -1, true
	}
	pn := &nodes[p]
	if pn.TagCut == 0 && (pn.Tag == "iframe" || pn.Tag == "frame") {
		return -1, true, p, true
	}
	if pn.ShadowHost == 1 {
		return -1, true, p, true
	}
	if nd.Shadow == 1 && pn.Shadow == 0 {
		return -1, false, -1, false
	}
	return p, false, -1, true
}

// step returns the XPath step of element j within its parent.
func (t *Tree) step(j int) (string, bool) {
	nd := &t.Capture.Nodes[j]
	if nd.TagCut == 1 || nd.Tag == "" {
		return "", false
	}
	var s string
	if nd.Foreign == 0 && plainTag(nd.Tag) {
		s = nd.Tag
	} else {
		lit, ok := xpathLiteral(nd.Tag)
		if !ok {
			return "", false
		}
		s = "*[local-name()=" + lit + "]"
	}
	k := 0
	switch {
	case nd.LightParent > 0:
		if k = nd.LightPos; k <= 0 {
			return "", false
		}
	case !t.alone[j]:
		k = t.pos[j]
	}
	if k > 0 {
		s += "[" + strconv.Itoa(k) + "]"
	}
	return s, true
}

// joinSteps writes the steps (innermost first) after start: "/a/b" for an
// empty start (from the tree's root), "id("x")/a/b" otherwise.
func joinSteps(start string, steps []string) string {
	var b strings.Builder
	b.WriteString(start)
	for k := len(steps) - 1; k >= 0; k-- {
		b.WriteByte('/')
		b.WriteString(steps[k])
	}
	return b.String()
}

// plainTag reports whether an HTML tag name can be an XPath name test as
// it is: lower-case ASCII letters, digits, '-', '_' and '.', starting with
// a letter. (A name test matches HTML elements after lower-casing itself.)
func plainTag(tag string) bool {
	for k := 0; k < len(tag); k++ {
		c := tag[k]
		switch {
		case 'a' <= c && c <= 'z':
		case k > 0 && ('0' <= c && c <= '9' || c == '-' || c == '_' || c == '.'):
		default:
			return false
		}
	}
	return tag != ""
}

// usableID reports whether id() finds an element by this id: XPath splits
// its argument at white space.
func usableID(id string) bool {
	return id != "" && !strings.ContainsAny(id, " \t\r\n")
}

// xpathLiteral quotes s as an XPath 1.0 string literal, which cannot hold
// both kinds of quotes.
func xpathLiteral(s string) (string, bool) {
	switch {
	case !strings.Contains(s, `"`):
		return `"` + s + `"`, true
	case !strings.Contains(s, `'`):
		return `'` + s + `'`, true
	}
	return "", false
}
