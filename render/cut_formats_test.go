package render

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"actionspace/dom"
	"actionspace/internal/deeptest"
	"actionspace/metrics"
	"actionspace/oracle"
)

// handleLine tells, per format, whether a line of its text holds a handle.
var handleLine = map[string]*regexp.Regexp{
	"playwright-ai": regexp.MustCompile(`\[ref=[^\]]+\]`),
	"axtree":        regexp.MustCompile(`^\t*\[[0-9]+\] `),
}

// TestFormats_CutFromEnd cuts every stored corpus page's whole-page
// playwright-ai and axtree texts from the end at growing budgets, as the
// bench's baselines do, and checks what each cut holds: the lines that
// carry a handle are those HandleLines names, every oracle element's
// handle is on the line HandledLine says, the uncut text holds all of
// them (Prefix of every line is Handles and Handled), and what a cut
// keeps, handles and oracle elements handled, only grows with the budget.
func TestFormats_CutFromEnd(t *testing.T) {
	c := deeptest.Counter(t)
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "axtree.json.gz"))
	if err != nil || len(dirs) < 12 {
		t.Fatalf("stored accessibility trees: %d, %v", len(dirs), err)
	}
	budgets := []int64{0, 50, 250, 500, 1000, 2000, 4000, 8000, 1 << 20}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		s := loadStored(t, dir)
		o := oracle.New(s.rec, s.tree)
		win := s.tree.Window(dom.WholePage)
		ai, err := AISnapshot(s.snap, s.rec, o, win)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			name string
			sp   FormatSpace
		}{{"playwright-ai", ai}, {"axtree", AXTree(s.rec, o, win)}} {
			name := filepath.Base(dir) + "/" + f.name
			lines := strings.Split(strings.TrimSuffix(f.sp.Text, "\n"), "\n")
			var want []int
			for i, l := range lines {
				if handleLine[f.name].MatchString(l) {
					want = append(want, i)
				}
			}
			if !slices.Equal(f.sp.HandleLines, want) || len(want) != f.sp.Handles {
				t.Errorf("%s: HandleLines %v, want the %d lines with a handle %v", name, f.sp.HandleLines, f.sp.Handles, want)
			}
			for k, l := range f.sp.HandledLine {
				if (l >= 0) != f.sp.Handled[k] || (l >= 0 && !slices.Contains(f.sp.HandleLines, l)) {
					t.Errorf("%s: oracle element %d (%s %q): handled %v on line %d", name, k, o.Elements[k].Role, o.Elements[k].Name, f.sp.Handled[k], l)
				}
			}
			if h, handled := f.sp.Prefix(len(lines)); h != f.sp.Handles || !slices.Equal(handled, f.sp.Handled) {
				t.Errorf("%s: the whole text's prefix holds %d handles, want %d", name, h, f.sp.Handles)
			}
			prevHandles, prevHandled := -1, []bool(nil)
			for _, n := range budgets {
				cut, err := CutFromEnd(c, metrics.CL100K, f.sp.Text, n)
				if err != nil {
					t.Fatal(err)
				}
				h, handled := f.sp.Prefix(cut.Lines)
				label := fmt.Sprintf("%s budget %d (%d of %d lines)", name, n, cut.Lines, cut.TotalLines)
				if h < prevHandles {
					t.Errorf("%s: %d handles, fewer than %d at a smaller budget", label, h, prevHandles)
				}
				for k := range prevHandled {
					if prevHandled[k] && !handled[k] {
						t.Errorf("%s: oracle element %d lost its handle", label, k)
					}
				}
				prevHandles, prevHandled = h, handled
			}
		}
	}
}
