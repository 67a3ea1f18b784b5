package bench

import (
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"actionspace/axtree"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
	"actionspace/space"
)

// TestSweep_Formats sweeps the stored corpus pages (capture, accessibility
// tree, AI snapshot, HTML) in every format, with cut-from-the-end
// baselines at growing budgets, one page stored without its AI snapshot
// and one capture that does not decode, and reads cells.parquet back with
// arrow-go. Every row is checked against a direct render of the same
// page: the text (hash), exact token counts, recall (null for html); the
// page without a snapshot has no playwright-ai rows and is counted as
// such; every baseline recounts within its budget, is the format's
// whole-page text cut from the end, and its recall never falls as the
// budget grows. The summary's comparisons and the report's formats
// section follow from the rows.
func TestSweep_Formats(t *testing.T) {
	captures := storedCaptures(t)
	if testing.Short() {
		captures = captures[:6]
	}
	const noSnap = "article"
	dir := writeCaptureDataset(t, t.TempDir(), captures, datasetOptions{corrupt: true, noSnapshot: []string{noSnap}})
	out := t.TempDir()
	cfg := testConfig("test-formats")
	cfg.Formats = space.Formats()
	cfg.Expansions = []int{0, 500, dom.WholePage}
	cfg.Texts = []dom.TextPolicy{dom.TextViewport}
	cfg.Budgets = []int64{100, 1000, 250, 4000, 100000}
	cfg.Repeat = 1
	if testing.Short() {
		cfg.Expansions = []int{0, dom.WholePage}
		cfg.Budgets = []int64{100, 1000, 100000}
	}
	res := mustSweep(t, cfg, dir, out)

	counter, err := metrics.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]*space.Page{}
	snapless := ""
	for _, p := range captures {
		d := filepath.Dir(p)
		c, err := dom.Parse(readCapture(t, p))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := axtree.Parse(readCapture(t, filepath.Join(d, "axtree.json.gz")))
		if err != nil {
			t.Fatal(err)
		}
		var snap *axtree.Snapshot
		if filepath.Base(d) == noSnap {
			snapless = c.Page.URL
		} else if snap, err = axtree.ParseSnapshotRecord(readCapture(t, filepath.Join(d, "aisnapshot.json.gz"))); err != nil {
			t.Fatal(err)
		}
		pages[c.Page.URL] = space.NewPage(dom.NewTree(c), rec, snap, servedHTML(t, c.Page.URL))
	}
	if snapless == "" {
		t.Fatalf("no stored page %q", noSnap)
	}

	_, rows := arrowTable(t, filepath.Join(out, CellsFile))
	cells := cfg.Cells()
	perCell := map[string]int{}
	type series struct{ url, format string }
	cuts := map[series][]map[string]any{}
	for _, r := range rows {
		key := r["cell"].(string)
		c, err := ParseCellKey(key)
		if err != nil || !slices.ContainsFunc(cells, func(x Cell) bool { return x.Key() == key }) {
			t.Fatalf("row cell %q: %v", key, err)
		}
		perCell[key]++
		url := r["url"].(string)
		name := url + " " + key
		if r["format"] != c.format() {
			t.Errorf("%s: format %v, want %s", name, r["format"], c.format())
		}
		if r["error"] != "" {
			if url != "http://corpus.test/corrupt.html" {
				t.Errorf("%s: unexpected error %v", name, r["error"])
			}
			continue
		}
		if url == snapless && c.Format == space.FormatPlaywrightAI {
			t.Errorf("%s: a row for a page without its AI snapshot", name)
		}
		pg := pages[url]
		switch {
		case c.actionSpace() && c.Budget > 0:
			continue // TestSweep_Budgets checks these
		case c.Budget > 0:
			checkCutRow(t, name, counter, pg, c, r)
			k := series{url, c.Format}
			cuts[k] = append(cuts[k], r)
		default:
			want, err := pg.Render(t.Context(), c.setting(), space.Renderers{space.ModeFast: space.Fast{}})
			if err != nil {
				t.Fatal(err)
			}
			if r["space_sha256"] != hash(want.ActionSpace) {
				t.Errorf("%s: the text differs from a direct render", name)
			}
			for col, enc := range map[string]metrics.Encoding{"tokens_cl100k": metrics.CL100K, "tokens_o200k": metrics.O200K} {
				if n := count(t, counter, enc, want.ActionSpace); r[col] != n {
					t.Errorf("%s: %s = %v, recount %d", name, col, r[col], n)
				}
			}
			if r["action_count"] != int64(want.Handles) || r["oracle_in_window"] != int64(want.Score.InWindow) {
				t.Errorf("%s: action_count %v, oracle_in_window %v; want %d, %d", name, r["action_count"], r["oracle_in_window"], want.Handles, want.Score.InWindow)
			}
			rc, ok := want.Score.Recall()
			switch {
			case c.Format == space.FormatHTML:
				if r["recall"] != nil || r["viewport_expansion"] != int64(dom.WholePage) {
					t.Errorf("%s: recall %v, viewport_expansion %v; want null, -1", name, r["recall"], r["viewport_expansion"])
				}
			case ok && r["recall"] != rc:
				t.Errorf("%s: recall %v, want %v", name, r["recall"], rc)
			}
		}
	}
	// Every page in every cell, but the page without an AI snapshot in
	// playwright-ai's.
	n := len(captures) + 1
	for _, c := range cells {
		want := n
		if c.Format == space.FormatPlaywrightAI {
			want--
		}
		if perCell[c.Key()] != want {
			t.Errorf("cell %s: %d rows, want %d", c.Key(), perCell[c.Key()], want)
		}
		s := res.Summary.Cell(c.Key())
		if wantNo := int64(n - want); s == nil || s.NoRecordPages != wantNo || s.Pages != int64(want) || s.Format != c.format() {
			t.Errorf("summary %s: %+v, want %d pages, %d without a record", c.Key(), s, want, wantNo)
		}
	}
	for k, rs := range cuts {
		slices.SortFunc(rs, func(a, b map[string]any) int {
			return cmp.Compare(a["token_budget"].(int64), b["token_budget"].(int64))
		})
		if len(rs) != len(cfg.Budgets) {
			t.Errorf("%v: %d baseline rows, want %d", k, len(rs), len(cfg.Budgets))
		}
		for _, col := range []string{"page_recall", "viewport_recall", "recall"} {
			prev := -1.0
			for _, r := range rs {
				v, ok := r[col].(float64)
				if !ok && col != "viewport_recall" {
					t.Errorf("%v budget %v: no %s", k, r["token_budget"], col)
				}
				if ok && v < prev {
					t.Errorf("%v: %s fell to %.4f at budget %v (was %.4f)", k, col, v, r["token_budget"], prev)
				}
				if ok {
					prev = v
				}
			}
		}
	}

	// The summary: recall means, the ratios and the gaps.
	sum := &res.Summary
	for _, key := range []string{"fast/E-1/viewport", "playwright-ai/E-1", "axtree/E-1", "axtree/B100000"} {
		if c := sum.Cell(key); c == nil || c.RecallMean == nil || *c.RecallMean <= 0 || c.OraclePages == nil {
			t.Errorf("summary %s: no recall: %+v", key, c)
		}
	}
	if c := sum.Cell("html/E-1"); c == nil || c.RecallMean != nil || c.TokensCL100KMean == nil {
		t.Errorf("summary html/E-1: %+v, want tokens and no recall", c)
	}
	if got, want := len(sum.FormatRatios), 3*len(cfg.Expansions)+1; got != want {
		t.Errorf("format ratios: %d, want %d", got, want)
	}
	for _, f := range sum.FormatRatios {
		if f.RatioMedian == nil || f.Pages == 0 || f.ActionSpaceCell != comparedCell(sum.Config, f.Expansion).Key() {
			t.Errorf("format ratio %+v", f)
		}
	}
	if !slices.IsSortedFunc(sum.RecallGaps, func(a, b RecallGap) int { return cmp.Compare(b.Gap, a.Gap) }) ||
		len(sum.RecallGaps) > MaxRecallGaps || len(sum.RecallGaps) > sum.RecallGapPages {
		t.Errorf("recall gaps not sorted or too many: %+v", sum.RecallGaps)
	}
	for _, g := range sum.RecallGaps {
		as, ok := pages[g.URL].Oracle.View(pages[g.URL].Tree.Select(dom.Options{Expansion: dom.WholePage, Text: dom.TextViewport})).Score.Recall()
		if !ok || as != g.ActionSpace || g.Gap <= 0 {
			t.Errorf("recall gap %+v: actionspace recall %v", g, as)
		}
	}

	report, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Formats side by side", "](" + ParetoChartFile + ")", "**Token ratio.**", "| `playwright-ai/E0` |",
		"| `axtree/B100000` | 100000 |", "pages have a gap"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, f := range []string{ParetoChartFile, BudgetChartFile} {
		svg, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("chart %s: %v", f, err)
		}
	}
	budgetSVG, _ := os.ReadFile(filepath.Join(out, BudgetChartFile))
	for _, want := range []string{"playwright-ai cut from the end", "axtree cut from the end", "actionspace, text viewport"} {
		if !bytes.Contains(budgetSVG, []byte(want)) {
			t.Errorf("%s lacks the line %q", BudgetChartFile, want)
		}
	}
	var head bytes.Buffer
	res.WriteHeadline(&head)
	if !strings.Contains(head.String(), "playwright-ai/E0") || !strings.Contains(head.String(), "axtree/B100000") {
		t.Errorf("headline lacks the formats:\n%s", head.String())
	}
}

