package bench

import (
	"time"

	"actionspace/dataset"
	"actionspace/metrics"
	"actionspace/space"
)

// aggregate folds the rows into per-cell and per-stage accumulators; the
// sweep's consumer goroutine owns it.
type aggregate struct {
	encoding metrics.Encoding // the headline encoding
	input    Input
	cells    []*cellAcc
	byKey    map[string]*cellAcc
	stages   []*stageAcc // indexed by the st constants
	renders  int64
	renderMS float64 // summed time of every timed render run
	// calibration holds each page's reference-workload time.
	calibration []float64
	rows        int64
	samples     map[string]*samples
	// pages holds every page's figures, in input order, for the format
	// comparisons.
	pages []pageFigures
	// steps accumulates the states after steps per cell key, stepOrder
	// the keys in the order met.
	steps     map[string]*stepAcc
	stepOrder []string
}

// Stage indexes into aggregate.stages.
const (
	stNavigate = iota
	stSettle
	stCapture
	stContent
	stDecode
	stRender
	stDeep
	stTokenize
	stBudget
	stFormat
	stCut
)

func newAggregate(cells []Cell, enc metrics.Encoding) *aggregate {
	a := &aggregate{encoding: enc, byKey: make(map[string]*cellAcc), samples: make(map[string]*samples), steps: map[string]*stepAcc{}}
	for _, c := range cells {
		acc := &cellAcc{cell: c}
		a.cells = append(a.cells, acc)
		a.byKey[c.Key()] = acc
		a.samples[c.Key()] = &samples{}
	}
	for _, st := range []struct{ name, source string }{
		{"navigate", "crawl"}, {"settle", "crawl"}, {"capture", "crawl"}, {"content", "crawl"},
		{"decode", "bench"}, {"render", "bench"}, {"deep render", "bench"}, {"tokenize", "bench"}, {"budget fit", "bench"},
		{"format render", "bench"}, {"cut from end", "bench"},
	} {
		a.stages = append(a.stages, &stageAcc{name: st.name, source: st.source})
	}
	return a
}

func (a *aggregate) addPage(out pageOut) {
	a.input.Rendered++
	t := out.timing
	if t.failed {
		a.input.Failed++
	}
	p := out.page
	a.stages[stNavigate].add(p.NavigateMS)
	a.stages[stSettle].add(p.SettleMS)
	a.stages[stCapture].add(p.CaptureMS)
	a.stages[stContent].add(p.ContentMS)
	if !t.failed {
		a.stages[stDecode].add(ptr(space.MS(t.decode)))
	}
	if t.calibration > 0 {
		a.calibration = append(a.calibration, space.MS(t.calibration))
	}
	for k, c := range t.cells {
		if a.cells[k].cell.actionSpace() { // the speed is the action space's
			a.renders += int64(c.runs)
			a.renderMS += space.MS(c.spent)
		}
	}
	for _, k := range out.noRecord {
		a.byKey[k].noRecord++
	}
	a.pages = append(a.pages, figures(p.URL, out.rows, a.encoding))
	i := slot(a.encoding)
	for k := range out.rows {
		r := &out.rows[k]
		a.rows++
		a.byKey[r.Cell].add(r)
		if r.Error != "" {
			continue
		}
		switch {
		case r.TokenBudget != nil && r.Format == space.FormatActionSpace:
			a.stages[stBudget].add(&r.RenderMS)
		case r.TokenBudget != nil:
			a.stages[stCut].add(&r.RenderMS)
		case r.Format != space.FormatActionSpace:
			a.stages[stFormat].add(&r.RenderMS)
		case r.Mode == space.ModeFast:
			a.stages[stRender].add(&r.RenderMS)
		default:
			a.stages[stDeep].add(&r.RenderMS)
		}
		if r.TokenizeMS > 0 {
			a.stages[stTokenize].add(&r.TokenizeMS)
		}
		sm := a.samples[r.Cell]
		if t := [2]*int64{r.TokensCL100K, r.TokensO200K}[i]; t != nil {
			sm.tokens = append(sm.tokens, float64(*t))
		}
		if q := [2]*float64{r.RatioCL100K, r.RatioO200K}[i]; q != nil {
			sm.ratios = append(sm.ratios, *q)
		}
	}
}

func (a *aggregate) result(cfg Config, runCfg RunConfig, wall time.Duration) *Result {
	sum := Summary{
		SchemaVersion: dataset.SchemaVersion,
		RunID:         cfg.RunID,
		CreatedAt:     time.Now().UTC().Truncate(time.Second),
		ToolVersion:   dataset.ToolVersion(),
		Input:         a.input,
		Config:        runCfg,
		Machine:       machine(),
		Prices:        cfg.Prices,
	}
	sp := Speed{Renders: a.renders, RenderSeconds: a.renderMS / 1000, Cells: a.rows,
		WallSeconds: wall.Seconds(), Workers: cfg.Workers, CalibrationMS: num(metrics.Median(a.calibration))}
	if sp.RenderSeconds > 0 {
		sp.RendersPerSecondPerCore = float64(sp.Renders) / sp.RenderSeconds
	}
	if sp.WallSeconds > 0 {
		sp.CellsPerSecondPerCore = float64(sp.Cells) / sp.WallSeconds / float64(cfg.Workers)
	}
	sum.Speed = sp
	for _, st := range a.stages {
		sum.Stages = append(sum.Stages, st.stage())
	}
	for _, c := range a.cells {
		sum.Cells = append(sum.Cells, c.summary(cfg.Encodings, cfg.Prices))
	}
	sum.compareFormats(a.pages)
	sum.Steps = a.stepSummaries()
	sum.compareStrategies(a.pages)
	return &Result{Summary: sum, samples: a.samples}
}
