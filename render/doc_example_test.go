package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"actionspace/dom"
	"actionspace/internal/deeptest"
	"actionspace/metrics"
)

// The worked example of token budgets in docs/perception.md of token budgets is generated from the
// budget goldens (testdata/news/budget_*.txt): TestPerceptionDoc_BudgetExample
// fails when its block differs from what the goldens say, and
// -update rewrites the block.

const (
	perceptionDoc      = "../docs/perception.md"
	budgetExampleBegin = "<!-- budget-example:begin -->"
	budgetExampleEnd   = "<!-- budget-example:end -->"
	// Goldens longer than exampleMaxLines are shown as their first
	// exampleHead and last exampleTail lines.
	exampleMaxLines = 40
	exampleHead     = 14
	exampleTail     = 4
)

// budgetExample renders the doc's block: per golden budget, the figures
// of the fit and the golden text (excerpted when long).
func budgetExample(t *testing.T) string {
	t.Helper()
	c := deeptest.Counter(t)
	dir, tree, sps := goldenBudgets(t)
	whole := Fast(tree.Select(dom.Options{Expansion: dom.WholePage}))
	wholeTokens, err := c.Count(metrics.CL100K, whole.Perception)
	if err != nil {
		t.Fatal(err)
	}
	view := Fast(tree.Select(dom.Options{Expansion: 0}))
	viewTokens, err := c.Count(metrics.CL100K, view.Perception)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The corpus's news page (`%s`, a 1280x720 viewport) costs %s cl100k_base tokens on screen (E=0, %d IDs) and %s for the whole page (E=-1, %d IDs). Fitted into three budgets (the goldens `budget_*.txt` beside it):\n\n",
		filepath.ToSlash(filepath.Join("render", dir)), thousands(viewTokens), len(view.Actions), thousands(wholeTokens), len(whole.Actions))
	for _, sp := range sps {
		golden, err := os.ReadFile(filepath.Join(dir, "budget_"+strconv.FormatInt(sp.Budget, 10)+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "- **%s tokens** → %s tokens, stage `%s`, %s; %d IDs", thousands(sp.Budget), thousands(sp.Tokens), sp.Stage, windowText(sp), len(sp.Actions))
		if sp.DroppedIDs > 0 || sp.DroppedLines > 0 || sp.CutTexts > 0 {
			fmt.Fprintf(&b, ", %d IDs and %d lines of the screen's rendering dropped, %d texts or values cut", sp.DroppedIDs, sp.DroppedLines, sp.CutTexts)
		}
		fmt.Fprintf(&b, ":\n\n```\n%s```\n\n", excerpt(string(golden)))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func windowText(sp BudgetSpace) string {
	switch {
	case sp.Expansion == dom.WholePage:
		return "the whole page"
	case sp.Stage == StageGrow:
		return fmt.Sprintf("the window grown to E=%d", sp.Expansion)
	}
	return "the screen (E=0)"
}

// excerpt returns a golden text, or its first and last lines when it is
// long, the cut marked on a line of its own.
func excerpt(text string) string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= exampleMaxLines {
		return text
	}
	return strings.Join(lines[:exampleHead], "") +
		fmt.Sprintf("⋮ (%d more lines)\n", len(lines)-exampleHead-exampleTail) +
		strings.Join(lines[len(lines)-exampleTail:], "")
}

// thousands writes n with comma separators: 4000 → "4,000".
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestPerceptionDoc_BudgetExample checks the doc's worked example of token
// budgets against the goldens it is made from.
func TestPerceptionDoc_BudgetExample(t *testing.T) {
	checkDocBlock(t, perceptionDoc, budgetExampleBegin, budgetExampleEnd, budgetExample(t))
}
