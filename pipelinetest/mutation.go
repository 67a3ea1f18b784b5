package pipelinetest

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/pipeline"
)

// CrawlMutation crawls the mutation page path (corpora.MutationPaths)
// with the steps of its truth on a replay of the states the browser
// stored: every format, at the screen (viewport_expansion 0) and the
// whole page, in both ID policies, counting cl100k_base, into the dataset
// dir. It returns the truth and the crawl's spaces rows, and fails the
// test when the crawl cannot run.
func CrawlMutation(tb testing.TB, path, dir string) (*corpora.StepTruth, []dataset.SpaceRow) {
	tb.Helper()
	truth, err := corpora.MutationTruthFor(path)
	if err != nil {
		tb.Fatal(err)
	}
	cfg := pipeline.DefaultConfig()
	cfg.RunID, cfg.Workers, cfg.Timeout = "mutation", 1, 20*time.Second
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Expansions = []int{0, dom.WholePage}
	cfg.Encodings = []metrics.Encoding{metrics.CL100K}
	cfg.IDs = []dom.IDPolicy{dom.IDsPositional, dom.IDsStable}
	cfg.Page.Steps = truth.Steps
	var mu sync.Mutex
	var rows []dataset.SpaceRow
	b := New(tb, Options{}) // a crawl closes its browser
	if _, err := pipeline.Crawl(context.Background(), cfg, pipeline.TargetsFromURLs([]string{Origin + path}), dir, b.Opener(), func(r pipeline.Result) {
		mu.Lock()
		defer mu.Unlock()
		rows = append(rows, r.Spaces...)
	}); err != nil {
		tb.Fatalf("crawl %s: %v", path, err)
	}
	return truth, rows
}
