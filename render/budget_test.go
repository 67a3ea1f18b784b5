package render

import (
	"cmp"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"actionspace/dom"
	"actionspace/internal/deeptest"
	"actionspace/metrics"
)

// testBudgets are the budgets every stored capture is fitted into; each
// page adds its own whole-page token count and one above it.
var testBudgets = []int64{250, 500, 1000, 2000, 4000, 8000}

// The worked example: one corpus page at three budgets, kept as goldens.
const budgetGoldenPage = "news"

var budgetGoldens = []int64{500, 1000, 4000}

type corpusPage struct {
	name, dir string
	tree      *dom.Tree
}

func corpusPages(t testing.TB) []corpusPage {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "capture.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 12 {
		t.Fatalf("found %d stored captures in testdata, want one per corpus page (>= 12); regenerate with `make goldens`", len(paths))
	}
	var pages []corpusPage
	for _, p := range paths {
		dir := filepath.Dir(p)
		pages = append(pages, corpusPage{name: filepath.Base(dir), dir: dir, tree: loadTree(t, p)})
	}
	return pages
}

func count(t testing.TB, c *metrics.Counter, enc metrics.Encoding, text string) int64 {
	t.Helper()
	n, err := c.Count(enc, text)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// recounter counts exactly, once per text: checkLeast asks about the same
// renders for every budget of a page.
type recounter struct {
	c    *metrics.Counter
	seen map[string]int64
}

func newRecounter(c *metrics.Counter) *recounter { return &recounter{c: c, seen: map[string]int64{}} }

func (r *recounter) count(t testing.TB, enc metrics.Encoding, text string) int64 {
	t.Helper()
	k := string(enc) + "\x00" + text
	n, ok := r.seen[k]
	if !ok {
		n = count(t, r.c, enc, text)
		r.seen[k] = n
	}
	return n
}

// TestFitBudgets_Corpus fits every stored capture into the test budgets in
// both encodings and checks each result by recounting and re-rendering
// (checkFit), that no smaller loss or larger window would have fitted
// (checkLeast), and that what is kept only grows with the budget
// (checkGrows).
func TestFitBudgets_Corpus(t *testing.T) {
	c := deeptest.Counter(t)
	encs := metrics.Encodings()
	if testing.Short() {
		encs = encs[:1] // the race run: one encoding is enough
	}
	for _, pg := range corpusPages(t) {
		for _, enc := range encs {
			t.Run(pg.name+"/"+string(enc), func(t *testing.T) {
				whole := Fast(pg.tree.Select(dom.Options{Expansion: dom.WholePage})).Perception
				wholeTokens := count(t, c, enc, whole)
				budgets := append(slices.Clone(testBudgets), wholeTokens, wholeTokens+1)
				slices.Sort(budgets)
				budgets = slices.Compact(budgets)
				opts := BudgetOptions{Encoding: enc}
				rc := newRecounter(c)
				sps, err := FitBudgets(pg.tree, c, budgets, opts)
				if err != nil {
					t.Fatal(err)
				}
				for i, sp := range sps {
					if sp.Budget != budgets[i] || sp.Encoding != enc {
						t.Fatalf("result %d: budget %d %s, want %d %s", i, sp.Budget, sp.Encoding, budgets[i], enc)
					}
					checkFit(t, pg.tree, c, sp)
					checkLeast(t, pg.tree, rc, sp)
					if i > 0 {
						checkGrows(t, pg.tree, sps[i-1], sp)
					}
					if sp.Budget >= wholeTokens && (sp.Perception != whole || sp.Expansion != dom.WholePage || sp.Stage != StageWholePage) {
						t.Errorf("budget %d >= whole page (%d tokens): stage %s E=%d, want the unbudgeted E=-1 text byte for byte",
							sp.Budget, wholeTokens, sp.Stage, sp.Expansion)
					}
					// Renders shared between budgets change no answer (one
					// encoding, and not in the race run, is enough).
					if enc == metrics.CL100K && !testing.Short() {
						if one, err := FitBudget(pg.tree, c, sp.Budget, opts); err != nil || !reflect.DeepEqual(one, sp) {
							t.Errorf("budget %d: FitBudget alone differs from FitBudgets (err %v)", sp.Budget, err)
						}
					}
				}
			})
		}
	}
}

// TestFitBudgets_TextPolicies fits the corpus with all and with no context
// text: every result fits, and a window reached is the unbudgeted
// rendering under the same policy.
func TestFitBudgets_TextPolicies(t *testing.T) {
	c := deeptest.Counter(t)
	for _, pg := range corpusPages(t) {
		for _, text := range []dom.TextPolicy{dom.TextAll, dom.TextNone} {
			sps, err := FitBudgets(pg.tree, c, testBudgets, BudgetOptions{Encoding: metrics.CL100K, Text: text})
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range sps {
				name := fmt.Sprintf("%s text=%s budget %d (%s, E=%d)", pg.name, text, sp.Budget, sp.Stage, sp.Expansion)
				if got := count(t, c, sp.Encoding, sp.Perception); got != sp.Tokens || got > sp.Budget {
					t.Errorf("%s: recount %d tokens, result says %d", name, got, sp.Tokens)
				}
				want := Fast(pg.tree.Select(dom.Options{Expansion: sp.Expansion, Text: text})).Perception
				if (sp.Stage == StageGrow || sp.Stage == StageWholePage) && sp.Perception != want {
					t.Errorf("%s: not the unbudgeted rendering under the same policy", name)
				}
				if text == dom.TextNone && sp.Stage == StageDropText {
					t.Errorf("%s: context text dropped under text=none", name)
				}
			}
		}
	}
}

// elementLine is an action line: ID[:]<tag attrs>text</tag>.
var elementLine = regexp.MustCompile(`^([A-Z][0-9]+)\[:\]<([a-z][a-z0-9-]*)(?: [^>]*)?>.*</([a-z][a-z0-9-]*)>$`)

// lineID returns the handle a line starts with ("" for context text).
func lineID(line string) string {
	id, _, _ := strings.Cut(line, "[:]")
	if id == "_" {
		return ""
	}
	return id
}

func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// checkFit checks one budgeted render against the budget (exact recount),
// the unbudgeted rendering it comes from, and its own accounting.
func checkFit(t *testing.T, tree *dom.Tree, c *metrics.Counter, sp BudgetSpace) {
	t.Helper()
	name := fmt.Sprintf("budget %d (%s, E=%d)", sp.Budget, sp.Stage, sp.Expansion)
	if got := count(t, c, sp.Encoding, sp.Perception); got != sp.Tokens || got > sp.Budget {
		t.Errorf("%s: recount %d tokens, result says %d; budget %d", name, got, sp.Tokens, sp.Budget)
	}
	if sp.ActionSpace != "" && !strings.HasSuffix(sp.ActionSpace, "\n") {
		t.Errorf("%s: action space does not end with a whole line", name)
	}
	if sp.Stage == StageEmpty {
		if sp.Perception != "" || sp.Tokens != 0 || len(sp.Kept) != 0 || len(sp.Actions) != 0 {
			t.Errorf("%s: empty stage with text or handles", name)
		}
		return
	}
	if (sp.Stage == StageWholePage) != (sp.Expansion == dom.WholePage) {
		t.Errorf("%s: the whole page is E=-1 and nothing else", name)
	}
	view := tree.Select(dom.Options{Expansion: sp.Expansion})
	base := Fast(view)
	lossy := sp.Stage != StageWholePage && sp.Stage != StageGrow
	switch {
	case !lossy:
		if sp.Perception != base.Perception || sp.DroppedIDs != 0 || sp.DroppedLines != 0 || sp.CutTexts != 0 {
			t.Errorf("%s: not the unbudgeted rendering at its expansion (dropped %d/%d, cut %d)", name, sp.DroppedIDs, sp.DroppedLines, sp.CutTexts)
		}
	case sp.Expansion != 0:
		t.Errorf("%s: lossy stage away from the viewport", name)
	default:
		// The wrapper, above/below lines included, is the viewport's.
		if want := strings.Replace(base.Perception, base.ActionSpace, sp.ActionSpace, 1); sp.Perception != want {
			t.Errorf("%s: wrapper differs from the viewport rendering's:\n%s", name, sp.Perception)
		}
	}

	// Lines: a subsequence of the unbudgeted lines, in order, whole, each
	// either as it was or (cut stages) the same ID's element, shortened.
	baseLines, lines := splitLines(base.ActionSpace), splitLines(sp.ActionSpace)
	j, changed, context, ids := 0, 0, 0, 0
	for _, l := range lines {
		for j < len(baseLines) && baseLines[j] != l && (lineID(l) == "" || lineID(baseLines[j]) != lineID(l)) {
			j++
		}
		if j == len(baseLines) {
			t.Fatalf("%s: line %q is not an unbudgeted line, or out of document order", name, l)
		}
		if l != baseLines[j] {
			changed++
			m := elementLine.FindStringSubmatch(l)
			if m == nil || m[2] != m[3] {
				t.Errorf("%s: cut line %q is not a whole element line", name, l)
			}
			if len(l) >= len(baseLines[j]) {
				t.Errorf("%s: cut line %q is not shorter than %q", name, l, baseLines[j])
			}
		}
		if lineID(l) == "" {
			context++
		} else {
			ids++
		}
		j++
	}
	if changed > sp.CutTexts || (sp.CutTexts > 0) != (changed > 0) {
		t.Errorf("%s: %d lines shortened, CutTexts %d", name, changed, sp.CutTexts)
	}
	if (sp.Stage == StageCutText || sp.Stage == StageDropIDs) && context > 0 {
		t.Errorf("%s: %d context lines left while cutting or dropping IDs", name, context)
	}
	if sp.CutTexts > 0 && sp.Stage != StageCutText && sp.Stage != StageDropIDs {
		t.Errorf("%s: texts cut in stage %s", name, sp.Stage)
	}
	if got, want := sp.DroppedLines, len(baseLines)-len(lines); got != want {
		t.Errorf("%s: DroppedLines %d, want %d", name, got, want)
	}
	if got, want := sp.DroppedIDs, view.Actions()-ids; got != want {
		t.Errorf("%s: DroppedIDs %d, want %d", name, got, want)
	}
	if (sp.DroppedIDs > 0) != (sp.Stage == StageDropIDs) {
		t.Errorf("%s: %d IDs dropped in stage %s", name, sp.DroppedIDs, sp.Stage)
	}

	// Handles: Kept, Actions and Counts are exactly the IDs shown, and
	// each names the element it names in the unbudgeted view.
	node := map[string]int{}
	for _, it := range view.Items {
		if it.IsAction() {
			node[it.ID] = it.Node
		}
	}
	var shown []string
	var kept []int
	for _, l := range lines {
		if id := lineID(l); id != "" {
			shown = append(shown, id)
			kept = append(kept, node[id])
		}
	}
	var actions []string
	for _, a := range sp.Actions {
		actions = append(actions, a.ID)
	}
	total := 0
	for _, n := range sp.Counts {
		total += n
	}
	if !slices.Equal(sp.Kept, kept) || !slices.Equal(actions, shown) || total != len(shown) {
		t.Errorf("%s: handles shown %v, Kept %v (want %v), Actions %v, Counts total %d", name, shown, sp.Kept, kept, actions, total)
	}
}

// checkLeast checks that the result is the least loss that fits: no
// larger window (the next candidate, the far end of the reached one) and
// no smaller loss of the viewport fits the budget.
func checkLeast(t *testing.T, tree *dom.Tree, rc *recounter, sp BudgetSpace) {
	t.Helper()
	fits := func(text string) bool { return rc.count(t, sp.Encoding, text) <= sp.Budget }
	at := func(e int) string { return Fast(tree.Select(dom.Options{Expansion: e})).Perception }
	name := fmt.Sprintf("budget %d (%s, E=%d)", sp.Budget, sp.Stage, sp.Expansion)
	if sp.Stage == StageWholePage {
		return
	}
	if fits(at(dom.WholePage)) {
		t.Errorf("%s: the whole page fits", name)
	}
	if sp.Stage == StageGrow {
		exps := tree.Expansions(dom.TextViewport)
		k := sort.SearchInts(exps, sp.Expansion+1) - 1
		far := max(exps[k], tree.CoverExpansion())
		if k+1 < len(exps) {
			far = exps[k+1] - 1
			if fits(at(exps[k+1])) {
				t.Errorf("%s: the next window (E=%d) fits", name, exps[k+1])
			}
		}
		if sp.Expansion > far {
			t.Errorf("%s: past the far end %d of its window", name, far)
		}
		if sp.Expansion != far && fits(at(far)) {
			t.Errorf("%s: the far end %d of its window fits", name, far)
		}
		return
	}
	if fits(at(0)) {
		t.Errorf("%s: the whole viewport fits", name)
	}
	f := &fitter{t: tree, c: rc.c, opts: BudgetOptions{Encoding: sp.Encoding, Text: dom.TextViewport}, lost: map[int]int64{}}
	f.prepareViewport()
	if sp.Stage == StageEmpty {
		if text, _ := f.lossText(f.loss(f.states())); fits(perception(f.vp, text)) {
			t.Errorf("%s: the bare wrapper fits", name)
		}
		return
	}
	// The loss state the result claims, then the one just before it.
	nText, nCut := len(f.textOrder), MaxText-MinCut
	var states []int
	switch sp.Stage {
	case StageDropText:
		states = []int{sp.DroppedLines}
	case StageCutText:
		for j := 1; j <= nCut; j++ {
			states = append(states, nText+j)
		}
	case StageDropIDs:
		states = []int{nText + nCut + sp.DroppedIDs}
	}
	for _, s := range states {
		if text, _ := f.lossText(f.loss(s)); text == sp.ActionSpace {
			prev, _ := f.lossText(f.loss(s - 1))
			if fits(perception(f.vp, prev)) {
				t.Errorf("%s: the smaller loss %d fits", name, s-1)
			}
			return
		}
	}
	t.Errorf("%s: not the loss state its stage and counts say", name)
}

// stageRank orders the stages from the most to the least lost.
var stageRank = map[BudgetStage]int{StageEmpty: 0, StageDropIDs: 1, StageCutText: 2, StageDropText: 3, StageGrow: 4, StageWholePage: 5}

// checkGrows checks that a larger budget keeps at least what a smaller one
// kept: a later stage, a window at least as large, and every element that
// had a handle still has one. The one exception is the unbudgeted rules':
// a label hands its ID to its control when the control enters the window.
func checkGrows(t *testing.T, tree *dom.Tree, small, large BudgetSpace) {
	t.Helper()
	name := fmt.Sprintf("budgets %d -> %d", small.Budget, large.Budget)
	if stageRank[large.Stage] < stageRank[small.Stage] {
		t.Errorf("%s: stage %s -> %s", name, small.Stage, large.Stage)
	}
	if small.Stage == StageGrow && large.Stage == StageGrow && large.Expansion < small.Expansion {
		t.Errorf("%s: window shrank from E=%d to E=%d", name, small.Expansion, large.Expansion)
	}
	nodes := tree.Capture.Nodes
	for _, n := range small.Kept {
		if slices.Contains(large.Kept, n) {
			continue
		}
		if nd := &nodes[n]; nd.Tag == "label" && nd.LabelFor > 0 && slices.Contains(large.Kept, nd.LabelFor) {
			continue
		}
		t.Errorf("%s: element %d (%s) lost its handle", name, n, tree.Locator(n))
	}
}

// TestFitBudgets_Plateaus checks on every stored capture what the window
// search relies on: views change only at the expansions Tree.Expansions
// lists, so each is the same up to the pixel before the next.
func TestFitBudgets_Plateaus(t *testing.T) {
	for _, pg := range corpusPages(t) {
		exps := pg.tree.Expansions(dom.TextViewport)
		for k, e := range exps {
			last := max(e, pg.tree.CoverExpansion())
			if k+1 < len(exps) {
				last = exps[k+1] - 1
			}
			a := pg.tree.Select(dom.Options{Expansion: e}).Items
			z := pg.tree.Select(dom.Options{Expansion: last}).Items
			if !reflect.DeepEqual(a, z) {
				t.Errorf("%s: view changes between E=%d and E=%d", pg.name, e, last)
			}
		}
	}
}

// TestFitBudget_Golden keeps the worked example: one corpus page at three
// budgets (cl100k_base). Run `go test ./render -update` after an intended
// change and review the diff.
func TestFitBudget_Golden(t *testing.T) {
	dir, _, sps := goldenBudgets(t)
	for _, sp := range sps {
		checkGolden(t, filepath.Join(dir, "budget_"+strconv.FormatInt(sp.Budget, 10)+".txt"), sp.Perception)
	}
}

// goldenBudgets fits the worked example's page into its budgets
// (cl100k_base): its testdata directory, its tree and the fits.
func goldenBudgets(t *testing.T) (string, *dom.Tree, []BudgetSpace) {
	t.Helper()
	dir := filepath.Join("testdata", budgetGoldenPage)
	tree := loadTree(t, filepath.Join(dir, "capture.json.gz"))
	sps, err := FitBudgets(tree, deeptest.Counter(t), budgetGoldens, BudgetOptions{Encoding: metrics.CL100K})
	if err != nil {
		t.Fatal(err)
	}
	return dir, tree, sps
}

// lossBuy is the long text of lossPage's button.
var lossBuy = "Buy the " + strings.Repeat("very ", 20) + "large hat"

// lossPage is a one-screen page (1000x500) with a document twice as high:
// context lines and controls at known distances from the screen's centre
// (500, 250), long texts to cut, and a link below the screen.
func lossPage() *dom.Tree {
	c := &dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{URL: "http://loss.test/", Title: "Loss order",
		ViewportWidth: 1000, ViewportHeight: 500, DocWidth: 1000, DocHeight: 1000, Time: 1764547200000}}
	add := func(n dom.Node) int {
		n.Visible = true
		c.Nodes = append(c.Nodes, n)
		return len(c.Nodes) - 1
	}
	el := func(parent int, tag string, r dom.Rect, signals []string, attrs ...string) int {
		n := dom.Node{Kind: dom.ElementNode, Parent: parent, Tag: tag, Rect: r, Signals: signals}
		for i := 0; i+1 < len(attrs); i += 2 {
			n.Attrs = append(n.Attrs, [2]string{attrs[i], attrs[i+1]})
		}
		return add(n)
	}
	text := func(parent int, s string, r dom.Rect) {
		add(dom.Node{Kind: dom.TextNode, Parent: parent, Text: s, Rect: r})
	}
	block := func(parent int, r dom.Rect) int {
		i := el(parent, "div", r, nil)
		c.Nodes[i].Block = 1
		return i
	}
	tag := []string{"tag"}
	html := el(-1, "html", dom.Rect{0, 0, 1000, 1000}, nil)
	c.Nodes[html].Block = 1
	body := block(html, dom.Rect{0, 0, 1000, 1000})
	intro := block(body, dom.Rect{10, 10, 400, 20}) // far: ~560 px
	text(intro, "An introduction at the top of the screen, far from its centre.", dom.Rect{10, 10, 400, 20})
	buy := el(body, "button", dom.Rect{450, 240, 100, 20}, tag) // at the centre
	text(buy, lossBuy, dom.Rect{450, 240, 100, 20})
	mid := block(body, dom.Rect{400, 270, 200, 20}) // near: ~30 px
	text(mid, "A line near the centre of the screen.", dom.Rect{400, 270, 200, 20})
	el(body, "input", dom.Rect{600, 300, 100, 20}, tag, "type", "text", "placeholder",
		"Search among "+strings.Repeat("many ", 15)+"hats") // ~160 px
	foot := el(body, "a", dom.Rect{10, 470, 100, 20}, tag, "href", "/help/"+strings.Repeat("x", 70)) // ~540 px
	text(foot, "Help with hats, sizes, returns and everything else about hats", dom.Rect{10, 470, 100, 20})
	below := el(body, "a", dom.Rect{10, 700, 100, 20}, tag, "href", "/more") // enters at E=201
	text(below, "More hats, caps and scarves for every season of the year", dom.Rect{10, 700, 100, 20})
	return dom.NewTree(c)
}

