package dom

import (
	"fmt"
	"testing"
)

// navPage is a nav list of n links, each <li><a>, then a footer link;
// odd lists the items whose <li> holds an extra <span> of text.
func navPage(n int, odd ...int) *Tree {
	c := &Capture{Version: CaptureVersion, Page: PageInfo{ViewportWidth: 800, ViewportHeight: 600, DocWidth: 800, DocHeight: 600}}
	add := func(nd Node) int {
		nd.Visible, nd.Rect = true, Rect{0, float64(len(c.Nodes)), 100, 1}
		c.Nodes = append(c.Nodes, nd)
		return len(c.Nodes) - 1
	}
	html := add(Node{Kind: ElementNode, Parent: -1, Tag: "html", Block: 1})
	ul := add(Node{Kind: ElementNode, Parent: html, Tag: "ul", Block: 1})
	for i := 0; i < n; i++ {
		li := add(Node{Kind: ElementNode, Parent: ul, Tag: "li", Block: 1})
		a := add(Node{Kind: ElementNode, Parent: li, Tag: "a", Signals: []string{"tag"}, Attrs: [][2]string{{"href", fmt.Sprint(i)}}})
		add(Node{Kind: TextNode, Parent: a, Text: fmt.Sprint("item ", i)})
		for _, k := range odd {
			if k == i {
				s := add(Node{Kind: ElementNode, Parent: li, Tag: "span", Block: 1})
				add(Node{Kind: TextNode, Parent: s, Text: "new"})
			}
		}
	}
	f := add(Node{Kind: ElementNode, Parent: html, Tag: "a", Signals: []string{"tag"}})
	add(Node{Kind: TextNode, Parent: f, Text: "footer"})
	return NewTree(c)
}

func TestView_Groups(t *testing.T) {
	t.Parallel()
	key := func(it Item) string { return it.Role }
	tests := []struct {
		name string
		tree *Tree
		min  int
		want string // the groups' item ranges
	}{
		{"one run", navPage(6), 3, "[[[0 1] [1 2] [2 3] [3 4] [4 5] [5 6]]]"},
		{"too short", navPage(2), 3, "[]"},
		{"off", navPage(6), 0, "[]"},
		// Item 2 has an extra line: runs 0-1 (too short) and 3-5.
		{"broken run", navPage(6, 2), 3, "[[[4 5] [5 6] [6 7]]]"},
		{"broken, min 2", navPage(6, 2), 2, "[[[0 1] [1 2]] [[4 5] [5 6] [6 7]]]"},
	}
	for _, tc := range tests {
		v := tc.tree.Select(Options{Expansion: WholePage})
		var got [][][2]int
		for _, g := range v.Groups(tc.min, key) {
			got = append(got, g.Items)
			if len(g.Children) != len(g.Items) {
				t.Errorf("%s: %d children, %d item ranges", tc.name, len(g.Children), len(g.Items))
			}
		}
		if fmt.Sprint(got) == "[]" || got == nil {
			if tc.want != "[]" {
				t.Errorf("%s: no groups, want %s", tc.name, tc.want)
			}
			continue
		}
		if fmt.Sprint(got) != tc.want {
			t.Errorf("%s: groups %v, want %s", tc.name, got, tc.want)
		}
	}
}
