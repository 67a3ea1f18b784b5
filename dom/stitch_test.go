package dom

import (
	"reflect"
	"strings"
	"testing"
)

func intp(v int) *int { return &v }

// stitchMain is a page with one cross-origin frame (number 1) whose
// viewport sits at (100, 200), 300x150, a button after it, and a label for
// that button.
func stitchMain() *Capture {
	box := Rect{100, 200, 300, 150}
	return &Capture{Version: CaptureVersion,
		Page: PageInfo{URL: "http://a.test/", ViewportWidth: 1000, ViewportHeight: 500, DocWidth: 1000, DocHeight: 1000,
			Elements: 5, Texts: 0, CrossOriginFrames: 1, ScriptMs: 3},
		Nodes: []Node{
			{Kind: ElementNode, Parent: -1, Tag: "html", Visible: true, Block: 1, Rect: Rect{0, 0, 1000, 1000}},
			{Kind: ElementNode, Parent: 0, Tag: "body", Visible: true, Block: 1, Rect: Rect{0, 0, 1000, 1000}},
			{Kind: ElementNode, Parent: 1, Tag: "iframe", Visible: true, Rect: Rect{98, 198, 304, 154}, CrossOrigin: 1, FrameBox: &box, FrameClip: &box},
			{Kind: ElementNode, Parent: 1, Tag: "button", Visible: true, Signals: []string{"tag"}, Rect: Rect{10, 400, 80, 30}},
			{Kind: ElementNode, Parent: 1, Tag: "label", Visible: true, Signals: []string{"label"}, Rect: Rect{10, 450, 80, 20}, LabelFor: 3},
		}}
}

// stitchFrame is a frame document scrolled down by 10: a button, a label
// for it, an element below the frame's box and one across its bottom edge.
func stitchFrame() *Capture {
	return &Capture{Version: CaptureVersion,
		Page: PageInfo{URL: "http://b.test/", ViewportWidth: 300, ViewportHeight: 150, ScrollY: 10, Elements: 6, Texts: 1, ScriptMs: 2, Truncated: true},
		Nodes: []Node{
			{Kind: ElementNode, Parent: -1, Tag: "html", Visible: true, Block: 1, Rect: Rect{0, 0, 300, 600}},
			{Kind: ElementNode, Parent: 0, Tag: "body", Visible: true, Block: 1, Rect: Rect{0, 0, 300, 600}},
			{Kind: ElementNode, Parent: 1, Tag: "button", Visible: true, Signals: []string{"tag"}, Rect: Rect{10, 20, 50, 30}, Topmost: intp(1)},
			{Kind: TextNode, Parent: 2, Text: "Go", Visible: true, Rect: Rect{15, 25, 20, 16}},
			{Kind: ElementNode, Parent: 1, Tag: "label", Visible: true, Signals: []string{"label"}, Rect: Rect{10, 60, 50, 20}, LabelFor: 2},
			{Kind: ElementNode, Parent: 1, Tag: "a", Visible: true, Signals: []string{"tag"}, Rect: Rect{10, 500, 50, 20}, Frame: 1},
			{Kind: ElementNode, Parent: 1, Tag: "input", Visible: true, Signals: []string{"tag"}, Rect: Rect{10, 150, 50, 30}},
		}}
}

func TestStitch(t *testing.T) {
	c := stitchMain()
	if _, err := Stitch(c, map[int]*Capture{1: stitchFrame()}); err != nil {
		t.Fatal(err)
	}
	type row struct {
		tag, text    string
		parent       int
		rect         Rect
		clip         *Rect
		visible      bool
		frame, label int
	}
	var got []row
	for _, n := range c.Nodes {
		got = append(got, row{n.Tag, n.Text, n.Parent, n.Rect, n.ClipRect, n.Visible, n.Frame, n.LabelFor})
	}
	// dx = 100, dy = 200 - 10 (the frame's scroll); the box ends at y 350.
	want := []row{
		{"html", "", -1, Rect{0, 0, 1000, 1000}, nil, true, 0, 0},
		{"body", "", 0, Rect{0, 0, 1000, 1000}, nil, true, 0, 0},
		{"iframe", "", 1, Rect{98, 198, 304, 154}, nil, true, 0, 0},
		{"html", "", 2, Rect{100, 190, 300, 600}, &Rect{100, 200, 300, 150}, true, 1, 0},
		{"body", "", 3, Rect{100, 190, 300, 600}, &Rect{100, 200, 300, 150}, true, 1, 0},
		{"button", "", 4, Rect{110, 210, 50, 30}, nil, true, 1, 0},
		{"", "Go", 5, Rect{115, 215, 20, 16}, nil, true, 1, 0},
		{"label", "", 4, Rect{110, 250, 50, 20}, nil, true, 1, 5},
		{"a", "", 4, Rect{110, 690, 50, 20}, nil, false, 2, 0},
		{"input", "", 4, Rect{110, 340, 50, 30}, &Rect{110, 340, 50, 10}, true, 1, 0},
		{"button", "", 1, Rect{10, 400, 80, 30}, nil, true, 0, 0},
		{"label", "", 1, Rect{10, 450, 80, 20}, nil, true, 0, 10},
	}
	if !reflect.DeepEqual(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w row
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("node %d = %+v, want %+v", i, g, w)
			}
		}
	}
	p := c.Page
	if p.Elements != 11 || p.Texts != 1 || !p.Truncated || p.ScriptMs != 5 || p.FramesStitched != 1 || p.URL != "http://a.test/" {
		t.Errorf("page = %+v", p)
	}
	if c.Nodes[5].Topmost == nil || *c.Nodes[5].Topmost != 1 {
		t.Errorf("occlusion of the frame's button lost: %v", c.Nodes[5].Topmost)
	}

	// IDs run through the frame where it sits; the off-box link has none,
	// the input half cut by the frame's edge has one.
	v := NewTree(c).Select(Options{Expansion: 0})
	var ids []string
	for _, it := range v.Items {
		if it.IsAction() {
			ids = append(ids, it.ID+":"+c.Nodes[it.Node].Tag)
		}
	}
	if got, want := strings.Join(ids, " "), "B1:button I1:input B2:button"; got != want {
		t.Errorf("IDs = %s, want %s", got, want)
	}
}

