package main

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"actionspace/bench"
)

// benchDoc is the page whose section "The bundled corpus, measured" holds
// the baseline's figures.
const benchDoc = "docs/bench.md"

// TestBenchDoc_BaselineFigures keeps the bench page's figures of the bundled
// corpus equal to the committed baseline they come from
// (results/baseline/summary.json): the table of mean tokens per page, the
// IDs per page, the compression ratios, the "twice" of --text all, the
// formats side by side (tokens, recall, token ratios, the pages where the
// action space misses most), recall at every token budget, and the speed. Refreshing the baseline without the page (or the other way
// round) fails it.
func TestBenchDoc_BaselineFigures(t *testing.T) {
	s, err := bench.ReadSummary(filepath.Join("..", "..", "results", "baseline", bench.SummaryJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", benchDoc))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "## The bundled corpus, measured")
	if start < 0 {
		t.Fatalf("%s: no section \"The bundled corpus, measured\"", benchDoc)
	}
	section := doc[start:]

	cell := func(key string) *bench.CellSummary {
		t.Helper()
		c := s.Cell(key)
		if c == nil {
			t.Fatalf("baseline lacks cell %s", key)
		}
		return c
	}
	val := func(key string, f func(*bench.CellSummary) *float64) float64 {
		t.Helper()
		v := f(cell(key))
		if v == nil {
			t.Fatalf("baseline cell %s: figure missing", key)
		}
		return *v
	}
	tokens := func(c *bench.CellSummary) *float64 { return c.TokensCL100KMean }
	prompt := func(c *bench.CellSummary) *float64 { return c.PromptTokensLocalMean }

	// The table, row by row.
	expansions := []string{"E0", "E250", "E500", "E1000", "E-1"}
	for _, row := range []struct {
		label, mode, text string
		fig               func(*bench.CellSummary) *float64
	}{
		{"fast | viewport", "fast", "viewport", tokens},
		{"fast | all", "fast", "all", tokens},
		{"deep (prompt tokens) | viewport", "deep", "viewport", prompt},
		{"deep (prompt tokens) | all", "deep", "all", prompt},
	} {
		want := "| " + row.label + " |"
		for _, e := range expansions {
			want += fmt.Sprintf(" %.0f |", val(row.mode+"/"+e+"/"+row.text, row.fig))
		}
		if !strings.Contains(section, want+"\n") {
			t.Errorf(benchDoc+" table: want the row\n%s", want)
		}
	}

	ids := func(c *bench.CellSummary) *float64 { return c.IDsMean }
	ratio := func(c *bench.CellSummary) *float64 { return c.RatioCL100KMedian }
	twice := val("fast/E0/all", tokens) / val("fast/E0/viewport", tokens)
	for _, want := range []string{
		fmt.Sprintf("grow from %.1f on screen to %.1f for the whole page", val("fast/E0/viewport", ids), val("fast/E-1/viewport", ids)),
		fmt.Sprintf("falls from %.1f× (E=0, viewport text) to\n%.1f× (whole page)", val("fast/E0/viewport", ratio), val("fast/E-1/viewport", ratio)),
	} {
		if !strings.Contains(section, want) {
			t.Errorf(benchDoc+": want %q", want)
		}
	}
	if math.Round(twice) != 2 || !strings.Contains(section, "costs twice the tokens") {
		t.Errorf(benchDoc+" says --text all costs twice the tokens; the baseline says %.2f times", twice)
	}

	checkFormatFigures(t, s, section)

	speed := regexp.MustCompile(`<!-- baseline:speed -->([^<]*)<!-- /baseline:speed -->`).FindStringSubmatch(doc)
	want := fmt.Sprintf("%.0f renders and %.0f cells per second per core", s.Speed.RendersPerSecondPerCore, s.Speed.CellsPerSecondPerCore)
	if speed == nil || speed[1] != want {
		t.Errorf(benchDoc+" speed: got %q, want %q", speed, want)
	}
}

// checkFormatFigures checks the page's formats table, its recall at
// every budget and the recall-gap sentence against the baseline.
func checkFormatFigures(t *testing.T, s *bench.Summary, section string) {
	t.Helper()
	fig := func(x *float64, prec int) string {
		if x == nil {
			return "–"
		}
		return strconv.FormatFloat(*x, 'f', prec, 64)
	}
	ratio := func(cell string) string {
		for _, f := range s.FormatRatios {
			if f.Cell == cell {
				return fig(f.RatioMedian, 2)
			}
		}
		return "–"
	}
	cellOr := func(key string) *bench.CellSummary {
		if c := s.Cell(key); c != nil {
			return c
		}
		t.Errorf("baseline lacks cell %s", key)
		return &bench.CellSummary{}
	}
	for _, row := range []struct {
		label, e0, whole string
	}{
		{"actionspace (fast, viewport text)", "fast/E0/viewport", "fast/E-1/viewport"},
		{"playwright-ai", "playwright-ai/E0", "playwright-ai/E-1"},
		{"axtree", "axtree/E0", "axtree/E-1"},
		{"html", "", "html/E-1"},
	} {
		want := "| " + row.label + " |"
		for _, key := range []string{row.e0, row.whole} {
			if key == "" {
				want += " – | – | – | – |"
				continue
			}
			c := cellOr(key)
			want += fmt.Sprintf(" %s | %s | %s | %s |", fig(c.TokensCL100KMean, 0), fig(c.TokensCL100KMedian, 0), fig(c.RecallMean, 3), ratio(key))
		}
		if !strings.Contains(section, want+"\n") {
			t.Errorf(benchDoc+" formats table: want the row\n%s", want)
		}
	}
	for _, b := range s.Config.Budgets {
		n := strconv.FormatInt(b, 10)
		want := fmt.Sprintf("| %s | %s | %s | %s |", n, fig(cellOr("fast/B"+n+"/viewport").PageRecallMean, 3),
			fig(cellOr("playwright-ai/B"+n).PageRecallMean, 3), fig(cellOr("axtree/B"+n).PageRecallMean, 3))
		if !strings.Contains(section, want+"\n") {
			t.Errorf(benchDoc+" budget recall table: want the row\n%s", want)
		}
	}
	// "Up to 4,000 tokens the fitted action space keeps more of every page
	// than the cut baselines; by 8,000 the baselines ... pass it".
	if strings.Contains(section, "Up to 4,000 tokens the fitted action space keeps more") {
		for _, n := range []string{"1000", "2000", "4000", "8000"} {
			as, ai, ax := cellOr("fast/B"+n+"/viewport").PageRecallMean, cellOr("playwright-ai/B"+n).PageRecallMean, cellOr("axtree/B"+n).PageRecallMean
			if as == nil || ai == nil || ax == nil || (n != "8000") != (*as > *ai && *as > *ax) {
				t.Errorf(benchDoc+": the fitted action space against the cut baselines at %s tokens no longer reads as it says: %s, %s, %s", n, fig(as, 3), fig(ai, 3), fig(ax, 3))
			}
		}
	}
	if len(s.RecallGaps) == 0 {
		t.Fatal("baseline has no recall gaps: the sentence of " + benchDoc + " about them needs rewriting")
	}
	g := s.RecallGaps[0]
	u, err := url.Parse(g.URL) // the corpus is served on a port of the moment
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("on %d of the %d pages another format's whole-page recall is higher; the largest gap, %.3f, is `%s`",
		s.RecallGapPages, s.Input.Rendered, g.Gap, u.Path)
	if !strings.Contains(strings.Join(strings.Fields(section), " "), want) {
		t.Errorf(benchDoc+": want %q", want)
	}
}
