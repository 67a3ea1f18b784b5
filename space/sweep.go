package space

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/render"
)

// Sweeper renders and measures every cell of a page: the one loop behind
// the crawl's spaces rows and bench's cells rows. It is safe for
// concurrent use once made.
type Sweeper struct {
	// Renderers are the actionspace renderers by mode.
	Renderers Renderers
	// Meter counts and measures every text.
	Meter *Meter
	// Repeat is how many times a budget cell is fitted and a baseline cut
	// (at least once): the fastest time is kept, and every run must give
	// the same text. Fixed cells render once.
	Repeat int
}

// Measured is one cell of one page, rendered and measured.
type Measured struct {
	// Cell is the cell.
	Cell Cell
	// NoRecord is set when the page lacks the record the cell's format
	// renders from (see Page.Has): nothing was rendered, and nothing else
	// is set.
	NoRecord bool
	// Rendered is what was rendered: for a budget cell the fitted action
	// space, for a baseline the kept lines (Text) and their handles.
	Rendered Rendered
	// Expansion is the window rendered: the cell's, the one a budget
	// reached (0 when fitting failed), dom.WholePage for a baseline.
	Expansion int
	// Metrics are the measures of Rendered (see Meter.Measure); for a
	// fixed cell of another format that failed to render, none.
	Metrics dataset.SpaceMetrics
	// Budget are the budget columns of a budget cell (Meter.MeasureBudget,
	// Meter.MeasureCut).
	Budget dataset.BudgetMetrics
	// Render is the render time: one render of a fixed cell; the fastest
	// of Runs fits or cuts of a budget cell.
	Render time.Duration
	// Runs is the number of renders, fits or cuts made.
	Runs int
	// RenderErr is why rendering failed: a format's record that does not
	// render, a deep-mode failure (Rendered then holds what was done),
	// a budget that could not be fitted, runs that differ. Measuring went
	// on for actionspace's fixed cells only.
	RenderErr error
	// MeasureErr is why counting failed (Metrics then say what is
	// missing, in the *_skipped columns).
	MeasureErr error
}

// errNotDeterministic says that runs of one cell gave different texts.
var errNotDeterministic = errors.New("not deterministic")

// Sweep renders page p in every cell, in order, and measures each
// against the page's HTML token counts html; it yields the cells one by
// one, and stops when the caller's loop does. Counting is held to ctx as
// Meter.Measure holds it; the renderers run on renderCtx (a crawl does
// not hold deep mode's LLM calls, which have bounds of their own, to the
// page's time limit). ctx ending does not stop the loop, so a caller that
// wants to stop early breaks out of it.
func (s Sweeper) Sweep(ctx, renderCtx context.Context, p *Page, cells []Cell, html Tokens) iter.Seq[Measured] {
	return func(yield func(Measured) bool) {
		for _, c := range cells {
			m := Measured{Cell: c}
			switch {
			case !p.Has(c.Format):
				m.NoRecord = true
			case c.Budget > 0 && c.Format == FormatActionSpace:
				s.fit(ctx, p, html, &m)
			case c.Budget > 0:
				s.cut(ctx, p, html, &m)
			default:
				s.render(ctx, renderCtx, p, html, &m)
			}
			if !yield(m) {
				return
			}
		}
	}
}

// render renders and measures a fixed cell. Another format that fails
// to render is not measured; actionspace is (a deep-mode failure keeps
// the figures of the calls made).
func (s Sweeper) render(ctx, renderCtx context.Context, p *Page, html Tokens, m *Measured) {
	start := time.Now()
	m.Rendered, m.RenderErr = p.Render(renderCtx, m.Cell.Setting, s.Renderers)
	m.Render, m.Runs = time.Since(start), 1
	m.Expansion = m.Cell.Options.Expansion
	if m.RenderErr != nil && m.Cell.Format != FormatActionSpace {
		return
	}
	m.Metrics, m.MeasureErr = s.Meter.Measure(ctx, m.Rendered, html)
	p.Quality(&m.Metrics, m.Rendered, m.Cell.WindowExpansion())
	if m.Cell.Format == FormatHTML || m.RenderErr != nil {
		return
	}
	// The step columns: this cell against the same cell of the state
	// before (see Page.SetPrevious).
	cur := p.remember(m.Cell.Setting, m.Rendered)
	if p.before == nil || !p.before.Has(m.Cell.Format) {
		return // a first state, or one whose record the state before lacks
	}
	prev, err := p.before.traceOf(renderCtx, m.Cell.Setting, s.Renderers)
	if err == nil {
		err = s.Meter.measureStep(p, m.Cell.Setting, cur, prev, &m.Metrics)
	}
	if err != nil && m.MeasureErr == nil {
		m.MeasureErr = fmt.Errorf("step metrics: %w", err)
	}
}

// fit fits the page's fast action space into the cell's budget Repeat
// times and measures the first fit.
func (s Sweeper) fit(ctx context.Context, p *Page, html Tokens, m *Measured) {
	var first render.BudgetSpace
	for run := range s.runs() {
		bs, d, err := s.Meter.FitBudget(p.Tree, m.Cell.Budget, m.Cell.Options.Text)
		m.Runs++
		switch {
		case err != nil:
			m.RenderErr = err
			return
		case run == 0:
			first, m.Render = bs, d
		case bs.Perception != first.Perception || !slices.Equal(bs.Kept, first.Kept):
			m.RenderErr = fmt.Errorf("%w: run %d differs from run 1", errNotDeterministic, run+1)
			return
		default:
			m.Render = min(m.Render, d)
		}
	}
	m.Expansion = first.Expansion
	m.Rendered = Rendered{Format: FormatActionSpace, Space: first.Space, Handles: len(first.Actions)}
	if p.Oracle != nil {
		m.Rendered.Handled = p.Oracle.Kept(p.Tree, first.Kept)
	}
	m.Metrics, m.Budget, m.MeasureErr = s.Meter.MeasureBudget(ctx, first, html, p.Tree, p.Oracle)
	p.Quality(&m.Metrics, m.Rendered, m.Expansion)
}

// cut cuts the cell's format's whole-page text to the cell's budget
// Repeat times and measures the first cut.
func (s Sweeper) cut(ctx context.Context, p *Page, html Tokens, m *Measured) {
	var first CutSpace
	m.Expansion = dom.WholePage
	for run := range s.runs() {
		cs, d, err := s.Meter.CutFormat(p, m.Cell.Format, m.Cell.Budget)
		m.Runs++
		switch {
		case err != nil:
			m.RenderErr = err
			return
		case run == 0:
			first, m.Render = cs, d
		case cs.Text != first.Text || cs.Handles != first.Handles:
			m.RenderErr = fmt.Errorf("%w: run %d differs from run 1", errNotDeterministic, run+1)
			return
		default:
			m.Render = min(m.Render, d)
		}
	}
	m.Rendered = Rendered{Format: m.Cell.Format, Space: render.Space{ActionSpace: first.Text}, Handles: first.Handles, Handled: first.Handled}
	m.Metrics, m.Budget, m.MeasureErr = s.Meter.MeasureCut(ctx, p, first, html)
	p.Quality(&m.Metrics, m.Rendered, dom.WholePage)
}

// runs is Repeat, at least 1.
func (s Sweeper) runs() int { return max(s.Repeat, 1) }
