package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/dom"
	"actionspace/space"
)

// Opener opens the browser of a crawl. Package browser provides one
// (browser.Opener); tests open fakes.
type Opener func(ctx context.Context) (Browser, error)

// Crawl runs a whole crawl into the dataset at out, a directory or a
// bucket URL (see store.Open; dataset.PagesDir for the layout): it locks
// the output partition (cfg.Output), opens the browser with open, crawls
// the targets and streams the rows into rotating part files, and closes
// the browser. With cfg.Resume it first finishes what an interrupted run
// left (parts.Resume), skips the targets the dataset already
// holds and crawls again those whose rows failed transiently (unless
// cfg.ResumeKeepFailed), superseding their old rows; it opens no browser
// at all when nothing is left. onResult, if set, sees every result after
// it was written (for progress). A browser that can relaunch itself or
// reconnect lost endpoints reports how often it did through a
// Relaunches() int method, which Stats.Relaunches records.
//
// When ctx is canceled, the pages in flight get cfg.Grace, the open part is
// closed properly, and the error is ctx's: everything emitted is in
// complete parts, and a resume crawls the rest. When the partition's lock
// is lost to another writer, the crawl stops the same way, publishes
// nothing more, and returns an error matching parts.ErrLockLost.
func Crawl(ctx context.Context, cfg Config, targets []Target, out string, open Opener, onResult func(Result)) (Stats, error) {
	if err := cfg.Validate(); err != nil {
		return Stats{}, err
	}
	st, err := store.Open(ctx, out, store.Config{})
	if err != nil {
		return Stats{}, err
	}
	defer st.Close()
	owner := cfg.RunID
	if owner == "" {
		owner = "resume"
	}
	if p := cfg.Output.Partition; p != "" {
		owner += " " + p
	}
	dst, err := parts.OpenOutput(ctx, st, owner, cfg.Output, cfg.logger())
	if err != nil {
		return Stats{}, err
	}
	defer dst.Close(context.WithoutCancel(ctx))
	o, err := prepareOutput(ctx, cfg, targets, dst)
	if err != nil {
		return Stats{}, err
	}
	if len(o.todo) == 0 {
		return o.stats, nil
	}
	// Losing the lock stops the crawl as an interruption does.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-dst.Lost():
			cancel(dst.Check())
		case <-ctx.Done():
		}
	}()
	browser, err := open(ctx)
	if err != nil {
		return o.stats, err
	}
	defer browser.Close()
	stats, err := o.crawl(ctx, cfg, browser, onResult)
	if r, ok := browser.(interface{ Relaunches() int }); ok {
		stats.Relaunches = r.Relaunches()
	}
	if lockErr := dst.Check(); err != nil && errors.Is(lockErr, parts.ErrLockLost) {
		err = lockErr
	}
	return stats, err
}

// Floor runs the floor of a crawl with cfg over targets
// (PageConfig.Floor): the same pool, a browser opened with open (and
// closed after) and the same network policy, each page navigated to its
// load event and read with Playwright's content(), plus the records
// cfg.Page.Extras asks for, taken raw; no row is processed or written. Its
// Stats.Elapsed, measured just before or after a crawl, is the yardstick
// the crawl's time is given against (crawl --floor, tools/throughput).
func Floor(ctx context.Context, cfg Config, targets []Target, open Opener) (Stats, error) {
	cfg.Page.Floor = true
	if err := cfg.Validate(); err != nil {
		return Stats{}, err
	}
	browser, err := open(ctx)
	if err != nil {
		return Stats{}, err
	}
	defer browser.Close()
	return run(ctx, cfg, browser, targets, func(Result) error { return nil })
}

// output is a dataset partition ready for a crawl: the targets left to do
// and where the parts go on.
type output struct {
	dst      *parts.Output
	runID    string
	nextPart int
	todo     []Target
	retry    map[string]int // page_id → part of the row a new one supersedes
	stats    Stats          // Targets, Skipped and Recrawled filled in
}

