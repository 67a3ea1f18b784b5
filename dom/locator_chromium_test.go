package dom

import (
	"testing"
	"time"

	"actionspace/corpora"
)

// TestLocator_ResolvesInChromium loads every corpus and fidelity page in
// real Chromium, captures it in an isolated world with the elements kept,
// and resolves the locator of every element with LocateScript in the same
// world: each must match exactly its own element, and every element with
// interactivity signals must have one. Frames are captured in their own
// documents too, and their locators resolved there; the locators of the
// iframe elements themselves are checked in the parent.
func TestLocator_ResolvesInChromium(t *testing.T) {
	c := startChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	urls := append(corpora.DefaultURLs(srv.URL), corpora.FidelityURLs(srv.URL)...)
	opts := DefaultScriptOptions()
	for _, u := range urls {
		c.load(t, u, 30*time.Second)
		world := c.world(t)
		_, capt := c.capture(t, world, opts)
		tree := NewTree(capt)
		bad := badLocators(t, tree, 0, func(expr string) any { return c.eval(t, world, expr) })
		checked := 0
		for f, fc := range c.frameCaptures(t, opts) {
			bad = append(bad, badLocators(t, NewTree(fc), 0, evalIn(t, f))...)
			checked += len(fc.Nodes)
		}
		for _, b := range bad {
			t.Errorf("%s: %s", shortURL(u), b)
		}
		t.Logf("%s: %d nodes, %d in frames, %d bad locators", shortURL(u), len(capt.Nodes), checked, len(bad))
	}
}
