package dom

import (
	"strings"
	"testing"
)

// TestLocator_Forms checks the forms a locator takes on a small tree:
// paths from the root and from unique ids, positions only where a tag
// repeats, shadow roots and frames as segments, and the tree position when
// the path does not fit.
func TestLocator_Forms(t *testing.T) {
	el := func(parent int, tag string, attrs ...string) Node {
		n := Node{Kind: ElementNode, Parent: parent, Tag: tag}
		for k := 0; k+1 < len(attrs); k += 2 {
			n.Attrs = append(n.Attrs, [2]string{attrs[k], attrs[k+1]})
		}
		return n
	}
	nodes := []Node{
		el(-1, "html"),                  // 0
		el(0, "body"),                   // 1
		el(1, "div"),                    // 2
		el(1, "div", "id", "x"),         // 3: unique id
		el(3, "button"),                 // 4
		el(3, "button"),                 // 5
		el(1, "my-host"),                // 6: shadow host
		el(6, "span"),                   // 7: shadow top level
		el(7, "button"),                 // 8
		el(6, "slot"),                   // 9
		el(9, "a"),                      // 10: slotted light child of the host
		el(1, "iframe"),                 // 11
		el(11, "html"),                  // 12: the frame's document
		el(12, "body"),                  // 13
		el(13, "input"),                 // 14
		el(1, "svg"),                    // 15
		el(15, "a"),                     // 16
		el(1, "div", "id", `a"b'c`),     // 17: id no literal can hold
		el(1, "div", "id", "two words"), // 18
		el(1, "X:Y"),                    // 19
	}
	nodes[3].UniqueID = 1
	nodes[6].ShadowHost, nodes[6].TreeIndex = 1, 40
	for _, i := range []int{7, 8, 9} {
		nodes[i].Shadow = 1
	}
	nodes[10].Shadow, nodes[10].LightParent, nodes[10].LightPos = 1, 6, 3
	nodes[11].TreeIndex = 50
	nodes[15].Foreign, nodes[16].Foreign = 1, 1
	nodes[17].UniqueID, nodes[18].UniqueID = 1, 1
	nodes[19].TreeIndex = 77
	tree := NewTree(&Capture{Version: CaptureVersion, Nodes: nodes})
	tests := []struct {
		node int
		want string
	}{
		{0, "/html"},
		{2, "/html/body/div[1]"},
		{3, `id("x")`},
		{5, `id("x")/button[2]`},
		{6, "/html/body/my-host"},
		{8, "/html/body/my-host >> /span/button"},
		{10, "/html/body/my-host/a[3]"},
		{14, "/html/body/iframe >> /html/body/input"},
		{16, `/html/body/*[local-name()="svg"]/*[local-name()="a"]`},
		{17, "/html/body/div[3]"},
		{18, "/html/body/div[4]"},
		{19, `/html/body/*[local-name()="X:Y"]`},
	}
	for _, tt := range tests {
		if got := tree.Locator(tt.node); got != tt.want {
			t.Errorf("Locator(%d) = %q, want %q", tt.node, got, tt.want)
		}
	}
	// Budgets: the longest path gives way first; nothing fits in too few.
	budgets := []struct {
		node, max int
		want      string
	}{
		{8, 34, "/html/body/my-host >> /span/button"},
		{8, 33, "(//*)[40] >> /span/button"},
		{14, 28, ""},
		{14, 30, "(//*)[50] >> /html/body/input"},
		{19, 20, "(//*)[77]"},
		{4, 5, ""},
	}
	for _, tt := range budgets {
		if got := tree.LocatorMax(tt.node, tt.max); got != tt.want {
			t.Errorf("LocatorMax(%d, %d) = %q, want %q", tt.node, tt.max, got, tt.want)
		}
		if got := tree.LocatorMax(tt.node, tt.max); len(got) > tt.max {
			t.Errorf("LocatorMax(%d, %d) has %d bytes", tt.node, tt.max, len(got))
		}
	}
	// A capture without the locator facts cannot place shadow content.
	old := NewTree(&Capture{Version: CaptureVersion, Nodes: []Node{
		el(-1, "html"), el(0, "body"), el(1, "my-host"), {Kind: ElementNode, Parent: 2, Tag: "button", Shadow: 1},
	}})
	if got := old.Locator(3); got != "" {
		t.Errorf("shadow content without the locator facts: Locator = %q, want none", got)
	}
	if got := tree.Locator(-1) + tree.Locator(len(nodes)); got != "" {
		t.Errorf("out of range: %q", got)
	}
	if strings.Contains(tree.Locator(8), "  ") {
		t.Error("double space")
	}
}
