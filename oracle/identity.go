package oracle

import (
	"actionspace/axtree"
	"actionspace/dom"
)

// TieCapture picks, for every candidate (a handle of another format,
// placed in the page), the capture element that stands for it, the way
// geometry matching ties an oracle element (see closest): at the same
// frame depth, with a box overlapping the candidate's by at least
// MinOverlap (intersection over union), an element whose role agrees
// first, then the largest overlap, then the later. It returns the capture
// element per candidate, -1 for none. The elements' keys then say whether
// two captures' handles name the same element (docs/handles.md).
func TieCapture(tree *dom.Tree, cands []Candidate) []int {
	nodes := tree.Capture.Nodes
	g := newGrid(nodes)
	out := make([]int, len(cands))
	for i, c := range cands {
		out[i] = -1
		if c.Box[2] <= 0 || c.Box[3] <= 0 {
			continue
		}
		e := &Element{Box: c.Box, Role: c.Role, Depth: c.Depth}
		out[i] = closest(e, g, func(j int) (dom.Rect, int, bool) {
			return nodes[j].Rect, nodes[j].Frame, sameRole(tree.Role(j), c.Role)
		})
	}
	return out
}

// byDOM returns the capture element the accessibility tree's node n of
// rec is, by the DOM identity the browser resolved (axtree.Node.Capture),
// when the tags agree; -1 otherwise. New ties oracle elements this way
// first.
func byDOM(rec *axtree.Record, tree *dom.Tree, n int) int {
	nodes := tree.Capture.Nodes
	an := &rec.Nodes[n]
	if c := an.Capture; c >= 0 && c < len(nodes) && nodes[c].Kind == dom.ElementNode && nodes[c].Tag == an.Tag {
		return c
	}
	return -1
}
