package bench

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"actionspace/dataset"
)

func TestParseThresholds(t *testing.T) {
	tests := []struct {
		in      string
		want    []Threshold
		wantErr string
	}{
		{"tokens=2%,render_ms=25%", []Threshold{{Metric: "tokens", Pct: 2}, {Metric: "render_ms", Pct: 25}}, ""},
		{" tokens = 0% , ratio=5.5% ", []Threshold{{Metric: "tokens", Pct: 0}, {Metric: "ratio", Pct: 5.5}}, ""},
		{"render_ms=25%+0.05", []Threshold{{Metric: "render_ms", Pct: 25, Abs: 0.05}}, ""},
		{"perception_tokens=1%,prompt_tokens=3%", []Threshold{{Metric: "perception_tokens", Pct: 1}, {Metric: "prompt_tokens", Pct: 3}}, ""},
		{"recall=0.5%", []Threshold{{Metric: "recall", Pct: 0.5}}, ""},
		{"", nil, "empty"},
		{"tokens", nil, "METRIC=PCT%"},
		{"tokens=2", nil, "must end in %"},
		{"tokens=x%", nil, "bad percentage"},
		{"tokens=-1%", nil, "bad percentage"},
		{"tokens=2%+x", nil, "bad absolute"},
		{"speed=2%", nil, `unknown metric "speed"`},
		{"tokens=2%,tokens=3%", nil, "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseThresholds(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseThresholds(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseThresholds(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			for _, th := range got { // String round-trips
				again, err := ParseThresholds(th.String())
				if err != nil || again[0] != th {
					t.Errorf("ParseThresholds(%q) = %v, %v; want %v", th.String(), again, err, th)
				}
			}
		})
	}
}

// summaryOf builds a summary with one cell per entry.
func summaryOf(cells ...CellSummary) *Summary {
	s := &Summary{SchemaVersion: dataset.SchemaVersion, Config: RunConfig{Repeat: DefaultRepeat}}
	for _, c := range cells {
		if c.Pages == 0 {
			c.Pages = 10
		}
		s.Cells = append(s.Cells, c)
	}
	return s
}

func cellWith(key string, tokens, renderMS, ratio float64) CellSummary {
	c, _ := ParseCellKey(key)
	return CellSummary{Cell: key, Mode: c.Mode, TokensCL100KMean: &tokens, TokensO200KMean: ptr(tokens * 0.99),
		RenderMSMedian: &renderMS, RatioCL100KMedian: &ratio, BudgetSummary: BudgetSummary{TokenBudget: budgetOf(c)}}
}

