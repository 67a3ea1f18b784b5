package oracle

import (
	"fmt"
	"reflect"
	"testing"

	"actionspace/axtree"
	"actionspace/dom"
)

func box(x, y, w, h float64) *dom.Rect { return &dom.Rect{x, y, w, h} }

func tabindex(s string) *string { return &s }

var focusable = [][2]string{{"focusable", "true"}}

func TestNew_Definition(t *testing.T) {
	rec := &axtree.Record{Version: axtree.Version, Frames: []axtree.Frame{{Parent: -1, Owner: -1}}}
	add := func(n axtree.Node) int {
		n.Capture = -1
		if len(rec.Nodes) > 0 {
			n.Parent = 0
		} else {
			n.Parent = -1
		}
		rec.Nodes = append(rec.Nodes, n)
		return len(rec.Nodes) - 1
	}
	b := box(0, 0, 10, 10)
	add(axtree.Node{Role: "RootWebArea", Props: focusable, Box: box(0, 0, 1000, 1000)})
	want := map[int]string{
		add(axtree.Node{Role: "button", Name: "Go", Box: b}):                                    ByRole,
		add(axtree.Node{Role: "menuitemradio", Box: b}):                                         ByRole,
		add(axtree.Node{Role: "tab", Props: focusable, TabIndex: tabindex("-1"), Box: b}):       ByRole, // roving tabindex
		add(axtree.Node{Role: "generic", Props: focusable, TabIndex: tabindex("0"), Box: b}):    ByFocus,
		add(axtree.Node{Role: "generic", Props: focusable, Tag: "div", Box: b}):                 ByFocus, // editable or a scroller
		add(axtree.Node{Role: "DisclosureTriangle", Props: focusable, Tag: "summary", Box: b}):  ByFocus,
		add(axtree.Node{Role: "region", Props: focusable, TabIndex: tabindex("-1"), Box: b}):    "",
		add(axtree.Node{Role: "heading", Box: b}):                                               "",
		add(axtree.Node{Role: "button", Ignored: true, Box: b}):                                 "",
		add(axtree.Node{Role: "button", Props: [][2]string{{"hidden", "true"}}, Box: b}):        "",
		add(axtree.Node{Role: "button", Props: [][2]string{{"disabled", "true"}}, Box: b}):      "",
		add(axtree.Node{Role: "checkbox", Props: [][2]string{{"disabled", "false"}}, Box: b}):   ByRole,
		add(axtree.Node{Role: "option", Box: box(0, 0, 0, 0)}):                                  "",
		add(axtree.Node{Role: "link", Name: "no box"}):                                          "",
		add(axtree.Node{Role: "Iframe", Props: focusable, Box: b}):                              "",
		add(axtree.Node{Role: "textbox", Props: focusable, TabIndex: tabindex("-1"), Box: b}):   ByRole,
		add(axtree.Node{Role: "generic", Props: focusable, TabIndex: tabindex("junk"), Box: b}): ByFocus,
		add(axtree.Node{Role: "StaticText", Name: "text", Box: b}):                              "",
		add(axtree.Node{Role: "generic", Props: [][2]string{{"focusable", "false"}}, Box: b}):   "",
	}
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for i := range rec.Nodes {
		got[i] = ""
	}
	for _, e := range New(rec, nil).Elements {
		got[e.Node] = e.Why
		if e.Capture != -1 || e.MatchedBy != "" {
			t.Errorf("node %d: tied to %d (%s) without a capture", e.Node, e.Capture, e.MatchedBy)
		}
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("node %d (%s): why %q, want %q", i, rec.Nodes[i].Role, got[i], w)
		}
	}
	if got[0] != "" {
		t.Errorf("the document root counts")
	}
}

// capture builds a small capture for the matching and scoring tests.
type capture struct{ c dom.Capture }

