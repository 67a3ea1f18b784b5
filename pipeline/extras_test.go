package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"actionspace/axtree"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dom"
	"actionspace/internal/storedtest"
)

// storedLoad is the Load of a stored corpus page state
// (render/testdata/<page>/), as the browser would return it.
func storedLoad(t *testing.T, page string) *Load {
	t.Helper()
	read := func(name string) []byte {
		return storedtest.Read(t, filepath.Join("..", "render", "testdata", page, name))
	}
	rec, err := axtree.Parse(read("axtree.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := axtree.ParseSnapshotRecord(read("aisnapshot.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return &Load{HTTPStatus: 200, ContentType: "text/html", HTML: string(read("page.html.gz")), Capture: read("capture.json.gz"),
		AXTree: rec, AISnapshot: snap}
}

// TestCrawl_Formats crawls stored page states through a fake browser: the
// blobs rows keep both records (json+zstd), every format gets its rows,
// with recall against the oracle, and the elements and oracle tables their
// rows. A page whose accessibility tree was skipped says why and has no
// oracle: no axtree rows, null recall.
func TestCrawl_Formats(t *testing.T) {
	widgets, skipped := storedLoad(t, "widgets"), storedLoad(t, "login")
	skipped.AXTree, skipped.AXTreeSkipped, skipped.AXTreeTime = nil, dataset.SkippedTooLarge, 1
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) {
		if url == "http://fake.test/page?n=0" {
			return widgets, nil
		}
		return skipped, nil
	}}
	cfg := fakeConfig(t)
	cfg.Expansions = []int{0, dom.WholePage}
	dir := t.TempDir()
	stats, err := Crawl(context.Background(), cfg, fakeTargets(2), dir, opened(b), nil)
	if err != nil || stats.OK != 2 {
		t.Fatalf("crawl: %+v, %v", stats, err)
	}
	w, s := PageID("http://fake.test/page?n=0"), PageID("http://fake.test/page?n=1")

	pages := readTable[dataset.PageRow](t, dir, dataset.PagesDir)
	for _, p := range pages {
		if p.PageID == s && (p.AXTreeSkipped != dataset.SkippedTooLarge || p.AXTreeMS == nil || p.AISnapshotSkipped != "") {
			t.Errorf("skipped page: axtree_skipped %q, axtree_ms %v, aisnapshot_skipped %q", p.AXTreeSkipped, p.AXTreeMS, p.AISnapshotSkipped)
		}
	}
	for _, bl := range readTable[dataset.BlobRow](t, dir, dataset.BlobsDir) {
		if bl.PageID != w {
			if bl.AXTree != nil || bl.AXTreeEncoding != "" || bl.AISnapshot == nil {
				t.Errorf("skipped page: axtree %d bytes (%q), aisnapshot %d bytes", len(bl.AXTree), bl.AXTreeEncoding, len(bl.AISnapshot))
			}
			continue
		}
		raw, err := dataset.DecompressCapture(bl.AXTree)
		if err != nil || bl.AXTreeEncoding != dataset.CaptureEncoding {
			t.Fatalf("axtree: %v, encoding %q", err, bl.AXTreeEncoding)
		}
		rec, err := axtree.Parse(raw)
		if err != nil || len(rec.Nodes) != len(widgets.AXTree.Nodes) {
			t.Errorf("axtree read back: %v, %d nodes", err, len(rec.Nodes))
		}
		raw, err = dataset.DecompressCapture(bl.AISnapshot)
		if err != nil || bl.AISnapshotEncoding != dataset.CaptureEncoding {
			t.Fatalf("aisnapshot: %v, encoding %q", err, bl.AISnapshotEncoding)
		}
		if snap, err := axtree.ParseSnapshotRecord(raw); err != nil || snap.Text != widgets.AISnapshot.Text {
			t.Errorf("aisnapshot read back: %v", err)
		}
	}

	rows := map[string]map[string]dataset.SpaceRow{w: {}, s: {}}
	for _, r := range readTable[dataset.SpaceRow](t, dir, dataset.SpacesDir) {
		rows[r.PageID][r.Format+"/"+r.Mode+"/"+itoa(r.ViewportExpansion)+"/"+r.TextPolicy] = r
	}
	want := []string{"actionspace/fast/0/viewport", "actionspace/fast/-1/viewport", "browser-use//0/", "browser-use//-1/", "playwright-ai//0/", "playwright-ai//-1/", "axtree//0/", "axtree//-1/", "html//-1/"}
	for _, k := range want {
		r, ok := rows[w][k]
		if !ok {
			t.Errorf("widgets: no %s row", k)
			continue
		}
		if r.OracleInWindow == nil || r.ExtraHandles == nil || (r.Recall == nil) != (r.Format == "html") {
			t.Errorf("widgets %s: in window %v, recall %v, extra %v", k, r.OracleInWindow, r.Recall, r.ExtraHandles)
		}
	}
	if r := rows[w]["actionspace/fast/-1/viewport"]; r.Recall == nil || *r.Recall != 22.0/24 || *r.ExtraHandles != 7 {
		t.Errorf("widgets at the whole page: recall %v, extra %v; want 22/24 and 7", r.Recall, r.ExtraHandles)
	}
	if len(rows[w]) != len(want) || len(rows[s]) != len(want)-2 {
		t.Errorf("%d and %d spaces rows, want %d and %d (no axtree rows without the tree)", len(rows[w]), len(rows[s]), len(want), len(want)-2)
	}
	for k, r := range rows[s] {
		if r.OracleInWindow != nil || r.Recall != nil || r.ExtraHandles != nil {
			t.Errorf("skipped page %s: recall columns %v %v %v, want null", k, r.OracleInWindow, r.Recall, r.ExtraHandles)
		}
	}

	elements, oracle := map[string]int{}, map[string]int{}
	for _, r := range readTable[dataset.ElementRow](t, dir, dataset.ElementsDir) {
		elements[r.PageID]++
	}
	for _, r := range readTable[dataset.OracleRow](t, dir, dataset.OracleDir) {
		oracle[r.PageID]++
	}
	if elements[w] < 29 || elements[s] < 13 || oracle[w] != 25 || oracle[s] != 0 {
		t.Errorf("elements rows %v, oracle rows %v; want the interactive elements of both, 25 oracle elements of widgets", elements, oracle)
	}
}