func TestCompare(t *testing.T) {
	const key, budgetKey = "fast/E0/viewport", "fast/B1000/viewport"
	base := summaryOf(cellWith(key, 100, 1.0, 40))
	tests := []struct {
		name       string
		base       *Summary
		run        *Summary
		thresholds string
		wantFail   bool
		wantRegr   []string // "cell metric" of the regressions
	}{
		{"identical", base, base, DefaultMaxRegress, false, nil},
		{"tokens within 2%", base, summaryOf(cellWith(key, 101.9, 1.0, 40)), DefaultMaxRegress, false, nil},
		{"tokens fewer", base, summaryOf(cellWith(key, 50, 1.0, 40)), DefaultMaxRegress, false, nil},
		{"tokens up 3%", base, summaryOf(cellWith(key, 103, 1.0, 40)), DefaultMaxRegress, true,
			[]string{key + " tokens[cl100k_base]", key + " tokens[o200k_base]"}},
		{"render within 25%", base, summaryOf(cellWith(key, 100, 1.24, 40)), DefaultMaxRegress, false, nil},
		{"render up 30%", base, summaryOf(cellWith(key, 100, 1.3, 40)), DefaultMaxRegress, true, []string{key + " render_ms"}},
		{"render up 30% within slack", base, summaryOf(cellWith(key, 100, 1.3, 40)), "render_ms=25%+0.5", false, nil},
		{"ratio down", base, summaryOf(cellWith(key, 100, 1.0, 30)), "ratio=10%", true, []string{key + " ratio[cl100k_base]"}},
		{"ratio up", base, summaryOf(cellWith(key, 100, 1.0, 50)), "ratio=10%", false, nil},
		{"from zero", summaryOf(cellWith(key, 0, 1.0, 40)), summaryOf(cellWith(key, 1, 1.0, 40)), "tokens=2%", true,
			[]string{key + " tokens[cl100k_base]", key + " tokens[o200k_base]"}},
		{"new errors", base, summaryOf(func() CellSummary { c := cellWith(key, 100, 1.0, 40); c.Errors = 1; return c }()), DefaultMaxRegress, true,
			[]string{key + " errors"}},
		{"no common cell", base, summaryOf(cellWith("fast/E0/all", 100, 1.0, 40)), DefaultMaxRegress, true, nil},
		// A budget cell's fit time is not gated (token counting, too
		// noisy); its tokens are.
		{"budget render up 30%", summaryOf(cellWith(budgetKey, 900, 20, 5)), summaryOf(cellWith(budgetKey, 900, 26, 5)), DefaultMaxRegress, false, nil},
		// Recall: percentage points, lower is worse; a budget cell's is
		// its page recall.
		{"recall within 0.5 points", summaryOf(recallCell(key, 0.950)), summaryOf(recallCell(key, 0.9451)), DefaultMaxRegress, false, nil},
		{"recall down 0.6 points", summaryOf(recallCell(key, 0.950)), summaryOf(recallCell(key, 0.944)), DefaultMaxRegress, true, []string{key + " recall"}},
		{"recall up", summaryOf(recallCell(key, 0.90)), summaryOf(recallCell(key, 1)), DefaultMaxRegress, false, nil},
		{"recall down with fewer tokens", summaryOf(recallCell("playwright-ai/E0", 0.9)), summaryOf(func() CellSummary {
			c := recallCell("playwright-ai/E0", 0.8)
			c.TokensCL100KMean = ptr(50.0)
			return c
		}()), DefaultMaxRegress, true, []string{"playwright-ai/E0 recall"}},
		{"budget page recall down", summaryOf(recallCell("axtree/B1000", 0.5)), summaryOf(recallCell("axtree/B1000", 0.4)), "recall=0.5%", true, []string{"axtree/B1000 recall"}},
		{"budget tokens up 3%", summaryOf(cellWith(budgetKey, 900, 20, 5)), summaryOf(cellWith(budgetKey, 927, 20, 5)), DefaultMaxRegress, true,
			[]string{budgetKey + " tokens[cl100k_base]", budgetKey + " tokens[o200k_base]"}},
		// Actionable recall: gated like recall, in points; a baseline
		// without a probe compares nothing.
		{"actionable recall down 0.6 points", summaryOf(actionableCell(key, 0.990)), summaryOf(actionableCell(key, 0.984)), DefaultMaxRegress, true, []string{key + " actionable_recall"}},
		{"actionable recall within 0.5 points", summaryOf(actionableCell(key, 0.990)), summaryOf(actionableCell(key, 0.9851)), DefaultMaxRegress, false, nil},
		{"actionable recall new", summaryOf(cellWith(key, 100, 1, 40)), summaryOf(actionableCell(key, 0.5)), DefaultMaxRegress, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, err := ParseThresholds(tt.thresholds)
			if err != nil {
				t.Fatal(err)
			}
			g := Compare(tt.base, tt.run, th, "base")
			var got []string
			for _, c := range g.Regressions() {
				got = append(got, c.Cell+" "+c.Metric)
			}
			if g.Failed() != tt.wantFail || !reflect.DeepEqual(got, tt.wantRegr) {
				t.Errorf("Failed() = %v, regressions %v; want %v, %v", g.Failed(), got, tt.wantFail, tt.wantRegr)
			}
		})
	}
}

func TestCompare_missingCells(t *testing.T) {
	base := summaryOf(cellWith("fast/E0/viewport", 100, 1, 40), cellWith("fast/E500/viewport", 200, 1, 20))
	run := summaryOf(cellWith("fast/E0/viewport", 100, 1, 40), cellWith("fast/E-1/viewport", 300, 1, 10))
	th, _ := ParseThresholds(DefaultMaxRegress)
	g := Compare(base, run, th, "base.json")
	if !reflect.DeepEqual(g.MissingInRun, []string{"fast/E500/viewport"}) || !reflect.DeepEqual(g.NotInBaseline, []string{"fast/E-1/viewport"}) {
		t.Errorf("missing %v, new %v", g.MissingInRun, g.NotInBaseline)
	}
	if g.Failed() {
		t.Errorf("missing cells failed the gate: %+v", g)
	}
	var b bytes.Buffer
	g.WriteText(&b)
	for _, want := range []string{"not in this run: fast/E500/viewport", "not in the baseline: fast/E-1/viewport", "gate: PASS"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("WriteText output lacks %q:\n%s", want, b.String())
		}
	}
}

