package bench

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"actionspace/axtree"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/oracle"
	"actionspace/render"
)

// budgetTestBudgets are the budgets of the budget tests: from less than a
// viewport to more than any corpus page.
var budgetTestBudgets = []int64{4000, 250, 500, 1000, 2000, 8000, 100000}

// TestSweep_Budgets sweeps the stored corpus captures, with their
// accessibility trees, under budget cells and reads cells.parquet back
// with arrow-go. Every budget row is checked against a direct fit of the
// same capture: the text is the same (hashes), its tokens recount exactly
// and never exceed the budget, a budget larger than the whole page gives
// the unbudgeted E=-1 text byte for byte, and per page and text policy
// page_recall and viewport_recall never fall as the budget grows. The
// summary, the report and the recall chart show the budgets.
func TestSweep_Budgets(t *testing.T) {
	captures := storedCaptures(t)
	dir := writeCaptureDataset(t, t.TempDir(), captures, datasetOptions{corrupt: true})
	out := t.TempDir()
	cfg := testConfig("test-budgets")
	cfg.Expansions = []int{0, dom.WholePage}
	cfg.Budgets = budgetTestBudgets
	cfg.Texts = []dom.TextPolicy{dom.TextViewport, dom.TextAll}
	if testing.Short() {
		cfg.Texts = cfg.Texts[:1]
	}
	res := mustSweep(t, cfg, dir, out)
	cells := cfg.Cells()

	_, rows := arrowTable(t, filepath.Join(out, CellsFile))
	if got, want := len(rows), (len(captures)+1)*len(cells); got != want {
		t.Fatalf("cells.parquet rows = %d, want %d", got, want)
	}
	counter, err := metrics.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	pages := storedPages(t, captures)
	type series struct{ url, text string }
	byPage := map[series][]map[string]any{}
	budgetRows := 0
	for i, r := range rows {
		c := cells[i%len(cells)]
		if r["cell"] != c.Key() {
			t.Fatalf("row %d: cell %v, want %s", i, r["cell"], c.Key())
		}
		if c.Budget == 0 {
			if r["token_budget"] != nil || r["budget_stage"] != nil || r["page_recall"] != nil {
				t.Errorf("row %d (%s): budget columns on an unbudgeted cell", i, c.Key())
			}
			continue
		}
		if r["token_budget"] != c.Budget {
			t.Errorf("row %d: token_budget %v, want %d", i, r["token_budget"], c.Budget)
		}
		if r["error"] != "" {
			if r["url"] != "http://corpus.test/corrupt.html" {
				t.Errorf("row %d: unexpected error %v", i, r["error"])
			}
			continue
		}
		budgetRows++
		pg := pages[r["url"].(string)]
		name := fmt.Sprintf("%s %s", r["url"], c.Key())
		checkBudgetRow(t, name, counter, metrics.CL100K, pg, c, r)
		k := series{r["url"].(string), string(c.Text)}
		byPage[k] = append(byPage[k], r)
	}
	if want := len(captures) * len(cfg.Texts) * len(cfg.Budgets); budgetRows != want {
		t.Errorf("%d budget rows without error, want %d", budgetRows, want)
	}
	for k, rs := range byPage {
		checkRecallGrows(t, k.url+" text="+k.text, rs)
	}

	// The summary: one row per budget cell, recall means that never fall.
	sum := res.Summary
	var prev *CellSummary
	for _, c := range sum.budgetSeries()[0].cells {
		if c.Pages != int64(len(captures)+1) || c.Errors != 1 || c.RecallPages == nil || *c.RecallPages != int64(len(captures)) ||
			c.PageRecallMean == nil || c.ViewportRecallMean == nil || c.RenderMSMedian == nil || c.WholePagePages == nil {
			t.Errorf("summary %s: %+v", c.Cell, c.BudgetSummary)
			continue
		}
		if prev != nil && (*c.PageRecallMean < *prev.PageRecallMean || *c.ViewportRecallMean < *prev.ViewportRecallMean) {
			t.Errorf("summary %s: recall %.4f/%.4f, below %s's %.4f/%.4f", c.Cell, *c.PageRecallMean, *c.ViewportRecallMean,
				prev.Cell, *prev.PageRecallMean, *prev.ViewportRecallMean)
		}
		prev = c
	}
	if last := prev; last == nil || *last.WholePagePages != int64(len(captures)) || *last.PageRecallMean <= 0 {
		t.Errorf("largest budget: %+v, want every page whole", last)
	}
	var fit *Stage
	for i := range sum.Stages {
		if sum.Stages[i].Name == "budget fit" {
			fit = &sum.Stages[i]
		}
	}
	if fit == nil || fit.Count != budgetRows || fit.MedianMS == nil {
		t.Errorf("budget fit stage = %+v, want %d measurements", fit, budgetRows)
	}

	report, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(out, BudgetChartFile))
	if err != nil || !bytes.Contains(svg, []byte("<svg")) || !strings.Contains(string(report), "]("+BudgetChartFile+")") ||
		!strings.Contains(string(report), "## Token budgets") {
		t.Errorf("recall chart %s missing or not linked from the report's budget section (%v)", BudgetChartFile, err)
	}
	var head bytes.Buffer
	res.WriteHeadline(&head)
	if !strings.Contains(head.String(), "token budgets (cl100k_base") || !strings.Contains(head.String(), "100000") {
		t.Errorf("headline has no budget table:\n%s", head.String())
	}
}

