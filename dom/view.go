package dom

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
)

// TextPolicy decides which context text lines a view emits.
type TextPolicy string

// Text policies. TextViewport is the default: rendered text inside the same
// window as the actions. TextAll emits all captured text, hidden and
// off-screen included (what the reference design does). TextNone emits none.
const (
	TextViewport TextPolicy = "viewport"
	TextAll      TextPolicy = "all"
	TextNone     TextPolicy = "none"
	// TextSalient emits only the salient text (Salient: headings, alert,
	// status and live regions, error messages, prices) inside the window:
	// between none and viewport (docs/strategies.md).
	TextSalient TextPolicy = "salient"
)

// ParseTextPolicy validates a text policy name.
func ParseTextPolicy(s string) (TextPolicy, error) {
	switch p := TextPolicy(s); p {
	case TextViewport, TextAll, TextNone, TextSalient:
		return p, nil
	}
	return "", fmt.Errorf("unknown text policy %q (want viewport, all, salient or none)", s)
}

// WholePage is the viewport_expansion that selects the whole page.
const WholePage = -1

// Options is one rendering setting.
type Options struct {
	// Expansion grows the viewport by this many CSS pixels on every side;
	// WholePage (-1) takes the whole page; 0 is the visible screen.
	Expansion int
	// Text is the context-text policy; the zero value means TextViewport.
	Text TextPolicy
	// IDs is the ID policy; the zero value means IDsPositional.
	IDs IDPolicy
	// Strategy holds the compression strategies (grouping, layout cues,
	// element filter); its zero value is none.
	Strategy
}

// Validate reports an invalid setting, naming the field.
func (o Options) Validate() error {
	if o.Expansion < WholePage {
		return fmt.Errorf("viewport_expansion %d: want -1 (whole page) or >= 0", o.Expansion)
	}
	if o.Text != "" {
		if _, err := ParseTextPolicy(string(o.Text)); err != nil {
			return err
		}
	}
	if o.IDs != "" {
		if _, err := ParseIDPolicy(string(o.IDs)); err != nil {
			return err
		}
	}
	return o.Strategy.Validate()
}

// Tree is a capture with the derived data every setting shares. It is
// read-only after NewTree and safe for concurrent Select calls.
type Tree struct {
	Capture *Capture
	// end[i] is the index of the last node in i's subtree.
	end []int
	// block[i] is the nearest block-level ancestor of node i (-1 at the top).
	block []int
	// candidate[i]: interactive by its own signals, enabled and visible.
	candidate []bool
	// nested[i]: inside a candidate ancestor.
	nested []bool
	// inModal[i]: inside (or is) a visible modal dialog.
	inModal []bool
	roles   []string
	// pos[i] is the 1-based position of element i among its parent's
	// element children with the same tag (the XPath step index), and
	// alone[i] tells that it is the only one.
	pos   []int
	alone []bool
	// top[i] is the top element of the tree (document or shadow root)
	// element i belongs to, -1 when the capture cannot tell (see
	// Tree.lightParent).
	top []int
	// ids is the numbering of IDsStable (see Tree.Follow).
	ids idState
	// salient holds, per text node, the salient text the TextSalient
	// policy keeps of it, made once on first use (SalientPart).
	salientOnce sync.Once
	salient     []string
}

// NewTree derives the shared per-capture data.
func NewTree(c *Capture) *Tree {
	n := len(c.Nodes)
	t := &Tree{
		Capture:   c,
		end:       make([]int, n),
		block:     make([]int, n),
		candidate: make([]bool, n),
		nested:    make([]bool, n),
		inModal:   make([]bool, n),
		roles:     make([]string, n),
		pos:       make([]int, n),
		alone:     make([]bool, n),
		top:       make([]int, n),
	}
	type step struct {
		parent int
		tag    string
	}
	seen := make(map[step]int)
	for i := n - 1; i >= 0; i-- {
		if t.end[i] < i {
			t.end[i] = i
		}
		if p := c.Nodes[i].Parent; p >= 0 && t.end[p] < t.end[i] {
			t.end[p] = t.end[i]
		}
	}
	for i := range c.Nodes {
		nd := &c.Nodes[i]
		p := nd.Parent
		t.block[i] = -1
		if p >= 0 {
			if c.Nodes[p].Block == 1 {
				t.block[i] = p
			} else {
				t.block[i] = t.block[p]
			}
			t.nested[i] = t.candidate[p] || t.nested[p]
			t.inModal[i] = t.inModal[p]
		}
		if nd.Kind != ElementNode {
			continue
		}
		k := step{p, nd.Tag}
		seen[k]++
		t.pos[i] = seen[k]
		if nd.Modal == 1 && nd.Visible {
			t.inModal[i] = true
		}
		t.roles[i] = nd.Role()
		t.candidate[i] = len(nd.Signals) > 0 && nd.Disabled == "" && nd.Visible
	}
	for i := range c.Nodes {
		nd := &c.Nodes[i]
		if nd.Kind != ElementNode {
			continue
		}
		t.alone[i] = seen[step{nd.Parent, nd.Tag}] == 1
		switch parent, top, _, known := t.lightParent(i); {
		case !known:
			t.top[i] = -1
		case top:
			t.top[i] = i
		default:
			t.top[i] = t.top[parent]
		}
	}
	return t
}

