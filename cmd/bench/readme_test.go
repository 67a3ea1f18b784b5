package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"actionspace/bench"
)

// TestREADME_BaselineFigures keeps the README's figures of the bundled
// corpus equal to the committed baseline they come from
// (results/baseline/summary.json): the table of mean tokens per page, the
// IDs per page, the compression ratios, the "twice" of --text all, and the
// speed. Refreshing the baseline without the README (or the other way
// round) fails it.
func TestREADME_BaselineFigures(t *testing.T) {
	s, err := bench.ReadSummary(filepath.Join("..", "..", "results", "baseline", bench.SummaryJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "### The bundled corpus, measured")
	end := strings.Index(readme, "## Scale-out")
	if start < 0 || end < start {
		t.Fatal("README: no section \"The bundled corpus, measured\"")
	}
	section := readme[start:end]

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
			t.Errorf("README table: want the row\n%s", want)
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
			t.Errorf("README: want %q", want)
		}
	}
	if math.Round(twice) != 2 || !strings.Contains(section, "costs twice the tokens") {
		t.Errorf("README says --text all costs twice the tokens; the baseline says %.2f times", twice)
	}

	speed := regexp.MustCompile(`<!-- baseline:speed -->([^<]*)<!-- /baseline:speed -->`).FindStringSubmatch(readme)
	want := fmt.Sprintf("%.0f renders and %.0f cells per second per core", s.Speed.RendersPerSecondPerCore, s.Speed.CellsPerSecondPerCore)
	if speed == nil || speed[1] != want {
		t.Errorf("README speed: got %q, want %q", speed, want)
	}
}