// prepareOutput checks the output partition and, for a resume, finishes
// what an interrupted run left, reads what the dataset holds and works
// out what is left to crawl.
func prepareOutput(ctx context.Context, cfg Config, targets []Target, dst *parts.Output) (*output, error) {
	log := cfg.logger()
	where := store.Redact(dst.Store().String())
	out := &output{dst: dst, runID: cfg.RunID, todo: targets, stats: Stats{RunID: cfg.RunID, Targets: len(targets)}}
	if !cfg.Resume {
		if out.runID == "" {
			return nil, errors.New("crawl: no run ID: every row needs one")
		}
		n, err := parts.Count(ctx, dst)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			return nil, fmt.Errorf("output %s already holds a dataset (%d part files): resume it or choose another location", where, n)
		}
		return out, nil
	}
	opts := parts.ResumeOptions{Logger: log}
	if !cfg.ResumeKeepFailed {
		opts.Retry = TransientRow
	}
	st, err := parts.Resume(ctx, dst, opts)
	if err != nil {
		return nil, err
	}
	switch {
	case out.runID == "" && st.RunID != "":
		out.runID = st.RunID
	case out.runID == "":
		// Nothing to take a run ID from: the location holds no dataset.
		out.runID = cfg.NewRunID
	case st.RunID != "" && st.RunID != out.runID:
		return nil, fmt.Errorf("resume %s: the dataset is run %q, not %q", where, st.RunID, out.runID)
	}
	if out.runID == "" {
		return nil, fmt.Errorf("resume %s: the location holds no dataset to take the run ID from, and none was given", where)
	}
	if st.Parts > 0 && st.SchemaVersion != dataset.SchemaVersion {
		return nil, fmt.Errorf("resume %s: the dataset has schema version %d, this build writes %d; crawl into a new location", where, st.SchemaVersion, dataset.SchemaVersion)
	}
	if err := checkResumable(st.Config, cfg.record()); err != nil {
		return nil, err
	}
	out.stats.RunID = out.runID
	out.nextPart = st.NextPart
	out.retry = make(map[string]int)
	// The pages to crawl again go first, so that their old rows are
	// superseded early in the run.
	var again, fresh []Target
	for _, t := range targets {
		part, retry := st.Retry[t.PageID]
		switch {
		case st.Done[t.PageID]:
			out.stats.Skipped++
		case retry:
			again = append(again, t)
			out.retry[t.PageID] = part
		default:
			fresh = append(fresh, t)
		}
	}
	out.todo = append(again, fresh...)
	out.stats.Recrawled = len(again)
	log.Info("resuming", "out", where, "parts", st.Parts, "done", out.stats.Skipped, "again", len(again), "left", len(out.todo),
		"removed", len(st.Removed)+st.RemovedTemp, "rolled_forward", len(st.RolledForward), "duplicates", st.Duplicates)
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
	// The open part is published even when the crawl is interrupted.
	pw, err := parts.NewWriter(context.WithoutCancel(ctx), o.dst, meta, o.nextPart, o.retry)
	if err != nil {
		return o.stats, err
	}
	stats, runErr := run(ctx, cfg, browser, o.todo, func(res Result) error {
		if err := pw.Write(res); err != nil {
			return err
		}
		if onResult != nil {
			onResult(res)
		}
		return nil
	})
	closeErr := pw.Close()
	ps := pw.Stats()
	stats.Targets += o.stats.Targets - len(o.todo)
	stats.Skipped = o.stats.Skipped
	stats.Recrawled, stats.Superseded, stats.BytesWritten = o.stats.Recrawled, ps.Superseded, ps.Bytes
	if runErr != nil {
		return stats, runErr
	}
	if closeErr != nil {
		return stats, fmt.Errorf("close dataset: %w", closeErr)
	}
	return stats, nil
}

// text is the crawl's one text policy ("" before Validate).
func (c Config) text() string {
	if len(c.Texts) == 0 {
		return ""
	}
	return string(c.Texts[0])
}