// Item is one line of a view: an action (ID set) or a context text line.
type Item struct {
	// Node is the element's index in the capture, or the first text node of
	// a context line.
	Node int
	// ID is the handle ("B1"); empty for context text.
	ID string
	// Role is the element's role ("" when it has none).
	Role string
	// Text is the element's own visible text (words joined by single
	// spaces, nested actions excluded), or the context line's text.
	Text string
}

// IsAction reports whether the item is an action rather than context text.
func (it Item) IsAction() bool { return it.ID != "" }

// View is one setting applied to a tree.
type View struct {
	Tree    *Tree
	Options Options
	// Window is the grown viewport in page coordinates (the scrollable
	// document for WholePage).
	Window Rect
	// Items are the lines in document order.
	Items []Item
	// Counts holds the number of IDs per letter.
	Counts map[byte]int
	// Modal is set when a modal dialog restricted the view.
	Modal bool
	// PixelsAbove and PixelsBelow are the page heights outside the window.
	PixelsAbove, PixelsBelow int
	// Removed, under IDsStable, are the IDs of the previous step's
	// capture (see Tree.Follow) that no element of this one holds: gone
	// from the page, whatever the window. Nil at a page's first step and
	// under IDsPositional.
	Removed []string
}

// Actions returns the number of IDs in the view.
func (v *View) Actions() int {
	total := 0
	for _, c := range v.Counts {
		total += c
	}
	return total
}

// window returns the viewport grown by the expansion.
func window(p PageInfo, e int) Rect {
	if e == WholePage {
		// The scrollable document: what scrolling can bring on screen.
		// Elements parked off-page (left: -9999px) stay out.
		if p.DocWidth > 0 && p.DocHeight > 0 {
			return Rect{0, 0, p.DocWidth, p.DocHeight}
		}
		return Rect{-math.MaxFloat32, -math.MaxFloat32, math.MaxFloat64, math.MaxFloat64}
	}
	g := float64(e)
	return Rect{p.ScrollX - g, p.ScrollY - g, p.ViewportWidth + 2*g, p.ViewportHeight + 2*g}
}

