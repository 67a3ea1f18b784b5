package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"actionspace/dataset/parts"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/space"
)

// Config holds the settings of a crawl. The zero value is not usable; start
// from DefaultConfig.
type Config struct {
	// RunID names the run in every row. A resume may leave it empty to
	// take the dataset's.
	RunID string
	// NewRunID is the run ID of a resume that leaves RunID empty and
	// finds no dataset to take one from (crawl sets a fresh one): a row's
	// run ID is never empty.
	NewRunID string
	// Shards is the shard count of a sharded crawl (its shard index is
	// Output.Partition), 0 for none; recorded, so that a resume with
	// another count is refused.
	Shards int
	// Input says what the URL list was, e.g. "bundled corpus (14 pages)"
	// or "URL list urls.txt"; recorded in the run's configuration
	// metadata, where bench reads it to label its report.
	Input string
	// Workers is the number of pages processed at once (decoded,
	// rendered, counted): CPU work, one worker per core by default.
	Workers int
	// InFlight is the number of pages loaded at once, each in a browser
	// page of its own (navigation, settling, capture, extras: mostly
	// waiting on Chromium); 0 means DefaultInFlightPerWorker per worker
	// (see PagesInFlight). A page loads its next URL while the last one
	// is processed. See the stages in stages.go.
	InFlight int
	// Timeout bounds one attempt at one URL: navigation, settling, capture
	// and content; and, once the page is loaded, its processing (decoding,
	// rendering, counting, scoring), from the end of the load.
	Timeout time.Duration
	// Retries is how many more attempts a transient failure gets.
	Retries int
	// Grace is how long the pages in flight may go on once the run's
	// context is canceled (SIGINT, SIGTERM): no new URL starts, and those
	// not finished by then get no row, so that a resume crawls them. Zero
	// stops them at once.
	Grace time.Duration
	// RecyclePages is the number of URLs a worker loads in one page (and
	// its browser context) before it closes it and opens a fresh one, which
	// keeps Chromium's memory bounded. Zero means never.
	RecyclePages int
	// Output says how Crawl lays out and rotates its part files.
	Output parts.Config
	// Resume continues the dataset already at the output location: what
	// an interrupted run left in the partition is finished or cleaned up,
	// the URLs whose pages rows are in its complete parts are skipped but
	// those whose rows failed transiently (TransientRow), which are
	// crawled again and their old rows superseded, and new parts are
	// numbered after the existing ones (see parts.Resume).
	// Without Resume, a partition that already holds parts is an error. A
	// resume skips the URLs done in any partition but changes its own
	// only, so it never touches the files of another crawl. It refuses a
	// dataset written with other row-shaping settings (see
	// checkResumable).
	Resume bool
	// ResumeKeepFailed makes a resume count every failed row as done, as
	// resumes did before transient failures were crawled again.
	ResumeKeepFailed bool
	// Matrix is what every page is rendered in: one spaces row per cell
	// (space.Matrix.Cells; no cut-from-the-end baselines). A crawl takes
	// one text policy. A format needs its record among the Page.Extras:
	// set both with UseFormats.
	space.Matrix
	// Deep renders deep mode (space.Deep around a render.Deep); required
	// when Modes holds space.ModeDeep.
	Deep space.Renderer
	// Page says how every page loads a URL: viewport, settling, the
	// capture script's options, screenshots. The browser gets it with
	// every NewPage.
	Page PageConfig
	// BrowserEndpoints and LLMBaseURL are recorded in the run's
	// configuration metadata only (the browser and the deep renderer are
	// set up elsewhere): the endpoints as scheme, host and port
	// (RedactEndpoint), the base URL without user information or URL
	// parameters.
	BrowserEndpoints []string
	LLMBaseURL       string
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
}

// DefaultConfig returns the settings `crawl` starts from.
func DefaultConfig() Config {
	return Config{
		Workers:      DefaultWorkers(),
		Timeout:      DefaultTimeout,
		Retries:      DefaultRetries,
		Grace:        DefaultGrace,
		RecyclePages: DefaultRecyclePages,
		Output:       parts.DefaultConfig(),
		Matrix: space.Matrix{
			Formats:    space.Formats(),
			Modes:      []string{space.ModeFast},
			Expansions: []int{0, 500, dom.WholePage},
			Texts:      []dom.TextPolicy{dom.TextViewport},
			Encodings:  []metrics.Encoding{metrics.CL100K, metrics.O200K},
		},
		Page: DefaultPageConfig(),
	}
}

// Validate reports the first invalid setting, naming it.
func (c Config) Validate() error {
	switch {
	case c.Workers < 1:
		return fmt.Errorf("workers: %d, want at least 1", c.Workers)
	case c.InFlight < 0:
		return fmt.Errorf("in-flight: %d, want >= 0 (0: %d per worker)", c.InFlight, DefaultInFlightPerWorker)
	case c.Timeout <= 0:
		return fmt.Errorf("timeout: %v, want > 0", c.Timeout)
	case c.Retries < 0:
		return fmt.Errorf("retries: %d, want >= 0", c.Retries)
	case c.Grace < 0:
		return fmt.Errorf("grace: %v, want >= 0", c.Grace)
	case c.RecyclePages < 0:
		return fmt.Errorf("recycle-pages: %d, want >= 0", c.RecyclePages)
	}
	if err := c.Matrix.Validate(); err != nil {
		return err
	}
	if len(c.Texts) != 1 {
		return fmt.Errorf("text: a crawl takes one policy, not %d", len(c.Texts))
	}
	if c.Cuts {
		return fmt.Errorf("cuts: a crawl writes no cut-from-the-end baselines (bench sweeps them)")
	}
	if slices.Contains(c.Modes, space.ModeDeep) {
		if c.Deep == nil {
			return fmt.Errorf("mode: deep needs a deep renderer")
		}
		if v, ok := c.Deep.(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				return err
			}
		}
	}
	axTree, snapshot := space.Records(c.Formats)
	switch {
	case axTree && !c.Page.Extras.AXTree:
		return fmt.Errorf("formats: %s needs the page's accessibility tree (Page.Extras.AXTree)", space.FormatAXTree)
	case snapshot && !c.Page.Extras.AISnapshot:
		return fmt.Errorf("formats: %s needs the page's AI snapshot (Page.Extras.AISnapshot)", space.FormatPlaywrightAI)
	}
	if err := c.Page.Validate(); err != nil {
		return err
	}
	if err := c.Output.Validate(); err != nil {
		return err
	}
	return nil
}

// UseFormats sets the formats rendered and the records every page load
// takes for them (Page.Extras.AXTree and AISnapshot: space.Records).
func (c *Config) UseFormats(formats []string) {
	c.Formats = formats
	c.Page.Extras.AXTree, c.Page.Extras.AISnapshot = space.Records(formats)
}

func (c Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// PageID is the one page identity: the first 16 hex digits of the SHA-256
// of the URL as listed. The same URL gets the same ID in every run, shard
// and resume.
func PageID(url string) string {
	sum := sha256.Sum256([]byte(url))
	return hex.EncodeToString(sum[:8])
}
