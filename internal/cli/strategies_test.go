package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/space"
)

// TestBindMatrix_Strategies: --group, --layout and --only fill the
// matrix's strategy lists (defaults: one plain strategy), and a bad value
// is a usage error naming its flag.
func TestBindMatrix_Strategies(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		want    string // the matrix's strategies, by key
		wantErr string
	}{
		{nil, "[]", ""},
		{[]string{"--group", "0,3", "--layout", "none,coarse", "--only", "all,inputs+links"}, "[ links+inputs coarse coarse,links+inputs g3 g3,links+inputs g3,coarse g3,coarse,links+inputs]", ""},
		{[]string{"--text", "salient"}, "[]", ""},
		{[]string{"--group", "1"}, "", "--group"},
		{[]string{"--group", "x"}, "", "--group"},
		{[]string{"--layout", "fine"}, "", "--layout"},
		{[]string{"--only", "links,forms"}, "", "--only"},
		{[]string{"--only", "links,links"}, "", "--only"},
	}
	for _, tt := range tests {
		m := space.Matrix{Formats: []string{space.FormatActionSpace}, Modes: []string{"fast"}, Expansions: []int{0}, Texts: []dom.TextPolicy{dom.TextViewport}, Encodings: []metrics.Encoding{metrics.CL100K}}
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		flags := BindMatrix(fs, &m, "formats", "note", &bytes.Buffer{})
		if err := Parse(fs, tt.args); err != nil {
			t.Fatal(err)
		}
		err := flags.Parse()
		if tt.wantErr != "" {
			if !errors.As(err, new(UsageError)) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%v: Parse() = %v, want a usage error naming %s", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		var keys []string
		for _, s := range m.Strategies() {
			keys = append(keys, s.Key())
		}
		if got := fmt.Sprint(keys); got != tt.want && !(tt.want == "[]" && got == "[]") {
			t.Errorf("%v: strategies %s, want %s", tt.args, got, tt.want)
		}
	}
}
