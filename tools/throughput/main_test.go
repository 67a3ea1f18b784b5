package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"actionspace/space"
)

func TestParseWay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    way
		wantErr bool
	}{
		{"floor", way{name: "floor", base: baseFloor}, false},
		{"actionspace-open", way{name: "actionspace-open", base: baseActionSpace, open: true}, false},
		{"default@6", way{name: "default@6", base: baseDefault, inFlight: 6}, false},
		{"floor-open@2", way{name: "floor-open@2", base: baseFloor, open: true, inFlight: 2}, false},
		{"actionspace-evidence-open", way{name: "actionspace-evidence-open", base: baseActionSpace, open: true, settle: "evidence"}, false},
		{"default-quiet", way{name: "default-quiet", base: baseDefault, settle: "quiet"}, false},
		{"default-quiet-evidence", way{}, true},
		{"floor-quiet", way{}, true},
		{"default-seq", way{name: "default-seq", base: baseDefault, seq: true}, false},
		{"floor-full", way{name: "floor-full", base: baseFloor, full: true}, false},
		{"actionspace-full-open", way{name: "actionspace-full-open", base: baseActionSpace, full: true, open: true}, false},
		{"floor-evidence", way{}, true},
		{"crawl", way{}, true},
		{"default-fast", way{}, true},
		{"default@0", way{}, true},
		{"default@x", way{}, true},
		{"actionspace+playwright-ai", way{name: "actionspace+playwright-ai", base: baseActionSpace, plus: "playwright-ai"}, false},
		{"actionspace-open+axtree+html@4", way{name: "actionspace-open+axtree+html@4", base: baseActionSpace, open: true, plus: "axtree+html", inFlight: 4}, false},
		{"actionspace+actionspace", way{}, true},
		{"actionspace+axtree+axtree", way{}, true},
		{"actionspace+ai", way{}, true},
		{"actionspace+", way{}, true},
		{"default+html", way{}, true},
		{"floor+html", way{}, true},
		{"floor+axtree+html", way{}, true},
		{"floor+playwright-ai+axtree", way{name: "floor+playwright-ai+axtree", base: baseFloor, plus: "playwright-ai+axtree"}, false},
		{"floor-open+axtree@4", way{name: "floor-open+axtree@4", base: baseFloor, open: true, plus: "axtree", inFlight: 4}, false},
		{"default-raw", way{name: "default-raw", base: baseDefault, raw: true}, false},
		{"actionspace-raw+axtree", way{name: "actionspace-raw+axtree", base: baseActionSpace, raw: true, plus: "axtree"}, false},
		{"actionspace-raw", way{}, true},
		{"actionspace-raw+html", way{}, true},
		{"floor-raw+axtree", way{}, true},
	}
	for _, tt := range tests {
		got, err := parseWay(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && got != tt.want) {
			t.Errorf("parseWay(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// TestWayConfig: each way crawls the formats its name says, and takes
// the records they need.
func TestWayConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		way            string
		formats        []string
		axTree, aiSnap bool
		raw            bool
	}{
		{"floor", []string{"actionspace"}, false, false, false},
		{"actionspace", []string{"actionspace"}, false, false, false},
		{"actionspace+playwright-ai", []string{"actionspace", "playwright-ai"}, false, true, false},
		{"actionspace-open+axtree+html", []string{"actionspace", "axtree", "html"}, true, false, false},
		{"default", space.Formats(), true, true, false},
		{"floor+axtree", []string{"actionspace", "axtree"}, true, false, false},
		{"floor+playwright-ai+axtree", []string{"actionspace", "playwright-ai", "axtree"}, true, true, false},
		{"default-raw", space.Formats(), true, true, true},
	}
	for _, tt := range tests {
		w, err := parseWay(tt.way)
		if err != nil {
			t.Fatalf("parseWay(%q): %v", tt.way, err)
		}
		cfg := w.config(options{workers: 2}, nil)
		if floor := w.base == baseFloor; cfg.Page.Floor != floor || cfg.Page.Extras.Raw != tt.raw {
			t.Errorf("%s: floor %v, records raw %v; want %v, %v", tt.way, cfg.Page.Floor, cfg.Page.Extras.Raw, floor, tt.raw)
		}
		if !slices.Equal(cfg.Formats, tt.formats) || cfg.Page.Extras.AXTree != tt.axTree || cfg.Page.Extras.AISnapshot != tt.aiSnap {
			t.Errorf("%s: formats %v, accessibility tree %v, AI snapshot %v; want %v, %v, %v",
				tt.way, cfg.Formats, cfg.Page.Extras.AXTree, cfg.Page.Extras.AISnapshot, tt.formats, tt.axTree, tt.aiSnap)
		}
	}
}

// TestParseOptions: the ratios need the floor among the ways.
func TestParseOptions(t *testing.T) {
	t.Parallel()
	for _, ways := range []string{"actionspace,default", "floor-full,default"} {
		if _, err := parseOptions([]string{"-ways", ways}, io.Discard); err == nil {
			t.Errorf("-ways %s accepted: the ratios need the floor in the default browser", ways)
		}
	}
	o, err := parseOptions([]string{"-ways", "floor,default-open", "-rounds", "3", "list.txt"}, io.Discard)
	if err != nil || len(o.ways) != 2 || o.rounds != 3 || o.urls != "list.txt" {
		t.Errorf("parseOptions = %+v, %v; want 2 ways, 3 rounds, list.txt", o, err)
	}
}

// TestReport: each way's ratio is the median over the rounds of its time
// over the floor's in the same round; the rates follow from the median
// wall time.
func TestReport(t *testing.T) {
	t.Parallel()
	o := options{rounds: 3, workers: 2, inFlight: 4}
	o.ways = []way{{name: "floor", base: baseFloor}, {name: "default", base: baseDefault}}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	got := map[string][]measurement{
		"floor":   {{elapsed: sec(10), ok: 30}, {elapsed: sec(20), ok: 30}, {elapsed: sec(12), ok: 30}},
		"default": {{elapsed: sec(15), ok: 30}, {elapsed: sec(24), ok: 29, failed: 1}, {elapsed: sec(24), ok: 30}},
	}
	table := report(o, got, "a list", 30, "a machine")
	// default: ratios 1.5, 1.2, 2.0 → median 1.5; median wall 24 s → 75 pages/min.
	perCoreHour := 75.0 * 60 / float64(runtime.NumCPU())
	want := fmt.Sprintf("| default | 24.0 s | 75.0 | %.0f | %.0f | 1.50 | 89 | 1 |", perCoreHour, 1e6/perCoreHour)
	if !strings.Contains(table, want) {
		t.Errorf("report has no line %q:\n%s", want, table)
	}
	if !strings.Contains(table, "| floor | 12.0 s | 150.0 |") || !strings.Contains(table, "| 1.00 |") {
		t.Errorf("report's floor line is not 12.0 s, 150 pages/min, ratio 1.00:\n%s", table)
	}
}