func newCapture() *capture {
	return &capture{c: dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{ViewportWidth: 1000, ViewportHeight: 500, DocWidth: 1000, DocHeight: 3000},
		Nodes: []dom.Node{{Kind: dom.ElementNode, Parent: -1, Tag: "html", Block: 1, Visible: true, Rect: dom.Rect{0, 0, 1000, 3000}}}}}
}

func (c *capture) el(parent int, tag string, r dom.Rect, signals ...string) int {
	c.c.Nodes = append(c.c.Nodes, dom.Node{Kind: dom.ElementNode, Parent: parent, Tag: tag, Rect: r, Visible: true, Signals: signals})
	return len(c.c.Nodes) - 1
}

func TestNew_Geometry(t *testing.T) {
	c := newCapture()
	link := c.el(0, "a", dom.Rect{10, 10, 100, 20}, "tag")
	c.c.Nodes[link].Attrs = [][2]string{{"href", "/x"}}
	span := c.el(link, "span", dom.Rect{10, 10, 100, 20}) // same box, no role
	card := c.el(0, "div", dom.Rect{10, 100, 200, 100}, "tabindex")
	inner := c.el(card, "div", dom.Rect{12, 102, 196, 96})
	far := c.el(0, "button", dom.Rect{500, 500, 50, 20}, "tag")
	framed := c.el(0, "button", dom.Rect{600, 600, 50, 20}, "tag")
	c.c.Nodes[framed].Frame = 1
	wrap := c.el(0, "div", dom.Rect{300, 10, 80, 20}, "handler")
	wrapped := c.el(wrap, "button", dom.Rect{300, 10, 80, 20}, "tag")
	tree := dom.NewTree(&c.c)
	if got, want := tree.Role(link), "link"; got != want {
		t.Fatalf("capture role %q, want %q", got, want)
	}

	rec := &axtree.Record{Version: axtree.Version, Frames: []axtree.Frame{{Parent: -1, Owner: -1}, {Parent: 0, Owner: -1}}}
	node := func(role string, r *dom.Rect, frame, capture int) {
		p := 0
		if len(rec.Nodes) == 0 {
			p = -1
		}
		rec.Nodes = append(rec.Nodes, axtree.Node{Parent: p, Role: role, Box: r, Frame: frame, Capture: capture, Tag: "x"})
	}
	node("RootWebArea", box(0, 0, 1000, 3000), 0, -1)
	node("link", box(10, 10, 100, 20), 0, -1)      // role picks the link over its span
	node("generic", box(10, 100, 200, 100), 0, -1) // generic: the role-less card, not its inner div
	node("button", box(500, 500, 50, 40), 0, -1)   // IoU 0.5: accepted
	node("button", box(500, 500, 50, 41), 0, -1)   // IoU below 0.5: none
	node("button", box(600, 600, 50, 20), 1, -1)   // in a frame: the framed button
	node("button", box(600, 600, 50, 20), 0, -1)   // same box in the main frame: none there
	node("button", box(300, 10, 80, 20), 0, -1)    // role picks the inner button over its wrapper
	rec.Nodes[2].Props = focusable
	want := []struct{ capture int }{{link}, {card}, {far}, {-1}, {framed}, {-1}, {wrapped}}
	o := New(rec, tree)
	if len(o.Elements) != len(want) {
		t.Fatalf("%d elements, want %d", len(o.Elements), len(want))
	}
	for k, w := range want {
		e := o.Elements[k]
		if e.Capture != w.capture || e.Geometry != w.capture {
			t.Errorf("element %d (%s %v): capture %d, geometry %d, want %d", k, e.Role, e.Box, e.Capture, e.Geometry, w.capture)
		}
		if w.capture >= 0 && e.MatchedBy != ByGeometry {
			t.Errorf("element %d: matched by %q, want geometry", k, e.MatchedBy)
		}
	}
	_ = span
	_ = inner

	// Identity wins over geometry when the tags agree, and is refused
	// when they do not.
	rec.Nodes[1].Capture, rec.Nodes[1].Tag = span, "span"
	rec.Nodes[3].Capture, rec.Nodes[3].Tag = inner, "button"
	o = New(rec, tree)
	if e := o.Elements[0]; e.Capture != span || e.MatchedBy != ByIdentity || e.Geometry != link {
		t.Errorf("identity with agreeing tags: %+v, want the span by identity, the link by geometry", e)
	}
	if e := o.Elements[2]; e.Capture != far || e.MatchedBy != ByGeometry {
		t.Errorf("identity with another tag: %+v, want geometry's button", e)
	}
}

