package pipeline

import (
	"cmp"
	"context"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/space"
)

// processor turns a page load into its rows: it decodes the records once
// and renders every setting from them (capture once, render many).
type processor struct {
	cfg            Config
	meter          *space.Meter
	sweeper        space.Sweeper
	cells          []space.Cell
	browserVersion string
}

func newProcessor(cfg Config, browserVersion string) (*processor, error) {
	meter, err := space.NewMeter(cfg.Encodings...)
	if err != nil {
		return nil, err
	}
	return &processor{cfg: cfg, meter: meter, browserVersion: browserVersion,
		sweeper: space.Sweeper{Meter: meter, Renderers: space.Renderers{space.ModeFast: space.Fast{}, space.ModeDeep: cfg.Deep}},
		cells:   cfg.Cells()}, nil
}

// base fills the columns every pages row has.
func (p *processor) base(t Target, load *Load, attempts int, started time.Time) dataset.PageRow {
	row := dataset.PageRow{
		RunID:          p.cfg.RunID,
		PageID:         t.PageID,
		URL:            t.URL,
		ViewportWidth:  int64(p.cfg.Page.ViewportWidth),
		ViewportHeight: int64(p.cfg.Page.ViewportHeight),
		BrowserVersion: p.browserVersion,
		Attempts:       int64(attempts),
		CapturedAt:     time.Now().UTC(),
		TotalMS:        space.MS(time.Since(started)),
	}
	if load != nil {
		row.FinalURL = RedactUserInfo(load.FinalURL) // a redirect may add credentials; failed loads too
		row.ContentType = load.ContentType
		row.BrowserVersion = cmp.Or(load.BrowserVersion, row.BrowserVersion)
		row.BlockedRequests = int64(load.BlockedRequests)
		if load.HTTPStatus > 0 {
			row.HTTPStatus = ptr(int64(load.HTTPStatus))
		}
		row.NavigateMS = optMS(load.Navigate)
		row.SettleMS = optMS(load.Settle)
		row.CaptureMS = optMS(load.CaptureTime)
		row.ContentMS = optMS(load.Content)
		row.ScreenshotMS = optMS(load.ScreenshotTime)
		row.AXTreeMS, row.AXTreeSkipped = optMS(load.AXTreeTime), load.AXTreeSkipped
		row.AISnapshotMS, row.AISnapshotSkipped = optMS(load.AISnapshotTime), load.AISnapshotSkipped
		probeColumns(&row, load)
	}
	return row
}

// failed makes the row of a target that produced no action space.
func (p *processor) failed(t Target, load *Load, err error, attempts int, started time.Time) Result {
	row := p.base(t, load, attempts, started)
	row.Status = dataset.StatusError
	row.ErrorKind = string(ErrorKindOf(err))
	row.ErrorMessage = err.Error()
	return Result{Page: row}
}

// process makes the rows of a loaded page (succeeded) on a context that
// the run's interrupt does not cancel, bounded by a time limit of its own
// (cfg.Timeout from now), so that the page's load, however long it took,
// leaves its processing the whole limit; deep mode's LLM calls have their
// own bounds and are not held to it. Only stop, the end of the run's grace
// period, ends the processing early: the result is then dropped (ok
// false), never emitted with holes, and a resume processes the page again.
func (p *processor) process(stop context.Context, t Target, load *Load, attempts int, started time.Time) (Result, bool) {
	run, cancel := context.WithCancel(context.WithoutCancel(stop))
	defer cancel()
	defer context.AfterFunc(stop, cancel)()
	ctx, cancelLimit := context.WithTimeout(run, p.cfg.Timeout)
	defer cancelLimit()
	res := p.succeeded(ctx, run, t, load, attempts, started)
	if stop.Err() != nil {
		return Result{}, false
	}
	return res, true
}

