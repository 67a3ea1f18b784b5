package browser

import (
	"context"
	"strings"
	"testing"
	"time"

	"actionspace/pipeline"
)

// TestChromium_LoadFloor: a floor load (PageConfig.Floor) navigates and
// reads the HTML, and nothing more: no settling, capture or stored
// records; the records the extras ask for are taken and dropped, each
// timed. A failed navigation fails as a crawl's does.
func TestChromium_LoadFloor(t *testing.T) {
	cfg := defaultTestConfig()
	cfg.page.Floor = true
	cfg.page.Extras.AXTree, cfg.page.Extras.AISnapshot = true, true
	b := mustLaunchChromium(t, cfg)
	site := newTestSite(t)
	page := mustNewPage(t, b)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ld, err := page.Load(ctx, site.URL+"/late")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ld.HTML, "<title>Late</title>") || ld.HTMLBytes != len(ld.HTML) {
		t.Errorf("HTML = %.120q (%d bytes recorded), want the page's markup and its length", ld.HTML, ld.HTMLBytes)
	}
	if ld.HTTPStatus != 200 || ld.FinalURL != site.URL+"/late" || ld.Navigate <= 0 || ld.Content <= 0 {
		t.Errorf("status %d, final URL %q, navigate %v, content %v; want 200, the URL and both timed", ld.HTTPStatus, ld.FinalURL, ld.Navigate, ld.Content)
	}
	if ld.Capture != nil || ld.AXTree != nil || ld.AISnapshot != nil || ld.Settle != 0 || ld.CaptureTime != 0 {
		t.Errorf("capture %d bytes, axtree %v, snapshot %v, settle %v, capture time %v; want none: the floor only navigates and reads",
			len(ld.Capture), ld.AXTree != nil, ld.AISnapshot != nil, ld.Settle, ld.CaptureTime)
	}
	if ld.AXTreeTime <= 0 || ld.AISnapshotTime <= 0 {
		t.Errorf("accessibility tree taken in %v, AI snapshot in %v; want both taken, as the extras ask", ld.AXTreeTime, ld.AISnapshotTime)
	}

	_, err = page.Load(ctx, closedURL(t))
	if got := pipeline.ErrorKindOf(err); got != pipeline.KindNavigate {
		t.Errorf("unreachable URL: error %v (kind %q), want %q", err, got, pipeline.KindNavigate)
	}
}
