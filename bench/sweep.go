package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sync/errgroup"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/pipeline"
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
	err    error // the sweep cannot go on (canceled)
}

// sweeper holds what every worker shares; it never changes during a
// sweep.
type sweeper struct {
	cfg       Config
	cells     []Cell
	counter   *metrics.Counter
	renderers map[string]Renderer
}

// Sweep re-renders every captured page of a crawl dataset (its pages
// files, see PagesFiles) under every cell of cfg, without a browser, and
// streams one CellRow per page × cell into outDir/cells.parquet, in the
// pages files' order and the cells' order.
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
func Sweep(ctx context.Context, cfg Config, pages []string, outDir string) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	start := time.Now()
	if len(pages) == 0 {
		return nil, fmt.Errorf("crawl dataset: no pages files")
	}
	meta, err := dataset.ReadMetadata(pages[0])
	if err != nil {
		return nil, fmt.Errorf("crawl dataset: %w", err)
	}
	rows, renderable, err := countPages(pages)
	if err != nil {
		return nil, err
	}
	counter, err := metrics.NewCounter(cfg.Encodings...)
	if err != nil {
		return nil, fmt.Errorf("tokenizers: %w", err)
	}
	s := &sweeper{cfg: cfg, cells: cfg.Cells(), counter: counter,
		renderers: map[string]Renderer{ModeFast: Fast{}, ModeDeep: cfg.Deep}}

	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("create output directory: %w", err)
	}
	runCfg := cfg.record()
	cfgJSON, err := json.Marshal(struct {
		RunConfig
		Input []string `json:"input"`
	}{runCfg, pages})
	if err != nil {
		return nil, fmt.Errorf("record config: %w", err)
	}

	log := cfg.logger()
	log.Debug("timing pass", logPages, renderable)
	timings := make([]pageTiming, 0, renderable)
	err = eachPage(ctx, pages, cfg.Workers, s.time, func(p pageColumns, t pageTiming) error {
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
	w, err := dataset.Create[CellRow](filepath.Join(outDir, CellsFile), dataset.Metadata{
		ToolVersion:    pipeline.ToolVersion(),
		BrowserVersion: meta.BrowserVersion,
		RunID:          cfg.RunID,
		Config:         string(cfgJSON),
	}, dataset.WriterConfig{RowGroupRows: 4096})
	if err != nil {
		return nil, err
	}
	agg := newAggregate(s.cells, cfg.Encodings[0])
	agg.input = Input{Files: len(pages), CrawlRunID: meta.RunID, BrowserVersion: meta.BrowserVersion, Rows: rows}
	work := func(ctx context.Context, i int, p pageColumns) pageOut {
		if i >= len(timings) {
			return pageOut{err: fmt.Errorf("read crawl dataset: the pages files changed during the sweep")}
		}
		return s.page(ctx, p, timings[i])
	}
	runErr := eachPage(ctx, pages, cfg.Workers, work, func(p pageColumns, out pageOut) error {
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

// eachPage reads the pages files and calls work for every page with a
// capture on up to workers goroutines, i counting those pages from 0 in
// file order. It calls emit with every result in file order, from one
// goroutine. It stops at the first error of emit, the reader or ctx.
func eachPage[T any](ctx context.Context, files []string, workers int,
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
	scan := func(p pageColumns) error {
		if err := ctx.Err(); err != nil {
			return context.Cause(ctx)
		}
		if !p.renderable() {
			return nil
		}
		it := item{page: p.own(), out: make(chan T, 1)}
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
	for _, f := range files {
		if scanErr = dataset.Scan(f, scan); scanErr != nil {
			break
		}
	}
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

// page is the main pass over one page: it decodes the capture, renders it
// under every cell, checks each fast-mode text against the timing pass
// and measures it.
func (s *sweeper) page(ctx context.Context, p pageColumns, t pageTiming) pageOut {
	out := pageOut{page: p, rows: make([]CellRow, 0, len(s.cells)), timing: t}
	tree, err := decode(p.Capture)
	if err != nil {
		out.timing.failed = true
		s.cfg.logger().Warn("capture does not decode", logPageID, p.PageID, logURL, p.URL, logError, err)
		for _, c := range s.cells {
			row := s.base(p, c, nil)
			row.Error = err.Error()
			out.rows = append(out.rows, row)
		}
		return out
	}
	html := s.htmlTokens(p)
	for i, c := range s.cells {
		if err := ctx.Err(); err != nil {
			out.err = context.Cause(ctx)
			return out
		}
		var rd rendered
		s.renderRun(ctx, tree, c, &rd)
		if c.Mode == ModeFast {
			timed := t.cells[i]
			switch {
			case timed.err != nil:
				rd.err = timed.err
			case rd.err == nil && timed.hash != hash(rd.space.ActionSpace):
				rd.err = fmt.Errorf("render %s: not deterministic: the text differs from the timing pass's", c.Key())
			}
			rd.best, rd.runs = timed.best, timed.runs
		}
		row := s.measure(p, c, html, rd)
		if row.Error != "" {
			s.cfg.logger().Warn("render failed", logPageID, p.PageID, logURL, p.URL, logCell, c.Key(), logError, row.Error)
		}
		out.rows = append(out.rows, row)
	}
	return out
}

// decode turns a stored capture into a tree.
func decode(packed []byte) (*dom.Tree, error) {
	raw, err := dataset.DecompressCapture(packed)
	if err != nil {
		return nil, err
	}
	c, err := dom.Parse(raw) // its errors say "decode capture"
	if err != nil {
		return nil, err
	}
	return dom.NewTree(c), nil
}

// htmlTokens returns the page's HTML token counts per slot: the crawl's,
// or counted here when the crawl did not count that encoding.
func (s *sweeper) htmlTokens(p pageColumns) [2]*int64 {
	out := [2]*int64{p.HTMLTokensCL100K, p.HTMLTokensO200K}
	for _, enc := range s.cfg.Encodings {
		i := slot(enc)
		if out[i] != nil || p.HTML == "" {
			continue
		}
		if n, err := s.counter.Count(enc, p.HTML); err == nil {
			out[i] = &n
		}
	}
	return out
}

// base fills the identity columns of a row.
func (s *sweeper) base(p pageColumns, c Cell, html *[2]*int64) CellRow {
	row := CellRow{
		RunID:             s.cfg.RunID,
		PageID:            p.PageID,
		URL:               p.URL,
		Cell:              c.Key(),
		Mode:              c.Mode,
		ViewportExpansion: int64(c.Expansion),
		TextPolicy:        string(c.Text),
		HTMLBytes:         p.HTMLBytes,
	}
	if html != nil {
		row.HTMLTokensCL100K, row.HTMLTokensO200K = html[0], html[1]
	}
	return row
}

// measure makes a page's row for one rendered cell: counts, hashes and
// tokens.
func (s *sweeper) measure(p pageColumns, c Cell, html [2]*int64, rd rendered) CellRow {
	row := s.base(p, c, &html)
	sp := rd.space
	if d := sp.Deep; d != nil {
		// Kept on failures too: the calls were made.
		row.LLMModel, row.LLMRan = ptr(d.Model), ptr(d.LLMRan)
		row.LLMCalls, row.LLMRounds = ptr(d.Calls), ptr(d.Rounds)
		row.PromptTokensAPI, row.CompletionTokensAPI = d.PromptTokensAPI, d.CompletionTokensAPI
		row.PromptTokensLocal = ptr(d.PromptTokensLocal)
		if d.LLMRan {
			row.LLMMS = ptr(d.LLMMS)
		}
		row.Coverage, row.HallucinatedIDs = d.Coverage, d.HallucinatedIDs
		row.CacheHits = ptr(d.CacheHits)
	}
	if rd.err != nil {
		row.Error = rd.err.Error()
		return row
	}
	row.RenderMS, row.RenderRuns = ms(rd.best), int64(rd.runs)

	sr := pipeline.SpaceRowOf(sp.Space)
	row.ActionCount = sr.ActionCount
	row.IDsL, row.IDsB, row.IDsI, row.IDsF, row.IDsO, row.IDsM = sr.IDsL, sr.IDsB, sr.IDsI, sr.IDsF, sr.IDsO, sr.IDsM
	if sp.NoText {
		return row
	}
	row.SpaceBytes, row.PerceptionBytes = sr.SpaceBytes, sr.PerceptionBytes
	row.SpaceSHA256, row.PerceptionSHA256 = hash(sp.ActionSpace), hash(sp.Perception)

	start := time.Now()
	var tok, ptok [2]*int64
	for _, enc := range s.cfg.Encodings {
		i := slot(enc)
		n, err := s.counter.Count(enc, sp.ActionSpace)
		if err != nil {
			row.Error = fmt.Sprintf("count tokens: %v", err)
			return row
		}
		pn, err := s.counter.Count(enc, sp.Perception)
		if err != nil {
			row.Error = fmt.Sprintf("count tokens: %v", err)
			return row
		}
		tok[i], ptok[i] = &n, &pn
	}
	row.TokenizeMS = ms(time.Since(start))
	row.TokensCL100K, row.TokensO200K = tok[0], tok[1]
	row.PerceptionTokensCL100K, row.PerceptionTokensO200K = ptok[0], ptok[1]
	row.RatioCL100K, row.RatioO200K = ratio(html[0], tok[0]), ratio(html[1], tok[1])
	return row
}

// record is the sweep's configuration as a summary records it.
func (c Config) record() RunConfig {
	r := RunConfig{Modes: c.Modes, Expansions: c.Expansions, Repeat: c.Repeat, Workers: c.Workers}
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

func ratio(html, space *int64) *float64 {
	if html == nil || space == nil {
		return nil
	}
	r, ok := metrics.Ratio(*html, *space)
	if !ok {
		return nil
	}
	return &r
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
