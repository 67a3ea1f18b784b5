package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/pipeline"
	"actionspace/render"
	"actionspace/space"
)

// wantCellColumns are the documented columns of cells.parquet, in order.
var wantCellColumns = []string{
	"run_id", "page_id", "schema_version", "url", "cell", "format", "mode", "viewport_expansion", "text_policy",
	"id_policy", "step",
	"group_min_run", "layout", "element_filter",
	"token_budget", "budget_expansion", "budget_stage", "dropped_ids", "dropped_lines", "cut_texts", "page_recall", "viewport_recall",
	"error",
	"space_sha256", "perception_sha256", "html_bytes", "html_tokens_cl100k", "html_tokens_o200k",
	"action_count", "ids_L", "ids_B", "ids_I", "ids_F", "ids_O", "ids_M",
	"space_bytes", "perception_bytes",
	"tokens_cl100k", "tokens_o200k", "perception_tokens_cl100k", "perception_tokens_o200k",
	"ratio_cl100k", "ratio_o200k", "tokens_skipped", "ratio_skipped", "oracle_in_window", "recall", "extra_handles", "recall_skipped",
	"recall_filtered",
	"actionable_in_window", "actionable_recall", "actionable_probe", "actionable_skipped", "text_coverage", "text_coverage_skipped",
	"salient_in_window", "salient_recall", "salient_skipped", "salient_capped",
	"render_ms", "tokenize_ms",
	"llm_model", "llm_ran", "llm_calls", "llm_rounds", "prompt_tokens_api", "completion_tokens_api",
	"prompt_tokens_local", "llm_ms", "coverage", "hallucinated_ids", "cache_hits",
	"handles_kept", "handles_same", "handles_wrong", "handles_new", "handles_removed",
	"delta_bytes", "delta_tokens_cl100k", "delta_tokens_o200k",
	"render_runs",
}

// wantSummaryColumns are the documented columns of summary.parquet.
var wantSummaryColumns = []string{
	"cell", "format", "mode", "viewport_expansion", "text_policy",
	"token_budget", "whole_page_pages", "budget_expansion_median", "dropped_ids_mean", "recall_pages", "page_recall_mean", "viewport_recall_mean",
	"pages", "errors", "no_record_pages",
	"tokens_cl100k_mean", "tokens_cl100k_median", "tokens_cl100k_p90", "tokens_cl100k_sum",
	"tokens_o200k_mean", "tokens_o200k_median", "tokens_o200k_p90", "tokens_o200k_sum",
	"perception_tokens_cl100k_mean", "perception_tokens_o200k_mean", "ids_mean", "ids_median",
	"space_bytes_mean", "ratio_cl100k_median", "ratio_o200k_median",
	"oracle_pages", "recall_mean", "recall_median", "extra_handles_mean",
	"actionable_pages", "actionable_recall_mean", "text_coverage_mean", "salient_pages", "salient_recall_mean",
	"render_ms_median", "render_ms_p90", "tokenize_ms_median",
	"llm_ran_pages", "llm_calls", "prompt_tokens_api", "completion_tokens_api", "prompt_tokens_local",
	"prompt_tokens_local_mean", "llm_ms_median", "coverage_mean", "hallucinated_ids", "cache_hits", "costs",
}

