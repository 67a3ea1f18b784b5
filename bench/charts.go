package bench

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/space"
)

// Chart sizes.
const (
	chartWidth  = 8 * vg.Inch
	chartHeight = 4.5 * vg.Inch
)

// chart is one chart of the report: its file name and SVG bytes.
type chart struct {
	file string
	svg  []byte
}

// charts draws the report's charts. A chart without data (no deep cells,
// no HTML to compare with) is left out.
func (r *Result) charts() ([]chart, error) {
	var out []chart
	for _, c := range []struct {
		file string
		make func() (*plot.Plot, error)
	}{
		{TokensChartFile, r.tokensChart},
		{RatioChartFile, r.ratioChart},
		{DeepChartFile, r.deepChart},
		{StagesChartFile, r.stagesChart},
		{BudgetChartFile, r.budgetChart},
	} {
		p, err := c.make()
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.file, err)
		}
		if p == nil {
			continue
		}
		svg, err := drawSVG(p, chartWidth, chartHeight)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.file, err)
		}
		out = append(out, chart{file: c.file, svg: svg})
	}
	// The Pareto chart has a panel per quality measure (paretoPanels).
	svg, err := r.paretoPanels()
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", ParetoChartFile, err)
	}
	if svg != nil {
		out = append(out, chart{file: ParetoChartFile, svg: svg})
	}
	return out, nil
}

func drawSVG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	wt, err := p.WriterTo(w, h, "svg")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// headline returns the encoding the report leads with: the first swept.
func (s *Summary) headline() metrics.Encoding {
	if len(s.Config.Encodings) == 0 {
		return metrics.CL100K
	}
	return metrics.Encoding(s.Config.Encodings[0])
}

// series returns the mode × text combinations of the sweep, in order.
func (s *Summary) series() []Cell {
	var out []Cell
	for _, m := range s.Config.Modes {
		for _, t := range s.Config.Texts {
			out = append(out, Cell{Mode: m, Text: dom.TextPolicy(t)})
		}
	}
	return out
}