// record is the run configuration as stored in the files' metadata: what
// was asked for, never secrets (no API key; browser endpoints as scheme,
// host and port only, the LLM base URL without user information or
// parameters).
func (c Config) record() string {
	sum := sha256.Sum256([]byte(dom.Script()))
	rec := struct {
		Input          string   `json:"input,omitempty"`
		Workers        int      `json:"workers"`
		InFlight       int      `json:"in_flight"`
		TimeoutSeconds float64  `json:"timeout_seconds"`
		Retries        int      `json:"retries"`
		Modes          []string `json:"modes"`
		Formats        []string `json:"formats"`
		Expansions     []int    `json:"viewport_expansions"`
		Text           string   `json:"text"`
		Encodings      []string `json:"encodings"`
		ViewportWidth  int      `json:"viewport_width"`
		ViewportHeight int      `json:"viewport_height"`
		SettleQuietMS  int64    `json:"settle_quiet_ms"`
		SettleMaxMS    int64    `json:"settle_max_ms"`
		// The settle rule, when it is not the quiet-DOM rule.
		Settle        string            `json:"settle,omitempty"`
		ScriptSHA256  string            `json:"capture_script_sha256"`
		ScriptOptions dom.ScriptOptions `json:"capture_script_options"`
		// The extras' bounds are recorded only when taken.
		AXTree             bool `json:"axtree"`
		MaxAXNodes         int  `json:"max_ax_nodes,omitempty"`
		MaxAXText          int  `json:"max_ax_text,omitempty"`
		AISnapshot         bool `json:"aisnapshot"`
		MaxAISnapshotBytes int  `json:"max_aisnapshot_bytes,omitempty"`
		// The caps of what a page may make of its rows.
		MaxHTMLBytes int `json:"max_html_bytes"`
		MaxFrames    int `json:"max_frames"`
		// The network policy: which addresses pages may reach.
		AllowPrivate bool     `json:"network_allow_private,omitempty"`
		Blocked      []string `json:"network_blocked,omitempty"`
		Public       []string `json:"network_public,omitempty"`
		// The token budgets of the budget rows.
		Budgets []int64 `json:"token_budgets,omitempty"`
		// The ID policies, recorded only when set (--ids).
		IDs []dom.IDPolicy `json:"ids,omitempty"`
		// The steps after the first capture, recorded only when taken.
		Steps              []string `json:"steps,omitempty"`
		StepTimeoutSeconds float64  `json:"step_timeout_seconds,omitempty"`
		// The shard count of a sharded crawl (its index is the partition).
		Shards int `json:"shards,omitempty"`
		// Screenshots are recorded only when taken.
		Screenshots       string `json:"screenshots,omitempty"`
		ScreenshotFormat  string `json:"screenshot_format,omitempty"`
		ScreenshotQuality int    `json:"screenshot_quality,omitempty"`
		// The deep renderer, when deep mode runs: the model ("" for a dry
		// run) and the settings that shape its rows.
		LLMModel     *string `json:"llm_model,omitempty"`
		LLMBaseURL   string  `json:"llm_base_url,omitempty"`
		LLMMaxTokens int     `json:"llm_max_tokens,omitempty"`
		LLMClassify  bool    `json:"llm_classify_page,omitempty"`
		LLMCoverage  float64 `json:"llm_coverage,omitempty"`
		LLMRounds    int     `json:"llm_max_extra_rounds,omitempty"`
		LLMRetries   int     `json:"llm_max_parse_retries,omitempty"`
		// Where the pages were loaded: none for a local Chromium.
		BrowserEndpoints []string `json:"browser_endpoints,omitempty"`
		// How the dataset is written.
		PartPages     int     `json:"part_pages"`
		PartIntervalS float64 `json:"part_interval_seconds"`
		Partition     string  `json:"partition,omitempty"`
	}{
		Input: c.Input, Workers: c.Workers, InFlight: c.PagesInFlight(), TimeoutSeconds: c.Timeout.Seconds(), Retries: c.Retries,
		Modes: c.Modes, Formats: c.Formats, Expansions: c.Expansions, Text: c.text(),
		AXTree: c.Page.Extras.AXTree, AISnapshot: c.Page.Extras.AISnapshot,
		ViewportWidth: c.Page.ViewportWidth, ViewportHeight: c.Page.ViewportHeight,
		SettleQuietMS: c.Page.SettleQuiet.Milliseconds(), SettleMaxMS: c.Page.SettleMax.Milliseconds(),
		ScriptSHA256: hex.EncodeToString(sum[:]), ScriptOptions: c.Page.Script,
		PartPages: c.Output.PartPages, PartIntervalS: c.Output.PartInterval.Seconds(), Partition: c.Output.Partition,
		MaxHTMLBytes: c.Page.MaxHTMLBytes, MaxFrames: c.Page.MaxFrames, AllowPrivate: c.Page.Network.AllowPrivate,
		Budgets: c.Budgets, Shards: c.Shards, IDs: c.IDs,
		Steps: c.Page.Steps, StepTimeoutSeconds: c.Page.StepTimeout.Seconds(),
	}
	if c.Page.Settle == SettleEvidence {
		rec.Settle = c.Page.Settle
	}
	for _, p := range c.Page.Network.Blocked {
		rec.Blocked = append(rec.Blocked, p.String())
	}
	for _, p := range c.Page.Network.Public {
		rec.Public = append(rec.Public, p.String())
	}
	if rec.AXTree || rec.AISnapshot {
		rec.MaxAXNodes, rec.MaxAXText = c.Page.Extras.MaxAXNodes, c.Page.Extras.MaxAXText
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
	if d, ok := c.Deep.(space.Deep); ok && d.Renderer != nil && slices.Contains(c.Modes, space.ModeDeep) {
		model := d.Renderer.Model
		rec.LLMModel = &model
		rec.LLMMaxTokens, rec.LLMClassify = d.Renderer.MaxTokens, d.Renderer.ClassifyPage
		rec.LLMCoverage, rec.LLMRounds, rec.LLMRetries = d.Renderer.Coverage, d.Renderer.MaxExtraRounds, d.Renderer.MaxParseRetries
		if c.LLMBaseURL != "" {
			rec.LLMBaseURL = store.Redact(c.LLMBaseURL)
		}
	}
	for _, ep := range c.BrowserEndpoints {
		rec.BrowserEndpoints = append(rec.BrowserEndpoints, RedactEndpoint(ep))
	}
	out, err := json.Marshal(rec)
	if err != nil {
		return "{}"
	}
	return string(out)
}
