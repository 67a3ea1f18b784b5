package render

import (
	"strings"

	"actionspace/axtree"
	"actionspace/dom"
	"actionspace/oracle"
)

// AISnapshot renders the playwright-ai format: Playwright's AI snapshot
// (what Playwright MCP agents read) restricted to the window win by its
// boxes. An element line is kept when its box, placed in the page
// (axtree.PageBoxes), meets the window, and its ancestors are kept for
// structure; text and property lines, and element lines without a box,
// go with their parent. Kept lines are written as Playwright wrote them,
// minus the [box=…] attributes (the boxes are for placing, agents are not
// shown them). rec places boxes inside frames (nil: by the iframe's own
// corner); o, when not nil, is the oracle the handles are matched against
// (by box and role, see oracle.Tie).
func AISnapshot(snap *axtree.Snapshot, rec *axtree.Record, o *oracle.Oracle, win dom.Rect) (FormatSpace, error) {
	nodes, err := axtree.ParseSnapshot(snap.Text)
	if err != nil {
		return FormatSpace{}, err
	}
	boxes := axtree.PageBoxes(nodes, snap, rec)
	keep := make([]bool, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		if n.Kind == axtree.SnapElement && boxes[i] != nil {
			keep[i] = boxes[i].Intersects(win)
		} else if n.Parent >= 0 {
			continue // decided with its parent, below
		}
		if keep[i] {
			for p := n.Parent; p >= 0 && !keep[p]; p = nodes[p].Parent {
				keep[p] = true
			}
		}
	}
	for i := range nodes {
		n := &nodes[i]
		if n.Parent >= 0 && (n.Kind != axtree.SnapElement || boxes[i] == nil) && keep[n.Parent] {
			keep[i] = true
		}
	}
	lines := strings.Split(strings.TrimSuffix(snap.Text, "\n"), "\n")
	var b strings.Builder
	var sp FormatSpace
	var cands []oracle.Candidate
	var candLine []int
	depth := axtree.SnapDepths(nodes)
	line := make([]int, len(nodes)) // the node's line in the text
	written := 0
	for i := range nodes {
		n := &nodes[i]
		if !keep[i] {
			continue
		}
		line[i] = written
		written++
		b.WriteString(dropBox(lines[i]))
		b.WriteByte('\n')
		if n.Ref != "" {
			sp.Handles++
			sp.HandleLines = append(sp.HandleLines, line[i])
			sp.HandleNodes = append(sp.HandleNodes, i)
			if boxes[i] != nil {
				cands = append(cands, oracle.Candidate{Box: *boxes[i], Role: n.Role, Depth: depth[i]})
				candLine = append(candLine, i)
			}
		}
	}
	sp.Text = b.String()
	if o != nil {
		sp.Handled = make([]bool, len(o.Elements))
		sp.HandledLine = make([]int, len(o.Elements))
		picked := map[int]bool{}
		for k, c := range o.Tie(cands) {
			sp.HandledLine[k] = -1
			if c >= 0 {
				sp.Handled[k] = true
				sp.HandledLine[k] = line[candLine[c]]
				picked[c] = true
			}
		}
		sp.Matched = len(picked)
	}
	return sp, nil
}

// dropBox removes the " [box=…]" attribute from a snapshot line.
func dropBox(line string) string {
	i := strings.LastIndex(line, " [box=")
	if i < 0 {
		return line
	}
	j := strings.IndexByte(line[i+1:], ']')
	if j < 0 {
		return line
	}
	return line[:i] + line[i+1+j+1:]
}
