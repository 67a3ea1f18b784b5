package bench

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"actionspace/axtree"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/dom"
	"actionspace/space"
)

// Log keys.
const (
	logPageID = "page_id"
	logURL    = "url"
	logCell   = "cell"
	logError  = "err"
	logPages  = "pages"
)

// Sweep passes, as PageDone.Pass names them.
const (
	PassTiming = "timing"
	PassMain   = "main"
)

// PageDone reports one page done by one pass of the sweep, for progress.
type PageDone struct {
	// Pass is PassTiming or PassMain.
	Pass string
	// Done and Total count the pages with a capture: done so far, in all.
	Done, Total int
	// URL is the page's URL.
	URL string
	// Errors is the number of its cells that failed.
	Errors int
}

// Result is a finished sweep: the summary and the per-page samples the
// report's charts draw.
type Result struct {
	// Summary is the run's summary, as summary.json will hold it.
	Summary Summary
	// samples holds, per cell key, the headline encoding's per-page
	// tokens and compression ratios.
	samples map[string]*samples
}

// samples are one cell's per-page values in the headline encoding.
type samples struct {
	tokens, ratios []float64
}

// pageOut is one page's rows, made by a worker.
type pageOut struct {
	page   pageColumns
	rows   []CellRow
	timing pageTiming
	// noRecord lists the cells (keys) the page has no row in: their
	// format's record was not stored.
	noRecord []string
	err      error // the sweep cannot go on (canceled)
}

// sweeper holds what every worker shares; it never changes during a
// sweep.
type sweeper struct {
	cfg   Config
	cells []Cell
	// spaceCells are the cells as space renders them, one per cell.
	spaceCells []space.Cell
	meter      *space.Meter
	renderers  space.Renderers
	sweep      space.Sweeper
	limits     recordLimits // of the dataset's records
}

