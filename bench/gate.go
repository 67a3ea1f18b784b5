package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"actionspace/metrics"
	"actionspace/space"
)

// Gate metrics: what a Threshold can limit. Each is compared per cell (and
// per encoding where it has one); "worse" is up for all but MetricRatio.
const (
	// MetricTokens is the mean action-space tokens per page.
	MetricTokens = "tokens"
	// MetricPerceptionTokens is the mean perception-text tokens per page.
	MetricPerceptionTokens = "perception_tokens"
	// MetricRatio is the median compression ratio; lower is worse.
	MetricRatio = "ratio"
	// MetricRenderMS is the median render time per page, compared for
	// the fast-mode cells of a fixed expansion only.
	MetricRenderMS = "render_ms"
	// MetricPromptTokens is the mean deep-mode prompt tokens per page,
	// counted locally.
	MetricPromptTokens = "prompt_tokens"
	// MetricRecall is the mean recall per page against the oracle (a
	// budget cell's: page_recall, the share of the whole page's oracle
	// elements kept); lower is worse. Unlike the other metrics its PCT is
	// in percentage points of recall, not a percentage of the baseline:
	// recall=0.5% fails a cell whose mean recall fell by more than 0.005
	// (from 0.950 to 0.944, say), and +ABS is in recall's own unit.
	MetricRecall = "recall"
	// MetricActionableRecall is the mean actionable_recall per page: the
	// recall against the elements the probe found a pointer event reaches;
	// lower is worse, and its PCT is in percentage points, as for recall.
	// Cells without it on either side (no probe) are not compared.
	MetricActionableRecall = "actionable_recall"
	// MetricErrors is the number of pages that failed to render; the gate
	// always checks it: any increase is a regression.
	MetricErrors = "errors"
	// MetricHandlesWrong is a cell's wrong-target handles per 1,000 steps
	// across the crawl's steps (StepSummary.WrongPer1000Steps): handles
	// that silently re-pointed to another element. The gate always checks
	// it when both runs have steps: any increase is a regression.
	MetricHandlesWrong = "handles_wrong"
)

// DefaultMaxRegress is the default --max-regress: action-space tokens may
// not grow by more than 2%, the median render time by more than 25%, and
// the mean recall and actionable recall may not fall by more than half a
// percentage point.
const DefaultMaxRegress = "tokens=2%,render_ms=25%,recall=0.5%,actionable_recall=0.5%"

// Threshold is the largest worsening of one metric the gate accepts: a
// cell regresses when the metric worsens by more than Pct percent of the
// baseline and by more than Abs in the metric's own unit (the absolute
// slack keeps tiny timings' noise out: 25% of 0.08 ms is 0.02 ms).
type Threshold struct {
	Metric string
	Pct    float64
	Abs    float64
}

// String formats the threshold as ParseThresholds reads it.
func (t Threshold) String() string {
	s := t.Metric + "=" + strconv.FormatFloat(t.Pct, 'f', -1, 64) + "%"
	if t.Abs > 0 {
		s += "+" + strconv.FormatFloat(t.Abs, 'f', -1, 64)
	}
	return s
}

