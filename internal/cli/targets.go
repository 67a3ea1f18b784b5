package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/pipeline"
)

// LoadTargets reads the URL list at path ("-" reads stdin), or, when path
// is empty, serves the bundled corpus on 127.0.0.1 and lists its pages;
// cleanup stops that server. label says which it was, for reports. Lines
// that are not crawlable URLs are logged with their line numbers; they
// still become targets, which get invalid_url rows.
func LoadTargets(path string, schemes []string, stdin io.Reader, log *slog.Logger) (targets []pipeline.Target, label string, cleanup func(), err error) {
	if path == "" {
		srv, err := corpora.Start()
		if err != nil {
			return nil, "", nil, fmt.Errorf("serve bundled corpus: %w", err)
		}
		targets = pipeline.TargetsFromURLs(corpora.DefaultURLs(srv.URL))
		return targets, fmt.Sprintf("bundled corpus (%d pages)", len(targets)), func() { srv.Close() }, nil
	}
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", nil, fmt.Errorf("URL list: %w", err)
		}
		defer f.Close()
		r = f
	}
	targets, err = pipeline.ReadTargets(r, schemes)
	if err != nil {
		return nil, "", nil, fmt.Errorf("URL list %s: %w", path, err)
	}
	for _, t := range targets {
		if t.Err != nil {
			log.Warn("URL list: line refused; it gets an invalid_url row", "file", path, "line", t.Line, "err", t.Err.Err)
		}
	}
	if len(targets) == 0 {
		return nil, "", nil, fmt.Errorf("no URLs in %s", path)
	}
	return targets, "URL list " + path, func() {}, nil
}

// Crawl runs pipeline.Crawl with the progress reporter both commands use
// on stderr.
func Crawl(ctx context.Context, cfg pipeline.Config, targets []pipeline.Target, out string, open pipeline.Opener, stderr io.Writer) (pipeline.Stats, error) {
	progress := NewProgress(stderr, IsTerminal(stderr), "crawl", "pages", len(targets))
	defer progress.Finish()
	return pipeline.Crawl(ctx, cfg, targets, out, open, func(res pipeline.Result) {
		failed := 0
		if res.Page.Status != dataset.StatusOK {
			failed = 1
		}
		progress.Add(1, failed)
	})
}
