package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"actionspace/bench"
	"actionspace/browser"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/internal/cli"
	"actionspace/pipeline"
)

// crawlFirst crawls the URL list (or the bundled corpus) into OUT/crawl
// and returns that location and a label for the report. open opens the
// crawl's browser; nil means Chromium at --chromium.
func crawlFirst(ctx context.Context, cfg bench.Config, o options, open pipeline.Opener, stdin io.Reader, stderr io.Writer, log *slog.Logger) (loc, label string, err error) {
	pc := pipeline.DefaultConfig()
	pc.RunID = cfg.RunID
	pc.Workers = o.crawlers
	pc.Timeout = o.timeout
	pc.Matrix = cfg.CrawlMatrix()
	pc.UseFormats(pc.Formats)
	pc.Logger = log
	if pc.Page.ViewportWidth, pc.Page.ViewportHeight, err = cli.ParseViewport(o.viewport); err != nil {
		return "", "", cli.Usagef("--viewport: %v", err)
	}
	if err := pc.Validate(); err != nil {
		return "", "", cli.UsageError{Err: err}
	}
	if open == nil {
		bcfg := browser.DefaultConfig()
		bcfg.ChromiumPath, bcfg.Logger = o.chromium, log
		if err := browser.CheckChromium(bcfg.ChromiumPath); err != nil {
			return "", "", fmt.Errorf("%w; or give a crawl dataset", err)
		}
		open = browser.Opener(bcfg)
	}
	targets, label, cleanup, err := cli.LoadTargets(o.urls, pipeline.DefaultSchemes(), stdin, log)
	if err != nil {
		return "", "", err
	}
	defer cleanup()
	if loc, err = store.Join(o.out, bench.CrawlDir); err != nil {
		return "", "", cli.Usagef("--out: %v", err)
	}
	if st, err := store.Open(ctx, loc, store.Config{}); err == nil {
		pages, err := parts.Keys(ctx, st, dataset.PagesDir)
		st.Close()
		if err == nil && len(pages) > 0 {
			shown := store.Redact(loc)
			return "", "", fmt.Errorf("%s already holds a crawl: sweep it again with `bench %s --out NEW-DIR`, or choose another --out", shown, shown)
		}
	}
	fmt.Fprintf(stderr, "bench: crawling %d URLs with %d workers -> %s\n", len(targets), pc.Workers, store.Redact(loc))
	stats, err := cli.Crawl(ctx, pc, targets, loc, open, stderr)
	if err != nil {
		return "", "", fmt.Errorf("crawl stopped after %d of %d URLs: %w", stats.OK+stats.Failed, stats.Targets, err)
	}
	fmt.Fprintf(stderr, "bench: crawled %d URLs: %d ok, %d failed in %s\n", stats.Targets, stats.OK, stats.Failed, stats.Elapsed.Round(time.Millisecond))
	return loc, label, nil
}
