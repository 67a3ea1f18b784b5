package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/internal/storedtest"
	"actionspace/metrics"
	"actionspace/render"
	"actionspace/space"
)

// TestProcess_Budgets builds the rows of every stored corpus capture (the
// render goldens' captures, as a crawl loaded them) with token budgets,
// from less than a screen to more than any page, and checks every budget
// row: the budget columns, a window that is its viewport_expansion, an
// exact recount of the perception text in the headline encoding (the
// first of Encodings) that never exceeds the budget, and the unbudgeted
// E=-1 row's text byte for byte when the whole page fits.
func TestProcess_Budgets(t *testing.T) {
	paths := storedtest.Captures(t, filepath.Join("..", "render", "testdata"))
	budgets := []int64{250, 500, 1000, 2000, 4000, 8000, 1 << 20}
	counter, err := metrics.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	headlines := [][]metrics.Encoding{{metrics.CL100K, metrics.O200K}, {metrics.O200K, metrics.CL100K}}
	if testing.Short() {
		headlines = headlines[:1]
	}
	for _, encs := range headlines {
		cfg := DefaultConfig()
		cfg.RunID = "budgets"
		cfg.Expansions = []int{0, dom.WholePage}
		cfg.Encodings = encs
		cfg.Budgets = budgets
		cfg.UseFormats([]string{space.FormatActionSpace}) // the stored corpus has no accessibility trees
		cfg.Logger = testLogger(t)
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		p, err := newProcessor(cfg, "stored")
		if err != nil {
			t.Fatal(err)
		}
		enc := encs[0]
		for _, path := range paths {
			name := filepath.Base(filepath.Dir(path)) + "/" + string(enc)
			raw := storedtest.Read(t, path)
			html := string(storedtest.Read(t, filepath.Join(filepath.Dir(path), "page.html.gz")))
			u := "http://corpus.test/" + filepath.Base(filepath.Dir(path)) + ".html"
			res := p.succeeded(context.Background(), context.Background(), Target{PageID: PageID(u), URL: u},
				&Load{FinalURL: u, HTTPStatus: 200, HTML: html, Capture: raw}, 1, time.Now())
			if res.Page.Status != dataset.StatusOK {
				t.Fatalf("%s: %s", name, res.Page.ErrorMessage)
			}
			if got, want := len(res.Spaces), len(cfg.Expansions)+len(budgets); got != want {
				t.Fatalf("%s: %d spaces rows, want %d", name, got, want)
			}
			whole := res.Spaces[1]
			if whole.ViewportExpansion != dom.WholePage || whole.TokenBudget != nil || whole.BudgetStage != nil || whole.PageRecall != nil {
				t.Fatalf("%s: the unbudgeted E=-1 row: E=%d, budget %s, stage %s", name, whole.ViewportExpansion, ptrString(whole.TokenBudget), ptrString(whole.BudgetStage))
			}
			wholeTokens := count(t, counter, enc, whole.PerceptionText)
			var prev *dataset.SpaceRow
			for i := range budgets {
				row := &res.Spaces[len(cfg.Expansions)+i]
				checkBudgetRow(t, fmt.Sprintf("%s budget %d", name, budgets[i]), counter, enc, budgets[i], wholeTokens, whole, row, prev)
				prev = row
			}
		}
	}
}

func count(t *testing.T, c *metrics.Counter, enc metrics.Encoding, text string) int64 {
	t.Helper()
	n, err := c.Count(enc, text)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkBudgetRow checks one budget row of a page (see TestProcess_Budgets);
// prev is the row of the next smaller budget, nil for the first.
func checkBudgetRow(t *testing.T, name string, c *metrics.Counter, enc metrics.Encoding, budget, wholeTokens int64, whole dataset.SpaceRow, row, prev *dataset.SpaceRow) {
	t.Helper()
	if row.Format != space.FormatActionSpace || row.Mode != space.ModeFast || row.TextPolicy != string(dom.TextViewport) ||
		row.TokenBudget == nil || *row.TokenBudget != budget || row.BudgetStage == nil || row.BudgetExpansion == nil ||
		row.DroppedIDs == nil || row.DroppedLines == nil || row.CutTexts == nil {
		t.Fatalf("%s: format %s mode %s text %s budget %s stage %s E %s dropped %s/%s cut %s", name, row.Format, row.Mode, row.TextPolicy,
			ptrString(row.TokenBudget), ptrString(row.BudgetStage), ptrString(row.BudgetExpansion),
			ptrString(row.DroppedIDs), ptrString(row.DroppedLines), ptrString(row.CutTexts))
	}
	if row.ViewportExpansion != *row.BudgetExpansion {
		t.Errorf("%s: viewport_expansion %d, budget_expansion %d", name, row.ViewportExpansion, *row.BudgetExpansion)
	}
	got := count(t, c, enc, row.PerceptionText)
	stored := (space.Tokens{CL100K: row.PerceptionTokensCL100K, O200K: row.PerceptionTokensO200K}).Of(enc)
	if stored == nil || *stored != got || got > budget {
		t.Errorf("%s: perception tokens %s (%s), recount %d, budget %d", name, ptrString(stored), enc, got, budget)
	}
	if want := count(t, c, enc, row.ActionSpace); (space.Tokens{CL100K: row.TokensCL100K, O200K: row.TokensO200K}).Of(enc) == nil ||
		*(space.Tokens{CL100K: row.TokensCL100K, O200K: row.TokensO200K}).Of(enc) != want {
		t.Errorf("%s: action-space tokens differ from a recount (%d)", name, want)
	}
	if row.ActionSpace != "" && !strings.HasSuffix(row.ActionSpace, "\n") {
		t.Errorf("%s: the action space ends in half a line", name)
	}
	if int64(len(row.Actions)) != row.ActionCount || !strings.Contains(row.PerceptionText, row.ActionSpace) {
		t.Errorf("%s: %d actions, action_count %d", name, len(row.Actions), row.ActionCount)
	}
	if budget >= wholeTokens {
		if row.PerceptionText != whole.PerceptionText || row.ActionSpace != whole.ActionSpace ||
			*row.BudgetExpansion != dom.WholePage || *row.BudgetStage != string(render.StageWholePage) {
			t.Errorf("%s: the whole page (%d tokens) fits, but the row is not the unbudgeted E=-1 text (stage %s, E=%d)",
				name, wholeTokens, *row.BudgetStage, *row.BudgetExpansion)
		}
	} else if *row.BudgetStage == string(render.StageWholePage) {
		t.Errorf("%s: stage whole-page, but the whole page takes %d tokens", name, wholeTokens)
	}
	if prev == nil {
		return
	}
	// What a budget keeps only grows with it: the handles' locators are
	// identities across the rows of one capture.
	var kept []string
	for _, a := range row.Actions {
		kept = append(kept, a.Locator)
	}
	for _, a := range prev.Actions {
		if a.Tag != "label" && !slices.Contains(kept, a.Locator) {
			t.Errorf("%s: %s %q (%s) had a handle at budget %d and lost it", name, a.ID, a.Name, a.Locator, *prev.TokenBudget)
		}
	}
}