// tokensChart: mean tokens per page against the expansion, one line per
// mode and text policy.
func (r *Result) tokensChart() (*plot.Plot, error) {
	s := &r.Summary
	enc := s.headline()
	p := plot.New()
	p.Title.Text = "Action-space tokens per page vs viewport_expansion (mean, " + string(enc) + ")"
	p.X.Label.Text = "viewport_expansion (CSS px; page = whole page)"
	p.Y.Label.Text = "tokens per page"
	var ticks []plot.Tick
	for i, e := range s.Config.Expansions {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: ExpansionLabel(e)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.3, float64(len(s.Config.Expansions))-0.7
	p.Y.Min = 0
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = vg.Points(8)
	drawn := false
	for k, sr := range s.series() {
		var pts plotter.XYs
		for i, e := range s.Config.Expansions {
			c := s.Cell(Cell{Mode: sr.Mode, Expansion: e, Text: sr.Text}.Key())
			if c == nil {
				continue
			}
			if v := c.TokensMean(enc); v != nil {
				pts = append(pts, plotter.XY{X: float64(i), Y: *v})
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, dots, err := styledLine(pts, k)
		if err != nil {
			return nil, err
		}
		p.Add(line, dots)
		p.Legend.Add(sr.Mode+", text "+string(sr.Text), line, dots)
		drawn = true
	}
	if !drawn {
		return nil, nil
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// styledLine draws pts as a line with its points, in the k-th colour,
// dash pattern and glyph of the palette.
func styledLine(pts plotter.XYs, k int) (*plotter.Line, *plotter.Scatter, error) {
	line, dots, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, nil, err
	}
	line.Color, dots.Color = plotutil.Color(k), plotutil.Color(k)
	line.Dashes = plotutil.Dashes(k)
	dots.Shape = plotutil.Shape(k)
	return line, dots, nil
}

// ratioChart: the distribution of the per-page compression ratio, one
// horizontal box per cell.
func (r *Result) ratioChart() (*plot.Plot, error) {
	s := &r.Summary
	enc := s.headline()
	p := plot.New()
	p.Title.Text = "Compression ratio per page (HTML tokens / action-space tokens, " + string(enc) + ")"
	p.X.Label.Text = "ratio (log scale; higher = smaller action space)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	var names []string
	drawn := false
	for i, c := range s.Cells {
		names = append(names, c.Cell)
		sm := r.samples[c.Cell]
		if sm == nil || len(sm.ratios) == 0 {
			continue
		}
		vals := make(plotter.Values, 0, len(sm.ratios))
		for _, v := range sm.ratios {
			vals = append(vals, math.Max(v, 1e-3))
		}
		b, err := plotter.NewBoxPlot(vg.Points(8), float64(i), vals)
		if err != nil {
			return nil, err
		}
		b.Horizontal = true
		b.FillColor = color.RGBA{R: 0xcf, G: 0xe2, B: 0xf3, A: 0xff}
		p.Add(b)
		drawn = true
	}
	if !drawn {
		return nil, nil
	}
	p.NominalY(names...)
	p.X.Max *= 1.3 // room for the outliers' glyphs
	return p, nil
}

// deepChart: deep-mode tokens per page, one group of bars per deep cell:
// prompt tokens counted locally, prompt and completion tokens the API
// reported.
func (r *Result) deepChart() (*plot.Plot, error) {
	s := &r.Summary
	var names []string
	var local, promptAPI, completion plotter.Values
	for _, c := range s.Cells {
		if c.Mode != space.ModeDeep || c.PromptTokensLocal == nil {
			continue
		}
		ok := float64(c.Pages - c.Errors)
		if ok <= 0 {
			continue
		}
		names = append(names, "E="+ExpansionLabel(int(c.ViewportExpansion))+", text "+c.TextPolicy)
		local = append(local, float64(*c.PromptTokensLocal)/ok)
		promptAPI = append(promptAPI, float64(deref(c.PromptTokensAPI))/ok)
		completion = append(completion, float64(deref(c.CompletionTokensAPI))/ok)
	}
	if len(names) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = "Deep mode: LLM tokens per page (mean; API figures are 0 on a dry run)"
	p.X.Label.Text = "tokens per page"
	p.X.Min = 0
	p.X.Tick.Marker = plainTicks{}
	w := vg.Points(float64(260/len(names)) / 3)
	for k, v := range []struct {
		name string
		vals plotter.Values
	}{{"prompt (local count)", local}, {"prompt (API)", promptAPI}, {"completion (API)", completion}} {
		b, err := plotter.NewBarChart(v.vals, w)
		if err != nil {
			return nil, err
		}
		b.Color = plotutil.Color(k)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(1-k)
		b.Horizontal = true
		p.Add(b)
		p.Legend.Add(v.name, b)
	}
	p.Legend.Top = false
	p.Legend.YOffs = vg.Points(8)
	p.NominalY(names...)
	p.X.Max *= 1.25 // room for the legend
	return p, nil
}

// stagesChart: the median time per page of every stage, with a whisker to
// the 90th percentile, on a log scale (a navigation takes a thousand
// renders).
func (r *Result) stagesChart() (*plot.Plot, error) {
	s := &r.Summary
	p := plot.New()
	p.Title.Text = "Time per stage (median per page, whisker to p90; render and tokenize per cell)"
	p.X.Label.Text = "milliseconds (log scale)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = logTicks{}
	var names []string
	var dots plotter.XYs
	hi := 0.0
	for _, st := range s.Stages {
		if st.MedianMS == nil {
			continue
		}
		y := float64(len(names))
		names = append(names, st.Name+" ("+st.Source+")")
		med := math.Max(*st.MedianMS, 1e-4)
		dots = append(dots, plotter.XY{X: med, Y: y})
		hi = math.Max(hi, med)
		if st.P90MS != nil && *st.P90MS > med {
			l, err := plotter.NewLine(plotter.XYs{{X: med, Y: y}, {X: *st.P90MS, Y: y}})
			if err != nil {
				return nil, err
			}
			l.Width = vg.Points(2)
			l.Color = plotutil.Color(0)
			p.Add(l)
			hi = math.Max(hi, *st.P90MS)
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	sc, err := plotter.NewScatter(dots)
	if err != nil {
		return nil, err
	}
	sc.Color = plotutil.Color(0)
	sc.Radius = vg.Points(4)
	sc.Shape = plotutil.Shape(0)
	p.Add(sc, plotter.NewGrid())
	p.NominalY(names...)
	p.X.Max = hi * 1.5
	return p, nil
}

// plainTicks are the default ticks labelled without trailing zeros.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
		}
	}
	return ticks
}

// logTicks labels a log axis at 1, 2 and 5 times the powers of ten, with
// unlabelled minor ticks between them.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
