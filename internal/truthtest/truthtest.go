// Package truthtest reads a captured state of a mutation page
// (corpora.MutationPaths) against its hand-labeled truth, for the tests
// of the browser that performs the steps and of the replay that stores
// them.
package truthtest

import (
	"testing"

	"actionspace/axtree"
	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/space"
)

// HandleNames returns the truth names (corpora.TruthAttr) of the elements
// of a captured state that get a handle in the whole page's fast action
// space, in capture order; an element without one is named by its tag
// and name in parentheses. It fails the test when the capture does not
// decode.
func HandleNames(tb testing.TB, capture []byte, rec *axtree.Record, snap *axtree.Snapshot, html string) []string {
	tb.Helper()
	c, err := dom.Parse(capture)
	if err != nil {
		tb.Fatalf("parse capture: %v", err)
	}
	page := space.NewPage(dom.NewTree(c), rec, snap, html)
	elements, _ := page.Tables("run", "page", "url")
	var names []string
	for _, e := range elements {
		if e.WholePageID == nil {
			continue
		}
		name, ok := c.Nodes[e.Element].Attr(corpora.TruthAttr)
		if !ok {
			name = "(no truth: " + e.Tag + " " + e.Name + ")"
		}
		names = append(names, name)
	}
	return names
}