func TestOracle_View(t *testing.T) {
	c := newCapture()
	btn := c.el(0, "button", dom.Rect{10, 10, 100, 20}, "tag")
	input := c.el(0, "input", dom.Rect{10, 40, 100, 20}, "tag")
	c.c.Nodes[input].Visible = false // a styled checkbox: its label acts
	label := c.el(0, "label", dom.Rect{10, 40, 200, 20}, "label")
	c.c.Nodes[label].LabelFor = input
	below := c.el(0, "a", dom.Rect{10, 2000, 100, 20}, "tag")
	plain := c.el(0, "div", dom.Rect{10, 70, 100, 20})
	star := c.el(0, "span", dom.Rect{10, 100, 20, 20}, "handler", "cursor")
	tree := dom.NewTree(&c.c)

	rec := &axtree.Record{Version: axtree.Version, Frames: []axtree.Frame{{Parent: -1, Owner: -1}}}
	add := func(role string, capture int, tag string) {
		p := 0
		if len(rec.Nodes) == 0 {
			p = -1
		}
		r := c.c.Nodes[capture].Rect
		rec.Nodes = append(rec.Nodes, axtree.Node{Parent: p, Role: role, Box: &r, Capture: capture, Tag: tag})
	}
	add("RootWebArea", 0, "html")
	add("button", btn, "button")
	add("checkbox", input, "input")
	add("link", below, "a")
	add("button", plain, "div") // a role the capture did not see
	rec.Nodes[0].Capture = -1
	rec.Nodes = append(rec.Nodes, axtree.Node{Parent: 0, Role: "link", Box: box(900, 400, 50, 20), Capture: -1}) // nothing there
	o := New(rec, tree)

	res := o.View(tree.Select(dom.Options{Expansion: 0}))
	if got, want := res.Score, (Score{InWindow: 4, Handled: 2, Handles: 3, Extra: 1}); got != want {
		t.Errorf("E=0 score %+v, want %+v", got, want)
	}
	if r, ok := res.Score.Recall(); !ok || r != 0.5 {
		t.Errorf("E=0 recall %v, %v, want 0.5", r, ok)
	}
	wantMisses := []Miss{
		{Element: 3, Role: "button", Box: c.c.Nodes[plain].Rect, Capture: plain, Reason: string(dom.NotInteractive)},
		{Element: 4, Role: "link", Box: dom.Rect{900, 400, 50, 20}, Capture: -1, Reason: NotCaptured},
	}
	if !reflect.DeepEqual(res.Misses, wantMisses) {
		t.Errorf("E=0 misses\n got %+v\nwant %+v", res.Misses, wantMisses)
	}
	wantExtras := []Extra{{ID: "M2", Capture: star, Tag: "span", Reason: "handler", Signals: "handler,cursor"}}
	if !reflect.DeepEqual(res.Extras, wantExtras) {
		t.Errorf("E=0 extras\n got %+v\nwant %+v", res.Extras, wantExtras)
	}

	whole := o.View(tree.Select(dom.Options{Expansion: dom.WholePage}))
	if got, want := whole.Score, (Score{InWindow: 5, Handled: 3, Handles: 4, Extra: 1}); got != want {
		t.Errorf("E=-1 score %+v, want %+v", got, want)
	}

	// Another format: handles by oracle element.
	s := o.ScoreHandled(dom.Rect{0, 0, 1000, 500}, []bool{true, false, true, true}, 10, 3)
	if got, want := s, (Score{InWindow: 4, Handled: 2, Handles: 10, Extra: 7}); got != want {
		t.Errorf("ScoreHandled %+v, want %+v", got, want)
	}
	if _, ok := (Score{}).Recall(); ok {
		t.Errorf("recall of an empty window is defined")
	}
}

