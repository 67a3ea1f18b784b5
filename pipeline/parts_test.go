package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"actionspace/dataset"
)

func fakeResult(i int) Result {
	url := fmt.Sprintf("http://fake.test/page?n=%d", i)
	id := PageID(url)
	return Result{
		Page:   dataset.PageRow{RunID: "r", PageID: id, URL: url, Status: dataset.StatusOK},
		Spaces: []dataset.SpaceRow{{RunID: "r", PageID: id, URL: url, Mode: ModeFast}, {RunID: "r", PageID: id, URL: url, Mode: ModeFast, ViewportExpansion: -1}},
	}
}

// TestPartSink_Rotation: parts close every PartPages pages, in pairs with
// the same names, and each holds its pages' spaces rows.
func TestPartSink_Rotation(t *testing.T) {
	dir := t.TempDir()
	s, err := newPartSink(dir, 0, dataset.Metadata{RunID: "r"}, OutputConfig{PartPages: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		if err := s.write(fakeResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	pages, spaces, err := DatasetFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"part-00000.parquet", "part-00001.parquet", "part-00002.parquet"}
	for _, tc := range []struct {
		files []string
		sub   string
	}{{pages, PagesDir}, {spaces, SpacesDir}} {
		var got []string
		for _, f := range tc.files {
			if filepath.Dir(f) != filepath.Join(dir, tc.sub) {
				t.Errorf("%s not in %s", f, tc.sub)
			}
			got = append(got, filepath.Base(f))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s parts = %v, want %v", tc.sub, got, want)
		}
	}
	for i, wantRows := range []int{3, 3, 1} {
		p, err := dataset.ReadAll[pageIDColumn](pages[i])
		if err != nil {
			t.Fatal(err)
		}
		sp, err := dataset.ReadAll[pageIDColumn](spaces[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != wantRows || len(sp) != 2*wantRows {
			t.Errorf("part %d: %d pages rows and %d spaces rows, want %d and %d", i, len(p), len(sp), wantRows, 2*wantRows)
		}
		for _, r := range sp {
			if !slices.Contains(p, r) {
				t.Errorf("part %d: spaces row of %s, whose page is in another part", i, r.PageID)
			}
		}
	}
}

// TestPartSink_Interval: a part open longer than PartInterval is closed by
// rotateIfDue; a part with no rows is never written.
func TestPartSink_Interval(t *testing.T) {
	dir := t.TempDir()
	s, err := newPartSink(dir, 5, dataset.Metadata{}, OutputConfig{PartInterval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rotateIfDue(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.write(fakeResult(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.rotateIfDue(time.Now()); err != nil || s.parts() != 0 {
		t.Fatalf("rotateIfDue(now) = %v with %d parts, want the part left open", err, s.parts())
	}
	if err := s.rotateIfDue(time.Now().Add(2 * time.Minute)); err != nil || s.parts() != 1 {
		t.Fatalf("rotateIfDue(+2m) = %v with %d parts, want the part closed", err, s.parts())
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	pages, _, _ := DatasetFiles(dir)
	if len(pages) != 1 || filepath.Base(pages[0]) != "part-00005.parquet" {
		t.Errorf("pages parts = %v, want part-00005 only", pages)
	}
}

// TestOpenDataset_AfterKill builds what a kill -9 leaves — complete parts,
// the temporary files of the open part, and a spaces part whose pages part
// was never renamed — and checks what a resume makes of it.
func TestOpenDataset_AfterKill(t *testing.T) {
	dir := t.TempDir()
	s, err := newPartSink(dir, 0, dataset.Metadata{RunID: "run-1", Config: `{"text":"viewport"}`}, OutputConfig{PartPages: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 { // parts 0 and 1 complete; part 2 open with one page
		if err := s.write(fakeResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	// kill -9 now: part 2 stays as temporary files.
	orphan := filepath.Join(dir, SpacesDir, partName(7))
	if err := os.WriteFile(orphan, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "*", "*"+dataset.TempSuffix))
	if len(tmps) != 2 {
		t.Fatalf("temporary files %v, want the open part's two", tmps)
	}

	if _, err := prepareOutput(fakeConfig(t), nil, dir); err == nil || !strings.Contains(err.Error(), "already holds a dataset") {
		t.Errorf("a new crawl into the directory: %v, want it refused", err)
	}

	st, err := OpenDataset(dir, "", testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.Parts != 2 || st.Rows != 4 || len(st.Done) != 4 || st.NextPart != 2 || st.RunID != "run-1" {
		t.Errorf("state = parts %d rows %d done %d next %d run %q, want 2, 4, 4, 2, run-1", st.Parts, st.Rows, len(st.Done), st.NextPart, st.RunID)
	}
	for i := range 4 {
		if !st.Done[fakeResult(i).Page.PageID] {
			t.Errorf("page %d not done", i)
		}
	}
	slices.Sort(st.Removed)
	wantRemoved := append(tmps, orphan)
	slices.Sort(wantRemoved)
	if !slices.Equal(st.Removed, wantRemoved) {
		t.Errorf("removed %v, want %v", st.Removed, wantRemoved)
	}
	for _, f := range wantRemoved {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", f, err)
		}
	}
}

// TestCrawlWith_Resume resumes with a fake browser: only the URLs missing
// from the dataset are loaded, and together the parts hold every URL once.
func TestCrawlWith_Resume(t *testing.T) {
	dir := t.TempDir()
	var loaded []string
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) {
		loaded = append(loaded, url)
		return okLoad(url), nil
	}}
	cfg := fakeConfig(t)
	cfg.Workers = 1
	cfg.RunID = "first"
	cfg.Output.PartPages = 4
	targets := fakeTargets(10)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	first, err := CrawlWith(ctx, cfg, b, targets, dir, func(Result) {
		if n++; n == 6 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first crawl: %v, want context.Canceled", err)
	}

	loaded = nil
	cfg.RunID = ""
	cfg.Output.Resume = true
	stats, err := CrawlWith(context.Background(), cfg, b, targets, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.OK < 6 || first.OK == 10 || stats.Skipped != first.OK || stats.OK != 10-first.OK || stats.Targets != 10 || stats.RunID != "first" {
		t.Errorf("first run %+v, resume %+v; want the resume to skip what the first did and do the rest", first, stats)
	}
	if len(loaded) != 10-first.OK {
		t.Errorf("resume loaded %v, want the %d missing URLs", loaded, 10-first.OK)
	}
	pages, _, err := DatasetFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, p := range pages {
		rows, err := dataset.ReadAll[dataset.PageRow](p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			count[r.URL]++
			if r.RunID != "first" {
				t.Errorf("%s: run_id %q, want first", r.URL, r.RunID)
			}
		}
	}
	for _, tg := range targets {
		if count[tg.URL] != 1 {
			t.Errorf("%s: %d rows, want 1", tg.URL, count[tg.URL])
		}
	}

	// Nothing left: a second resume loads nothing.
	loaded = nil
	if stats, err := CrawlWith(context.Background(), cfg, b, targets, dir, nil); err != nil || stats.Skipped != 10 || len(loaded) != 0 {
		t.Errorf("second resume: %+v, %v, loaded %v; want all skipped", stats, err, loaded)
	}

	// Other row-shaping settings are refused.
	cfg.Expansions = []int{0, 500}
	if _, err := CrawlWith(context.Background(), cfg, b, targets, dir, nil); err == nil || !strings.Contains(err.Error(), "viewport_expansions") {
		t.Errorf("resume with other expansions: %v, want it refused", err)
	}
	cfg.Expansions = []int{0}
	cfg.RunID = "other"
	if _, err := CrawlWith(context.Background(), cfg, b, targets, dir, nil); err == nil || !strings.Contains(err.Error(), "first") {
		t.Errorf("resume as another run: %v, want it refused", err)
	}
}

// TestCrawlWith_Partitions: two crawls (shards) write partitions of one
// dataset directory; each refuses only its own used partition, a resume
// cleans up only its own partition and skips what any partition holds, and
// DatasetFiles lists every part.
func TestCrawlWith_Partitions(t *testing.T) {
	dir := t.TempDir()
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) { return okLoad(url), nil }}
	targets := fakeTargets(12)
	cfg := fakeConfig(t)
	cfg.Output.PartPages = 2
	for i, part := range []string{"shard=0000", "shard=0001"} {
		cfg.Output.Partition = part
		if _, err := CrawlWith(context.Background(), cfg, b, targets[i*6:(i+1)*6], dir, nil); err != nil {
			t.Fatalf("%s: %v", part, err)
		}
	}
	cfg.Output.Partition = "shard=0000"
	if _, err := CrawlWith(context.Background(), cfg, b, targets, dir, nil); err == nil {
		t.Error("a new crawl into a used partition succeeded, want it refused")
	}
	// shard=0001 is "still running": its open part must survive a resume
	// of another partition.
	open := filepath.Join(dir, SpacesDir, "shard=0001", partName(9)+dataset.TempSuffix)
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Output.Partition = ""
	cfg.Output.Resume = true
	stats, err := CrawlWith(context.Background(), cfg, b, targets, dir, nil)
	if err != nil || stats.Skipped != 12 {
		t.Errorf("resume of the whole list: %+v, %v; want all 12 skipped", stats, err)
	}
	if _, err := os.Stat(open); err != nil {
		t.Errorf("another partition's open part was touched: %v", err)
	}
	pages, spaces, err := DatasetFiles(dir)
	if err != nil || len(pages) != 6 || len(spaces) != 6 {
		t.Errorf("DatasetFiles: %d pages and %d spaces parts, %v; want 6 and 6", len(pages), len(spaces), err)
	}
	for _, bad := range []string{"../x", "a/b", ".hidden", ".."} {
		cfg.Output.Partition = bad
		if err := cfg.Validate(); err == nil {
			t.Errorf("partition %q accepted", bad)
		}
	}
}
