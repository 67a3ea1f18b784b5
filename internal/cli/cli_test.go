package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/space"
)

// TestProgress_lines: without a terminal, progress is a log line every
// ProgressEvery and one at the end, at INFO whatever --log-level says.
func TestProgress_lines(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false, "crawl", "pages", 5)
	p.every = 20 * time.Millisecond
	p.Add(1, 0)
	if buf.Len() != 0 {
		t.Fatalf("a line before the interval passed: %q", buf.String())
	}
	time.Sleep(25 * time.Millisecond)
	p.Add(1, 1)
	p.Add(2, 0)
	p.Add(1, 0)
	p.Finish()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2 (one after the interval, one at the end):\n%s", len(lines), buf.String())
	}
	for i, want := range []string{"done=2 total=5 errors=1", "done=5 total=5 errors=1"} {
		if !strings.Contains(lines[i], "level=INFO msg=progress job=crawl "+want) {
			t.Errorf("line %d = %q, want it to report %q", i, lines[i], want)
		}
	}
	// The command's logger at its default level would drop an INFO line:
	// progress does not go through it.
	log, err := NewLogger(&bytes.Buffer{}, DefaultLogLevel)
	if err != nil || log.Enabled(t.Context(), -4) {
		t.Fatalf("default logger: %v", err)
	}
}

func TestExit(t *testing.T) {
	tests := []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{flag.ErrHelp, 0, ""},
		{Usagef("--workers: %d, want at least 1", 0), 2, "tool: --workers: 0, want at least 1\nTry: tool --help\n"},
		{fmt.Errorf("wrapped: %w", UsageError{errors.New("bad")}), 2, "tool: wrapped: bad\nTry: tool --help\n"},
		{errors.New("disk full"), 1, "tool: disk full\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if got := Exit("tool", tt.err, &buf); got != tt.code || buf.String() != tt.stderr {
			t.Errorf("Exit(%v) = %d, %q; want %d, %q", tt.err, got, buf.String(), tt.code, tt.stderr)
		}
	}
}

// TestMatrix: both commands read the same flags; --modes still works and
// says it is deprecated; errors name the flag.
func TestMatrix(t *testing.T) {
	tests := []struct {
		args       []string
		wantModes  string
		wantErr    string
		deprecated bool
	}{
		{nil, "fast", "", false},
		{[]string{"--mode", "fast,deep"}, "fast,deep", "", false},
		{[]string{"--modes", "deep"}, "deep", "", true},
		{[]string{"--mode", "slow"}, "", "--mode", false},
		{[]string{"--viewport-expansion", "0,x"}, "", "--viewport-expansion", false},
		{[]string{"--text", "some"}, "", "--text", false},
		{[]string{"--text", ""}, "", "--text", false},
		{[]string{"--encodings", "gpt2"}, "", "--encodings", false},
		{[]string{"--formats", "markdown"}, "", "--formats", false},
		{[]string{"--token-budget", "100,100"}, "", "--token-budget", false},
		{[]string{"--viewport-expansion", "0,0"}, "", "--viewport-expansion", false},
		{[]string{"--ids", "sticky"}, "", "--ids", false},
		{[]string{"--ids", "stable,stable"}, "", "--ids", false},
		{[]string{"--ids", "positional,stable"}, "fast", "", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			m := space.Matrix{Formats: []string{space.FormatActionSpace}, Modes: []string{"fast"}, Expansions: []int{0, -1}, Texts: []dom.TextPolicy{dom.TextViewport}, Encodings: []metrics.Encoding{metrics.CL100K}}
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			var stderr bytes.Buffer
			flags := BindMatrix(fs, &m, "formats", "note", &stderr)
			if err := Parse(fs, tt.args); err != nil {
				t.Fatal(err)
			}
			err := flags.Parse()
			if tt.wantErr != "" {
				if !errors.As(err, new(UsageError)) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Parse() = %v, want a usage error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(m.Modes, ","); got != tt.wantModes {
				t.Errorf("modes %s, want %s", got, tt.wantModes)
			}
			if got := strings.Contains(stderr.String(), "deprecated"); got != tt.deprecated {
				t.Errorf("deprecation notice %v (%q), want %v", got, stderr.String(), tt.deprecated)
			}
			if wantIDs := slices.Contains(tt.args, "--ids"); (len(m.IDs) == 2) != wantIDs || (!wantIDs && len(m.IDs) != 0) {
				t.Errorf("IDs %v after %v", m.IDs, tt.args)
			}
			if FormatInts(m.Expansions) != "0,-1" || len(m.Texts) != 1 || len(m.Encodings) != 1 {
				t.Errorf("defaults not kept: %+v", m)
			}
		})
	}
}
