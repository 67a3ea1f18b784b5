package browser

import (
	"context"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dom"
)

// TestSteps_elementKeys performs steps in Chromium through the adapter
// and reads the element keys of the captures (dom.Node.Key): a step that
// stays in its document (insert before) keeps the document token and
// every surviving truth element's key, and gives the inserted element a
// new one; a step to another document (crossdoc) gets a new token. Each
// capture makes its isolated world again by name, and Chromium gives back
// the document's world, where the keys live.
func TestSteps_elementKeys(t *testing.T) {
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	keys := func(t *testing.T, record []byte) (string, map[string]int) {
		c, err := dom.Parse(record)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, n := range c.Nodes {
			if name, ok := n.Attr(corpora.TruthAttr); ok {
				out[name] = n.Key
			}
		}
		return c.Page.Doc, out
	}
	for _, tt := range []struct {
		path, step string
		sameDoc    bool
	}{
		{"/mutation/insert.html", "expand", true},
		{"/mutation/crossdoc.html", "expand", false},
	} {
		t.Run(tt.path, func(t *testing.T) {
			b := mustLaunchChromium(t, stepsConfig(tt.step))
			page := mustNewPage(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			ld, err := page.Load(ctx, srv.URL+tt.path)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if len(ld.Steps) != 1 || ld.Steps[0].State == nil {
				t.Fatalf("steps %+v, want one with a state", ld.Steps)
			}
			doc0, k0 := keys(t, ld.Capture)
			doc1, k1 := keys(t, ld.Steps[0].State.Capture)
			if doc0 == "" || doc1 == "" || (doc0 == doc1) != tt.sameDoc {
				t.Fatalf("document tokens %q then %q, same document %v", doc0, doc1, tt.sameDoc)
			}
			if !tt.sameDoc {
				return
			}
			before := map[int]bool{}
			for name, k := range k0 {
				before[k] = true
				if k == 0 || k1[name] != k {
					t.Errorf("%s: key %d then %d", name, k, k1[name])
				}
			}
			if k := k1["pinned"]; k == 0 || before[k] {
				t.Errorf("the inserted element has key %d (keys before: %v)", k, k0)
			}
		})
	}
}
