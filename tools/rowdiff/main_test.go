package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actionspace/dataset"
)

// writeSpaces writes rows as the one spaces part of a dataset under dir.
func writeSpaces(t *testing.T, dir string, rows []dataset.SpaceRow) {
	t.Helper()
	var buf bytes.Buffer
	w, err := dataset.NewWriter[dataset.SpaceRow](&buf, "spaces", dataset.Metadata{RunID: "r"}, dataset.DefaultWriterConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, dataset.SpacesDir, "shard=0000", "part-00000.parquet")
	if err := os.MkdirAll(filepath.Dir(part), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(part, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	row := func(port, format string, tokens int64, ms float64, text string) dataset.SpaceRow {
		return dataset.SpaceRow{RunID: "run-" + port, PageID: "p" + port, URL: "http://127.0.0.1:" + port + "/a.html", Format: format,
			PerceptionText: text, SpaceMetrics: dataset.SpaceMetrics{TokensCL100K: &tokens, RenderMS: ms}}
	}
	base := []dataset.SpaceRow{
		row("4000", "actionspace", 10, 1, "B1[:]<button>Go</button>\nCaptured: 2026-12-03T10:00:00Z"),
		row("4000", "html", 90, 2, "http://127.0.0.1:4000/"),
	}
	tests := []struct {
		name  string
		new   []dataset.SpaceRow
		code  int
		wants []string
	}{
		{"same rows on another port, at other times", []dataset.SpaceRow{
			row("5111", "html", 90, 7, "http://127.0.0.1:5111/"),
			row("5111", "actionspace", 10, 9, "B1[:]<button>Go</button>\nCaptured: 2026-12-03T11:11:11Z"),
		}, 0, []string{"spaces: 2 rows in both, 0 only in old, 0 only in new"}},
		{"a token count differs", []dataset.SpaceRow{
			row("5111", "actionspace", 11, 1, "B1[:]<button>Go</button>\nCaptured: 2026-12-03T10:00:00Z"),
			row("5111", "html", 90, 2, "http://127.0.0.1:5111/"),
		}, 1, []string{"spaces: 1 rows in both, 1 only in old, 1 only in new", "(format=actionspace", "differs in tokens_cl100k"}},
		{"a row is missing", base[:1], 1, []string{"spaces: 1 rows in both, 1 only in old, 0 only in new"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			oldDir, newDir := t.TempDir(), t.TempDir()
			writeSpaces(t, oldDir, base)
			writeSpaces(t, newDir, tc.new)
			var stdout, stderr bytes.Buffer
			code := run([]string{"-tables", "spaces", oldDir, newDir}, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, stdout.String(), stderr.String())
			}
			for _, want := range tc.wants {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, stdout.String())
				}
			}
		})
	}
}