// Sweep re-renders every captured page of a crawl dataset (see
// parts.Open) under every cell of cfg, without a browser, and
// streams one CellRow per page × cell into cells.parquet of out (a
// directory or a bucket prefix; see WriteResults), in the
// blobs files' order and the cells' order.
// Workers render pages in parallel; the output does not depend on their
// number. It returns the summary; WriteResults writes it.
//
// The sweep makes two passes over the pages. The timing pass only decodes
// and renders (fast mode, Config.Repeat times per cell) and records the
// times; the main pass renders every cell again, checks that it gives the
// same text, counts tokens and writes the rows. Token counting allocates
// heavily and keeps the garbage collector busy; kept out of the timing
// pass, it cannot slow the renders it would otherwise run beside.
//
// A page without a capture (a failed crawl row) is skipped and counted; a
// capture that does not decode gives error rows. Sweep fails when the
// input cannot be read, the output cannot be written or ctx is canceled;
// cells.parquet then holds the rows finished so far.
func Sweep(ctx context.Context, cfg Config, in *parts.Dataset, out store.Store) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	if len(in.Pages) == 0 {
		return nil, fmt.Errorf("crawl dataset: no pages files")
	}
	meta, err := in.Metadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("crawl dataset: %w", err)
	}
	limits, err := limitsOf(meta.Config)
	if err != nil {
		return nil, err
	}
	pages, err := readPages(ctx, in)
	if err != nil {
		return nil, err
	}
	rows := len(pages)
	renderable, err := countRenderable(ctx, in, pages)
	if err != nil {
		return nil, err
	}
	meter, err := space.NewMeter(cfg.Encodings...)
	if err != nil {
		return nil, err
	}
	renderers := space.Renderers{space.ModeFast: space.Fast{}, space.ModeDeep: cfg.Deep}
	s := &sweeper{cfg: cfg, meter: meter, renderers: renderers, limits: limits,
		sweep: space.Sweeper{Renderers: renderers, Meter: meter, Repeat: cfg.Repeat}}
	s.cells, s.spaceCells = cfg.cells()

	runCfg := cfg.record()
	cfgJSON, err := json.Marshal(struct {
		RunConfig
		Input []string `json:"input"`
	}{runCfg, inputNames(in)})
	if err != nil {
		return nil, fmt.Errorf("record config: %w", err)
	}

	log := cfg.logger()
	log.Debug("timing pass", logPages, renderable)
	timings := make([]pageTiming, 0, renderable)
	err = eachPage(ctx, in, pages, cfg.Workers, s.time, func(p pageColumns, t pageTiming) error {
		timings = append(timings, t)
		if cfg.OnPage != nil {
			cfg.OnPage(PageDone{Pass: PassTiming, Done: len(timings), Total: renderable, URL: p.URL})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	log.Debug("main pass", logPages, renderable)
	cellsOut, err := out.Replace(ctx, CellsFile)
	if err != nil {
		return nil, err
	}
	w, err := parts.NewFile[CellRow](cellsOut, CellsFile, dataset.Metadata{
		ToolVersion:    dataset.ToolVersion(),
		BrowserVersion: meta.BrowserVersion,
		RunID:          cfg.RunID,
		Config:         string(cfgJSON),
	}, dataset.WriterConfig{RowGroupRows: 4096})
	if err != nil {
		return nil, err
	}
	agg := newAggregate(s.cells, cfg.Encodings[0])
	agg.input = Input{Label: crawlInput(meta.Config), Files: len(in.Pages), CrawlRunID: meta.RunID, BrowserVersion: meta.BrowserVersion, Rows: rows}
	work := func(ctx context.Context, i int, p pageColumns) pageOut {
		if i >= len(timings) {
			return pageOut{err: fmt.Errorf("read crawl dataset: the blobs files changed during the sweep")}
		}
		return s.page(ctx, p, timings[i])
	}
	runErr := eachPage(ctx, in, pages, cfg.Workers, work, func(p pageColumns, out pageOut) error {
		if out.err != nil {
			return out.err
		}
		agg.addPage(out)
		errs := 0
		for i := range out.rows {
			if out.rows[i].Error != "" {
				errs++
			}
			if err := w.Write(out.rows[i]); err != nil {
				return err
			}
		}
		if cfg.OnPage != nil {
			cfg.OnPage(PageDone{Pass: PassMain, Done: agg.input.Rendered, Total: renderable, URL: p.URL, Errors: errs})
		}
		return nil
	})
	closeErr := w.Close()
	if runErr != nil {
		return nil, runErr
	}
	if closeErr != nil {
		return nil, fmt.Errorf("write %s: %w", CellsFile, closeErr)
	}
	agg.input.Skipped = rows - agg.input.Rendered
	return agg.result(cfg, runCfg, time.Since(start)), nil
}

// inputNames are the input's part files as the run's record names them.
func inputNames(in *parts.Dataset) []string {
	names := make([]string, 0, len(in.Pages)+len(in.Blobs))
	for _, k := range append(slices.Clone(in.Pages), in.Blobs...) {
		if strings.Contains(in.Loc, "://") {
			names = append(names, strings.TrimSuffix(in.Loc, "/")+"/"+k)
		} else {
			names = append(names, filepath.Join(in.Loc, filepath.FromSlash(k)))
		}
	}
	return names
}

// eachPage reads the blobs files of in and calls work for every page with a
// capture (joined with its pages row, from pages) on up to workers
// goroutines, i counting those pages from 0 in file order. It calls emit
// with every result in file order, from one goroutine. It stops at the
// first error of emit, the reader or ctx.
func eachPage[T any](ctx context.Context, in *parts.Dataset, pages map[string]pageInfo, workers int,
	work func(ctx context.Context, i int, p pageColumns) T, emit func(p pageColumns, out T) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	type item struct {
		page pageColumns
		out  chan T
	}
	// queue holds the pages in file order, each with the channel its
	// worker sends the result on, so that the consumer can take the
	// results in order. Its capacity bounds the pages in flight.
	queue := make(chan item, 2*workers)
	consumed := make(chan error, 1)
	go func() {
		var first error
		for it := range queue {
			out := <-it.out
			if first != nil {
				continue // drain
			}
			if err := ctx.Err(); err != nil {
				first = context.Cause(ctx)
				continue
			}
			if err := emit(it.page, out); err != nil {
				first = err
				cancel(err)
			}
		}
		consumed <- first
	}()

	var g errgroup.Group
	g.SetLimit(workers)
	n := 0
	var scanErr error
	scan := func(b blobColumns) error {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		info, ok := pages[b.PageID]
		if !ok {
			return nil // a blob whose pages part is missing: not done
		}
		p := pageColumns{pageInfo: info, CaptureEncoding: b.CaptureEncoding, Capture: b.Capture}
		if !p.renderable() {
			return nil
		}
		it := item{page: join(info, b), out: make(chan T, 1)}
		select {
		case queue <- it:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		i := n
		n++
		g.Go(func() error {
			it.out <- work(ctx, i, it.page)
			return nil
		})
		return nil
	}
	scanErr = parts.ScanTable(ctx, in, in.Blobs, scan)
	_ = g.Wait()
	close(queue)
	consumeErr := <-consumed
	switch {
	case consumeErr != nil:
		return consumeErr
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case scanErr != nil:
		return fmt.Errorf("read crawl dataset: %w", scanErr)
	}
	return nil
}

// page is the main pass over one page: it decodes the page's records,
// renders and measures it under every cell (space.Sweeper, the loop the
// crawl's rows come from too), checks each timed text against the timing
// pass and makes the rows. A cell of a format whose record the page
// lacks gets no row; its key goes to pageOut.noRecord.
func (s *sweeper) page(ctx context.Context, p pageColumns, t pageTiming) pageOut {
	out := pageOut{page: p, rows: make([]CellRow, 0, len(s.cells)), timing: t}
	pg, _, err := s.load(p, true)
	if err != nil {
		out.timing.failed = true
		s.cfg.logger().Warn("capture does not decode", logPageID, p.PageID, logURL, p.URL, logError, err)
		for _, c := range s.cells {
			row := s.base(p, c, space.Tokens{})
			row.Error = err.Error()
			out.rows = append(out.rows, row)
		}
		return out
	}
	html := s.htmlTokens(p)
	i := 0
	for m := range s.sweep.Sweep(ctx, ctx, pg, s.spaceCells, html) {
		if err := ctx.Err(); err != nil {
			out.err = context.Cause(ctx)
			return out
		}
		c := s.cells[i]
		if m.NoRecord {
			out.noRecord = append(out.noRecord, c.Key())
			i++
			continue
		}
		row := s.row(ctx, p, c, html, m, t.cells[i])
		if row.Error != "" {
			s.cfg.logger().Warn("render failed", logPageID, p.PageID, logURL, p.URL, logCell, c.Key(), logError, row.Error)
		}
		out.rows = append(out.rows, row)
		i++
	}
	return out
}

// row makes a page's row for one measured cell: its measures, render
// time and hashes. A fixed cell the timing pass rendered takes that
// pass's time, and fails unless it gave the same text. A failed render
// keeps its deep-mode figures (the calls were made) and nothing else.
func (s *sweeper) row(ctx context.Context, p pageColumns, c Cell, html space.Tokens, m space.Measured, timed cellTiming) CellRow {
	row := s.base(p, c, html)
	renderErr := m.RenderErr
	if renderErr != nil {
		renderErr = fmt.Errorf("render %s: %w", c.Key(), renderErr)
	}
	if c.Budget > 0 {
		if renderErr != nil {
			row.Error = renderErr.Error()
			return row
		}
		row.ViewportExpansion = int64(m.Expansion)
		row.SpaceMetrics, row.BudgetMetrics = m.Metrics, m.Budget
		row.RenderMS, row.RenderRuns = space.MS(m.Render), int64(m.Runs)
		if m.MeasureErr != nil {
			row.Error = m.MeasureErr.Error()
			return row
		}
		row.SpaceSHA256 = hash(m.Rendered.ActionSpace)
		if c.actionSpace() {
			row.PerceptionSHA256 = hash(m.Rendered.Perception)
		}
		return row
	}
	var best time.Duration
	runs := 0
	if timed.runs > 0 {
		switch {
		case timed.err != nil:
			renderErr = timed.err
		case renderErr == nil && timed.hash != hash(m.Rendered.ActionSpace):
			renderErr = fmt.Errorf("render %s: not deterministic: the text differs from the timing pass's", c.Key())
		}
		best, runs = timed.best, timed.runs
	}
	if renderErr != nil {
		row.SpaceMetrics, _ = s.meter.Measure(ctx, space.Rendered{Deep: m.Rendered.Deep, NoText: true}, html)
		row.Error = renderErr.Error()
		return row
	}
	row.SpaceMetrics = m.Metrics
	row.RenderMS, row.RenderRuns = space.MS(best), int64(runs)
	if m.MeasureErr != nil {
		row.Error = m.MeasureErr.Error()
		return row
	}
	if !m.Rendered.NoText {
		row.SpaceSHA256, row.PerceptionSHA256 = hash(m.Rendered.ActionSpace), hash(m.Rendered.Perception)
	}
	return row
}

// setting is the cell as the one format layer names a rendering.
func (c Cell) setting() space.Setting {
	return space.Setting{Format: c.format(), Mode: c.Mode, Options: dom.Options{Expansion: c.Expansion, Text: c.Text}}
}

// load decodes a page's stored records into a space.Page, and returns it
// with the time decoding the capture and building its tree took. Only a
// capture that does not decode is an error: an accessibility tree or an
// AI snapshot that does not decode leaves the page without it (no recall,
// or no playwright-ai rows), logged when warn is set.
func (s *sweeper) load(p pageColumns, warn bool) (*space.Page, time.Duration, error) {
	start := time.Now()
	tree, err := decode(p.Capture, s.limits.capture)
	d := time.Since(start)
	if err != nil {
		return nil, d, err
	}
	rec, err := decodeRecord(p.AXTree, p.AXTreeEncoding, s.limits.axtree, axtree.Parse)
	if err != nil && warn {
		s.cfg.logger().Warn("accessibility tree does not decode: no recall, no axtree rows", logPageID, p.PageID, logURL, p.URL, logError, err)
	}
	snap, err := decodeRecord(p.AISnapshot, p.AISnapshotEncoding, s.limits.snapshot, axtree.ParseSnapshotRecord)
	if err != nil && warn {
		s.cfg.logger().Warn("AI snapshot does not decode: no playwright-ai rows", logPageID, p.PageID, logURL, p.URL, logError, err)
	}
	return space.NewPage(tree, rec, snap, p.HTML), d, nil
}

// decode turns a stored capture into a tree, refusing one that
// decompresses to more than limit bytes.
func decode(packed []byte, limit int64) (*dom.Tree, error) {
	raw, err := dataset.DecompressCaptureMax(packed, limit)
	if err != nil {
		return nil, err
	}
	c, err := dom.Parse(raw) // its errors say "decode capture"
	if err != nil {
		return nil, err
	}
	return dom.NewTree(c), nil
}

// decodeRecord decodes a stored record (the accessibility tree, the AI
// snapshot) of at most limit bytes with parse; nil, without error, when
// none was stored.
func decodeRecord[T any](packed []byte, encoding string, limit int64, parse func([]byte) (*T, error)) (*T, error) {
	if len(packed) == 0 {
		return nil, nil
	}
	if encoding != dataset.CaptureEncoding {
		return nil, fmt.Errorf("encoding %q: want %q", encoding, dataset.CaptureEncoding)
	}
	raw, err := dataset.DecompressCaptureMax(packed, limit)
	if err != nil {
		return nil, err
	}
	return parse(raw)
}

// htmlTokens returns the page's HTML token counts: the crawl's, with
// those of the encodings the crawl did not count counted here.
func (s *sweeper) htmlTokens(p pageColumns) space.Tokens {
	crawl := space.Tokens{CL100K: p.HTMLTokensCL100K, O200K: p.HTMLTokensO200K}
	missing := false
	for _, enc := range s.cfg.Encodings {
		missing = missing || crawl.Of(enc) == nil
	}
	if !missing || p.HTML == "" {
		return crawl
	}
	counted, err := s.meter.Count(p.HTML)
	if err != nil {
		return crawl
	}
	return space.Tokens{CL100K: cmp.Or(crawl.CL100K, counted.CL100K), O200K: cmp.Or(crawl.O200K, counted.O200K)}
}

// base fills the identity columns of a row.
func (s *sweeper) base(p pageColumns, c Cell, html space.Tokens) CellRow {
	e := c.Expansion
	if c.Budget > 0 && !c.actionSpace() {
		e = dom.WholePage // a cut baseline cuts the whole page's text
	}
	return CellRow{
		RunID:             s.cfg.RunID,
		PageID:            p.PageID,
		URL:               p.URL,
		Cell:              c.Key(),
		Format:            c.format(),
		Mode:              c.Mode,
		ViewportExpansion: int64(e),
		TextPolicy:        string(c.Text),
		HTMLMetrics:       dataset.HTMLMetrics{HTMLBytes: p.HTMLBytes, HTMLTokensCL100K: html.CL100K, HTMLTokensO200K: html.O200K},
		BudgetMetrics:     dataset.BudgetMetrics{TokenBudget: budgetOf(c)},
	}
}

// budgetOf is a cell's token_budget: nil for a cell of a fixed expansion.
func budgetOf(c Cell) *int64 {
	if c.Budget == 0 {
		return nil
	}
	return &c.Budget
}

// record is the sweep's configuration as a summary records it.
func (c Config) record() RunConfig {
	r := RunConfig{Formats: c.Formats, Modes: c.Modes, Expansions: c.Expansions, Budgets: c.Budgets, Repeat: c.Repeat, Workers: c.Workers}
	for _, t := range c.Texts {
		r.Texts = append(r.Texts, string(t))
	}
	for _, e := range c.Encodings {
		r.Encodings = append(r.Encodings, string(e))
	}
	return r
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// maxInputLabel caps the crawl's input label a report repeats: the
// dataset is untrusted input.
const maxInputLabel = 200

// crawlInput is what the crawl's URL list was ("bundled corpus (14
// pages)", "URL list urls.txt"), as its configuration metadata records it,
// cut at maxInputLabel bytes; "crawl dataset" when it records none.
func crawlInput(config string) string {
	var rec struct {
		Input string `json:"input"`
	}
	if json.Unmarshal([]byte(config), &rec) != nil || rec.Input == "" {
		return "crawl dataset"
	}
	return strings.ToValidUTF8(rec.Input[:min(len(rec.Input), maxInputLabel)], "")
}