// TestFitBudget_LossOrder fits a small page into every budget from nothing
// to the whole page and checks the order things are lost in: context
// lines before any cut, cuts before any dropped ID, the farther of two
// lines first, and a window that grows with the budget.
func TestFitBudget_LossOrder(t *testing.T) {
	c := deeptest.Counter(t)
	tree := lossPage()
	enc := metrics.CL100K
	whole := count(t, c, enc, Fast(tree.Select(dom.Options{Expansion: dom.WholePage})).Perception)
	seen := map[BudgetStage]bool{}
	rc := newRecounter(c)
	var prev BudgetSpace
	for n := int64(0); n <= whole; n++ {
		sp, err := FitBudget(tree, c, n, BudgetOptions{Encoding: enc})
		if err != nil {
			t.Fatal(err)
		}
		seen[sp.Stage] = true
		checkFit(t, tree, c, sp)
		checkLeast(t, tree, rc, sp)
		if n > 0 {
			checkGrows(t, tree, prev, sp)
		}
		prev = sp
		has := func(s string) bool { return strings.Contains(sp.ActionSpace, s) }
		if has("An introduction") && !has("A line near") {
			t.Errorf("budget %d: the far context line outlived the near one:\n%s", n, sp.ActionSpace)
		}
		if (sp.CutTexts > 0 || sp.DroppedIDs > 0) && has("_[:]") {
			t.Errorf("budget %d: texts cut or IDs dropped while context text is left:\n%s", n, sp.ActionSpace)
		}
		if sp.DroppedIDs > 0 && has("B1[:]") && !has(">"+truncate(lossBuy, MinCut)+"</button>") {
			t.Errorf("budget %d: IDs dropped before texts were cut to %d characters:\n%s", n, MinCut, sp.ActionSpace)
		}
		// Farthest first: the help link (~540 px), the search box (~160
		// px), the button at the centre last.
		if has("L1[:]") && !has("I1[:]") || has("I1[:]") && !has("B1[:]") {
			t.Errorf("budget %d: a nearer ID was dropped before a farther one:\n%s", n, sp.ActionSpace)
		}
		if sp.Stage == StageGrow && (sp.Expansion != 200 && sp.Expansion != 500) {
			t.Errorf("budget %d: grew to E=%d, want a far end: 200 (before the link below enters) or 500 (the document)", n, sp.Expansion)
		}
	}
	for _, s := range []BudgetStage{StageEmpty, StageDropIDs, StageCutText, StageDropText, StageGrow, StageWholePage} {
		if !seen[s] {
			t.Errorf("no budget reached stage %s", s)
		}
	}
}