// ParseThresholds parses a --max-regress list: comma-separated
// METRIC=PCT% entries, each optionally followed by +ABS, an absolute slack
// in the metric's unit (milliseconds for render_ms, tokens for the token
// metrics, recall for recall), e.g. "tokens=2%,render_ms=25%+0.05". For
// recall, PCT is in percentage points (see MetricRecall).
func ParseThresholds(list string) ([]Threshold, error) {
	var out []Threshold
	for f := range strings.SplitSeq(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		name, val, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("threshold %q: want METRIC=PCT%%", f)
		}
		t := Threshold{Metric: strings.TrimSpace(name)}
		switch t.Metric {
		case MetricTokens, MetricPerceptionTokens, MetricRatio, MetricRenderMS, MetricPromptTokens, MetricRecall, MetricActionableRecall:
		default:
			return nil, fmt.Errorf("threshold %q: unknown metric %q (want tokens, perception_tokens, ratio, render_ms, prompt_tokens, recall or actionable_recall)", f, t.Metric)
		}
		pct, abs, hasAbs := strings.Cut(val, "+")
		pct = strings.TrimSpace(pct)
		if !strings.HasSuffix(pct, "%") {
			return nil, fmt.Errorf("threshold %q: percentage must end in %%", f)
		}
		var err error
		if t.Pct, err = strconv.ParseFloat(strings.TrimSuffix(pct, "%"), 64); err != nil || t.Pct < 0 || math.IsNaN(t.Pct) || math.IsInf(t.Pct, 0) {
			return nil, fmt.Errorf("threshold %q: bad percentage", f)
		}
		if hasAbs {
			if t.Abs, err = strconv.ParseFloat(strings.TrimSpace(abs), 64); err != nil || t.Abs < 0 || math.IsNaN(t.Abs) || math.IsInf(t.Abs, 0) {
				return nil, fmt.Errorf("threshold %q: bad absolute slack", f)
			}
		}
		if slices.ContainsFunc(out, func(o Threshold) bool { return o.Metric == t.Metric }) {
			return nil, fmt.Errorf("threshold %q: metric %s given twice", f, t.Metric)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("threshold list %q is empty", list)
	}
	return out, nil
}

// Check is one comparison of the gate: one metric of one cell.
type Check struct {
	// Cell is the cell's key.
	Cell string
	// Metric names the metric, with the encoding in brackets where it
	// has one, e.g. "tokens[o200k_base]".
	Metric string
	// Base and Current are the metric's values.
	Base, Current float64
	// Worse is the worsening in percent of Base (negative: better), for
	// recall in percentage points;
	// +Inf when Base is zero and Current is worse.
	Worse float64
	// Limit is the threshold that applied.
	Limit Threshold
	// Regressed is true when the worsening exceeds the threshold.
	Regressed bool
}

// Gate is the outcome of comparing a run with a baseline.
type Gate struct {
	// Baseline identifies the baseline: its path or run ID.
	Baseline string
	// Thresholds are the limits applied.
	Thresholds []Threshold
	// Checks lists every comparison made, in cell order.
	Checks []Check
	// MissingInRun lists the baseline's cells this run does not have;
	// NotInBaseline lists this run's cells the baseline does not have.
	// Neither fails the gate; both are reported.
	MissingInRun, NotInBaseline []string
	// Notes are warnings that qualify the comparison (different page
	// counts, a different machine for timings).
	Notes []string
}

// Regressions returns the checks that regressed.
func (g *Gate) Regressions() []Check {
	var out []Check
	for _, c := range g.Checks {
		if c.Regressed {
			out = append(out, c)
		}
	}
	return out
}

// ErrRegressed is what a command returns when the gate failed: the gate's
// report (WriteText) says why.
var ErrRegressed = errors.New("regression gate failed")

// Failed reports whether the gate fails: some check regressed, or no cell
// could be compared at all (a gate that compares nothing proves nothing).
func (g *Gate) Failed() bool {
	return len(g.Checks) == 0 || len(g.Regressions()) > 0
}

