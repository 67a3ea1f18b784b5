package bench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"actionspace/metrics"
	"actionspace/space"
)

// budgetCells returns the summaries of the budget cells, in cell order.
func (s *Summary) budgetCells() []*CellSummary {
	var out []*CellSummary
	for i := range s.Cells {
		if s.Cells[i].TokenBudget != nil {
			out = append(out, &s.Cells[i])
		}
	}
	return out
}

// budgetSeries groups the budget cells into the lines of the recall
// chart: one per format, and for actionspace per text policy, each cell's
// budget ascending.
func (s *Summary) budgetSeries() []budgetLine {
	var out []budgetLine
	for _, c := range s.budgetCells() {
		name := c.Format + " cut from the end"
		if c.Format == space.FormatActionSpace {
			name = "actionspace, text " + c.TextPolicy
		}
		k := slices.IndexFunc(out, func(l budgetLine) bool { return l.name == name })
		if k < 0 {
			out = append(out, budgetLine{name: name})
			k = len(out) - 1
		}
		out[k].cells = append(out[k].cells, c)
	}
	for _, l := range out {
		slices.SortFunc(l.cells, func(a, b *CellSummary) int { return int(*a.TokenBudget - *b.TokenBudget) })
	}
	return out
}

// budgetLine is one line of the recall chart.
type budgetLine struct {
	name  string
	cells []*CellSummary
}

// BudgetTokensMean returns the mean tokens per page a budget cell holds
// to its budget, in enc: the perception text's for actionspace (the
// wrapper counts), the text's for a cut baseline (it has none).
func (s *CellSummary) BudgetTokensMean(enc metrics.Encoding) *float64 {
	if s.Format != "" && s.Format != space.FormatActionSpace {
		return s.TokensMean(enc)
	}
	return s.PerceptionTokensMean(enc)
}

// writeBudgetHeadline prints the budget cells for the one-screen summary.
func (r *Result) writeBudgetHeadline(w io.Writer) {
	s := &r.Summary
	cells := s.budgetCells()
	if len(cells) == 0 {
		return
	}
	enc := s.headline()
	fmt.Fprintf(w, "\ntoken budgets (%s: actionspace's perception text, the other formats' whole-page text cut from the end; recall against the accessibility tree; render = fit or cut one budget, median ms):\n", enc)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "  cell\tbudget\ttokens mean\twhole page fit\tpage recall\tviewport recall\trender ms\t\n")
	for _, c := range cells {
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s/%d\t%s\t%s\t%s\t\n", c.Cell, *c.TokenBudget,
			fmtOpt(c.BudgetTokensMean(enc), 0), fmtInt(c.WholePagePages), c.Pages-c.Errors,
			fmtOpt(c.PageRecallMean, 3), fmtOpt(c.ViewportRecallMean, 3), fmtOpt(c.RenderMSMedian, 2))
	}
	tw.Flush()
}

// writeBudgets writes the report's token-budget section.
func (r *Result) writeBudgets(w io.Writer, chart bool) {
	s := &r.Summary
	cells := s.budgetCells()
	if len(cells) == 0 {
		return
	}
	enc := s.headline()
	fmt.Fprintf(w, "## Token budgets\n\n")
	fmt.Fprintf(w, "Each budget cell fits every page's fast action space into N %s tokens, counted over the whole perception text: the whole page when it fits; else the window grown from the viewport as far as it fits; else the viewport losing context lines, then length (texts and values cut), then the IDs farthest from the screen's centre; whole lines, in document order. The baselines (`playwright-ai/B…`, `axtree/B…`) are what users do today: the format's whole-page text cut from the end, the leading lines that fit in N tokens of the text itself; which oracle elements they handle is read off the kept lines. ", enc)
	fmt.Fprintf(w, "Page recall is the share of the page's oracle elements (the accessibility tree's actionable elements whose box meets the whole page, E=-1) that got a handle, a denominator that does not move with the budget, so it never falls as the budget grows; viewport recall is the share of the screen's (E=0) oracle elements kept; both are means over the pages with an oracle. The window is the median `budget_expansion` over the pages whose whole page did not fit. Render = fitting one budget alone (selecting, rendering and counting every probe; for a baseline, rendering the whole page and cutting it), the fastest of %d runs, median over pages.\n\n", s.Config.Repeat)
	fmt.Fprint(w, "| cell | budget | text | pages | tokens mean | whole page fitted | window (px, median) | handles/page | dropped handles/page | page recall | viewport recall | render ms median |\n")
	fmt.Fprint(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range cells {
		fmt.Fprintf(w, "| `%s` | %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Cell, *c.TokenBudget, orDash(c.TextPolicy),
			c.Pages, fmtOpt(c.BudgetTokensMean(enc), 0), fmtInt(c.WholePagePages), fmtOpt(c.BudgetExpansionMedian, 0),
			fmtOpt(c.IDsMean, 1), fmtOpt(c.DroppedIDsMean, 1), fmtOpt(c.PageRecallMean, 3), fmtOpt(c.ViewportRecallMean, 3),
			fmtOpt(c.RenderMSMedian, 3))
	}
	fmt.Fprintln(w)
	if chart {
		fmt.Fprintf(w, "![recall against token budget](%s)\n\n", BudgetChartFile)
	} else {
		fmt.Fprintf(w, "No recall: the crawl dataset holds no accessibility trees (the oracle).\n\n")
	}
}

// budgetChart: mean recall against the token budget, one line per
// format (page recall solid, viewport recall dashed).
func (r *Result) budgetChart() (*plot.Plot, error) {
	s := &r.Summary
	lines := s.budgetSeries()
	p := plot.New()
	p.Title.Text = "Recall against token budget (mean over pages, " + string(s.headline()) + ")"
	p.X.Label.Text = "token budget (log scale)"
	p.Y.Label.Text = "recall"
	p.X.Scale = plot.LogScale{}
	p.Y.Min, p.Y.Max = 0, 1.05
	var ticks []plot.Tick
	lo, hi := math.Inf(1), 0.0
	for _, c := range s.budgetCells() {
		b := float64(*c.TokenBudget)
		if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == b }) {
			ticks = append(ticks, plot.Tick{Value: b, Label: strconv.FormatInt(*c.TokenBudget, 10)})
		}
		lo, hi = math.Min(lo, b), math.Max(hi, b)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = lo/1.2, hi*1.2
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(8)
	drawn := false
	for k, l := range lines {
		for _, kind := range []struct {
			label  string
			value  func(*CellSummary) *float64
			dashes []vg.Length
		}{
			{"page recall", func(c *CellSummary) *float64 { return c.PageRecallMean }, nil},
			{"viewport recall", func(c *CellSummary) *float64 { return c.ViewportRecallMean }, []vg.Length{vg.Points(4), vg.Points(3)}},
		} {
			var pts plotter.XYs
			for _, c := range l.cells {
				if v := kind.value(c); v != nil {
					pts = append(pts, plotter.XY{X: float64(*c.TokenBudget), Y: *v})
				}
			}
			if len(pts) == 0 {
				continue
			}
			line, dots, err := styledLine(pts, k)
			if err != nil {
				return nil, err
			}
			line.Dashes = kind.dashes // page recall solid, viewport recall dashed
			p.Add(line, dots)
			p.Legend.Add(l.name+": "+kind.label, line, dots)
			drawn = true
		}
	}
	if !drawn {
		return nil, nil
	}
	p.Add(plotter.NewGrid())
	return p, nil
}