func TestGate_WriteText(t *testing.T) {
	th, _ := ParseThresholds(DefaultMaxRegress)
	g := Compare(summaryOf(cellWith("fast/E0/all", 100, 1, 40)), summaryOf(cellWith("fast/E0/all", 150, 1, 40)), th, "results/baseline/summary.json")
	var b bytes.Buffer
	g.WriteText(&b)
	out := b.String()
	for _, want := range []string{"baseline results/baseline/summary.json", "REGRESSED fast/E0/all", "tokens[cl100k_base]", "100.0 -> 150.0 (+50.0% worse, limit +2%)", "gate: FAIL: 2 regressions in 1 of 1 compared cells"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCheck_worse(t *testing.T) {
	th := Threshold{Metric: MetricTokens, Pct: 2}
	c := check("c", "m", ptr(0.0), ptr(0.0), th, false)
	if len(c) != 1 || c[0].Worse != 0 || c[0].Regressed {
		t.Errorf("0 -> 0: %+v", c)
	}
	c = check("c", "m", ptr(0.0), ptr(5.0), th, false)
	if !math.IsInf(c[0].Worse, 1) || !c[0].Regressed {
		t.Errorf("0 -> 5: %+v", c)
	}
	if c := check("c", "m", nil, ptr(5.0), th, false); c != nil {
		t.Errorf("missing baseline value: %+v", c)
	}
}

// recallCell is cellWith(key, 100, 1, 40) with a mean recall: the page
// recall of a budget cell, the recall of the others.
func recallCell(key string, recall float64) CellSummary {
	c := cellWith(key, 100, 1, 40)
	if c.TokenBudget != nil {
		c.PageRecallMean = &recall
	} else {
		c.RecallMean = &recall
	}
	return c
}

// actionableCell is cellWith(key, 100, 1, 40) with a mean actionable
// recall.
func actionableCell(key string, recall float64) CellSummary {
	c := cellWith(key, 100, 1, 40)
	c.ActionableRecallMean = &recall
	return c
}

func TestGate_WriteTextRecall(t *testing.T) {
	th, _ := ParseThresholds(DefaultMaxRegress)
	g := Compare(summaryOf(recallCell("axtree/E0", 0.9)), summaryOf(recallCell("axtree/E0", 0.85)), th, "base")
	var b bytes.Buffer
	g.WriteText(&b)
	if want := "0.90 -> 0.85 (+5.00 points worse, limit -0.5 points)"; !strings.Contains(b.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, b.String())
	}
}

// TestCompare_handlesWrong: the gate fails when a cell's wrong-target
// handles per 1,000 steps rise, and passes when they stay or fall.
func TestCompare_handlesWrong(t *testing.T) {
	withSteps := func(wrong float64) *Summary {
		s := summaryOf(CellSummary{Cell: "fast/E0/viewport", Mode: "fast"})
		s.Steps = []StepSummary{{Cell: "fast/E0/viewport", Format: "actionspace", IDPolicy: "positional", Measured: 10, WrongPer1000Steps: ptr(wrong)}}
		return s
	}
	tests := []struct {
		base, run float64
		failed    bool
	}{
		{0, 0, false},
		{2000, 1000, false},
		{0, 100, true},
		{1000, 1100, true},
	}
	for _, tt := range tests {
		g := Compare(withSteps(tt.base), withSteps(tt.run), nil, "base")
		found := false
		for _, c := range g.Checks {
			if c.Metric == MetricHandlesWrong {
				found = true
			}
		}
		if !found || g.Failed() != tt.failed {
			t.Errorf("%v -> %v: checked %v, failed %v, want %v", tt.base, tt.run, found, g.Failed(), tt.failed)
		}
	}
	// Without steps on one side, nothing to compare.
	g := Compare(summaryOf(CellSummary{Cell: "fast/E0/viewport", Mode: "fast"}), withSteps(5), nil, "base")
	for _, c := range g.Checks {
		if c.Metric == MetricHandlesWrong {
			t.Errorf("compared handles_wrong with a baseline without steps: %+v", c)
		}
	}
}