// TestSweep_BudgetsHeadlineEncoding counts budgets in the first encoding
// swept (o200k_base here), and leaves recall null without accessibility
// trees.
func TestSweep_BudgetsHeadlineEncoding(t *testing.T) {
	captures := storedCaptures(t)[:4]
	dir := writeCaptureDataset(t, t.TempDir(), captures, datasetOptions{noAXTree: true})
	out := t.TempDir()
	cfg := testConfig("test-budgets-o200k")
	cfg.Expansions = []int{dom.WholePage}
	cfg.Texts = []dom.TextPolicy{dom.TextViewport}
	cfg.Encodings = []metrics.Encoding{metrics.O200K, metrics.CL100K}
	cfg.Budgets = []int64{300, 700, 100000}
	mustSweep(t, cfg, dir, out)
	counter, err := metrics.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	pages := storedPages(t, captures)
	cells := cfg.Cells()
	_, rows := arrowTable(t, filepath.Join(out, CellsFile))
	for i, r := range rows {
		c := cells[i%len(cells)]
		if c.Budget == 0 {
			continue
		}
		if r["page_recall"] != nil || r["viewport_recall"] != nil {
			t.Errorf("%s %s: recall %v/%v without an accessibility tree", r["url"], c.Key(), r["page_recall"], r["viewport_recall"])
		}
		checkBudgetRow(t, fmt.Sprintf("%s %s", r["url"], c.Key()), counter, metrics.O200K, pages[r["url"].(string)], c, r)
	}
	report, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, BudgetChartFile)); err == nil || !strings.Contains(string(report), "No recall") {
		t.Errorf("a recall chart without recall, or the report does not say why there is none (%v)", err)
	}
}

// storedPage is a stored corpus page: its tree and oracle.
type storedPage struct {
	tree   *dom.Tree
	oracle *oracle.Oracle
}

// storedPages decodes the stored captures and accessibility trees, by URL.
func storedPages(t *testing.T, captures []string) map[string]storedPage {
	t.Helper()
	out := map[string]storedPage{}
	for _, p := range captures {
		c, err := dom.Parse(readCapture(t, p))
		if err != nil {
			t.Fatal(err)
		}
		tree := dom.NewTree(c)
		rec, err := axtree.Parse(readCapture(t, filepath.Join(filepath.Dir(p), "axtree.json.gz")))
		if err != nil {
			t.Fatal(err)
		}
		out[c.Page.URL] = storedPage{tree: tree, oracle: oracle.New(rec, tree)}
	}
	return out
}