// checkCutRow checks a cut-from-the-end baseline row against a direct
// cut of the format's whole-page text: the same kept lines (hash), an
// exact recount within the budget, the budget columns, and recall equal
// to the share of the page's oracle elements handled on the kept lines.
func checkCutRow(t *testing.T, name string, c *metrics.Counter, pg *space.Page, cell Cell, r map[string]any) {
	t.Helper()
	whole, err := pg.Render(t.Context(), space.Setting{Format: cell.Format, Options: dom.Options{Expansion: dom.WholePage}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cut, err := render.CutFromEnd(c, metrics.CL100K, whole.ActionSpace, cell.Budget)
	if err != nil {
		t.Fatal(err)
	}
	if r["space_sha256"] != hash(cut.Text) || !strings.HasPrefix(whole.ActionSpace, cut.Text) {
		t.Errorf("%s: the text differs from a direct cut", name)
	}
	got := count(t, c, metrics.CL100K, cut.Text)
	if r["tokens_cl100k"] != got || got > cell.Budget {
		t.Errorf("%s: tokens_cl100k = %v, recount %d, budget %d", name, r["tokens_cl100k"], got, cell.Budget)
	}
	if r["token_budget"] != cell.Budget || r["viewport_expansion"] != int64(dom.WholePage) || r["dropped_lines"] != int64(cut.TotalLines-cut.Lines) ||
		r["perception_tokens_cl100k"] != nil {
		t.Errorf("%s: budget columns %v %v %v %v", name, r["token_budget"], r["viewport_expansion"], r["dropped_lines"], r["perception_tokens_cl100k"])
	}
	wantStage, wantExp := string(render.StageCutFromEnd), any(nil)
	if cut.Lines == cut.TotalLines {
		wantStage, wantExp = string(render.StageWholePage), int64(dom.WholePage)
		if r["space_sha256"] != hash(whole.ActionSpace) || r["action_count"] != int64(whole.Handles) || r["recall"] != ptrValue(whole.Score) {
			t.Errorf("%s: the whole text fits, but the row is not the E=-1 row (handles %v, recall %v)", name, r["action_count"], r["recall"])
		}
	}
	if r["budget_stage"] != wantStage || r["budget_expansion"] != wantExp {
		t.Errorf("%s: stage %v, budget_expansion %v; want %s, %v", name, r["budget_stage"], r["budget_expansion"], wantStage, wantExp)
	}
	// Recall by hand: the oracle elements in the whole page whose handle
	// is on a kept line (the lines holding a ref or a node id).
	kept := strings.Split(strings.TrimSuffix(cut.Text, "\n"), "\n")
	if cut.Lines == 0 {
		kept = nil
	}
	handles := 0
	for _, l := range kept {
		if handleLine[cell.Format](l) {
			handles++
		}
	}
	if r["action_count"] != int64(handles) {
		t.Errorf("%s: action_count %v, %d kept lines hold a handle", name, r["action_count"], handles)
	}
	if pr, rc := r["page_recall"], r["recall"]; pr != rc {
		t.Errorf("%s: page_recall %v and recall %v differ (both are over the whole page)", name, pr, rc)
	}
	if handles == 0 && r["page_recall"] != 0.0 {
		t.Errorf("%s: no handle kept, page_recall %v", name, r["page_recall"])
	}
}

// ptrValue is a score's recall as the recall column holds it.
func ptrValue(s interface{ Recall() (float64, bool) }) any {
	if r, ok := s.Recall(); ok {
		return r
	}
	return nil
}

// handleLine tells, per format, whether a line of its text holds a
// handle: a ref of the AI snapshot, a node id of the accessibility tree,
// an index of browser-use.
var handleLine = map[string]func(string) bool{
	space.FormatPlaywrightAI: func(l string) bool { return strings.Contains(l, "[ref=") },
	space.FormatAXTree: func(l string) bool {
		l = strings.TrimLeft(l, "\t")
		i := strings.Index(l, "] ")
		return strings.HasPrefix(l, "[") && i > 1 && strings.Trim(l[1:i], "0123456789") == ""
	},
	space.FormatBrowserUse: func(l string) bool {
		l = strings.TrimPrefix(strings.TrimPrefix(strings.TrimLeft(l, "\t"), "|SHADOW(open)|"), "|SHADOW(closed)|")
		i := strings.Index(l, "]<")
		return strings.HasPrefix(l, "[") && i > 1 && strings.Trim(l[1:i], "0123456789") == ""
	},
}