// Compare compares run with base, cell by cell, under the thresholds.
func Compare(base, run *Summary, thresholds []Threshold, baseLabel string) Gate {
	g := Gate{Baseline: baseLabel, Thresholds: thresholds}
	if g.Baseline == "" {
		g.Baseline = base.RunID
	}
	for _, b := range base.Cells {
		if run.Cell(b.Cell) == nil {
			g.MissingInRun = append(g.MissingInRun, b.Cell)
		}
	}
	var pagesDiffer []string
	for i := range run.Cells {
		r := &run.Cells[i]
		b := base.Cell(r.Cell)
		if b == nil {
			g.NotInBaseline = append(g.NotInBaseline, r.Cell)
			continue
		}
		if b.Pages != r.Pages {
			pagesDiffer = append(pagesDiffer, fmt.Sprintf("%s (%d vs %d)", r.Cell, b.Pages, r.Pages))
		}
		g.Checks = append(g.Checks, check(r.Cell, MetricErrors, ptr(float64(b.Errors)), ptr(float64(r.Errors)), Threshold{Metric: MetricErrors}, false)...)
		for _, t := range thresholds {
			g.Checks = append(g.Checks, compareMetric(b, r, t)...)
		}
	}
	for _, r := range run.Steps {
		for _, b := range base.Steps {
			if b.Cell == r.Cell {
				g.Checks = append(g.Checks, check(r.Cell, MetricHandlesWrong, b.WrongPer1000Steps, r.WrongPer1000Steps, Threshold{Metric: MetricHandlesWrong}, false)...)
			}
		}
	}
	if len(pagesDiffer) > 0 {
		g.Notes = append(g.Notes, "page counts differ (baseline vs run), so the pages compared may differ: "+strings.Join(pagesDiffer, ", "))
	}
	if slices.ContainsFunc(thresholds, func(t Threshold) bool { return t.Metric == MetricRenderMS }) &&
		(base.Machine.CPUModel != run.Machine.CPUModel || base.Machine.CPUs != run.Machine.CPUs) {
		g.Notes = append(g.Notes, fmt.Sprintf("the baseline's timings come from another machine (%s, %d CPUs; this run: %s, %d CPUs): render_ms compares machines as much as code",
			orUnknown(base.Machine.CPUModel), base.Machine.CPUs, orUnknown(run.Machine.CPUModel), run.Machine.CPUs))
	}
	if base.Config.Repeat != run.Config.Repeat {
		g.Notes = append(g.Notes, fmt.Sprintf("the baseline timed the fastest of %d renders, this run of %d: render_ms is not comparable", base.Config.Repeat, run.Config.Repeat))
	}
	if b, r := base.Speed.CalibrationMS, run.Speed.CalibrationMS; b != nil && r != nil && *b > 0 {
		if d := (*r - *b) / *b * 100; math.Abs(d) >= 10 {
			g.Notes = append(g.Notes, fmt.Sprintf("the reference workload took %+.0f%% time on this run against the baseline (%.4f ms vs %.4f ms): render_ms changes of that size are the machine, not the code", d, *r, *b))
		}
	}
	return g
}

// compareMetric makes the checks of one threshold for one cell.
func compareMetric(b, r *CellSummary, t Threshold) []Check {
	var out []Check
	perEncoding := func(get func(*CellSummary, metrics.Encoding) *float64, lowerIsWorse bool) {
		for _, enc := range metrics.Encodings() {
			out = append(out, check(r.Cell, t.Metric+"["+string(enc)+"]", get(b, enc), get(r, enc), t, lowerIsWorse)...)
		}
	}
	switch t.Metric {
	case MetricTokens:
		perEncoding((*CellSummary).TokensMean, false)
	case MetricPerceptionTokens:
		perEncoding((*CellSummary).PerceptionTokensMean, false)
	case MetricRatio:
		perEncoding((*CellSummary).RatioMedian, true)
	case MetricRenderMS:
		// Fast mode only: a deep render's time is the LLM's latency, or in
		// a dry run token counting, timed once. Nor budget cells: fitting
		// a budget is mostly token counting, timed beside the counting of
		// the other workers, too noisy to gate (the report shows it).
		if r.Mode == space.ModeFast && r.TokenBudget == nil {
			out = check(r.Cell, t.Metric, b.RenderMSMedian, r.RenderMSMedian, t, false)
		}
	case MetricPromptTokens:
		out = check(r.Cell, t.Metric, b.PromptTokensLocalMean, r.PromptTokensLocalMean, t, false)
	case MetricRecall, MetricActionableRecall:
		base, cur := b.RecallMean, r.RecallMean
		switch {
		case t.Metric == MetricActionableRecall:
			base, cur = b.ActionableRecallMean, r.ActionableRecallMean
		case r.TokenBudget != nil:
			base, cur = b.PageRecallMean, r.PageRecallMean
		}
		out = check(r.Cell, t.Metric, base, cur, t, true)
		for i := range out {
			// Percentage points, not a percentage of the baseline.
			out[i].Worse = (out[i].Base - out[i].Current) * 100
			out[i].Regressed = out[i].Base-out[i].Current > t.Abs && out[i].Worse > t.Pct
		}
	}
	return out
}

