package space

import (
	"context"
	"fmt"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/oracle"
	"actionspace/render"
)

// Headline returns the encoding budgets are counted in: the first of m's
// encodings (the first of --encodings).
func (m *Meter) Headline() metrics.Encoding { return m.encodings[0] }

// FitBudget fits the fast rendering of tree under the text policy text
// into budget tokens of m's headline encoding (render.FitBudget, wrapper
// included) and returns it with the time it took: selecting, rendering
// and counting every probe. Crawl rows and bench cells time one budget
// alone this way, so that render_ms is what one budget costs.
func (m *Meter) FitBudget(tree *dom.Tree, budget int64, text dom.TextPolicy) (render.BudgetSpace, time.Duration, error) {
	start := time.Now()
	bs, err := render.FitBudget(tree, m.counter, budget, render.BudgetOptions{Encoding: m.encodings[0], Text: text})
	return bs, time.Since(start), err
}

// CutFromEnd cuts text to the leading lines that fit in budget tokens of
// m's headline encoding (render.CutFromEnd): the baseline a budgeted
// action space is compared with.
func (m *Meter) CutFromEnd(text string, budget int64) (render.Cut, time.Duration, error) {
	start := time.Now()
	c, err := render.CutFromEnd(m.counter, m.encodings[0], text, budget)
	return c, time.Since(start), err
}

// MeasureBudget measures a fitted space: what Measure measures (recall,
// oracle_in_window and extra_handles in the window the budget reached),
// plus the budget columns. o, when not nil, is the page's oracle, for the
// recalls.
func (m *Meter) MeasureBudget(ctx context.Context, bs render.BudgetSpace, html Tokens, tree *dom.Tree, o *oracle.Oracle) (dataset.SpaceMetrics, dataset.BudgetMetrics, error) {
	bm := dataset.BudgetMetrics{
		TokenBudget:     ptr(bs.Budget),
		BudgetExpansion: ptr(int64(bs.Expansion)),
		BudgetStage:     ptr(string(bs.Stage)),
		DroppedIDs:      ptr(int64(bs.DroppedIDs)),
		DroppedLines:    ptr(int64(bs.DroppedLines)),
		CutTexts:        ptr(int64(bs.CutTexts)),
	}
	r := Rendered{Format: FormatActionSpace, Space: bs.Space}
	if o != nil {
		handled := o.Kept(tree, bs.Kept)
		bm.PageRecall, bm.ViewportRecall = Recall(o, tree, handled)
		matched := 0
		for _, i := range bs.Kept {
			if len(o.StandsFor(tree.Capture.Nodes, i)) > 0 {
				matched++
			}
		}
		sc := o.ScoreHandled(tree.Window(bs.Expansion), handled, len(bs.Kept), matched)
		r.Score = &sc
	}
	sm, err := m.Measure(ctx, r, html)
	if err != nil {
		return sm, bm, err
	}
	return sm, bm, m.recount(Tokens{CL100K: sm.PerceptionTokensCL100K, O200K: sm.PerceptionTokensO200K}, bs.Tokens, bs.Budget)
}

// recount checks a budgeted text's measured tokens (in m's headline
// encoding) against what fitting it said, and against the budget.
func (m *Meter) recount(measured Tokens, fitted, budget int64) error {
	enc := m.encodings[0]
	if n := measured.Of(enc); n == nil || *n != fitted || *n > budget {
		return fmt.Errorf("token budget %d: the fitted text recounts to %d %s tokens, the fit said %d", budget, deref(n), enc, fitted)
	}
	return nil
}

// CutSpace is a format's whole-page text cut from the end to a token
// budget (CutFromEnd): the baseline a budgeted action space is compared
// with, and what its kept lines hold.
type CutSpace struct {
	// Format is the format cut: FormatBrowserUse, FormatPlaywrightAI or
	// FormatAXTree (Cuttable).
	Format string
	// Budget is the token budget, in m's headline encoding.
	Budget int64
	// Cut is the kept text: its leading lines, their count and tokens.
	render.Cut
	// Handles is the number of handles on the kept lines; TotalHandles
	// the number the whole text has.
	Handles, TotalHandles int
	// Matched is how many of the kept handles stand for an oracle
	// element.
	Matched int
	// Handled tells, per oracle element, whether its handle is on a kept
	// line; nil when the page has no oracle.
	Handled []bool
}

