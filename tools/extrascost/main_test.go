package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"actionspace/internal/docblock"
)

// TestDocBlock: the extras-cost block of docs/formats.md is the table the command last
// wrote into results/, so its figures are measured, not typed.
func TestDocBlock(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", docFile))
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join("..", "..", resultFile))
	if err != nil {
		t.Fatalf("%v (run `go run ./tools/extrascost`)", err)
	}
	got, ok := docblock.Get(string(doc), blockName)
	if !ok {
		t.Fatalf("%s has no %s block", docFile, blockName)
	}
	if got != string(file) {
		t.Errorf("%s: the extras-cost block differs from %s; run `go run ./tools/extrascost`\ndoc:\n%s\nfile:\n%s", docFile, resultFile, got, file)
	}
	row := regexp.MustCompile(`^\| [^|]+ \| (—|\d+) \| \d+ \| \d+ \| [+-]\d+ \| [+-]\d+ \| [+-]\d+ \|$`)
	rows := 0
	for line := range strings.Lines(string(file)) {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| ms per page") {
			rows++
			if !row.MatchString(strings.TrimSuffix(line, "\n")) {
				t.Errorf("%s: row %q", resultFile, line)
			}
		}
	}
	if rows != 4 {
		t.Errorf("%s: %d figure rows, want 4", resultFile, rows)
	}
}

func TestReport(t *testing.T) {
	s := func(total, process, ax, snap float64) *sample {
		return &sample{total: []float64{total, total + 10, total - 10}, process: []float64{process}, axtree: []float64{ax}, snapshot: []float64{snap}}
	}
	got := report(map[string]map[string]*sample{
		without:    {"a": s(1000, 20, 0, 0), "b": s(2000, 30, 0, 0)},
		sequential: {"a": s(1300, 25, 100, 200), "b": s(2500, 40, 150, 250)},
		atOnce:     {"a": s(1200, 25, 110, 210), "b": s(2300, 40, 150, 260)},
	}, 2, 3, "156.0", "a test machine")
	for _, want := range []string{
		// whole page: 1500 without; 1900 one after the other (+400), 1750 at once (+250), 150 saved
		"| the whole page (`total_ms`) | 1500 | 1900 | 1750 | +400 | +250 | +150 |",
		"| accessibility tree (`axtree_ms`) | — | 125 | 130 | +125 | +130 | -5 |",
		"| AI snapshot (`aisnapshot_ms`) | — | 225 | 235 | +225 | +235 | -10 |",
		"| rendering and measuring every row (`process_ms`) | 25 | 32 | 32 | +8 | +8 | +0 |",
		"Chromium 156.0, a test machine",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}