func TestOracle_Tie(t *testing.T) {
	rec := &axtree.Record{Version: axtree.Version, Frames: []axtree.Frame{{Parent: -1, Owner: -1}, {Parent: 0, Owner: -1}}, Nodes: []axtree.Node{
		{Parent: -1, Role: "RootWebArea", Capture: -1},
		{Parent: 0, Role: "button", Box: box(0, 0, 100, 20), Capture: -1},
		{Parent: 0, Role: "link", Box: box(0, 100, 100, 20), Capture: -1},
		{Parent: 0, Role: "button", Box: box(0, 200, 100, 20), Frame: 1, Capture: -1},
		{Parent: 0, Role: "button", Box: box(0, 300, 100, 20), Capture: -1},
	}}
	o := New(rec, nil)
	cands := []Candidate{
		{Box: dom.Rect{0, 0, 100, 20}, Role: "generic"},            // 0: same box, other role
		{Box: dom.Rect{0, 0, 100, 18}, Role: "button"},             // 1: the role wins over a better box
		{Box: dom.Rect{0, 100, 100, 20}, Role: "link", Depth: 1},   // 2: another frame depth
		{Box: dom.Rect{0, 200, 100, 20}, Role: "button", Depth: 1}, // 3
		{Box: dom.Rect{0, 300, 100, 41}, Role: "button"},           // 4: overlap below MinOverlap
	}
	if got, want := fmt.Sprint(o.Tie(cands)), "[1 -1 3 -1]"; got != want {
		t.Errorf("Tie = %s, want %s", got, want)
	}
}

// TestOracle_ViewReasons: View says, for every element, whether it got a
// handle, and when not why: outside_window for an element whose box
// misses the window, whatever our rules say of its capture element, and
// their verdict inside the window.
func TestOracle_ViewReasons(t *testing.T) {
	c := newCapture()
	btn := c.el(0, "button", dom.Rect{10, 10, 100, 20}, "tag")
	far := c.el(0, "button", dom.Rect{10, 2500, 100, 20}, "tag")
	c.c.Nodes[far].Visible = false
	tree := dom.NewTree(&c.c)
	rec := &axtree.Record{Version: axtree.Version, Frames: []axtree.Frame{{Parent: -1, Owner: -1}}, Nodes: []axtree.Node{
		{Parent: -1, Role: "RootWebArea", Capture: -1},
		{Parent: 0, Role: "button", Box: box(10, 10, 100, 20), Capture: btn, Tag: "button"},
		{Parent: 0, Role: "button", Box: box(10, 2500, 100, 20), Capture: far, Tag: "button"},
		{Parent: 0, Role: "link", Box: box(10, 2600, 100, 20), Capture: -1},
	}}
	o := New(rec, tree)
	for _, tt := range []struct {
		e                int
		handled, reasons string
	}{
		{0, "[true false false]", "[ outside_window outside_window]"},
		{dom.WholePage, "[true false false]", "[ hidden not_captured]"},
	} {
		res := o.View(tree.Select(dom.Options{Expansion: tt.e}))
		if got := fmt.Sprint(res.Handled); got != tt.handled {
			t.Errorf("E=%d: handled %s, want %s", tt.e, got, tt.handled)
		}
		if got := fmt.Sprint(res.Reasons); got != tt.reasons {
			t.Errorf("E=%d: reasons %s, want %s", tt.e, got, tt.reasons)
		}
	}
}