// checkBudgetRow checks one budget row against a direct fit of its page
// in enc, the sweep's headline encoding: the same text, an exact recount within the
// budget, the budget columns, and the unbudgeted whole-page text when the
// whole page fits. When the row has recall, the whole page's equals the
// oracle's recall of the E=-1 view.
func checkBudgetRow(t *testing.T, name string, c *metrics.Counter, enc metrics.Encoding, pg storedPage, cell Cell, r map[string]any) {
	t.Helper()
	bs, err := render.FitBudget(pg.tree, c, cell.Budget, render.BudgetOptions{Encoding: enc, Text: cell.Text})
	if err != nil {
		t.Fatal(err)
	}
	if r["perception_sha256"] != hash(bs.Perception) || r["space_sha256"] != hash(bs.ActionSpace) {
		t.Errorf("%s: the text differs from a direct fit in %s (stage %s, E=%d)", name, enc, bs.Stage, bs.Expansion)
	}
	got := count(t, c, enc, bs.Perception)
	col := "perception_tokens_" + strings.TrimSuffix(string(enc), "_base")
	if r[col] != got || got > cell.Budget {
		t.Errorf("%s: %s = %v, recount %d, budget %d", name, col, r[col], got, cell.Budget)
	}
	if r["budget_expansion"] != int64(bs.Expansion) || r["viewport_expansion"] != int64(bs.Expansion) ||
		r["budget_stage"] != string(bs.Stage) || r["dropped_ids"] != int64(bs.DroppedIDs) ||
		r["dropped_lines"] != int64(bs.DroppedLines) || r["cut_texts"] != int64(bs.CutTexts) ||
		r["action_count"] != int64(len(bs.Actions)) {
		t.Errorf("%s: budget columns %v %v %v %v %v %v, want E=%d %s dropped %d/%d cut %d", name, r["budget_expansion"],
			r["viewport_expansion"], r["budget_stage"], r["dropped_ids"], r["dropped_lines"], r["cut_texts"],
			bs.Expansion, bs.Stage, bs.DroppedIDs, bs.DroppedLines, bs.CutTexts)
	}
	whole := render.Fast(pg.tree.Select(dom.Options{Expansion: dom.WholePage, Text: cell.Text}))
	if cell.Budget >= count(t, c, enc, whole.Perception) {
		if r["perception_sha256"] != hash(whole.Perception) || r["budget_expansion"] != int64(dom.WholePage) || r["budget_stage"] != string(render.StageWholePage) {
			t.Errorf("%s: the whole page fits, but the row is not the unbudgeted E=-1 text (stage %v, E=%v)", name, r["budget_stage"], r["budget_expansion"])
		}
		if rc, ok := r["page_recall"].(float64); ok {
			want, _ := pg.oracle.View(pg.tree.Select(dom.Options{Expansion: dom.WholePage, Text: cell.Text})).Score.Recall()
			if rc != want {
				t.Errorf("%s: page_recall %v, the oracle's recall of the whole page %v", name, rc, want)
			}
		}
	}
}

// checkRecallGrows checks that one page's recall never falls as the
// budget grows, and that the page's oracle elements handled only grow.
func checkRecallGrows(t *testing.T, name string, rows []map[string]any) {
	t.Helper()
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b map[string]any) int {
		return cmp.Compare(a["token_budget"].(int64), b["token_budget"].(int64))
	})
	for _, col := range []string{"page_recall", "viewport_recall"} {
		prev := -1.0
		for _, r := range rows {
			v, ok := r[col].(float64)
			if !ok {
				if col == "page_recall" {
					t.Errorf("%s budget %v: no page_recall", name, r["token_budget"])
				}
				continue
			}
			if v < prev {
				t.Errorf("%s: %s fell to %.4f at budget %v (was %.4f)", name, col, v, r["token_budget"], prev)
			}
			prev = v
		}
	}
}
