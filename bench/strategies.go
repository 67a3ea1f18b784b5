package bench

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"actionspace/metrics"
	"actionspace/space"
)

// The recall targets a setting must keep to be named the cheapest
// (docs/strategies.md): what an agent can act on now, and the salient text
// it needs.
const (
	TargetActionableRecall = 0.99
	TargetSalientRecall    = 0.95
)

// StrategyRow is one fixed-window fast actionspace cell of the sweep (a
// text policy and compression strategy at one expansion), set against the
// plain action space and playwright-ai at the same expansion: what it
// costs in tokens and what it keeps.
type StrategyRow struct {
	// Cell is the cell's key; Strategy its strategy's part of it ("" for
	// none), Text its text policy.
	Cell      string `json:"cell"`
	Strategy  string `json:"strategy"`
	Text      string `json:"text_policy"`
	Expansion int    `json:"viewport_expansion"`
	// TokensMean is the mean tokens per page (headline encoding).
	TokensMean *float64 `json:"tokens_mean"`
	// RecallMean, ActionableRecallMean and SalientRecallMean are the
	// cell's means (see CellSummary); FilteredRecallMean the mean of
	// recall_filtered, for an element filter.
	RecallMean           *float64 `json:"recall_mean"`
	ActionableRecallMean *float64 `json:"actionable_recall_mean"`
	SalientRecallMean    *float64 `json:"salient_recall_mean"`
	FilteredRecallMean   *float64 `json:"filtered_recall_mean,omitempty"`
	// PlainRatio is the median over pages of the cell's tokens divided by
	// the plain action space's (fast, the first text policy, no strategy)
	// at the same expansion; PlaywrightRatio the same against
	// playwright-ai's text. Null without pages that have both.
	PlainRatio      *float64 `json:"token_ratio_plain_median"`
	PlaywrightRatio *float64 `json:"token_ratio_playwright_ai_median"`
}

// meets reports whether the row keeps both recall targets.
func (r StrategyRow) meets() bool {
	return r.ActionableRecallMean != nil && *r.ActionableRecallMean >= TargetActionableRecall &&
		r.SalientRecallMean != nil && *r.SalientRecallMean >= TargetSalientRecall
}

// compareStrategies fills Strategies and Cheapest from the cells'
// summaries and the pages' figures.
func (s *Summary) compareStrategies(pages []pageFigures) {
	s.Strategies, s.Cheapest = nil, nil
	enc := s.headline()
	for _, c := range s.Cells {
		cell, err := ParseCellKey(c.Cell)
		if err != nil || !cell.actionSpace() || cell.Mode != space.ModeFast || cell.Budget > 0 {
			continue
		}
		plain := comparedCell(s.Config, cell.Expansion).Key()
		ai := Cell{Format: space.FormatPlaywrightAI, Expansion: cell.Expansion}.Key()
		row := StrategyRow{Cell: c.Cell, Strategy: cell.Strategy.Key(), Text: string(cell.Text), Expansion: cell.Expansion,
			TokensMean: c.TokensMean(enc), RecallMean: c.RecallMean, ActionableRecallMean: c.ActionableRecallMean,
			SalientRecallMean: c.SalientRecallMean}
		var toPlain, toAI, filtered []float64
		for _, p := range pages {
			t, ok := p.tokens[c.Cell]
			if !ok {
				continue
			}
			if b, ok := p.tokens[plain]; ok && b > 0 {
				toPlain = append(toPlain, t/b)
			}
			if b, ok := p.tokens[ai]; ok && b > 0 {
				toAI = append(toAI, t/b)
			}
			if f, ok := p.filtered[c.Cell]; ok {
				filtered = append(filtered, f)
			}
		}
		row.PlainRatio, row.PlaywrightRatio = num(metrics.Median(toPlain)), num(metrics.Median(toAI))
		if len(filtered) > 0 {
			row.FilteredRecallMean = num(metrics.Mean(filtered))
		}
		s.Strategies = append(s.Strategies, row)
	}
	slices.SortStableFunc(s.Strategies, func(a, b StrategyRow) int {
		return cmp.Compare(slices.Index(s.Config.Expansions, a.Expansion), slices.Index(s.Config.Expansions, b.Expansion))
	})
	for _, e := range s.Config.Expansions {
		var best *StrategyRow
		for i := range s.Strategies {
			r := &s.Strategies[i]
			if r.Expansion != e || !r.meets() || r.TokensMean == nil {
				continue
			}
			if best == nil || *r.TokensMean < *best.TokensMean {
				best = r
			}
		}
		if best != nil {
			s.Cheapest = append(s.Cheapest, *best)
		}
	}
}