func TestFitBudgets_BadInput(t *testing.T) {
	tree := lossPage()
	c := deeptest.Counter(t)
	only, err := metrics.NewCounter(metrics.O200K)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		c       *metrics.Counter
		budgets []int64
		opts    BudgetOptions
		want    string
	}{
		{"no encoding", c, []int64{100}, BudgetOptions{}, "Encoding"},
		{"unknown encoding", c, []int64{100}, BudgetOptions{Encoding: "p50k_base"}, "Encoding"},
		{"bad text policy", c, []int64{100}, BudgetOptions{Encoding: metrics.CL100K, Text: "some"}, "Text"},
		{"nil counter", nil, []int64{100}, BudgetOptions{Encoding: metrics.CL100K}, "Counter"},
		{"negative budget", c, []int64{100, -1}, BudgetOptions{Encoding: metrics.CL100K}, "negative"},
		{"encoding not loaded", only, []int64{100}, BudgetOptions{Encoding: metrics.CL100K}, "not loaded"},
	}
	for _, tc := range tests {
		_, err := FitBudgets(tree, tc.c, tc.budgets, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
}

func TestCutFromEnd(t *testing.T) {
	c := deeptest.Counter(t)
	enc := metrics.CL100K
	page := Fast(loadTree(t, filepath.Join("testdata", "news", "capture.json.gz")).Select(dom.Options{Expansion: dom.WholePage})).Perception
	yaml := "- banner:\n  - link \"Home\" [ref=e2]\n  - button \"Search\" [ref=e3]\n- main:\n  - heading \"News\" [level=1] [ref=e4]"
	tests := []struct {
		name   string
		text   string
		budget int64
	}{
		{"empty text", "", 10},
		{"zero budget", yaml, 0},
		{"first line too long", yaml, 2},
		{"some lines", yaml, 15},
		{"last line without a newline fits", yaml, 100},
		{"blank lines", "a\n\n\nb\n", 2},
		{"page at 250", page, 250},
		{"page at 1000", page, 1000},
		{"page at 2000", page, 2000},
		{"page whole", page, 100000},
	}
	for _, tc := range tests {
		got, err := CutFromEnd(c, enc, tc.text, tc.budget)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		lines := strings.SplitAfter(tc.text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if got.TotalLines != len(lines) {
			t.Errorf("%s: TotalLines %d, want %d", tc.name, got.TotalLines, len(lines))
		}
		if want := strings.Join(lines[:got.Lines], ""); got.Text != want {
			t.Errorf("%s: kept text is not the first %d whole lines:\n%q", tc.name, got.Lines, got.Text)
		}
		if n := count(t, c, enc, got.Text); n != got.Tokens || n > tc.budget {
			t.Errorf("%s: recount %d tokens, result %d, budget %d", tc.name, n, got.Tokens, tc.budget)
		}
		if got.Lines < len(lines) {
			if n := count(t, c, enc, strings.Join(lines[:got.Lines+1], "")); n <= tc.budget {
				t.Errorf("%s: %d lines kept but %d fit (%d tokens)", tc.name, got.Lines, got.Lines+1, n)
			}
		}
	}
	if _, err := CutFromEnd(c, enc, yaml, -1); err == nil {
		t.Error("negative budget: no error")
	}
	if _, err := CutFromEnd(c, "p50k_base", yaml, 10); err == nil {
		t.Error("unloaded encoding: no error")
	}
}

// BenchmarkFitBudget fits every stored capture into one budget per
// sub-benchmark, each page on its own (nothing shared between budgets),
// and reports the median time per page.
func BenchmarkFitBudget(b *testing.B) {
	pages := corpusPages(b)
	c := deeptest.Counter(b)
	for _, n := range []int64{1000, 2000, 4000, 8000} {
		b.Run("budget="+strconv.FormatInt(n, 10), func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				for _, pg := range pages {
					start := time.Now()
					if _, err := FitBudget(pg.tree, c, n, BudgetOptions{Encoding: metrics.CL100K}); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(start))
				}
			}
			slices.SortFunc(times, cmp.Compare)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms/page")
			b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "max-ms/page")
		})
	}
}
