package pipeline

import (
	"context"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/render"
	"actionspace/space"
)

// processor turns a page load into its rows: it decodes the capture once
// and renders every expansion from it (capture once, render many).
type processor struct {
	cfg            Config
	meter          *space.Meter
	renderers      map[string]space.Renderer
	browserVersion string
}

func newProcessor(cfg Config, browserVersion string) (*processor, error) {
	meter, err := space.NewMeter(cfg.Encodings...)
	if err != nil {
		return nil, err
	}
	return &processor{cfg: cfg, meter: meter, browserVersion: browserVersion,
		renderers: map[string]space.Renderer{space.ModeFast: space.Fast{}, space.ModeDeep: cfg.Deep}}, nil
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
		row.FinalURL = load.FinalURL
		row.ContentType = load.ContentType
		if load.HTTPStatus > 0 {
			row.HTTPStatus = ptr(int64(load.HTTPStatus))
		}
		row.NavigateMS = optMS(load.Navigate)
		row.SettleMS = optMS(load.Settle)
		row.CaptureMS = optMS(load.CaptureTime)
		row.ContentMS = optMS(load.Content)
		row.ScreenshotMS = optMS(load.ScreenshotTime)
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

// succeeded renders every expansion of a loaded page. A capture that does
// not decode makes the page an error row.
func (p *processor) succeeded(ctx context.Context, t Target, load *Load, attempts int, started time.Time) Result {
	procStart := time.Now()
	capture, err := dom.Parse(load.Capture)
	if err != nil {
		return p.failed(t, load, &PageError{Kind: KindCapture, URL: t.URL, Err: err}, attempts, started)
	}
	packed, err := dataset.CompressCapture(load.Capture)
	if err != nil {
		return p.failed(t, load, &PageError{Kind: KindCapture, URL: t.URL, Err: err}, attempts, started)
	}
	row := p.base(t, load, attempts, started)
	row.Status = dataset.StatusOK
	pg := capture.Page
	if pg.Time > 0 {
		row.CapturedAt = time.UnixMilli(int64(pg.Time)).UTC()
	}
	row.Title = pg.Title
	row.HTMLBytes = ptr(int64(len(load.HTML)))
	blob := &dataset.BlobRow{RunID: p.cfg.RunID, PageID: t.PageID, URL: t.URL, HTML: load.HTML,
		Capture: packed, CaptureEncoding: dataset.CaptureEncoding}
	row.ScrollX, row.ScrollY = ptr(pg.ScrollX), ptr(pg.ScrollY)
	row.PageWidth, row.PageHeight = ptr(pg.DocWidth), ptr(pg.DocHeight)
	row.DevicePixelRatio = ptr(pg.DPR)
	row.ScriptMS = ptr(pg.ScriptMs)
	row.CaptureTruncated = pg.Truncated

	tree := dom.NewTree(capture)
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

	html, err := p.meter.Count(load.HTML)
	if err != nil {
		p.cfg.logger().Warn("HTML tokens not counted", logPageID, t.PageID, logURL, t.URL, logError, err)
	}
	row.HTMLTokensCL100K, row.HTMLTokensO200K = html.CL100K, html.O200K

	spaces := make([]dataset.SpaceRow, 0, len(p.cfg.Expansions)*len(p.cfg.Modes)+len(p.cfg.Budgets))
	var labels []render.Action // the first expansion's actions, for a labeled screenshot
	for i, e := range p.cfg.Expansions {
		opts := dom.Options{Expansion: e, Text: p.cfg.Text}
		if i == 0 && p.cfg.Page.Screenshot.Mode == ScreenshotsLabeled && len(load.Screenshot) > 0 {
			labels = render.Fast(tree.Select(opts)).Actions
		}
		for _, mode := range p.cfg.Modes {
			spaces = append(spaces, p.space(ctx, t, tree, opts, mode, html))
		}
	}
	for _, n := range p.cfg.Budgets {
		spaces = append(spaces, p.budgetSpace(t, tree, n, html))
	}
	p.screenshotColumns(blob, load, pg, labels)
	row.ProcessMS = ptr(space.MS(time.Since(procStart)))
	row.TotalMS = space.MS(time.Since(started))
	return Result{Page: row, Blob: blob, Spaces: spaces}
}

// space selects one view of the page, renders it in one mode and
// measures it. A deep failure does not fail the page: the row keeps what
// was done and says why in llm_error.
func (p *processor) space(ctx context.Context, t Target, tree *dom.Tree, opts dom.Options, mode string, html space.Tokens) dataset.SpaceRow {
	start := time.Now()
	r, renderErr := p.renderers[mode].Render(ctx, tree.Select(opts))
	renderTime := time.Since(start)
	row := dataset.SpaceRow{
		RunID:             p.cfg.RunID,
		PageID:            t.PageID,
		URL:               t.URL,
		Format:            space.FormatActionSpace,
		Mode:              mode,
		ViewportExpansion: int64(opts.Expansion),
		TextPolicy:        string(opts.Text),
		Actions:           space.Actions(r.Actions),
	}
	if !r.NoText {
		row.ActionSpace, row.PerceptionText = r.ActionSpace, r.Perception
	}
	var err error
	if row.SpaceMetrics, err = p.meter.Measure(r, html); err != nil {
		p.cfg.logger().Warn("space tokens not counted", logPageID, t.PageID, logURL, t.URL, logError, err)
	}
	row.RenderMS = space.MS(renderTime)
	if renderErr != nil {
		row.LLMError = ptr(renderErr.Error())
	}
	return row
}

// budgetSpace fits the page's fast action space into one token budget
// and measures it: a spaces row whose viewport_expansion is the window
// the budget reached. A failed count (the only way fitting fails) leaves
// the row with its budget and no text, and is logged.
func (p *processor) budgetSpace(t Target, tree *dom.Tree, budget int64, html space.Tokens) dataset.SpaceRow {
	row := dataset.SpaceRow{
		RunID:      p.cfg.RunID,
		PageID:     t.PageID,
		URL:        t.URL,
		Format:     space.FormatActionSpace,
		Mode:       space.ModeFast,
		TextPolicy: string(p.cfg.Text),
		Actions:    []dataset.Action{},
	}
	bs, d, err := p.meter.FitBudget(tree, budget, p.cfg.Text)
	if err != nil {
		p.cfg.logger().Warn("token budget not fitted", logPageID, t.PageID, logURL, t.URL, logError, err)
		row.TokenBudget = ptr(budget)
		return row
	}
	row.ViewportExpansion = int64(bs.Expansion)
	row.ActionSpace, row.PerceptionText = bs.ActionSpace, bs.Perception
	row.Actions = space.Actions(bs.Actions)
	if row.SpaceMetrics, row.BudgetMetrics, err = p.meter.MeasureBudget(bs, html, tree, nil); err != nil {
		p.cfg.logger().Warn("budgeted space not measured", logPageID, t.PageID, logURL, t.URL, logError, err)
	}
	row.RenderMS = space.MS(d)
	return row
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
