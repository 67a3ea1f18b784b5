package dom

import (
	"math"
	"reflect"
	"testing"
)

func TestTree_EntryExpansion(t *testing.T) {
	// Viewport 1000x500 scrolled to (0, 1000): the screen is x 0..1000,
	// y 1000..1500.
	b := newBuilder()
	b.c.Page.ScrollY = 1000
	body := b.el(0, "body", 0, nil)
	at := func(r Rect) int {
		i := b.el(body, "a", 0, tag, "href", "#")
		b.c.Nodes[i].Rect = r
		return i
	}
	tests := []struct {
		name string
		node int
		want int
	}{
		{"on screen", at(Rect{10, 1100, 100, 20}), 0},
		{"touching the bottom edge", at(Rect{10, 1500, 100, 20}), 1},
		{"250 px below", at(Rect{10, 1750, 100, 20}), 251},
		{"fraction below", at(Rect{10, 1600.5, 100, 20}), 101},
		{"above", at(Rect{10, 100, 100, 20}), 881}, // bottom at 120: gap 880
		{"right of the screen", at(Rect{1300, 1100, 50, 20}), 301},
		{"below and right: the larger gap", at(Rect{1100, 1700, 50, 20}), 201},
		{"empty box", at(Rect{10, 1100, 0, 20}), -1},
		{"too far", at(Rect{-2 * MaxExpansion, 1100, 10, 10}), -1},
		{"clipped into view by a scroll box", func() int {
			i := at(Rect{10, 1900, 100, 20})
			b.c.Nodes[i].ClipRect = &Rect{10, 1400, 100, 20}
			return i
		}(), 0},
		{"clipped away entirely", func() int {
			i := at(Rect{10, 1100, 100, 20})
			b.c.Nodes[i].ClipRect = &Rect{10, 1100, 0, 0}
			return i
		}(), -1},
	}
	tr := b.tree(t)
	for _, tc := range tests {
		got := tr.EntryExpansion(tc.node)
		if got != tc.want {
			t.Errorf("%s: EntryExpansion = %d, want %d", tc.name, got, tc.want)
		}
		if got < 0 {
			continue
		}
		// The same test Select applies flips exactly there.
		nd := &tr.Capture.Nodes[tc.node]
		if !inWindow(nd, window(tr.Capture.Page, got), got) {
			t.Errorf("%s: not in the window at its entry expansion %d", tc.name, got)
		}
		if got > 0 && inWindow(nd, window(tr.Capture.Page, got-1), got-1) {
			t.Errorf("%s: already in the window at %d", tc.name, got-1)
		}
	}
}

func TestTree_Expansions(t *testing.T) {
	b := newBuilder()
	b.c.Page.ScrollY = 1000
	body := b.el(0, "body", 0, nil)
	b.c.Nodes[body].Block = 1
	for _, y := range []float64{1100, 1750, 1750, 1600.5, 100} {
		a := b.el(body, "a", y, tag, "href", "#")
		b.text(a, "x", y)
	}
	b.text(body, "text below", 2000)
	b.el(body, "div", 2200, nil) // not interactive: never changes a view
	tr := b.tree(t)
	tests := []struct {
		text TextPolicy
		want []int
	}{
		{TextViewport, []int{0, 101, 251, 501, 881}},
		{"", []int{0, 101, 251, 501, 881}},
		{TextNone, []int{0, 101, 251, 881}},
		{TextAll, []int{0, 101, 251, 881}},
	}
	for _, tc := range tests {
		got := tr.Expansions(tc.text)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Expansions(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	// Views change only there: constant from each value to the pixel
	// before the next.
	es := tr.Expansions(TextViewport)
	for k, e := range es {
		last := e + 300
		if k+1 < len(es) {
			last = es[k+1] - 1
		}
		if a, z := lines(tr.Select(Options{Expansion: e})), lines(tr.Select(Options{Expansion: last})); !reflect.DeepEqual(a, z) {
			t.Errorf("view changes between E=%d (%q) and E=%d (%q)", e, a, last, z)
		}
	}
}

func TestTree_CoverExpansion(t *testing.T) {
	tests := []struct {
		name           string
		sx, sy, dw, dh float64
		want           int
	}{
		{"top of a long page", 0, 0, 1000, 3000, 2500},
		{"scrolled to the middle", 0, 1000, 1000, 3000, 1500},
		{"scrolled far down", 0, 2400, 1000, 3000, 2400},
		{"wide page", 0, 0, 4000.5, 500, 3001},
		{"short page", 0, 0, 1000, 400, 0},
	}
	for _, tc := range tests {
		b := newBuilder()
		b.c.Page.ScrollX, b.c.Page.ScrollY, b.c.Page.DocWidth, b.c.Page.DocHeight = tc.sx, tc.sy, tc.dw, tc.dh
		tr := b.tree(t)
		got := tr.CoverExpansion()
		if got != tc.want {
			t.Errorf("%s: CoverExpansion = %d, want %d", tc.name, got, tc.want)
		}
		if v := tr.Select(Options{Expansion: got}); v.PixelsAbove != 0 || v.PixelsBelow != 0 {
			t.Errorf("%s: at E=%d pixels above %d below %d, want none", tc.name, got, v.PixelsAbove, v.PixelsBelow)
		}
	}
}

func TestTree_CentreDistance(t *testing.T) {
	b := newBuilder() // viewport 1000x500 at (0, 0): centre (500, 250)
	body := b.el(0, "body", 0, nil)
	centre := b.el(body, "a", 0, tag)
	b.c.Nodes[centre].Rect = Rect{450, 200, 100, 100}
	below := b.el(body, "a", 0, tag)
	b.c.Nodes[below].Rect = Rect{480, 530, 40, 40} // centre (500, 550)
	clipped := b.el(body, "a", 0, tag)
	b.c.Nodes[clipped].Rect = Rect{0, 2000, 60, 80}
	b.c.Nodes[clipped].ClipRect = &Rect{470, 210, 60, 80} // centre (500, 250)
	tr := b.tree(t)
	for _, tc := range []struct {
		node int
		want float64
	}{{centre, 0}, {below, 300}, {clipped, 0}} {
		if got := tr.CentreDistance(tc.node); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("node %d: CentreDistance = %v, want %v", tc.node, got, tc.want)
		}
	}
}