// writeStrategies writes the report's strategies section: every
// strategy and expansion against the plain action space and
// playwright-ai, and the cheapest setting that keeps the recall targets.
func (r *Result) writeStrategies(w io.Writer) {
	s := &r.Summary
	if len(s.Strategies) == 0 {
		return
	}
	enc := s.headline()
	fmt.Fprintf(w, "## Formats by what an agent needs\n\nEvery format at every expansion: tokens per page (mean, %s), recall against the accessibility tree, against the actionable-now oracle (docs/oracles.md), text coverage and salient recall (means over pages; – where not measured).\n\n", enc)
	fmt.Fprint(w, "| cell | tokens mean | recall | actionable recall | text coverage | salient recall |\n|---|---:|---:|---:|---:|---:|\n")
	for _, c := range s.formatCells() {
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s |\n", c.Cell, fmtOpt(c.TokensMean(enc), 0), fmtOpt(c.RecallMean, 3),
			fmtOpt(c.ActionableRecallMean, 3), fmtOpt(c.TextCoverageMean, 3), fmtOpt(c.SalientRecallMean, 3))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "## Compression strategies\n\n")
	fmt.Fprintf(w, "Every fixed-window fast action-space cell (text policy and strategy, docs/strategies.md) at its measured recall: tokens per page (mean, %s), recall against the accessibility tree, against the actionable-now oracle and of the salient text (means over pages), the filtered recall of an element filter, and the median per-page token ratio to the plain action space (fast mode, text `%s`, no strategy, at the same expansion) and to playwright-ai's text.\n\n",
		enc, comparedCell(s.Config, 0).Text)
	fmt.Fprint(w, "| cell | E | text | strategy | tokens mean | recall | actionable recall | salient recall | filtered recall | : plain | : playwright-ai |\n")
	fmt.Fprint(w, "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range s.Strategies {
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Cell, ExpansionLabel(c.Expansion), c.Text, orDash(c.Strategy),
			fmtOpt(c.TokensMean, 0), fmtOpt(c.RecallMean, 3), fmtOpt(c.ActionableRecallMean, 3), fmtOpt(c.SalientRecallMean, 3),
			fmtOpt(c.FilteredRecallMean, 3), fmtOpt(c.PlainRatio, 2), fmtOpt(c.PlaywrightRatio, 2))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "**The cheapest setting** that keeps actionable recall ≥ %.2f and salient recall ≥ %.2f (means over the corpus), per expansion:\n\n", TargetActionableRecall, TargetSalientRecall)
	if len(s.Cheapest) == 0 {
		fmt.Fprintf(w, "None: no setting keeps both (or the run has no actionable or salient recall).\n\n")
		return
	}
	for _, c := range s.Cheapest {
		fmt.Fprintf(w, "- E=%s: `%s`, %s tokens per page (%s× the plain action space, %s× playwright-ai), actionable recall %s, salient recall %s\n",
			ExpansionLabel(c.Expansion), c.Cell, fmtOpt(c.TokensMean, 0), fmtOpt(c.PlainRatio, 2), fmtOpt(c.PlaywrightRatio, 2),
			fmtOpt(c.ActionableRecallMean, 3), fmtOpt(c.SalientRecallMean, 3))
	}
	fmt.Fprintln(w)
}

// paretoPanels draws the Pareto chart's panels: tokens against recall
// (paretoChart), then against actionable recall and against salient
// recall, per format and expansion, with the strategies' cells at the
// whole page as points of their own. A panel without data is left out.
func (r *Result) paretoPanels() ([]byte, error) {
	first, err := r.paretoChart()
	if err != nil || first == nil {
		return nil, err
	}
	panels := []*plot.Plot{first}
	for _, m := range []struct {
		name string
		of   func(*CellSummary) *float64
	}{
		{"actionable recall", func(c *CellSummary) *float64 { return c.ActionableRecallMean }},
		{"salient recall", func(c *CellSummary) *float64 { return c.SalientRecallMean }},
	} {
		p, err := r.paretoOf(m.name, m.of)
		if err != nil {
			return nil, err
		}
		if p != nil {
			panels = append(panels, p)
		}
	}
	c := vgsvg.New(chartWidth, chartHeight*vg.Length(len(panels)))
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: vg.Points(12)}
	canvases := plot.Align(transpose(panels), tiles, draw.New(c))
	for i, p := range panels {
		p.Draw(canvases[i][0])
	}
	var b writerBuffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.data, nil
}