// CutFormat renders page p in format (playwright-ai or axtree) for the
// whole page (E = -1) and cuts that text from the end to budget tokens of
// m's headline encoding, as users cut a snapshot that is too long today.
// Which oracle elements the kept lines handle comes from the format's
// handle lines (render.FormatSpace.Prefix). It returns the cut with the
// time it took: rendering the whole text, then cutting it.
func (m *Meter) CutFormat(p *Page, format string, budget int64) (CutSpace, time.Duration, error) {
	start := time.Now()
	if !Cuttable(format) {
		return CutSpace{}, 0, fmt.Errorf("cut %s from the end: want %s, %s or %s", format, FormatBrowserUse, FormatPlaywrightAI, FormatAXTree)
	}
	if !p.Has(format) {
		return CutSpace{}, 0, fmt.Errorf("cut %s from the end: the page has no record for it", format)
	}
	fs, _, err := p.formatSpace(format, dom.WholePage)
	if err != nil {
		return CutSpace{}, 0, err
	}
	c, err := render.CutFromEnd(m.counter, m.encodings[0], fs.Text, budget)
	if err != nil {
		return CutSpace{}, 0, fmt.Errorf("cut %s from the end: %w", format, err)
	}
	cs := CutSpace{Format: format, Budget: budget, Cut: c, TotalHandles: fs.Handles}
	cs.Handles, cs.Handled = fs.Prefix(c.Lines)
	// A handle line stands for at most one oracle element (one ref or
	// node id per line), so the kept matched handles are the distinct
	// kept lines some oracle element is handled on.
	lines := map[int]bool{}
	for _, l := range fs.HandledLine {
		if l >= 0 && l < c.Lines {
			lines[l] = true
		}
	}
	cs.Matched = len(lines)
	return cs, time.Since(start), nil
}

// MeasureCut measures a cut baseline as MeasureBudget measures a fitted
// action space: what Measure measures (tokens of the kept text; recall,
// oracle_in_window and extra_handles over the whole page, the window the
// text was rendered for) plus the budget columns: budget_expansion -1 when
// the whole text fitted and null otherwise (a cut keeps lines, not a
// window), budget_stage whole-page or cut-from-end, dropped_ids the
// handles on the dropped lines, dropped_lines, and the page and viewport
// recall of the kept lines.
func (m *Meter) MeasureCut(ctx context.Context, p *Page, cs CutSpace, html Tokens) (dataset.SpaceMetrics, dataset.BudgetMetrics, error) {
	bm := dataset.BudgetMetrics{
		TokenBudget:  ptr(cs.Budget),
		BudgetStage:  ptr(string(render.StageCutFromEnd)),
		DroppedIDs:   ptr(int64(cs.TotalHandles - cs.Handles)),
		DroppedLines: ptr(int64(cs.TotalLines - cs.Lines)),
		CutTexts:     ptr(int64(0)),
	}
	if cs.Lines == cs.TotalLines {
		bm.BudgetExpansion, bm.BudgetStage = ptr(int64(dom.WholePage)), ptr(string(render.StageWholePage))
	}
	r := Rendered{Format: cs.Format, Space: render.Space{ActionSpace: cs.Text}, Handles: cs.Handles, Handled: cs.Handled}
	if o := p.Oracle; o != nil {
		bm.PageRecall, bm.ViewportRecall = Recall(o, p.Tree, cs.Handled)
		sc := o.ScoreHandled(p.Tree.Window(dom.WholePage), cs.Handled, cs.Handles, cs.Matched)
		r.Score = &sc
	}
	sm, err := m.Measure(ctx, r, html)
	if err != nil {
		return sm, bm, err
	}
	return sm, bm, m.recount(Tokens{CL100K: sm.TokensCL100K, O200K: sm.TokensO200K}, cs.Tokens, cs.Budget)
}

// Recall returns the page_recall and viewport_recall of a space whose
// handled oracle elements are handled (per o.Elements): the fraction of
// the oracle elements in the whole page's window (E = -1), and in the
// viewport (E = 0), that got a handle. Each is nil when its window holds
// no oracle element. The denominators do not depend on the space, so a
// space that keeps more handles never scores less.
func Recall(o *oracle.Oracle, tree *dom.Tree, handled []bool) (page, viewport *float64) {
	ratio := func(s oracle.Score) *float64 {
		if r, ok := s.Recall(); ok {
			return &r
		}
		return nil
	}
	page = ratio(o.ScoreHandled(tree.Window(dom.WholePage), handled, 0, 0))
	viewport = ratio(o.ScoreHandled(tree.Window(0), handled, 0, 0))
	return page, viewport
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}