// TestSweep_StoredCaptures sweeps a dataset made of the stored corpus
// captures, plus a failed page and a corrupt capture, and reads every
// output back: the files exist with the documented columns and the right
// number of rows, every figure agrees with a direct render of the capture,
// and the report names every cell.
func TestSweep_StoredCaptures(t *testing.T) {
	captures := storedCaptures(t)
	dir := writeCaptureDataset(t, t.TempDir(), captures, datasetOptions{failed: true, corrupt: true})
	out := t.TempDir()
	cfg := testConfig("test-sweep")
	res := mustSweep(t, cfg, dir, out)
	cells := cfg.Cells()
	pages := len(captures) + 1 // + the corrupt capture; the failed page is skipped

	in := res.Summary.Input
	if in.Rows != len(captures)+2 || in.Rendered != pages || in.Skipped != 1 || in.Failed != 1 || in.Files != 1 {
		t.Errorf("input = %+v, want %d rows, %d rendered, 1 skipped, 1 failed, 1 file", in, len(captures)+2, pages)
	}

	names, rows := arrowTable(t, filepath.Join(out, CellsFile))
	if !slices.Equal(names, wantCellColumns) {
		t.Errorf("cells.parquet columns:\n got %v\nwant %v", names, wantCellColumns)
	}
	if got, want := len(rows), pages*len(cells); got != want {
		t.Fatalf("cells.parquet rows = %d, want %d (pages) x %d (cells)", got, pages, len(cells))
	}

	// A direct render of every capture, to check the rows against.
	counter, err := metrics.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	trees := map[string]*dom.Tree{}
	for _, p := range captures {
		c, err := dom.Parse(readCapture(t, p))
		if err != nil {
			t.Fatal(err)
		}
		trees[c.Page.URL] = dom.NewTree(c)
	}
	errRows := 0
	for i, r := range rows {
		c := cells[i%len(cells)]
		if r["cell"] != c.Key() || r["mode"] != c.Mode || r["viewport_expansion"] != int64(c.Expansion) || r["text_policy"] != string(c.Text) {
			t.Fatalf("row %d: cell %v/%v/%v/%v, want %s in the cells' order", i, r["cell"], r["mode"], r["viewport_expansion"], r["text_policy"], c.Key())
		}
		if r["run_id"] != "test-sweep" || r["page_id"] != pipeline.PageID(r["url"].(string)) {
			t.Errorf("row %d: run_id %v, page_id %v", i, r["run_id"], r["page_id"])
		}
		if r["llm_model"] != nil || r["llm_ran"] != nil || r["prompt_tokens_local"] != nil {
			t.Errorf("row %d: deep columns set on a fast row", i)
		}
		if r["error"] != "" {
			errRows++
			if r["url"] != "http://corpus.test/corrupt.html" || r["tokens_cl100k"] != nil {
				t.Errorf("row %d: unexpected error row %v", i, r)
			}
			continue
		}
		tree := trees[r["url"].(string)]
		sp := render.Fast(tree.Select(dom.Options{Expansion: c.Expansion, Text: c.Text}))
		for col, text := range map[string]string{"space_sha256": sp.ActionSpace, "perception_sha256": sp.Perception} {
			if r[col] != hash(text) {
				t.Errorf("%s %s: %s differs from a direct render", r["url"], c.Key(), col)
			}
		}
		for col, want := range map[string]any{
			"tokens_cl100k": count(t, counter, metrics.CL100K, sp.ActionSpace), "tokens_o200k": count(t, counter, metrics.O200K, sp.ActionSpace),
			"perception_tokens_o200k": count(t, counter, metrics.O200K, sp.Perception),
			"action_count":            int64(len(sp.Actions)), "space_bytes": int64(len(sp.ActionSpace)),
			"render_runs": int64(cfg.Repeat),
		} {
			if r[col] != want {
				t.Errorf("%s %s: %s = %v, want %v", r["url"], c.Key(), col, r[col], want)
			}
		}
		ids := r["ids_L"].(int64) + r["ids_B"].(int64) + r["ids_I"].(int64) + r["ids_F"].(int64) + r["ids_O"].(int64) + r["ids_M"].(int64)
		if ids != r["action_count"] {
			t.Errorf("%s %s: ids add up to %d, action_count %v", r["url"], c.Key(), ids, r["action_count"])
		}
		if want := float64(r["html_tokens_cl100k"].(int64)) / float64(r["tokens_cl100k"].(int64)); r["ratio_cl100k"] != want {
			t.Errorf("%s %s: ratio_cl100k = %v, want %v", r["url"], c.Key(), r["ratio_cl100k"], want)
		}
		if r["render_ms"].(float64) <= 0 {
			t.Errorf("%s %s: render_ms = %v", r["url"], c.Key(), r["render_ms"])
		}
	}
	if errRows != len(cells) {
		t.Errorf("error rows = %d, want %d (the corrupt capture under every cell)", errRows, len(cells))
	}

	names, srows := arrowTable(t, filepath.Join(out, SummaryFile))
	if !slices.Equal(names, wantSummaryColumns) {
		t.Errorf("summary.parquet columns:\n got %v\nwant %v", names, wantSummaryColumns)
	}
	if len(srows) != len(cells) {
		t.Fatalf("summary.parquet rows = %d, want %d", len(srows), len(cells))
	}
	sum, err := ReadSummary(filepath.Join(out, SummaryJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cells {
		s := sum.Cells[i]
		if s.Cell != c.Key() || srows[i]["cell"] != c.Key() {
			t.Errorf("summary cell %d = %s / %v, want %s", i, s.Cell, srows[i]["cell"], c.Key())
		}
		if s.Pages != int64(pages) || s.Errors != 1 || s.TokensCL100KMean == nil || s.RatioO200KMedian == nil || s.RenderMSMedian == nil {
			t.Errorf("summary %s: pages %d errors %d tokens %v ratio %v render %v", c.Key(), s.Pages, s.Errors, s.TokensCL100KMean, s.RatioO200KMedian, s.RenderMSMedian)
		}
		if len(s.Costs) != len(cfg.Prices.Models) || srows[i]["costs"] != len(cfg.Prices.Models) {
			t.Errorf("summary %s: %d costs, want %d", c.Key(), len(s.Costs), len(cfg.Prices.Models))
		}
		if s.LLMCalls != nil || srows[i]["llm_calls"] != nil {
			t.Errorf("summary %s: deep figures on a fast cell", c.Key())
		}
	}
	if sum.Speed.Renders != int64(len(captures)*len(cells)*cfg.Repeat) || sum.Speed.RendersPerSecondPerCore <= 0 || sum.Speed.CalibrationMS == nil {
		t.Errorf("speed = %+v", sum.Speed)
	}

	report, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		if !strings.Contains(string(report), "`"+c.Key()+"`") {
			t.Errorf("report.md does not name cell %s", c.Key())
		}
	}
	for _, f := range []string{TokensChartFile, RatioChartFile, StagesChartFile} {
		svg, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Errorf("chart: %v", err)
			continue
		}
		if !strings.Contains(string(svg), "<svg") || !strings.Contains(string(report), "]("+f+")") {
			t.Errorf("%s is not an SVG linked from the report", f)
		}
	}
	if _, err := os.Stat(filepath.Join(out, DeepChartFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("deep chart written for a run without deep cells: %v", err)
	}
}

func count(t *testing.T, c *metrics.Counter, enc metrics.Encoding, s string) int64 {
	t.Helper()
	n, err := c.Count(enc, s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSweep_Deterministic sweeps the same captures twice, with different
// numbers of workers: the rows are identical but for the timings.
func TestSweep_Deterministic(t *testing.T) {
	dir := writeCaptureDataset(t, t.TempDir(), storedCaptures(t)[:6], datasetOptions{corrupt: true})
	read := func(workers int) []CellRow {
		cfg := testConfig("same-run")
		cfg.Workers = workers
		out := t.TempDir()
		mustSweep(t, cfg, dir, out)
		rows, err := dataset.ReadAll[CellRow](filepath.Join(out, CellsFile))
		if err != nil {
			t.Fatal(err)
		}
		for i := range rows {
			rows[i].RenderMS, rows[i].TokenizeMS = 0, 0
		}
		return rows
	}
	first, second := read(1), read(4)
	if len(first) == 0 || len(first) != len(second) {
		t.Fatalf("rows: %d then %d", len(first), len(second))
	}
	for i := range first {
		if !reflect.DeepEqual(first[i], second[i]) {
			t.Errorf("row %d differs between runs:\n%+v\n%+v", i, first[i], second[i])
		}
	}
}

// TestSweep_Canceled stops at once when the context is canceled.
func TestSweep_Canceled(t *testing.T) {
	dir := writeCaptureDataset(t, t.TempDir(), storedCaptures(t)[:2], datasetOptions{})
	data, err := parts.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer data.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Sweep(ctx, testConfig("canceled"), data, openOut(t, t.TempDir())); !errors.Is(err, context.Canceled) {
		t.Errorf("Sweep on a canceled context: %v, want context.Canceled", err)
	}
}

func TestOpenDataset(t *testing.T) {
	written := writeCaptureDataset(t, t.TempDir(), storedCaptures(t)[:1], datasetOptions{})
	empty := t.TempDir()
	tests := []struct {
		name, path   string
		pages, blobs []string
		wantErr      bool
	}{
		{"parts", written, []string{"pages/part-00000.parquet"}, []string{"blobs/part-00000.parquet"}, false},
		{"empty dir", empty, nil, nil, true},
		{"missing", filepath.Join(empty, "nope"), nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parts.Open(context.Background(), tt.path)
			if err != nil {
				got = &parts.Dataset{}
			}
			defer got.Close()
			if (err != nil) != tt.wantErr || !slices.Equal(got.Pages, tt.pages) || !slices.Equal(got.Blobs, tt.blobs) {
				t.Errorf("parts.Open(%s) = %+v, %v; want pages %v, blobs %v, error %v", tt.path, got, err, tt.pages, tt.blobs, tt.wantErr)
			}
		})
	}
}

func TestConfig_Validate(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string // substring; "" for valid
	}{
		{"default", func(*Config) {}, ""},
		{"deep unavailable", func(c *Config) { c.Modes = []string{space.ModeFast, space.ModeDeep} }, "not available"},
		{"deep available", func(c *Config) { c.Modes = []string{space.ModeDeep}; c.Deep = space.Fast{} }, ""},
		{"unknown mode", func(c *Config) { c.Modes = []string{"slow"} }, `unknown mode "slow"`},
		{"mode twice", func(c *Config) { c.Modes = []string{space.ModeFast, space.ModeFast} }, "listed twice"},
		{"no modes", func(c *Config) { c.Modes = nil }, "mode: empty"},
		{"bad expansion", func(c *Config) { c.Expansions = []int{-2} }, "viewport-expansion"},
		{"expansion twice", func(c *Config) { c.Expansions = []int{0, 0} }, "listed twice"},
		{"bad text", func(c *Config) { c.Texts = []dom.TextPolicy{"some"} }, "text:"},
		{"bad encoding", func(c *Config) { c.Encodings = []metrics.Encoding{"gpt2"} }, "encodings"},
		{"no workers", func(c *Config) { c.Workers = 0 }, "workers"},
		{"no repeat", func(c *Config) { c.Repeat = 0 }, "repeat"},
		{"no budgets", func(c *Config) { c.Budgets = nil }, ""},
		{"zero budget", func(c *Config) { c.Budgets = []int64{0} }, "token-budget"},
		{"negative budget", func(c *Config) { c.Budgets = []int64{1000, -1} }, "token-budget"},
		{"budget twice", func(c *Config) { c.Budgets = []int64{1000, 2000, 1000} }, "listed twice"},
		{"bad price", func(c *Config) { c.Prices = Prices{Models: []Price{{Model: "m", Encoding: "x"}}} }, "prices"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.edit(&cfg)
			err := cfg.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCell_Key(t *testing.T) {
	cells := DefaultConfig().Cells()
	// 2 texts x 5 expansions; browser-use, playwright-ai and axtree x 5,
	// html once; 2 texts x 4 budgets; 3 baselines x 4 budgets.
	if got, want := len(cells), 10+16+8+12; got != want {
		t.Errorf("default cells: %d, want %d", got, want)
	}
	for _, c := range cells {
		got, err := ParseCellKey(c.Key())
		if err != nil || got != c {
			t.Errorf("ParseCellKey(%q) = %v, %v; want %v", c.Key(), got, err, c)
		}
	}
	strategic := DefaultConfig()
	strategic.Groups, strategic.Layouts, strategic.Onlys = []int{0, 3}, []dom.Layout{dom.LayoutCoarse}, []dom.Filter{dom.FilterAll, "links+inputs"}
	strategic.IDs = []dom.IDPolicy{dom.IDsPositional, dom.IDsStable}
	keys := map[string]bool{}
	for _, c := range strategic.Cells() {
		got, err := ParseCellKey(c.Key())
		if err != nil || got != c {
			t.Errorf("ParseCellKey(%q) = %v, %v; want %v", c.Key(), got, err, c)
		}
		keys[c.Key()] = true
	}
	for _, want := range []string{"fast/E0/viewport/coarse", "fast/E-1/all/g3,coarse,links+inputs", "fast/B1000/viewport",
		"fast/E0/viewport/coarse/stable", "fast/E-1/all/g3,coarse,links+inputs/stable"} {
		if !keys[want] {
			t.Errorf("no cell %s among the strategies' cells", want)
		}
	}
	if got, want := (Cell{Mode: space.ModeFast, Expansion: -1, Text: dom.TextAll}).Key(), "fast/E-1/all"; got != want {
		t.Errorf("Key() = %q, want %q", got, want)
	}
	if got, want := (Cell{Mode: space.ModeFast, Text: dom.TextViewport, Budget: 1000}).Key(), "fast/B1000/viewport"; got != want {
		t.Errorf("Key() = %q, want %q", got, want)
	}
	for _, tt := range []struct {
		cell Cell
		want string
	}{
		{Cell{Format: space.FormatActionSpace, Mode: space.ModeFast, Expansion: 0, Text: dom.TextViewport}, "fast/E0/viewport"},
		{Cell{Format: space.FormatPlaywrightAI, Expansion: 0}, "playwright-ai/E0"},
		{Cell{Format: space.FormatAXTree, Expansion: 500}, "axtree/E500"},
		{Cell{Format: space.FormatHTML, Expansion: -1}, "html/E-1"},
		{Cell{Format: space.FormatPlaywrightAI, Budget: 2000}, "playwright-ai/B2000"},
		{Cell{Format: space.FormatAXTree, Budget: 8000}, "axtree/B8000"},
	} {
		if got := tt.cell.Key(); got != tt.want {
			t.Errorf("Key() = %q, want %q", got, tt.want)
		}
	}
	for _, bad := range []string{"", "fast", "nope/E0", "actionspace/E0", "axtree/X0", "axtree/B0", "fast/500/all", "fast/Ex/all", "a/b/c/d", "fast/B0/all", "fast/B-5/all", "fast/Bx/all", "fast/B/all"} {
		if _, err := ParseCellKey(bad); err == nil {
			t.Errorf("ParseCellKey(%q): no error", bad)
		}
	}
}
