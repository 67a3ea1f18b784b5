package main

import (
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"actionspace/pipeline"
)

// docFlagRow is a row of docs/crawl.md's flag tables that names one flag
// and one default: | `--name ARG` | `default` | what it does |.
var docFlagRow = regexp.MustCompile("^\\| `--([a-z0-9-]+)(?: [A-Z]+)?` \\| `([^`]*)` \\|")

// TestDocFlagDefaults: every default docs/crawl.md gives for a single
// flag is the default the crawl's flag set has.
func TestDocFlagDefaults(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/crawl.md")
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.DefaultConfig()
	var o options
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.addFlags(fs, &cfg.Matrix, io.Discard)
	checked := 0
	for _, line := range strings.Split(string(doc), "\n") {
		sub := docFlagRow.FindStringSubmatch(line)
		if sub == nil {
			continue
		}
		f := fs.Lookup(sub[1])
		if f == nil {
			t.Errorf("docs/crawl.md lists --%s, which crawl does not have", sub[1])
			continue
		}
		if strings.Contains(sub[2], "<") {
			continue // a placeholder: the command fills it in at run time
		}
		checked++
		if !sameDefault(f.DefValue, sub[2]) {
			t.Errorf("docs/crawl.md gives --%s the default %q, the flag has %q", sub[1], sub[2], f.DefValue)
		}
	}
	t.Logf("checked %d rows", checked)
	if checked < 20 {
		t.Errorf("checked %d flag rows of docs/crawl.md, want the tables' (at least 20)", checked)
	}
}

// sameDefault reports whether a flag's default and the doc's agree: as
// text, or as the same duration ("2m" for 2m0s, "0" for 0s).
func sameDefault(flagValue, doc string) bool {
	if flagValue == doc {
		return true
	}
	a, errA := time.ParseDuration(flagValue)
	b, errB := time.ParseDuration(doc)
	return errA == nil && errB == nil && a == b
}
