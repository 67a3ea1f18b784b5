package dom

import (
	"sort"
	"strings"
)

// Group is a run of sibling elements of the same shape in a view, as in a
// product grid, a nav bar or a table body: the rendering folds it into
// one header line plus one line per sibling (render.Fast with
// Options.Group).
type Group struct {
	// Parent is the siblings' parent element (a capture node index).
	Parent int
	// Children are the sibling elements, in document order.
	Children []int
	// Items are, per sibling, the range [from, to) of the view's items
	// inside it. The ranges follow each other without a gap: no line of
	// the view falls between two siblings of a group.
	Items [][2]int
}

// Span returns the range [from, to) of the view's items the group
// covers.
func (g Group) Span() (from, to int) { return g.Items[0][0], g.Items[len(g.Items)-1][1] }

// Groups finds the runs of at least min consecutive sibling elements of
// the same shape among the view's lines, outermost first, in document
// order, none inside another. Two siblings have the same shape when they
// have the same tag and their lines match one for one: the same tag path
// from the sibling down to the line's node, and the same key (what the
// caller's rendering shows of a line's kind: for an action its role, tag
// and attribute names). Siblings without a line neither count nor break
// a run; a line between two siblings breaks it. min below 2 finds none.
func (v *View) Groups(min int, key func(Item) string) []Group {
	if min < 2 || len(v.Items) < min {
		return nil
	}
	t := v.Tree
	nodes := t.Capture.Nodes
	children := make(map[int][]int)
	for i := range nodes {
		if p := nodes[i].Parent; p >= 0 && nodes[i].Kind == ElementNode {
			children[p] = append(children[p], i)
		}
	}
	// span returns the items inside node c's subtree: they follow each
	// other, as items are in document order.
	span := func(c int) (int, int) {
		from := sort.Search(len(v.Items), func(k int) bool { return v.Items[k].Node >= c })
		to := sort.Search(len(v.Items), func(k int) bool { return v.Items[k].Node > t.end[c] })
		return from, to
	}
	shape := func(c, from, to int) string {
		var b strings.Builder
		b.WriteString(nodes[c].Tag)
		for k := from; k < to; k++ {
			b.WriteByte('\x1e')
			var path []string
			for n := v.Items[k].Node; n != c && n >= 0; n = nodes[n].Parent {
				tag := nodes[n].Tag
				if nodes[n].Kind != ElementNode {
					tag = "#text"
				}
				path = append(path, tag)
			}
			for j := len(path) - 1; j >= 0; j-- {
				b.WriteString(path[j])
				b.WriteByte('/')
			}
			b.WriteByte('\x1f')
			b.WriteString(key(v.Items[k]))
		}
		return b.String()
	}
	var out []Group
	type entry struct {
		node, from, to int
		shape          string
	}
	var visit func(p int)
	visit = func(p int) {
		var es []entry
		for _, c := range children[p] {
			if from, to := span(c); from < to {
				es = append(es, entry{node: c, from: from, to: to})
			}
		}
		if len(es) >= min {
			for k := range es {
				es[k].shape = shape(es[k].node, es[k].from, es[k].to)
			}
		}
		for k := 0; k < len(es); {
			run := 1
			if len(es) >= min {
				for k+run < len(es) && es[k+run].shape == es[k].shape && es[k+run].from == es[k+run-1].to {
					run++
				}
			}
			if run >= min {
				g := Group{Parent: p}
				for _, e := range es[k : k+run] {
					g.Children = append(g.Children, e.node)
					g.Items = append(g.Items, [2]int{e.from, e.to})
				}
				out = append(out, g)
				k += run
				continue
			}
			visit(es[k].node)
			k++
		}
	}
	if len(nodes) > 0 {
		visit(0)
		// The root itself is no sibling; its children are visited above.
	}
	return out
}