// check compares one value; it returns no check when either side is
// missing.
func check(cell, metric string, base, cur *float64, t Threshold, lowerIsWorse bool) []Check {
	if base == nil || cur == nil {
		return nil
	}
	c := Check{Cell: cell, Metric: metric, Base: *base, Current: *cur, Limit: t}
	delta := c.Current - c.Base
	if lowerIsWorse {
		delta = -delta
	}
	switch {
	case c.Base != 0:
		c.Worse = delta / math.Abs(c.Base) * 100
	case delta > 0:
		c.Worse = math.Inf(1)
	}
	c.Regressed = delta > t.Abs && c.Worse > t.Pct
	return []Check{c}
}

// WriteText prints the gate's verdict: every regression with its cell and
// size, the cells missing on either side, the notes, and a last line
// "gate: PASS" or "gate: FAIL".
func (g *Gate) WriteText(w io.Writer) {
	var th []string
	for _, t := range g.Thresholds {
		th = append(th, t.String())
	}
	fmt.Fprintf(w, "gate: baseline %s, max regress %s (and no new errors)\n", g.Baseline, strings.Join(th, ","))
	regressed := g.Regressions()
	cells := map[string]bool{}
	for _, c := range regressed {
		cells[c.Cell] = true
		fmt.Fprintf(w, "  REGRESSED %-22s %-30s %s -> %s (%s, limit %s)\n", c.Cell, c.Metric,
			fmtNum(c.Base), fmtNum(c.Current), fmtWorse(c), limitText(c.Limit))
	}
	if len(g.MissingInRun) > 0 {
		fmt.Fprintf(w, "  cells in the baseline but not in this run: %s\n", strings.Join(g.MissingInRun, ", "))
	}
	if len(g.NotInBaseline) > 0 {
		fmt.Fprintf(w, "  cells in this run but not in the baseline: %s\n", strings.Join(g.NotInBaseline, ", "))
	}
	for _, n := range g.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	compared := map[string]bool{}
	for _, c := range g.Checks {
		compared[c.Cell] = true
	}
	switch {
	case len(g.Checks) == 0:
		fmt.Fprintln(w, "gate: FAIL: no cell of this run could be compared with the baseline")
	case len(regressed) > 0:
		fmt.Fprintf(w, "gate: FAIL: %d regressions in %d of %d compared cells\n", len(regressed), len(cells), len(compared))
	default:
		fmt.Fprintf(w, "gate: PASS: %d checks over %d cells within thresholds\n", len(g.Checks), len(compared))
	}
}

func limitText(t Threshold) string {
	if t.Metric == MetricErrors || t.Metric == MetricHandlesWrong {
		return "no increase"
	}
	s := "+" + strconv.FormatFloat(t.Pct, 'f', -1, 64) + "%"
	if t.Metric == MetricRecall || t.Metric == MetricActionableRecall {
		s = "-" + strconv.FormatFloat(t.Pct, 'f', -1, 64) + " points"
	}
	if t.Abs > 0 {
		s += " and +" + strconv.FormatFloat(t.Abs, 'f', -1, 64)
	}
	return s
}

func fmtWorse(c Check) string {
	switch {
	case math.IsInf(c.Worse, 1):
		return "new, baseline 0"
	case c.Limit.Metric == MetricRecall || c.Limit.Metric == MetricActionableRecall:
		return fmt.Sprintf("%+.2f points worse", c.Worse)
	}
	return fmt.Sprintf("%+.1f%% worse", c.Worse)
}

// fmtNum prints a figure with the precision a report needs.
func fmtNum(x float64) string {
	switch ax := math.Abs(x); {
	case ax >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case ax >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case ax >= 0.1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case ax == 0:
		return "0"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}
