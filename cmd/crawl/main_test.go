package main

import (
	"actionspace/internal/cli"
	"bytes"
	"context"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun_BadInput checks that bad flags and unreadable lists stop the
// program at once with a one-line reason, before any browser starts.
func TestRun_BadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.txt")
	tests := []struct {
		name  string
		args  []string
		usage bool   // a usage error (exit 2) rather than a run error (exit 1)
		want  string // in the error
	}{
		{"unknown flag", []string{"--bogus"}, true, "bogus"},
		{"bad viewport", []string{"--viewport", "12x"}, true, "--viewport"},
		{"bad expansion", []string{"--viewport-expansion", "0,abc"}, true, "--viewport-expansion"},
		{"expansion below -1", []string{"--viewport-expansion", "-5"}, true, "viewport-expansion"},
		{"repeated expansion", []string{"--viewport-expansion", "0,0"}, true, "twice"},
		{"bad encoding", []string{"--encodings", "p50k"}, true, "--encodings"},
		{"bad text policy", []string{"--text", "some"}, true, "--text"},
		{"bad token budget", []string{"--token-budget", "1000,lots"}, true, "--token-budget"},
		{"zero token budget", []string{"--token-budget", "0"}, true, "--token-budget"},
		{"negative token budget", []string{"--token-budget", "-100"}, true, "--token-budget"},
		{"repeated token budget", []string{"--token-budget", "1000,2000,1000"}, true, "twice"},
		{"zero workers", []string{"--workers", "0"}, true, "workers"},
		{"negative in-flight", []string{"--in-flight", "-1"}, true, "in-flight"},
		{"two lists", []string{"--urls", "a.txt", "b.txt"}, true, "both"},
		{"two args", []string{"a.txt", "b.txt"}, true, "too many"},
		{"bad log level", []string{"--log-level", "loud"}, true, "--log-level"},
		{"negative HTML cap", []string{"--max-html-bytes", "-1"}, true, "max HTML bytes"},
		{"negative frame cap", []string{"--max-frames", "-2"}, true, "max frames"},
		{"negative title cap", []string{"--max-title", "-1"}, true, "TitleCap"},
		{"resume without out", []string{"--resume"}, true, "--resume needs --out"},
		{"keep failed without resume", []string{"--resume-keep-failed"}, true, "needs --resume"},
		{"floor with resume", []string{"--floor", "--resume", "--out", filepath.Join(missing, "out")}, true, "--floor"},
		{"shard without run ID", []string{"--shard", "0/2"}, true, "--shard needs --run-id"},
		{"bad shard", []string{"--shard", "3/2", "--run-id", "r"}, true, "--shard"},
		{"bad screenshot mode", []string{"--screenshots", "all"}, true, "--screenshots"},
		{"bad screenshot quality", []string{"--screenshot-quality", "101"}, true, "--screenshot-quality"},
		{"bad network range", []string{"--net-blocked", "10.0.0.0/99"}, true, "net-blocked"},
		{"missing chromium", []string{"--chromium", missing}, false, "chromium"},
		{"unreadable list", []string{missing}, false, "URL list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := command{}.run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
			if err == nil {
				t.Fatal("run succeeded, want an error")
			}
			var ue cli.UsageError
			if got := errors.As(err, &ue); got != tc.usage {
				t.Errorf("usage error = %v, want %v (err: %v)", got, tc.usage, err)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line mentioning %q", err, tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout = %q, want nothing", stdout.String())
			}
		})
	}
}

func TestRun_Help(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := command{}.run(context.Background(), []string{"--help"}, strings.NewReader(""), &stdout, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	for _, f := range []string{"--urls", "--out", "--workers", "--in-flight", "--viewport", "--viewport-expansion", "--timeout", "--chromium", "--encodings",
		"--max-nodes", "--max-capture-chars", "--max-title", "--max-url", "--max-attributes", "--max-attr-value", "--max-name-length",
		"--max-text", "--max-options", "--max-frames", "--max-html-bytes", "--allow-private", "--token-budget"} {
		if !strings.Contains(stderr.String(), "-"+strings.TrimLeft(f, "-")) {
			t.Errorf("help does not explain %s", f)
		}
	}
}

func TestRun_EmptyList(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := command{}.run(context.Background(), []string{"--urls", "-"}, strings.NewReader("# only a comment\n\n"), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "no URLs") {
		t.Errorf("err = %v, want 'no URLs'", err)
	}
}
