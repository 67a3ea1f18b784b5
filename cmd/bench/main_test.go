package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"actionspace/bench"
	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dom"
	"actionspace/internal/cli"
	"actionspace/internal/storedtest"
	"actionspace/pipeline"
	"actionspace/pipelinetest"
	"actionspace/space"
)

// runBench runs the command with args and returns its exit code and
// output.
func runBench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := command{}.run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	code = cli.Exit("bench", err, &errOut)
	return code, out.String(), errOut.String()
}

// captureDataset writes a crawl dataset from the corpus captures stored
// for the render goldens (../../render/testdata), as a crawl would have:
// no browser needed.
func captureDataset(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeStoredCaptures(t, dir)
	return dir
}

// writeStoredCaptures writes the dataset of captureDataset at loc, a
// directory or a bucket URL.
func writeStoredCaptures(t *testing.T, loc string) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "render", "testdata", "*", "capture.json.gz"))
	if err != nil || len(paths) < 12 {
		t.Fatalf("stored captures: %d, %v", len(paths), err)
	}
	sort.Strings(paths)
	w, err := parts.Create(context.Background(), loc, dataset.Metadata{RunID: "stored"}, parts.Config{PartPages: 5})
	if err != nil {
		t.Fatal(err)
	}
	site := corpora.Handler()
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		c, err := dom.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(c.Page.URL)
		rec := httptest.NewRecorder()
		site.ServeHTTP(rec, httptest.NewRequest("GET", u.Path, nil))
		packed, err := dataset.CompressCapture(raw)
		if err != nil {
			t.Fatal(err)
		}
		html := rec.Body.String()
		n := int64(len(html))
		id := pipeline.PageID(c.Page.URL)
		blob := &dataset.BlobRow{RunID: "stored", PageID: id, URL: c.Page.URL, HTML: html,
			Capture: packed, CaptureEncoding: dataset.CaptureEncoding}
		// The accessibility tree and the AI snapshot stored beside the
		// capture: the oracle, and the axtree and playwright-ai formats.
		if blob.AXTree, err = dataset.CompressCapture(storedtest.Read(t, filepath.Join(filepath.Dir(p), "axtree.json.gz"))); err != nil {
			t.Fatal(err)
		}
		if blob.AISnapshot, err = dataset.CompressCapture(storedtest.Read(t, filepath.Join(filepath.Dir(p), "aisnapshot.json.gz"))); err != nil {
			t.Fatal(err)
		}
		blob.AXTreeEncoding, blob.AISnapshotEncoding = dataset.CaptureEncoding, dataset.CaptureEncoding
		if err := w.Write(parts.Rows{
			Page: dataset.PageRow{RunID: "stored", PageID: id, URL: c.Page.URL, Status: dataset.StatusOK,
				HTMLMetrics: dataset.HTMLMetrics{HTMLBytes: &n}, CapturedAt: time.Unix(0, 0).UTC()},
			Blob: blob,
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// relabel rewrites a summary.json as if its cells had been run with
// another text policy: a baseline that claims the setting was cheaper.
func relabel(t *testing.T, src, dst string, from, to dom.TextPolicy) {
	t.Helper()
	s, err := bench.ReadSummary(src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Cells {
		c := &s.Cells[i]
		if c.TextPolicy == string(from) {
			c.TextPolicy = string(to)
			c.Cell = bench.Cell{Mode: c.Mode, Expansion: int(c.ViewportExpansion), Text: to}.Key()
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRun_Gate runs bench on a dataset of stored captures: the run writes
// its files; an identical rerun passes the gate against it; a worse
// renderer setting (all page text instead of the viewport's, against a
// baseline measured with the viewport's) fails it with exit code 1 and
// names the cells; cells on one side only are reported.
func TestRun_Gate(t *testing.T) {
	data := captureDataset(t)
	// render_ms gets a generous absolute slack here: these runs share the
	// machine with the rest of the test suite, and the gate's timing
	// arithmetic has its own unit tests.
	const limits = "tokens=2%,render_ms=25%+5"
	common := []string{"--viewport-expansion", "0,500,-1", "--repeat", "2", "--workers", "2", "--token-budget", "1000"}
	args := func(extra ...string) []string { return append(append([]string{}, common...), extra...) }

	base := t.TempDir()
	code, stdout, stderr := runBench(t, args("--text", "viewport", "--out", base, data)...)
	if code != 0 {
		t.Fatalf("baseline run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, f := range []string{bench.CellsFile, bench.SummaryFile, bench.SummaryJSONFile, bench.ReportFile, bench.TokensChartFile} {
		if _, err := os.Stat(filepath.Join(base, f)); err != nil {
			t.Errorf("baseline run: %v", err)
		}
	}
	for _, want := range []string{"action-space tokens per page", "fast  viewport", "deep  viewport", "renders/s per core"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	baseline := filepath.Join(base, bench.SummaryJSONFile)

	t.Run("identical rerun passes", func(t *testing.T) {
		code, stdout, stderr := runBench(t, args("--text", "viewport", "--out", t.TempDir(), "--baseline", baseline, "--max-regress", limits, data)...)
		if code != 0 || !strings.Contains(stdout, "gate: PASS") {
			t.Fatalf("exit %d, want 0 and a PASS\n%s\n%s", code, stdout, stderr)
		}
	})

	t.Run("worse setting fails", func(t *testing.T) {
		claimed := filepath.Join(t.TempDir(), "summary.json")
		relabel(t, baseline, claimed, dom.TextViewport, dom.TextAll)
		out := t.TempDir()
		code, stdout, stderr := runBench(t, args("--text", "all", "--out", out, "--baseline", claimed, "--max-regress", limits, data)...)
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
		}
		for _, want := range []string{"REGRESSED fast/E0/all", "REGRESSED fast/E500/all", "tokens[cl100k_base]", "% worse, limit +2%", "gate: FAIL"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
		if !strings.Contains(stderr, "regression gate failed") {
			t.Errorf("stderr lacks the verdict:\n%s", stderr)
		}
		report, err := os.ReadFile(filepath.Join(out, bench.ReportFile))
		if err != nil || !strings.Contains(string(report), "**REGRESSED**") {
			t.Errorf("report lacks the gate's verdict: %v", err)
		}
	})

	t.Run("recall drop fails", func(t *testing.T) {
		// A baseline that claims the accessibility tree kept more of the
		// oracle on screen than this run does: the default gate fails,
		// even though the tokens are equal.
		s, err := bench.ReadSummary(baseline)
		if err != nil {
			t.Fatal(err)
		}
		c := s.Cell("axtree/E0")
		if c == nil || c.RecallMean == nil || *c.RecallMean < 0.5 {
			t.Fatalf("baseline axtree/E0: %+v, want a recall", c)
		}
		*c.RecallMean += 0.01
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		claimed := filepath.Join(t.TempDir(), "summary.json")
		if err := os.WriteFile(claimed, b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runBench(t, "--formats", "axtree", "--viewport-expansion", "0", "--token-budget", "", "--repeat", "1",
			"--out", t.TempDir(), "--baseline", claimed, data)
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
		}
		for _, want := range []string{"REGRESSED axtree/E0", "recall", "points worse, limit -0.5 points", "gate: FAIL: 1 regressions"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
	})

	t.Run("missing cells reported", func(t *testing.T) {
		code, stdout, stderr := runBench(t, "--viewport-expansion", "0,250", "--text", "viewport", "--repeat", "2",
			"--out", t.TempDir(), "--baseline", baseline, "--max-regress", limits, data)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		for _, want := range []string{"in the baseline but not in this run: fast/E500/viewport, fast/E-1/viewport", "in this run but not in the baseline: fast/E250/viewport", "gate: PASS"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
	})
}

func TestRun_Usage(t *testing.T) {
	data := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown mode", []string{"--mode", "slow", data}, `unknown mode "slow"`},
		{"unknown mode, deprecated flag", []string{"--modes", "slow", data}, `unknown mode "slow"`},
		{"bad expansion", []string{"--viewport-expansion", "0,x", data}, "--viewport-expansion"},
		{"bad text", []string{"--text", "some", data}, "--text"},
		{"bad encoding", []string{"--encodings", "gpt2", data}, "--encodings"},
		{"bad token budget", []string{"--token-budget", "1k", data}, "--token-budget"},
		{"zero token budget", []string{"--token-budget", "0,1000", data}, "--token-budget"},
		{"repeated token budget", []string{"--token-budget", "1000,1000", data}, "listed twice"},
		{"bad threshold", []string{"--baseline", "b.json", "--max-regress", "tokens=2", data}, "--max-regress"},
		{"bad prices", []string{"--prices", filepath.Join(data, "none.json"), data}, "--prices"},
		{"llm without model", []string{"--llm-base-url", "http://127.0.0.1:1/v1", data}, "--llm-model"},
		{"llm without deep", []string{"--mode", "fast", "--llm-base-url", "http://127.0.0.1:1/v1", "--llm-model", "m", data}, "needs --mode with deep"},
		{"two arguments", []string{data, data}, "too many arguments"},
		{"no dataset", []string{"--mode", "fast"}, "no DATASET"},
		{"a URL list", []string{filepath.Join(data, "urls.txt")}, "is not a crawl dataset"},
		{"unknown flag", []string{"--nope"}, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runBench(t, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "Try: bench --help") {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
	if code, _, stderr := runBench(t, "--out", t.TempDir(), data); code != 1 || !strings.Contains(stderr, "no pages files") {
		t.Errorf("empty dataset: exit %d, %q; want 1", code, stderr)
	}
	if code, _, _ := runBench(t, "--help"); code != 0 {
		t.Errorf("--help: exit %d, want 0", code)
	}
	// --modes still works, and says it is deprecated.
	if _, _, stderr := runBench(t, "--modes", "slow", data); !strings.Contains(stderr, "--modes is deprecated; use --mode") {
		t.Errorf("--modes: stderr %q, want a deprecation notice", stderr)
	}
}

// TestBaseline_Committed checks the committed baseline: it reads as a
// summary of the default matrix over the bundled corpus, with its report.
func TestBaseline_Committed(t *testing.T) {
	dir := filepath.Join("..", "..", "results", "baseline")
	s, err := bench.ReadSummary(filepath.Join(dir, bench.SummaryJSONFile))
	if err != nil {
		t.Fatalf("committed baseline: %v (make it with the commands in docs/bench.md)", err)
	}
	cfg := bench.DefaultConfig()
	cfg.Modes = []string{space.ModeFast, space.ModeDeep}
	for _, c := range cfg.Cells() {
		sc := s.Cell(c.Key())
		if sc == nil {
			t.Errorf("baseline lacks cell %s", c.Key())
			continue
		}
		if sc.Pages != int64(len(corpora.DefaultPaths())) || sc.Errors != 0 || sc.NoRecordPages != 0 {
			t.Errorf("baseline cell %s: %d pages, %d errors, %d without a record; want %d, 0 and 0", c.Key(), sc.Pages, sc.Errors,
				sc.NoRecordPages, len(corpora.DefaultPaths()))
		}
		if wantRecall := sc.Format != space.FormatHTML; (sc.RecallMean != nil) != wantRecall {
			t.Errorf("baseline cell %s: recall mean %v, want one: %v", c.Key(), sc.RecallMean, wantRecall)
		}
	}
	if len(s.FormatRatios) == 0 {
		t.Errorf("baseline has no format ratios")
	}
	report, err := os.ReadFile(filepath.Join(dir, bench.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), s.RunID) {
		t.Errorf("baseline report is not the summary's run %s", s.RunID)
	}
}

// TestRun_Corpus is `make bench` in small: the crawl command's crawl of
// the bundled corpus (on a browser that replays the stored corpus pages,
// package pipelinetest), then bench over that dataset.
func TestRun_Corpus(t *testing.T) {
	t.Parallel()
	replay := pipelinetest.New(t, pipelinetest.Options{})
	crawled, out := filepath.Join(t.TempDir(), "crawl"), t.TempDir()
	targets, label, cleanup, err := cli.LoadTargets("", pipeline.DefaultSchemes(), strings.NewReader(""), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	cfg := pipeline.DefaultConfig()
	cfg.RunID, cfg.Input, cfg.Logger = "crawl-1", label, slog.New(slog.DiscardHandler)
	if _, err := cli.Crawl(context.Background(), cfg, targets, crawled, replay.Opener(), io.Discard); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runBench(t, "--out", out, "--viewport-expansion", "0,-1", "--text", "viewport", "--repeat", "2",
		"--token-budget", "400,1500", crawled)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	pages := len(corpora.DefaultPaths())
	// actionspace: fast and deep, two expansions, one text policy, two
	// budgets; playwright-ai and axtree: two expansions, two baselines;
	// html once.
	cells := 2*2 + 2 + 2*(2+2) + 1
	if got := arrowRowCount(t, filepath.Join(out, bench.CellsFile)); got != pages*cells {
		t.Errorf("cells.parquet: %d rows, want %d pages x %d cells", got, pages, cells)
	}
	if got := arrowRowCount(t, filepath.Join(out, bench.SummaryFile)); got != cells {
		t.Errorf("summary.parquet: %d rows, want %d", got, cells)
	}
	s, err := bench.ReadSummary(filepath.Join(out, bench.SummaryJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if s.Input.Rendered != pages || s.Input.Label != label || s.Input.CrawlRunID != "crawl-1" {
		t.Errorf("input = %+v", s.Input)
	}
	for _, st := range s.Stages {
		if st.Name == "navigate" && st.Count != pages {
			t.Errorf("navigate stage: %d measurements, want %d", st.Count, pages)
		}
	}
	// The budget cells of a fresh crawl: the headline tokens never exceed
	// the budget; the largest fits some page whole.
	rows, err := dataset.ReadAll[bench.CellRow](filepath.Join(out, bench.CellsFile))
	if err != nil {
		t.Fatal(err)
	}
	budgeted, whole := 0, 0
	for _, r := range rows {
		if r.Error != "" {
			t.Errorf("%s %s: error %q", r.URL, r.Cell, r.Error)
		}
		if wantRecall := r.Format != space.FormatHTML; (r.Recall != nil) != wantRecall || r.OracleInWindow == nil {
			t.Errorf("%s %s: recall %s, oracle_in_window %s; want a recall: %v", r.URL, r.Cell, ptrString(r.Recall), ptrString(r.OracleInWindow), wantRecall)
		}
		if r.TokenBudget == nil || r.Format != space.FormatActionSpace {
			if r.TokenBudget != nil && (r.TokensCL100K == nil || *r.TokensCL100K > *r.TokenBudget || r.PageRecall == nil) {
				t.Errorf("%s %s: %s tokens, budget %d, page recall %s", r.URL, r.Cell, ptrString(r.TokensCL100K), *r.TokenBudget, ptrString(r.PageRecall))
			}
			continue
		}
		budgeted++
		if r.Error != "" || r.PerceptionTokensCL100K == nil || *r.PerceptionTokensCL100K > *r.TokenBudget ||
			r.BudgetExpansion == nil || int64(r.ViewportExpansion) != *r.BudgetExpansion {
			t.Errorf("%s %s: error %q, %s tokens, budget %d, E %d / %s", r.URL, r.Cell, r.Error, ptrString(r.PerceptionTokensCL100K),
				*r.TokenBudget, r.ViewportExpansion, ptrString(r.BudgetExpansion))
		}
		if r.BudgetStage != nil && *r.BudgetStage == "whole-page" {
			whole++
		}
	}
	if budgeted != 2*pages || whole == 0 {
		t.Errorf("%d budget rows (%d whole pages), want %d and some", budgeted, whole, 2*pages)
	}
}

// ptrString shows a nullable value.
func ptrString[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// arrowRowCount reads a Parquet file with arrow-go's pqarrow and returns
// its number of rows.
func arrowRowCount(t *testing.T, path string) int {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	defer tbl.Release()
	return int(tbl.NumRows())
}
