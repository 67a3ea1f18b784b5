// Command goldens re-captures the bundled corpus with real Chromium into
// render/testdata/<page>/capture.json.gz, the inputs of the renderer's
// golden-file tests. Run it through `make goldens`, which then rewrites
// the golden renderings; review the diff before committing.
//
// The captures are normalized so that regenerating them does not churn:
// the page URL's origin becomes http://corpus.test and the capture time a
// fixed instant.
package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"actionspace/browser"
	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/pipeline"
)

// fixedTime is the capture time written into every golden capture.
var fixedTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func main() {
	dir := "render/testdata"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := run(context.Background(), dir); err != nil {
		fmt.Fprintf(os.Stderr, "goldens: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string) error {
	srv, err := corpora.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	b, err := browser.Launch(ctx, browser.DefaultConfig())
	if err != nil {
		return err
	}
	defer b.Close()
	page, err := b.NewPage(ctx, pipeline.DefaultPageConfig())
	if err != nil {
		return err
	}
	defer page.Close()
	for _, p := range corpora.DefaultPaths() {
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		load, err := page.Load(lctx, srv.URL+p)
		cancel()
		if err != nil {
			return err
		}
		c, err := dom.Parse(load.Capture)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		u, err := url.Parse(c.Page.URL)
		if err != nil {
			return err
		}
		u.Scheme, u.Host = "http", "corpus.test"
		c.Page.URL = u.String()
		c.Page.Time = float64(fixedTime.UnixMilli())
		c.Page.ScriptMs = 0
		name := strings.TrimSuffix(path.Base(p), path.Ext(p))
		if name == "" || name == "/" || name == "." {
			name = "index"
		}
		if err := write(filepath.Join(dir, name, "capture.json.gz"), c); err != nil {
			return err
		}
		fmt.Printf("%s: %d nodes\n", name, len(c.Nodes))
	}
	return nil
}

func write(file string, c *dom.Capture) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	zw.ModTime = fixedTime
	if err := json.NewEncoder(zw).Encode(c); err != nil {
		f.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
