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
	enc := m.encodings[0]
	if n := (Tokens{CL100K: sm.PerceptionTokensCL100K, O200K: sm.PerceptionTokensO200K}).Of(enc); n == nil || *n != bs.Tokens || *n > bs.Budget {
		return sm, bm, fmt.Errorf("token budget %d: the fitted text recounts to %d %s tokens, the fit said %d", bs.Budget, deref(n), enc, bs.Tokens)
	}
	return sm, bm, nil
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