func readTable[T any](t *testing.T, dir, table string) []T {
	t.Helper()
	files, err := parts.Files(dir, table)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, f := range files {
		rows, err := dataset.ReadAll[T](f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
	return out
}

func itoa(n int64) string { return fmt.Sprint(n) }

// TestProbeColumns: the pages row counts the elements the probe answered
// for, says what it probed, whether it was capped and why it is missing
// or partial; a page without a probe has none.
func TestProbeColumns(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	load := &Load{AXTree: &axtree.Record{Probe: &axtree.Probe{Mode: axtree.ProbeAll, Candidates: 4, Capped: true, Hits: []axtree.Hit{
		{Node: 1, Reached: &yes}, {Node: 2, Reached: &no, Tag: "div"}, {Node: 3, Why: axtree.HitOffscreen}, {Node: 4, Why: axtree.HitCapped}}}},
		ActionableProbeTime: 2500000, ActionableProbeSkipped: dataset.SkippedDeadline}
	var row dataset.PageRow
	probeColumns(&row, load)
	if row.ActionableProbe != axtree.ProbeAll || ptrString(row.ActionableProbed) != "2" || !row.ActionableProbeCapped ||
		ptrString(row.ActionableProbeMS) != "2.5" || row.ActionableProbeSkipped != dataset.SkippedDeadline {
		t.Errorf("probe columns: %q, probed %s, capped %v, %s ms, skipped %q", row.ActionableProbe, ptrString(row.ActionableProbed),
			row.ActionableProbeCapped, ptrString(row.ActionableProbeMS), row.ActionableProbeSkipped)
	}
	row = dataset.PageRow{}
	probeColumns(&row, &Load{AXTree: &axtree.Record{}, ActionableProbeSkipped: dataset.SkippedFailed})
	if row.ActionableProbe != "" || row.ActionableProbed != nil || row.ActionableProbeMS != nil || row.ActionableProbeSkipped != dataset.SkippedFailed {
		t.Errorf("no probe: %+v", row)
	}
}
