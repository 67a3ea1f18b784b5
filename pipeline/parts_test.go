package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actionspace/dataset"
)

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
	first, err := Crawl(ctx, cfg, targets, dir, opened(b), func(Result) {
		if n++; n == 6 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first crawl: %v, want context.Canceled", err)
	}

	loaded = nil
	cfg.RunID = ""
	cfg.Resume = true
	stats, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.OK < 6 || first.OK == 10 || stats.Skipped != first.OK || stats.OK != 10-first.OK || stats.Targets != 10 || stats.RunID != "first" {
		t.Errorf("first run %+v, resume %+v; want the resume to skip what the first did and do the rest", first, stats)
	}
	if len(loaded) != 10-first.OK {
		t.Errorf("resume loaded %v, want the %d missing URLs", loaded, 10-first.OK)
	}
	pages, err := dataset.Files(dir, dataset.PagesDir)
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
	if stats, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil); err != nil || stats.Skipped != 10 || len(loaded) != 0 {
		t.Errorf("second resume: %+v, %v, loaded %v; want all skipped", stats, err, loaded)
	}

	// Other row-shaping settings are refused.
	cfg.Expansions = []int{0, 500}
	if _, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil); err == nil || !strings.Contains(err.Error(), "viewport_expansions") {
		t.Errorf("resume with other expansions: %v, want it refused", err)
	}
	cfg.Expansions = []int{0}
	cfg.RunID = "other"
	if _, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil); err == nil || !strings.Contains(err.Error(), "first") {
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
		if _, err := Crawl(context.Background(), cfg, targets[i*6:(i+1)*6], dir, opened(b), nil); err != nil {
			t.Fatalf("%s: %v", part, err)
		}
	}
	cfg.Output.Partition = "shard=0000"
	if _, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil); err == nil {
		t.Error("a new crawl into a used partition succeeded, want it refused")
	}
	// shard=0001 is "still running": its open part must survive a resume
	// of another partition.
	open := filepath.Join(dir, dataset.SpacesDir, "shard=0001", "part-00009.parquet"+dataset.TempSuffix)
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Output.Partition = ""
	cfg.Resume = true
	stats, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil)
	if err != nil || stats.Skipped != 12 {
		t.Errorf("resume of the whole list: %+v, %v; want all 12 skipped", stats, err)
	}
	if _, err := os.Stat(open); err != nil {
		t.Errorf("another partition's open part was touched: %v", err)
	}
	pages, err := dataset.Files(dir, dataset.PagesDir)
	var spaces []string
	if err == nil {
		spaces, err = dataset.Files(dir, dataset.SpacesDir)
	}
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
