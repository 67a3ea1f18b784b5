package dom

import (
	"encoding/json"
	"testing"
	"time"

	"actionspace/corpora"
)

// TestCapture_OcclusionPoint: on the hand-labeled page
// corpora/site/oracles/clickpoint.html, captured by real Chromium, the
// capture tests occlusion at the point a click lands on (the centre of
// the visible part of the first box fragment, the actionable-now probe's
// point), not at the centre of the bounding box: a link wrapped over two
// lines, whose bounding box's centre lies on another link, and a link cut
// by the viewport's bottom edge, whose bounding box's centre hits
// nothing, are on top; a button under a fixed bar is covered; a link far
// below is not measured.
func TestCapture_OcclusionPoint(t *testing.T) {
	c := startChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c.load(t, srv.URL+"/oracles/clickpoint.html", time.Minute)
	w := c.world(t)
	// The page still tests what it means to: what lies at the centre of
	// each labeled bounding box.
	raw, _ := c.eval(t, w, `JSON.stringify([...document.querySelectorAll("[data-bbox-centre]")].map((el) => {
  const b = el.getBoundingClientRect();
  const h = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
  return [el.id, el.dataset.bboxCentre, h ? h.id : ""];
}))`).(string)
	var centres [][3]string
	if err := json.Unmarshal([]byte(raw), &centres); err != nil {
		t.Fatal(err)
	}
	if len(centres) != 2 {
		t.Fatalf("%d elements labeled data-bbox-centre, want 2", len(centres))
	}
	for _, ce := range centres {
		if ce[1] != ce[2] {
			t.Errorf("#%s: the centre of its bounding box hits %q, the page says %q: the page no longer tests the point", ce[0], ce[2], ce[1])
		}
	}
	// Both ways the capture decides: hit testing only where a recorded
	// box could cover the point (the default), and hit testing every
	// measured element (ExactOcclusion).
	for _, exact := range []bool{false, true} {
		opts := DefaultScriptOptions()
		opts.ExactOcclusion = exact
		_, capt := c.capture(t, w, opts)
		labeled := 0
		for i := range capt.Nodes {
			nd := &capt.Nodes[i]
			want, ok := nd.Attr("data-topmost")
			if !ok {
				continue
			}
			labeled++
			id, _ := nd.Attr("id")
			got := "unmeasured"
			if nd.Topmost != nil {
				got = map[int]string{0: "covered", 1: "top"}[*nd.Topmost]
			}
			if got != want {
				t.Errorf("exact occlusion %v: #%s: %s, want %s", exact, id, got, want)
			}
		}
		if labeled != 6 {
			t.Errorf("exact occlusion %v: %d labeled controls captured, want 6", exact, labeled)
		}
	}
}
