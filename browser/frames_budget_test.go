package browser

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dom"
)

// TestFrames_BudgetCoversThePage loads the attack page of cross-origin
// frames through the browser adapter, lowered to budgetFrames frames of
// 1,000 nodes each (/attacks/frames?frames=12&rows=10) and the node
// budget to 6,000: the frames together hold more nodes than a capture
// may, as the 50 full-size frames do against the default budget, at a
// small part of the load time (each frame is a renderer process of its
// own; the crawl's attack test loads the full-size page). The stitched
// capture holds at most the node budget, whatever the number of frames,
// and says it was cut. With a budget of exactly the page and two frames,
// the third frame is left out whole and that alone marks the capture
// truncated. A character budget is spent the same way.
func TestFrames_BudgetCoversThePage(t *testing.T) {
	const budgetFrames = 12
	t.Parallel()
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	load := func(t *testing.T, opts dom.ScriptOptions, maxFrames int) *dom.Capture {
		t.Helper()
		cfg := defaultTestConfig()
		cfg.page.Script = opts
		cfg.page.MaxFrames = maxFrames
		page := mustNewPage(t, mustLaunchChromium(t, cfg))
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		start := time.Now()
		ld, err := page.Load(ctx, fmt.Sprintf("%s/attacks/frames?frames=%d&rows=10", srv.URL, budgetFrames))
		if err != nil {
			t.Fatal(err)
		}
		c, err := dom.Parse(ld.Capture)
		if err != nil {
			t.Fatal(err)
		}
		p := c.Page
		t.Logf("load %v (capture %v): %d nodes, %d chars, %d of %d frames stitched, capped %v, record %d bytes",
			time.Since(start).Round(time.Millisecond), ld.CaptureTime.Round(time.Millisecond),
			len(c.Nodes), p.Chars, p.FramesStitched, p.CrossOriginFrames, p.Capped, len(ld.Capture))
		if p.CrossOriginFrames != budgetFrames {
			t.Fatalf("%d cross-origin frames met, want %d", p.CrossOriginFrames, budgetFrames)
		}
		return c
	}
	check := func(t *testing.T, c *dom.Capture, frames int, cap string) {
		t.Helper()
		p := c.Page
		if frames >= 0 && p.FramesStitched != frames {
			t.Errorf("%d frames stitched, want %d", p.FramesStitched, frames)
		}
		if p.FramesStitched >= budgetFrames {
			t.Errorf("all %d frames stitched, want the budget to stop them", p.FramesStitched)
		}
		if !p.Truncated || !slices.Equal(p.Capped, []string{cap}) {
			t.Errorf("truncated %v, capped %v; want truncated and [%s]", p.Truncated, p.Capped, cap)
		}
	}

	opts := dom.DefaultScriptOptions()
	opts.MaxNodes = 6_000
	c := load(t, opts, budgetFrames)
	if len(c.Nodes) > opts.MaxNodes {
		t.Errorf("%d nodes in the stitched capture, budget %d", len(c.Nodes), opts.MaxNodes)
	}
	check(t, c, -1, dom.CapNodes)

	// The page's own nodes, and a frame's (every frame has as many): the
	// nodes after the first frame's iframe, down to the page's next node.
	page, frame := 0, 0
	for _, n := range c.Nodes {
		if n.Frame == 0 {
			page++
		}
	}
	for i := range c.Nodes {
		if c.Nodes[i].CrossOrigin == 1 {
			for k := i + 1; k < len(c.Nodes) && c.Nodes[k].Frame > 0; k++ {
				frame++
			}
			break
		}
	}
	opts.MaxNodes = page + 2*frame
	c = load(t, opts, budgetFrames)
	if len(c.Nodes) != opts.MaxNodes {
		t.Errorf("%d nodes, want the page's %d and two frames' %d", len(c.Nodes), page, frame)
	}
	check(t, c, 2, dom.CapNodes)

	opts = dom.DefaultScriptOptions()
	opts.MaxChars = 8_000
	c = load(t, opts, budgetFrames)
	if c.Page.Chars > opts.MaxChars+opts.TextCap {
		t.Errorf("%d chars in the stitched capture, budget %d", c.Page.Chars, opts.MaxChars)
	}
	check(t, c, -1, dom.CapChars)

	// The frame cap: three frames captured whole, the others left out,
	// and the capture says so without being truncated.
	c = load(t, dom.DefaultScriptOptions(), 3)
	if c.Page.FramesStitched != 3 || c.Page.Truncated || !slices.Equal(c.Page.Capped, []string{dom.CapFrames}) {
		t.Errorf("max frames 3: %d stitched, truncated %v, capped %v; want 3, false, [%s]",
			c.Page.FramesStitched, c.Page.Truncated, c.Page.Capped, dom.CapFrames)
	}
}