// succeeded renders a loaded page in every setting (format, mode,
// expansion) and makes its rows of every table: those of its first state
// (step 0) and of every state its steps left (see processSteps). A first
// capture that does not decode makes the page an error row. Counting is
// held to ctx: a count it ends leaves its columns null and says why (the
// *_skipped columns); the renderers run on renderCtx.
func (p *processor) succeeded(ctx, renderCtx context.Context, t Target, load *Load, attempts int, started time.Time) Result {
	procStart := time.Now()
	first, err := p.decode(t, 0, load)
	if err != nil {
		return p.failed(t, load, &PageError{Kind: KindCapture, URL: t.URL, Err: err}, attempts, started)
	}
	capture := first.capture
	row := p.base(t, load, attempts, started)
	row.Status = dataset.StatusOK
	pg := capture.Page
	if !load.CapturedAt.IsZero() {
		row.CapturedAt = load.CapturedAt.UTC()
	}
	row.Title = pg.Title
	row.HTMLBytes = ptr(int64(max(load.HTMLBytes, len(load.HTML))))
	row.HTMLTruncated = load.HTMLTruncated
	row.ScrollX, row.ScrollY = ptr(pg.ScrollX), ptr(pg.ScrollY)
	row.PageWidth, row.PageHeight = ptr(pg.DocWidth), ptr(pg.DocHeight)
	row.DevicePixelRatio = ptr(pg.DPR)
	row.ScriptMS = ptr(pg.ScriptMs)
	row.CaptureTruncated = pg.Truncated
	row.CaptureCapped = append([]string{}, pg.Capped...)
	row.CaptureChars = ptr(int64(pg.Chars))

	var elements, texts, interactive int64
	for i := range capture.Nodes {
		n := &capture.Nodes[i]
		if n.Kind == dom.TextNode {
			texts++
			continue
		}
		elements++
		if len(n.Signals) > 0 {
			interactive++
		}
	}
	row.DOMNodes, row.TextNodes, row.InteractiveNodes = ptr(elements), ptr(texts), ptr(interactive)

	html := p.countHTML(t, first)
	if first.htmlErr != nil {
		row.HTMLUncounted, row.HTMLTokensSkipped = true, space.SkipReason(first.htmlErr)
	}
	row.HTMLTokensCL100K, row.HTMLTokensO200K = html.CL100K, html.O200K

	states, steps := p.processSteps(t, first, load)
	res := Result{Page: row, Blob: first.blob, Steps: steps}
	for i, st := range states {
		// states are in step order: each state's page follows the one
		// before it (stable IDs continue, the step columns compare the
		// two), linked before it renders.
		if i > 0 {
			if err := st.page.SetPrevious(states[i-1].page); err != nil {
				p.cfg.logger().Warn("step not linked to the state before it", logPageID, t.PageID, logURL, t.URL, logStep, st.step, logError, err)
			}
		}
		p.render(ctx, renderCtx, t, st)
		if st.step == 0 {
			res.Spaces, res.Elements, res.Oracle = st.spaces, st.elements, st.oracle
			continue
		}
		res.StepBlobs = append(res.StepBlobs, *st.blob)
		res.Spaces = append(res.Spaces, st.spaces...)
		res.Elements = append(res.Elements, st.elements...)
		res.Oracle = append(res.Oracle, st.oracle...)
	}
	res.Page.ProcessMS = ptr(space.MS(time.Since(procStart)))
	res.Page.TotalMS = space.MS(time.Since(started))
	return res
}

// space makes the spaces row of one measured cell. A cell whose format's
// record the page lacks gives no row (the pages row says why it was
// skipped). A deep failure does not fail the page: the row keeps what
// was done and says why in llm_error. Another format that fails to
// render (a record that does not decode) gives no row, and a warning. A
// budget that could not be fitted (a failed count) gives a row with its
// budget and no text, and a warning.
func (p *processor) space(t Target, m space.Measured) (dataset.SpaceRow, bool) {
	c := m.Cell
	log := p.cfg.logger()
	if m.NoRecord {
		return dataset.SpaceRow{}, false
	}
	if m.RenderErr != nil && c.Format != space.FormatActionSpace {
		log.Warn("format not rendered", logPageID, t.PageID, logURL, t.URL, logFormat, c.Format, logError, m.RenderErr)
		return dataset.SpaceRow{}, false
	}
	row := dataset.SpaceRow{
		RunID:             p.cfg.RunID,
		PageID:            t.PageID,
		URL:               t.URL,
		Format:            c.Format,
		Mode:              c.Mode,
		ViewportExpansion: int64(m.Expansion),
		TextPolicy:        string(c.Options.Text),
		IDPolicy:          string(c.IDPolicy()),
		StrategyColumns:   c.Setting.Columns(c.Budget > 0),
		Actions:           space.Actions(m.Rendered.Actions),
	}
	if c.Budget > 0 && m.RenderErr != nil {
		log.Warn("token budget not fitted", logPageID, t.PageID, logURL, t.URL, logError, m.RenderErr)
		row.TokenBudget = ptr(c.Budget)
		row.TokensSkipped, row.RatioSkipped, row.RecallSkipped = dataset.SkippedFailed, dataset.SkippedSpaceUncounted, dataset.SkippedFailed
		space.QualityFailed(&row.SpaceMetrics)
		return row, true
	}
	space.StoreText(&row, m.Rendered)
	row.SpaceMetrics, row.BudgetMetrics = m.Metrics, m.Budget
	if m.MeasureErr != nil {
		msg := "space tokens not counted"
		if c.Budget > 0 {
			msg = "budgeted space not measured"
		}
		log.Warn(msg, logPageID, t.PageID, logURL, t.URL, logSkipped, row.TokensSkipped, logError, m.MeasureErr)
	}
	row.RenderMS = space.MS(m.Render)
	if c.Budget == 0 && m.RenderErr != nil {
		row.LLMError = ptr(m.RenderErr.Error())
		space.LimitRow(&row)
	}
	return row, true
}

func ptr[T any](v T) *T { return &v }

// optMS is space.MS for a stage that may not have run (zero duration →
// null).
func optMS(d time.Duration) *float64 {
	if d == 0 {
		return nil
	}
	return ptr(space.MS(d))
}
