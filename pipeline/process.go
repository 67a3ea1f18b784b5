package pipeline

import (
	"context"
	"fmt"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
)

// processor turns a page load into its rows: it decodes the capture once
// and renders every expansion from it (capture once, render many).
type processor struct {
	cfg            Config
	counter        *metrics.Counter
	browserVersion string
	viewportW      int64
	viewportH      int64
}

func newProcessor(cfg Config, browserVersion string) (*processor, error) {
	counter, err := metrics.NewCounter(cfg.Encodings...)
	if err != nil {
		return nil, fmt.Errorf("tokenizers: %w", err)
	}
	b := cfg.Browser.withDefaults()
	return &processor{cfg: cfg, counter: counter, browserVersion: browserVersion,
		viewportW: int64(b.ViewportWidth), viewportH: int64(b.ViewportHeight)}, nil
}

// base fills the columns every pages row has.
func (p *processor) base(t Target, load *Load, attempts int, started time.Time) dataset.PageRow {
	row := dataset.PageRow{
		RunID:          p.cfg.RunID,
		PageID:         t.PageID,
		URL:            t.URL,
		ViewportWidth:  p.viewportW,
		ViewportHeight: p.viewportH,
		BrowserVersion: p.browserVersion,
		Attempts:       int64(attempts),
		CapturedAt:     time.Now().UTC(),
		TotalMS:        ms(time.Since(started)),
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
	row.HTML = load.HTML
	row.HTMLBytes = ptr(int64(len(load.HTML)))
	row.ScrollX, row.ScrollY = ptr(pg.ScrollX), ptr(pg.ScrollY)
	row.PageWidth, row.PageHeight = ptr(pg.DocWidth), ptr(pg.DocHeight)
	row.DevicePixelRatio = ptr(pg.DPR)
	row.ScriptMS = ptr(pg.ScriptMs)
	row.Capture = packed
	row.CaptureEncoding = dataset.CaptureEncoding
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

	htmlTokens := p.count(load.HTML)
	row.HTMLTokensCL100K, row.HTMLTokensO200K = htmlTokens[metrics.CL100K], htmlTokens[metrics.O200K]

	spaces := make([]dataset.SpaceRow, 0, len(p.cfg.Expansions)*len(p.cfg.Modes))
	var labels []render.Action // the first expansion's actions, for a labeled screenshot
	for i, e := range p.cfg.Expansions {
		view := tree.Select(dom.Options{Expansion: e, Text: p.cfg.Text})
		if i == 0 && p.cfg.Screenshots == ScreenshotsLabeled && len(load.Screenshot) > 0 {
			labels = render.Fast(view).Actions
		}
		for _, mode := range p.cfg.Modes {
			if mode == ModeDeep {
				spaces = append(spaces, p.deepSpace(ctx, t, view, htmlTokens))
			} else {
				spaces = append(spaces, p.space(t, view, htmlTokens))
			}
		}
	}
	p.screenshotColumns(&row, load, pg, labels)
	row.ProcessMS = ptr(ms(time.Since(procStart)))
	row.TotalMS = ms(time.Since(started))
	return Result{Page: row, Spaces: spaces}
}

// space renders one view in fast mode and measures it.
func (p *processor) space(t Target, view *dom.View, htmlTokens map[metrics.Encoding]*int64) dataset.SpaceRow {
	start := time.Now()
	sp := render.Fast(view)
	renderMS := ms(time.Since(start))
	row := SpaceRowOf(sp)
	p.measure(&row, t, view, ModeFast, htmlTokens)
	row.RenderMS = renderMS
	return row
}

// deepSpace renders one view in deep mode. A deep failure does not fail
// the page: the row keeps what was done and says why in llm_error.
func (p *processor) deepSpace(ctx context.Context, t Target, view *dom.View, htmlTokens map[metrics.Encoding]*int64) dataset.SpaceRow {
	start := time.Now()
	ds, err := p.cfg.Deep.Render(ctx, view)
	renderMS := ms(time.Since(start))
	row := DeepSpaceRowOf(ds, err)
	p.measure(&row, t, view, ModeDeep, htmlTokens)
	row.RenderMS = renderMS
	return row
}

// measure fills the identity of a spaces row and its token counts, sizes
// and ratios.
func (p *processor) measure(row *dataset.SpaceRow, t Target, view *dom.View, mode string, htmlTokens map[metrics.Encoding]*int64) {
	start := time.Now()
	tokens := p.count(row.ActionSpace)
	ptokens := p.count(row.PerceptionText)
	row.TokenizeMS = ms(time.Since(start))
	row.RunID, row.PageID, row.URL = p.cfg.RunID, t.PageID, t.URL
	row.Mode = mode
	row.ViewportExpansion = int64(view.Options.Expansion)
	row.TextPolicy = string(view.Options.Text)
	row.TokensCL100K, row.TokensO200K = tokens[metrics.CL100K], tokens[metrics.O200K]
	row.PerceptionTokensCL100K, row.PerceptionTokensO200K = ptokens[metrics.CL100K], ptokens[metrics.O200K]
	row.RatioCL100K = ratio(htmlTokens[metrics.CL100K], tokens[metrics.CL100K])
	row.RatioO200K = ratio(htmlTokens[metrics.O200K], tokens[metrics.O200K])
}

// DeepSpaceRowOf fills the columns of a deep spaces row that come from the
// deep rendering: the agent-facing description as the action space, the
// IDs and actions of the fast view it describes, and the LLM accounting.
// Figures that were not measured stay null: a dry run (no endpoint) sets
// llm_ran false and the local prompt tokens only.
func DeepSpaceRowOf(ds render.DeepSpace, renderErr error) dataset.SpaceRow {
	row := SpaceRowOf(ds.Fast)
	row.ActionSpace = ds.Text
	row.PerceptionText = ds.Perception
	row.SpaceBytes = int64(len(ds.Text))
	row.PerceptionBytes = int64(len(ds.Perception))
	if ds.Model != "" {
		row.LLMModel = ptr(ds.Model)
	}
	row.LLMRan = ptr(ds.LLMRan)
	row.LLMCalls = ptr(int64(ds.Calls))
	row.LLMRounds = ptr(int64(ds.Rounds))
	row.PromptTokensAPI, row.CompletionTokensAPI = ds.PromptTokensAPI, ds.CompletionTokensAPI
	row.PromptTokensLocal = ptr(ds.PromptTokensLocal)
	row.CacheHits = ptr(int64(ds.CacheHits))
	if ds.LLMRan || ds.Calls > 0 {
		row.LLMMS = ptr(ms(ds.LLMTime))
	}
	if ds.LLMRan {
		row.Coverage = ptr(ds.Coverage)
		row.HallucinatedIDs = ptr(int64(ds.HallucinatedIDs))
	}
	if renderErr != nil {
		row.LLMError = ptr(renderErr.Error())
	}
	return row
}

// SpaceRowOf fills the columns of a spaces row that come from the rendered
// space itself: text, sizes, ID counts and structured actions.
func SpaceRowOf(sp render.Space) dataset.SpaceRow {
	row := dataset.SpaceRow{
		ActionCount:     int64(len(sp.Actions)),
		IDsL:            int64(sp.Counts[dom.LetterLink]),
		IDsB:            int64(sp.Counts[dom.LetterButton]),
		IDsI:            int64(sp.Counts[dom.LetterInput]),
		IDsF:            int64(sp.Counts[dom.LetterImage]),
		IDsO:            int64(sp.Counts[dom.LetterOption]),
		IDsM:            int64(sp.Counts[dom.LetterOther]),
		ActionSpace:     sp.ActionSpace,
		PerceptionText:  sp.Perception,
		SpaceBytes:      int64(len(sp.ActionSpace)),
		PerceptionBytes: int64(len(sp.Perception)),
		Actions:         make([]dataset.Action, len(sp.Actions)),
	}
	for i, a := range sp.Actions {
		row.Actions[i] = dataset.Action{ID: a.ID, Role: a.Role, Tag: a.Tag, Kind: a.Kind, Name: a.Name,
			Locator: a.Locator, X: a.Rect[0], Y: a.Rect[1], Width: a.Rect[2], Height: a.Rect[3]}
	}
	return row
}

// count returns the token count of text per configured encoding; encodings
// not configured stay nil (null in the dataset).
func (p *processor) count(text string) map[metrics.Encoding]*int64 {
	out := make(map[metrics.Encoding]*int64, len(p.cfg.Encodings))
	for _, enc := range p.cfg.Encodings {
		n, err := p.counter.Count(enc, text)
		if err != nil {
			continue // a configured encoding does not fail on text; leave null
		}
		out[enc] = ptr(n)
	}
	return out
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

func ptr[T any](v T) *T { return &v }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// optMS is ms for a stage that may not have run (zero duration → null).
func optMS(d time.Duration) *float64 {
	if d == 0 {
		return nil
	}
	return ptr(ms(d))
}
