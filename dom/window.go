package dom

import (
	"math"
	"slices"
)

// MaxExpansion caps the expansions [Tree.EntryExpansion] reports: a box
// farther than this many CSS pixels from the viewport (an element parked
// at left: -99999999px) never enters a grown window, only the whole page.
const MaxExpansion = 1 << 24

// EntryExpansion returns the smallest viewport_expansion E >= 0 whose
// window holds node i, by the same test [Tree.Select] applies (the part of
// the box left visible by scroll boxes, when the capture has one). It
// returns -1 when no E up to MaxExpansion does (an empty box, or one too
// far away).
//
// The window only grows with E, so a node is inside for every E from its
// entry expansion on: a view changes only at the entry expansions of its
// nodes.
func (t *Tree) EntryExpansion(i int) int {
	nd := &t.Capture.Nodes[i]
	r := nd.Rect
	if nd.ClipRect != nil {
		r = *nd.ClipRect
	}
	return t.BoxExpansion(r)
}

// BoxExpansion returns the smallest viewport_expansion E >= 0 whose window
// meets the box r (Rect.Intersects, the test [Tree.Select] applies to the
// part of an element's box left visible, and the oracle to an element's
// box), or -1 when no E up to MaxExpansion does (an empty box, or one too
// far away).
func (t *Tree) BoxExpansion(r Rect) int {
	if !(r[2] > 0 && r[3] > 0) {
		return -1
	}
	p := t.Capture.Page
	// The window of E meets the box when E exceeds the largest gap between
	// them on any side (Rect.Intersects is strict).
	gap := max(r[0]-(p.ScrollX+p.ViewportWidth), p.ScrollX-(r[0]+r[2]),
		r[1]-(p.ScrollY+p.ViewportHeight), p.ScrollY-(r[1]+r[3]))
	if math.IsNaN(gap) || gap >= MaxExpansion {
		return -1
	}
	e := 0
	if gap >= 0 {
		e = int(math.Floor(gap)) + 1
	}
	// Settle float rounding against the test itself.
	in := func(e int) bool { return r.Intersects(window(p, e)) }
	for k := 0; k < 3 && e > 0 && in(e-1); k++ {
		e--
	}
	for k := 0; !in(e); k++ {
		if k == 3 || e >= MaxExpansion {
			return -1
		}
		e++
	}
	return e
}

// Window returns the window of viewport_expansion e in page coordinates:
// the viewport grown by e on every side, the scrollable document for
// WholePage (what [View.Window] holds).
func (t *Tree) Window(e int) Rect { return window(t.Capture.Page, e) }

// Expansions returns the expansions at which a view under the text policy
// can change, ascending: 0 (the screen) and the entry expansion of every
// node whose window test Select applies (interactive candidates, and
// rendered text nodes under TextViewport, the salient ones under
// TextSalient). Between two consecutive values
// every view has the same items; only the wrapper's numbers (expansion,
// pixels above and below) differ.
func (t *Tree) Expansions(text TextPolicy) []int {
	nodes := t.Capture.Nodes
	es := []int{0}
	for i := range nodes {
		nd := &nodes[i]
		switch {
		case t.candidate[i]:
		case nd.Kind == TextNode && nd.Visible && (text == "" || text == TextViewport):
		case nd.Kind == TextNode && nd.Visible && text == TextSalient && t.SalientNode(i):
		default:
			continue
		}
		if e := t.EntryExpansion(i); e > 0 {
			es = append(es, e)
		}
	}
	slices.Sort(es)
	return slices.Compact(es)
}

// CoverExpansion returns the smallest expansion whose window covers the
// whole scrollable document: from it on there is nothing above, below or
// beside the window.
func (t *Tree) CoverExpansion() int {
	p := t.Capture.Page
	gap := max(0, p.ScrollX, p.ScrollY, p.DocWidth-(p.ScrollX+p.ViewportWidth), p.DocHeight-(p.ScrollY+p.ViewportHeight))
	if math.IsNaN(gap) || gap >= MaxExpansion {
		return MaxExpansion
	}
	return int(math.Ceil(gap))
}

// CentreDistance returns the distance in CSS pixels from the centre of
// node i's box (the part left visible by scroll boxes, as the window test
// uses it) to the centre of the viewport.
func (t *Tree) CentreDistance(i int) float64 {
	nd := &t.Capture.Nodes[i]
	r := nd.Rect
	if nd.ClipRect != nil {
		r = *nd.ClipRect
	}
	p := t.Capture.Page
	return math.Hypot(r[0]+r[2]/2-(p.ScrollX+p.ViewportWidth/2), r[1]+r[3]/2-(p.ScrollY+p.ViewportHeight/2))
}