// Select applies one setting: it picks the elements that get IDs and the
// context lines, and numbers the IDs in document order.
func (t *Tree) Select(opts Options) *View {
	if opts.Text == "" {
		opts.Text = TextViewport
	}
	c := t.Capture
	nodes := c.Nodes
	win := window(c.Page, opts.Expansion)
	v := &View{Tree: t, Options: opts, Window: win, Counts: make(map[byte]int, len(Letters))}
	if opts.Expansion != WholePage {
		top := c.Page.ScrollY - float64(opts.Expansion)
		bottom := c.Page.ScrollY + c.Page.ViewportHeight + float64(opts.Expansion)
		v.PixelsAbove = int(math.Max(0, math.Round(top)))
		v.PixelsBelow = int(math.Max(0, math.Round(c.Page.DocHeight-bottom)))
	}

	// 1. Elements that get an ID, labels last: a label only acts when its
	// control does not get an ID of its own.
	emit := make([]bool, len(nodes))
	for i := range nodes {
		nd := &nodes[i]
		if !t.candidate[i] || nd.Occluded() || !inWindow(nd, win, opts.Expansion) {
			continue
		}
		if t.Nested(i) || !opts.Only.Keeps(t.kindRole(i)) {
			continue
		}
		emit[i] = true
	}
	// A label never doubles its control: when the control has an ID, the
	// label (wrapping it or pointing at it) gets none.
	for i := range nodes {
		if nd := &nodes[i]; emit[i] && nd.Tag == "label" && nd.LabelFor > 0 && emit[nd.LabelFor] {
			emit[i] = false
		}
	}

	// 2. Modal dialogs: when a visible modal holds an ID, only modals count.
	for i := range nodes {
		if emit[i] && t.inModal[i] {
			v.Modal = true
			break
		}
	}
	if v.Modal {
		for i := range nodes {
			if emit[i] && !t.inModal[i] {
				emit[i] = false
			}
		}
	}

	// 3. Lines in document order. owner[i] is the nearest emitted ancestor.
	owner := make([]int, len(nodes))
	names := make(map[int]*strings.Builder)
	var line strings.Builder
	lineStart, lineBlock := -1, -2
	flush := func() {
		if lineStart >= 0 && line.Len() > 0 {
			v.Items = append(v.Items, Item{Node: lineStart, Text: line.String()})
		}
		line.Reset()
		lineStart, lineBlock = -1, -2
	}
	for i := range nodes {
		nd := &nodes[i]
		owner[i] = -1
		if p := nd.Parent; p >= 0 {
			if emit[p] {
				owner[i] = p
			} else {
				owner[i] = owner[p]
			}
		}
		if nd.Kind == ElementNode {
			if emit[i] {
				flush()
				v.Items = append(v.Items, Item{Node: i, Role: t.roles[i]})
				names[i] = &strings.Builder{}
			} else if owner[i] >= 0 && nd.Tag == "img" && nd.Visible {
				// An image inside an action stands for its alt text: an
				// icon-only link or button is named by it.
				if alt, ok := nd.Attr("alt"); ok {
					appendWords(names[owner[i]], alt)
				}
			}
			continue
		}
		if owner[i] >= 0 {
			if nd.Visible {
				appendWords(names[owner[i]], nd.Text)
			}
			continue
		}
		if !t.showText(opts, nd, win, v.Modal, i) {
			continue
		}
		if t.block[i] != lineBlock {
			flush()
		}
		if lineStart < 0 {
			lineStart, lineBlock = i, t.block[i]
		}
		if opts.Text == TextSalient {
			appendWords(&line, t.SalientPart(i))
			continue
		}
		appendWords(&line, nd.Text)
	}
	flush()

	// 4. IDs, one counter per letter, in document order; or the stable
	// numbering of the element (docs/handles.md).
	var stable *stableIDs
	if opts.IDs == IDsStable {
		stable = t.stable()
		v.Removed = stable.removed
	}
	for k := range v.Items {
		it := &v.Items[k]
		b, ok := names[it.Node]
		if !ok || nodes[it.Node].Kind != ElementNode {
			continue
		}
		letter := LetterOf(it.Role)
		v.Counts[letter]++
		if stable != nil {
			it.ID = stable.ids[it.Node]
		} else {
			it.ID = string(letter) + strconv.Itoa(v.Counts[letter])
		}
		it.Text = b.String()
	}
	return v
}

// showText reports whether a context text node is emitted under a policy.
// Behind an open modal dialog (modal set, the node outside it) only the
// salient policy shows text, and only the salient text: a user reads the
// headings, prices and alerts of the page through a dimmed backdrop and
// an agent needs them to know where the dialog stands, while no control
// behind it takes a click (docs/strategies.md).
func (t *Tree) showText(opts Options, nd *Node, win Rect, modal bool, i int) bool {
	if modal && !t.inModal[i] && opts.Text != TextSalient {
		return false
	}
	switch opts.Text {
	case TextNone:
		return false
	case TextAll:
		return true
	case TextSalient:
		if !t.SalientNode(i) {
			return false
		}
	}
	return nd.Visible && inWindow(nd, win, opts.Expansion)
}

// inWindow reports whether a node's box meets the window: the part left
// visible by scroll boxes for a grown viewport, the whole box for the whole
// page (scrolling a box reaches the rest).
func inWindow(nd *Node, win Rect, expansion int) bool {
	if expansion != WholePage && nd.ClipRect != nil {
		return nd.ClipRect.Intersects(win)
	}
	return nd.Rect.Intersects(win)
}

// appendWords appends the words of s to b, separated by single spaces.
func appendWords(b *strings.Builder, s string) {
	for _, w := range strings.Fields(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
}

// Role returns the role of node i ("" for text and role-less elements).
func (t *Tree) Role(i int) string { return t.roles[i] }

// Interactive reports whether node i is a candidate for an ID: an element
// interactive by its own signals, enabled and visible (docs/perception.md, "What makes an element interactive").
// Whether a view gives it one is then up to the window, occlusion, nesting,
// labels and modal dialogs ([View.Why] says which).
func (t *Tree) Interactive(i int) bool { return t.candidate[i] }

// Nested reports whether node i is inside an interactive element and not
// a distinct control: it never gets an ID of its own, whatever the window.
func (t *Tree) Nested(i int) bool { return t.nested[i] && !t.Capture.Nodes[i].distinct() }

// InModal reports whether node i is, or is inside, a visible modal
// dialog: when a view gives such a node an ID, only those nodes get IDs.
func (t *Tree) InModal(i int) bool { return t.inModal[i] }
