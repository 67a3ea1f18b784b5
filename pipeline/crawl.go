package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"actionspace/dataset"
)

// Dataset file names inside a crawl's output directory.
const (
	PagesFile  = "pages.parquet"
	SpacesFile = "spaces.parquet"
)

// pagesRowGroup is smaller than the default: a pages row holds the raw HTML
// and the capture, tens of kilobytes each.
const pagesRowGroup = 64

// Crawl runs a whole crawl into outDir: it launches Chromium, crawls the
// targets and streams the rows into outDir/pages.parquet and
// outDir/spaces.parquet. onResult, if set, sees every result after it was
// written (for progress). The files are closed properly even when ctx is
// canceled; then the error is ctx's.
func Crawl(ctx context.Context, cfg Config, targets []Target, outDir string, onResult func(Result)) (Stats, error) {
	if err := cfg.Validate(); err != nil {
		return Stats{}, err
	}
	browser, err := LaunchChromium(ctx, cfg.Browser)
	if err != nil {
		return Stats{}, err
	}
	defer browser.Close()
	return CrawlWith(ctx, cfg, browser, targets, outDir, onResult)
}

// CrawlWith is Crawl on a browser the caller owns.
func CrawlWith(ctx context.Context, cfg Config, browser Browser, targets []Target, outDir string, onResult func(Result)) (Stats, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return Stats{}, fmt.Errorf("create output directory: %w", err)
	}
	meta := dataset.Metadata{
		ToolVersion:    ToolVersion(),
		BrowserVersion: browser.Version(),
		RunID:          cfg.RunID,
		Config:         cfg.record(),
	}
	pages, err := dataset.Create[dataset.PageRow](filepath.Join(outDir, PagesFile), meta, dataset.WriterConfig{RowGroupRows: pagesRowGroup})
	if err != nil {
		return Stats{}, err
	}
	spaces, err := dataset.Create[dataset.SpaceRow](filepath.Join(outDir, SpacesFile), meta, dataset.DefaultWriterConfig())
	if err != nil {
		_ = pages.Abort()
		return Stats{}, err
	}
	stats, runErr := Run(ctx, cfg, browser, targets, func(res Result) error {
		if err := pages.Write(res.Page); err != nil {
			return err
		}
		for _, s := range res.Spaces {
			if err := spaces.Write(s); err != nil {
				return err
			}
		}
		if onResult != nil {
			onResult(res)
		}
		return nil
	})
	closeErr := errors.Join(pages.Close(), spaces.Close())
	if runErr != nil {
		return stats, runErr
	}
	if closeErr != nil {
		return stats, fmt.Errorf("close dataset: %w", closeErr)
	}
	return stats, nil
}

// record is the run configuration as stored in the files' metadata: what
// was asked for, never secrets.
func (c Config) record() string {
	b := c.Browser.withDefaults()
	sum := sha256.Sum256([]byte(b.CaptureScript))
	rec := struct {
		Workers        int      `json:"workers"`
		TimeoutSeconds float64  `json:"timeout_seconds"`
		Retries        int      `json:"retries"`
		Expansions     []int    `json:"viewport_expansions"`
		Text           string   `json:"text"`
		Encodings      []string `json:"encodings"`
		ViewportWidth  int      `json:"viewport_width"`
		ViewportHeight int      `json:"viewport_height"`
		SettleQuietMS  int64    `json:"settle_quiet_ms"`
		SettleMaxMS    int64    `json:"settle_max_ms"`
		ScriptSHA256   string   `json:"capture_script_sha256"`
		ScriptArg      any      `json:"capture_script_options"`
	}{
		Workers: c.Workers, TimeoutSeconds: c.Timeout.Seconds(), Retries: c.Retries,
		Expansions: c.Expansions, Text: string(c.Text),
		ViewportWidth: b.ViewportWidth, ViewportHeight: b.ViewportHeight,
		SettleQuietMS: b.SettleQuiet.Milliseconds(), SettleMaxMS: b.SettleMax.Milliseconds(),
		ScriptSHA256: hex.EncodeToString(sum[:]), ScriptArg: b.CaptureArg,
	}
	for _, e := range c.Encodings {
		rec.Encodings = append(rec.Encodings, string(e))
	}
	out, err := json.Marshal(rec)
	if err != nil {
		return "{}"
	}
	return string(out)
}

// ToolVersion is the version of this build: the module version and, when
// built from a checkout, the VCS revision.
func ToolVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += "+" + s.Value[:12]
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "-dirty"
		}
	}
	return v
}
