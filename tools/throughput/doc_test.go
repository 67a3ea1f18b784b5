package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"actionspace/internal/docblock"
)

// TestDocBlocks: every table of docs/throughput.md, and those README.md
// repeats, is the one its command last wrote into results/, so its
// figures are measured, not typed; and every row of those files has the
// shape the tool writes.
func TestDocBlocks(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", docFile))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", readmeFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range []string{"throughput-corpus", "throughput-realworld"} {
		if _, ok := docblock.Get(string(readme), block); !ok {
			t.Errorf("%s has no %s block: its figures are the crawl's ratios to the floor", readmeFile, block)
		}
	}
	row := regexp.MustCompile(`^\| [a-z@0-9+-]+ \| \d+\.\d s \| \d+\.\d \| \d+ \| \d+ \| \d+\.\d\d \| \d+ \| \d+ \| [0-9. →;]+ \|$`)
	for block, file := range map[string]string{
		"throughput-inflight":  "results/throughput-inflight.md",
		"throughput-corpus":    "results/throughput.md",
		"throughput-builds":    "results/throughput-builds.md",
		"throughput-realworld": "results/throughput-realworld.md",
		"throughput-formats":   "results/throughput-formats.md",
		"throughput-records":   "results/throughput-records.md",
	} {
		got, ok := docblock.Get(string(doc), block)
		if !ok {
			t.Errorf("%s has no %s block", docFile, block)
			continue
		}
		want, err := os.ReadFile(filepath.Join("..", "..", file))
		if err != nil {
			t.Errorf("%s: %v (run the command docs/throughput.md gives for it)", block, err)
			continue
		}
		if got != string(want) {
			t.Errorf("%s: the %s block differs from %s; run its command again\ndoc:\n%s\nfile:\n%s", docFile, block, file, got, want)
		}
		if got, ok := docblock.Get(string(readme), block); ok && got != string(want) {
			t.Errorf("%s: the %s block differs from %s; run its command again", readmeFile, block, file)
		}
		rows, floor := 0, false
		for line := range strings.Lines(string(want)) {
			if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| way ") {
				continue
			}
			rows++
			line = strings.TrimSuffix(line, "\n")
			if !row.MatchString(line) {
				t.Errorf("%s: row %q", file, line)
			}
			floor = floor || strings.HasPrefix(line, "| floor | ") && strings.Contains(line, "| 1.00 |")
		}
		if rows < 2 || !floor {
			t.Errorf("%s: %d rows, floor at 1.00: %v; want the floor and a crawl at least", file, rows, floor)
		}
	}
}