// transpose turns a column of plots into rows of one plot each.
func transpose(ps []*plot.Plot) [][]*plot.Plot {
	out := make([][]*plot.Plot, len(ps))
	for i, p := range ps {
		out[i] = []*plot.Plot{p}
	}
	return out
}

// writerBuffer collects bytes.
type writerBuffer struct{ data []byte }

func (b *writerBuffer) Write(p []byte) (int, error) {
	b.data = append(b.data, p...)
	return len(p), nil
}

// paretoOf is a Pareto panel of tokens against the quality of (mean per
// page): one line per format through its expansions, its points labelled
// with the expansion, and, beside the recall panel, the whole-page
// strategy cells as labelled crosses.
func (r *Result) paretoOf(name string, of func(*CellSummary) *float64) (*plot.Plot, error) {
	s := &r.Summary
	if !s.hasFormats() {
		return nil, nil
	}
	enc := s.headline()
	p := plot.New()
	p.Title.Text = "Tokens against " + name + " per format and expansion (mean per page, " + string(enc) + ")"
	p.X.Label.Text = "tokens per page, mean (log scale)"
	p.Y.Label.Text = name + ", mean over pages with one"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(8)
	lo, hi, bottom := math.Inf(1), 0.0, 1.0
	point := func(c *CellSummary) (plotter.XY, bool) {
		t, q := c.TokensMean(enc), of(c)
		if t == nil || q == nil || *t <= 0 {
			return plotter.XY{}, false
		}
		lo, hi, bottom = math.Min(lo, *t), math.Max(hi, *t), math.Min(bottom, *q)
		return plotter.XY{X: *t, Y: *q}, true
	}
	drawn := false
	cells := s.formatCells()
	for k, f := range space.Formats() {
		var pts plotter.XYs
		var labels []string
		for _, c := range cells {
			if xy, ok := point(c); ok && c.Format == f {
				pts = append(pts, xy)
				labels = append(labels, "E="+ExpansionLabel(int(c.ViewportExpansion)))
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, dots, err := styledLine(pts, k)
		if err != nil {
			return nil, err
		}
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
		if err != nil {
			return nil, err
		}
		for i := range lb.TextStyle {
			// Formats alternate their labels below and above the
			// points, so that two formats on top of each other (the
			// accessibility tree and the AI snapshot both near 1) stay
			// readable.
			lb.TextStyle[i].Color = plotutil.Color(k)
			lb.TextStyle[i].XAlign = -0.5
			lb.TextStyle[i].YAlign = -1.3
			if k%2 == 1 {
				lb.TextStyle[i].YAlign = 0.5
			}
		}
		p.Add(line, dots, lb)
		p.Legend.Add(f, line, dots)
		drawn = true
	}
	var pts plotter.XYs
	var labels []string
	for _, row := range s.Strategies {
		c := s.Cell(row.Cell)
		if name == "recall" || row.Expansion != -1 || c == nil || (row.Strategy == "" && row.Text == string(comparedCell(s.Config, 0).Text)) {
			continue
		}
		if xy, ok := point(c); ok {
			pts = append(pts, xy)
			labels = append(labels, row.Text+" "+row.Strategy)
		}
	}
	if len(pts) > 0 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape = draw.CrossGlyph{}
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
		if err != nil {
			return nil, err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].XAlign, lb.TextStyle[i].YAlign = 0.1, -0.5
		}
		p.Add(sc, lb)
		p.Legend.Add("actionspace strategies, E=page", sc)
		drawn = true
	}
	if !drawn {
		return nil, nil
	}
	p.X.Min, p.X.Max = lo/1.5, hi*1.5
	// The quality axis starts a little below the lowest point, at a
	// multiple of 0.1, so that differences of a few points show.
	p.Y.Min, p.Y.Max = math.Max(0, math.Floor(bottom*10-1)/10), 1.04
	p.Add(plotter.NewGrid())
	return p, nil
}
