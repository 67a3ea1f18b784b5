package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"actionspace/dataset"
	"actionspace/dom"
)

// Opener opens the browser of a crawl. Package browser provides one
// (browser.Opener); tests open fakes.
type Opener func(ctx context.Context) (Browser, error)

// Crawl runs a whole crawl into the dataset directory outDir (see
// [dataset.PagesDir] for the layout): it opens the browser with open, crawls
// the targets and streams the rows into rotating part files, and closes
// the browser. With cfg.Resume it first skips the targets the directory's
// complete parts already hold, and opens no browser at all when none is
// left. onResult, if set, sees every result after it was written (for
// progress). A browser that can relaunch itself or reconnect lost
// endpoints reports how often it did through a Relaunches() int method,
// which Stats.Relaunches records.
//
// When ctx is canceled, the pages in flight get cfg.Grace, the open part is
// closed properly, and the error is ctx's: everything emitted is in
// complete parts, and a resume crawls the rest.
func Crawl(ctx context.Context, cfg Config, targets []Target, outDir string, open Opener, onResult func(Result)) (Stats, error) {
	if err := cfg.Validate(); err != nil {
		return Stats{}, err
	}
	out, err := prepareOutput(cfg, targets, outDir)
	if err != nil {
		return Stats{}, err
	}
	if len(out.todo) == 0 {
		return out.stats, nil
	}
	browser, err := open(ctx)
	if err != nil {
		return out.stats, err
	}
	defer browser.Close()
	stats, err := out.crawl(ctx, cfg, browser, onResult)
	if r, ok := browser.(interface{ Relaunches() int }); ok {
		stats.Relaunches = r.Relaunches()
	}
	return stats, err
}

// output is a dataset directory ready for a crawl: the targets left to do
// and where the parts go on.
type output struct {
	dir      string
	runID    string
	nextPart int
	todo     []Target
	stats    Stats // Targets and Skipped filled in
}

// prepareOutput checks outDir and, for a resume, reads what it holds and
// drops the targets already done.
func prepareOutput(cfg Config, targets []Target, outDir string) (*output, error) {
	log := cfg.logger()
	out := &output{dir: outDir, runID: cfg.RunID, todo: targets, stats: Stats{RunID: cfg.RunID, Targets: len(targets)}}
	if !cfg.Resume {
		n, err := dataset.CountParts(outDir, cfg.Output.Partition)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			return nil, fmt.Errorf("output directory %s already holds a dataset (%d part files): resume it or choose another directory", outDir, n)
		}
		return out, nil
	}
	st, err := dataset.OpenForResume(outDir, cfg.Output.Partition, log)
	if err != nil {
		return nil, err
	}
	switch {
	case out.runID == "":
		out.runID = st.RunID
	case st.RunID != "" && st.RunID != out.runID:
		return nil, fmt.Errorf("resume %s: the dataset is run %q, not %q", outDir, st.RunID, out.runID)
	}
	if err := checkResumable(st.Config, cfg.record()); err != nil {
		return nil, err
	}
	out.stats.RunID = out.runID
	out.nextPart = st.NextPart
	out.todo = make([]Target, 0, len(targets))
	for _, t := range targets {
		if st.Done[t.PageID] {
			out.stats.Skipped++
			continue
		}
		out.todo = append(out.todo, t)
	}
	log.Info("resuming", "dir", outDir, "parts", st.Parts, "done", out.stats.Skipped, "left", len(out.todo), "removed", len(st.Removed))
	return out, nil
}

// crawl runs the targets left into new parts.
func (o *output) crawl(ctx context.Context, cfg Config, browser Browser, onResult func(Result)) (Stats, error) {
	cfg.RunID = o.runID
	meta := dataset.Metadata{
		ToolVersion:    dataset.ToolVersion(),
		BrowserVersion: browser.Version(),
		RunID:          cfg.RunID,
		Config:         cfg.record(),
	}
	parts, err := dataset.NewParts(o.dir, o.nextPart, meta, cfg.Output)
	if err != nil {
		return o.stats, err
	}
	stats, runErr := run(ctx, cfg, browser, o.todo, func(res Result) error {
		if err := parts.Write(res); err != nil {
			return err
		}
		if onResult != nil {
			onResult(res)
		}
		return nil
	})
	closeErr := parts.Close()
	stats.Targets += o.stats.Targets - len(o.todo)
	stats.Skipped = o.stats.Skipped
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
	sum := sha256.Sum256([]byte(dom.Script()))
	rec := struct {
		Workers        int               `json:"workers"`
		TimeoutSeconds float64           `json:"timeout_seconds"`
		Retries        int               `json:"retries"`
		Formats        []string          `json:"formats"`
		Expansions     []int             `json:"viewport_expansions"`
		Text           string            `json:"text"`
		Encodings      []string          `json:"encodings"`
		ViewportWidth  int               `json:"viewport_width"`
		ViewportHeight int               `json:"viewport_height"`
		SettleQuietMS  int64             `json:"settle_quiet_ms"`
		SettleMaxMS    int64             `json:"settle_max_ms"`
		ScriptSHA256   string            `json:"capture_script_sha256"`
		ScriptOptions  dom.ScriptOptions `json:"capture_script_options"`
		// The extras' bounds are recorded only when taken.
		AXTree             bool `json:"axtree"`
		MaxAXNodes         int  `json:"max_ax_nodes,omitempty"`
		AISnapshot         bool `json:"aisnapshot"`
		MaxAISnapshotBytes int  `json:"max_aisnapshot_bytes,omitempty"`
		// Screenshots are recorded only when taken.
		Screenshots       string `json:"screenshots,omitempty"`
		ScreenshotFormat  string `json:"screenshot_format,omitempty"`
		ScreenshotQuality int    `json:"screenshot_quality,omitempty"`
	}{
		Workers: c.Workers, TimeoutSeconds: c.Timeout.Seconds(), Retries: c.Retries,
		Formats: c.Formats, Expansions: c.Expansions, Text: string(c.Text),
		AXTree: c.Page.Extras.AXTree, AISnapshot: c.Page.Extras.AISnapshot,
		ViewportWidth: c.Page.ViewportWidth, ViewportHeight: c.Page.ViewportHeight,
		SettleQuietMS: c.Page.SettleQuiet.Milliseconds(), SettleMaxMS: c.Page.SettleMax.Milliseconds(),
		ScriptSHA256: hex.EncodeToString(sum[:]), ScriptOptions: c.Page.Script,
	}
	if rec.AXTree {
		rec.MaxAXNodes = c.Page.Extras.MaxAXNodes
	}
	if rec.AISnapshot {
		rec.MaxAISnapshotBytes = c.Page.Extras.MaxAISnapshotBytes
	}
	if shots := c.Page.Screenshot; shots.On() {
		rec.Screenshots, rec.ScreenshotFormat = shots.Mode, shots.Format
		if shots.Format == ScreenshotJPEG {
			rec.ScreenshotQuality = shots.Quality
		}
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