func TestStitch_HiddenFrame(t *testing.T) {
	c := stitchMain()
	c.Nodes[2].AriaHidden = 1
	if _, err := Stitch(c, map[int]*Capture{1: stitchFrame()}); err != nil {
		t.Fatal(err)
	}
	for i := 3; i <= 9; i++ {
		n := &c.Nodes[i]
		if n.Kind == ElementNode && (n.Visible || n.AriaHidden != 1) {
			t.Errorf("node %d (%s) of an aria-hidden frame: visible %v, aria-hidden %d", i, n.Tag, n.Visible, n.AriaHidden)
		}
	}
}

func TestStitch_Errors(t *testing.T) {
	tests := []struct {
		name   string
		frames map[int]*Capture
		change func(*Capture)
		want   string
	}{
		{"no such frame", map[int]*Capture{2: stitchFrame()}, nil, "no such cross-origin frame"},
		{"frame not rendered", map[int]*Capture{1: stitchFrame()}, func(c *Capture) { c.Nodes[2].FrameBox = nil }, "not a rendered frame"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := stitchMain()
			if tt.change != nil {
				tt.change(c)
			}
			before := len(c.Nodes)
			_, err := Stitch(c, tt.frames)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Stitch error = %v, want %q", err, tt.want)
			}
			if len(c.Nodes) != before {
				t.Errorf("capture changed on error: %d nodes, had %d", len(c.Nodes), before)
			}
		})
	}
	c := stitchMain()
	if _, err := Stitch(c, nil); err != nil || len(c.Nodes) != 5 {
		t.Errorf("Stitch with no frames: %v, %d nodes", err, len(c.Nodes))
	}
}

// TestStitch_CapsAndLocators: the caps a frame hit and its characters add
// to the page's, its light-parent links are renumbered, and the locator of
// a stitched element is the iframe's followed by the frame's own.
func TestStitch_CapsAndLocators(t *testing.T) {
	c := stitchMain()
	c.Page.Capped, c.Page.Chars = []string{CapText}, 10
	c.Nodes[2].TreeIndex = 3
	f := stitchFrame()
	f.Page.Capped, f.Page.Chars = []string{CapTitle, CapNodes}, 5
	// the input becomes a light child of the label, as if a slot showed it
	f.Nodes[6].LightParent, f.Nodes[6].LightPos = 4, 1
	f.Nodes[2].UniqueID = 1
	f.Nodes[2].Attrs = [][2]string{{"id", "go"}}
	local := NewTree(f)
	wantButton, wantInput := local.Locator(2), local.Locator(6)
	if _, err := Stitch(c, map[int]*Capture{1: f}); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Page.Capped, []string{CapTitle, CapText, CapNodes}; !reflect.DeepEqual(got, want) {
		t.Errorf("Capped = %v, want %v", got, want)
	}
	if c.Page.Chars != 15 {
		t.Errorf("Chars = %d, want 15", c.Page.Chars)
	}
	if got := c.Nodes[9].LightParent; got != 7 {
		t.Errorf("light parent of the stitched input = %d, want 7", got)
	}
	tree := NewTree(c)
	frame := tree.Locator(2)
	if frame != "/html/body/iframe" {
		t.Errorf("iframe locator = %q", frame)
	}
	for node, local := range map[int]string{5: wantButton, 9: wantInput} {
		if got, want := tree.Locator(node), frame+LocatorSeparator+local; got != want {
			t.Errorf("stitched node %d: Locator = %q, want %q", node, got, want)
		}
	}
}

// TestStitch_Index: Stitch says where every node of the page and of the
// frame went, which is what ties the browser's DOM identity of a captured
// element to its stored index.
func TestStitch_Index(t *testing.T) {
	c, f := stitchMain(), stitchFrame()
	before, frame := append([]Node(nil), c.Nodes...), append([]Node(nil), f.Nodes...)
	st, err := Stitch(c, map[int]*Capture{1: f})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st.Index, []int{0, 1, 2, 10, 11}; !reflect.DeepEqual(got, want) {
		t.Errorf("Index = %v, want %v", got, want)
	}
	if got, want := st.Frames, map[int]int{1: 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("Frames = %v, want %v", got, want)
	}
	for i, n := range before {
		if got := c.Nodes[st.Node(i)]; got.Tag != n.Tag || got.Text != n.Text {
			t.Errorf("page node %d (%s) went to %d, a %s", i, n.Tag, st.Node(i), got.Tag)
		}
	}
	for j, n := range frame {
		if got := c.Nodes[st.Frames[1]+j]; got.Tag != n.Tag || got.Text != n.Text || got.Kind != n.Kind {
			t.Errorf("frame node %d (%s %q) went to %d, a %s %q", j, n.Tag, n.Text, st.Frames[1]+j, got.Tag, got.Text)
		}
	}
	none, err := Stitch(stitchMain(), nil)
	if err != nil || none.Index != nil || none.Node(4) != 4 {
		t.Errorf("no frames: %+v, %v; want nothing moved", none, err)
	}
}
