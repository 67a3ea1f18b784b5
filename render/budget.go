package render

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"actionspace/dom"
	"actionspace/metrics"
)

// MinCut is the length, in characters, that the cutting stage of a
// budgeted render shortens element texts and attribute values down to
// before it drops IDs.
const MinCut = 20

// BudgetStage says how a budgeted render fitted its budget, from the
// least to the most lost.
type BudgetStage string

// Budget stages.
const (
	// StageWholePage: the unbudgeted whole-page rendering (E = -1) fitted.
	StageWholePage BudgetStage = "whole-page"
	// StageGrow: the viewport fitted and the window grew to Expansion;
	// the text is the unbudgeted rendering at that expansion.
	StageGrow BudgetStage = "grow"
	// StageDropText: the viewport did not fit; context lines farthest
	// from the viewport's centre were dropped.
	StageDropText BudgetStage = "drop-text"
	// StageCutText: every context line was dropped and element texts and
	// attribute values were shortened (down to MinCut characters).
	StageCutText BudgetStage = "cut-text"
	// StageDropIDs: as StageCutText at MinCut, and the IDs farthest from
	// the viewport's centre were dropped.
	StageDropIDs BudgetStage = "drop-ids"
	// StageEmpty: not even the perception wrapper alone fits; the text is
	// empty.
	StageEmpty BudgetStage = "empty"
	// StageCutFromEnd: a text cut to the leading lines that fit
	// ([CutFromEnd]), the baseline of the other formats.
	StageCutFromEnd BudgetStage = "cut-from-end"
)

// BudgetOptions is how budgets are counted and which views they fit.
type BudgetOptions struct {
	// Encoding counts the budget over the whole perception text (wrapper
	// included); required, and it must be loaded in the Counter.
	Encoding metrics.Encoding
	// Text is the context-text policy of the views; the zero value means
	// dom.TextViewport.
	Text dom.TextPolicy
}

// Validate reports an unusable setting, naming the field.
func (o BudgetOptions) Validate() error {
	if !o.Encoding.Valid() {
		return fmt.Errorf("token budget: Encoding %q: want one of %v", o.Encoding, metrics.Encodings())
	}
	if o.Text != "" {
		if _, err := dom.ParseTextPolicy(string(o.Text)); err != nil {
			return fmt.Errorf("token budget: Text: %w", err)
		}
	}
	return nil
}

// ValidateBudgets checks a list of token budgets (crawl and bench
// --token-budget): each at least 1 token, none twice. An empty list means
// no budgeted rendering.
func ValidateBudgets(budgets []int64) error {
	for i, n := range budgets {
		if n < 1 {
			return fmt.Errorf("token budget %d: want at least 1 token", n)
		}
		if slices.Index(budgets, n) != i {
			return fmt.Errorf("token budget %d listed twice", n)
		}
	}
	return nil
}

// BudgetSpace is an action space fitted into a token budget.
//
// Its handles follow the unbudgeted rules: in the whole-page and grow
// stages the text is byte for byte the unbudgeted rendering at Expansion;
// in the dropping and cutting stages it is the unbudgeted viewport
// rendering (E = 0) with lines left out or shortened, and the IDs that
// remain are not renumbered, so every handle shown names the element it
// names in that rendering (a gap, B2 missing between B1 and B3, marks a
// dropped ID). Actions and Counts hold exactly the handles shown.
type BudgetSpace struct {
	Space
	// Budget is the token budget N (the token_budget column).
	Budget int64
	// Encoding is the encoding Budget and Tokens are counted in.
	Encoding metrics.Encoding
	// Tokens is the exact token count of Perception; never above Budget.
	Tokens int64
	// Expansion is the window reached, in CSS pixels (the
	// budget_expansion column): -1 when the whole page fitted, 0 when
	// even the viewport did not.
	Expansion int
	// Stage says how the budget was met.
	Stage BudgetStage
	// DroppedIDs and DroppedLines count the IDs and the lines (IDs and
	// context text) of the unbudgeted rendering at Expansion that are not
	// shown; both are 0 in the whole-page and grow stages.
	DroppedIDs, DroppedLines int
	// CutTexts counts the element texts and attribute values shown
	// shorter than the unbudgeted rendering shows them.
	CutTexts int
	// Kept are the capture node indexes of the elements that got a handle,
	// in document order: what recall against the oracle is measured on.
	Kept []int
}

// FitBudget renders the fast action space of a captured page that fits in
// budget tokens (see [FitBudgets] for the policy).
func FitBudget(t *dom.Tree, c *metrics.Counter, budget int64, opts BudgetOptions) (BudgetSpace, error) {
	out, err := FitBudgets(t, c, []int64{budget}, opts)
	if err != nil {
		return BudgetSpace{}, err
	}
	return out[0], nil
}

// FitBudgets renders, for each budget, the fast action space of a
// captured page that fits in that many tokens, counted exactly over the
// whole perception text; renders shared between budgets are counted once.
//
// The policy. When the whole page (E = -1) fits, it is the answer. When
// the viewport (E = 0) fits, the window grows: the views only change at
// the expansions where an element or text node enters the window
// ([dom.Tree.Expansions]), so a binary search over those expansions, each
// probe rendered and counted, finds the farthest one that fits, and the
// window is then taken to the last pixel before the next node enters when
// that still fits. When the viewport does not fit, its rendering loses, in
// this order and each only as far as needed (one binary search over the
// whole sequence): context lines, farthest from the viewport's centre
// first; then length, as element texts and attribute values are cut to
// fewer characters, down to MinCut; then IDs, farthest from the viewport's
// centre first. Lines are whole and in document order.
//
// Every search probes the same renders in the same order until the
// budgets disagree, and a larger budget then takes the larger side, so
// what a budget keeps grows with the budget: a larger window (views only
// gain nodes as the window grows), or fewer lines dropped. The exceptions
// are the unbudgeted rules' own: a label loses its ID when its control
// enters the window, and a modal dialog entering the window hides the page
// behind it.
func FitBudgets(t *dom.Tree, c *metrics.Counter, budgets []int64, opts BudgetOptions) ([]BudgetSpace, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if c == nil {
		return nil, errors.New("token budget: Counter is nil")
	}
	if opts.Text == "" {
		opts.Text = dom.TextViewport
	}
	f := &fitter{t: t, c: c, opts: opts, grown: map[int]int64{}, lost: map[int]int64{}}
	out := make([]BudgetSpace, 0, len(budgets))
	for _, n := range budgets {
		if n < 0 {
			return nil, fmt.Errorf("token budget %d is negative", n)
		}
		sp, err := f.fit(n)
		if err != nil {
			return nil, fmt.Errorf("fit %s into %d %s tokens: %w", t.Capture.Page.URL, n, opts.Encoding, err)
		}
		out = append(out, sp)
	}
	return out, nil
}

// fitter holds what the budgets of one page share: the candidate
// expansions, the viewport view and its drop orders, and the token counts
// of every render probed so far.
type fitter struct {
	t    *dom.Tree
	c    *metrics.Counter
	opts BudgetOptions
	// exps are the expansions where views change (nil until needed).
	exps []int
	// grown[E] is the token count of the unbudgeted rendering at E.
	grown map[int]int64
	// The viewport view and its losses, built on first need.
	vp *dom.View
	// textOrder and idOrder are the item indexes of vp's context lines
	// and IDs, farthest from the viewport's centre first.
	textOrder, idOrder []int
	// lost[s] is the token count of loss state s.
	lost map[int]int64
}

func (f *fitter) count(text string) (int64, error) {
	return f.c.Count(f.opts.Encoding, text)
}

func (f *fitter) view(e int) *dom.View {
	return f.t.Select(dom.Options{Expansion: e, Text: f.opts.Text})
}

// grownTokens counts the unbudgeted rendering at expansion e.
func (f *fitter) grownTokens(e int) (int64, error) {
	if n, ok := f.grown[e]; ok {
		return n, nil
	}
	v := f.view(e)
	var b strings.Builder
	writeLines(&b, v, nil, defaultCaps)
	n, err := f.count(perception(v, b.String()))
	if err != nil {
		return 0, err
	}
	f.grown[e] = n
	return n, nil
}

func (f *fitter) fit(budget int64) (BudgetSpace, error) {
	fits := func(e int) (bool, error) {
		n, err := f.grownTokens(e)
		return n <= budget, err
	}
	ok, err := fits(dom.WholePage)
	if err != nil {
		return BudgetSpace{}, err
	}
	if ok {
		return f.grownSpace(budget, dom.WholePage, StageWholePage), nil
	}
	if ok, err = fits(0); err != nil {
		return BudgetSpace{}, err
	}
	if !ok {
		return f.fitViewport(budget)
	}
	if f.exps == nil {
		f.exps = f.t.Expansions(f.opts.Text)
	}
	// exps[0] fits; past the end stands for "does not".
	lo, _, err := boundary(0, len(f.exps), true, func(k int) (bool, error) { return fits(f.exps[k]) })
	if err != nil {
		return BudgetSpace{}, err
	}
	// The same nodes stay in the window up to the pixel before the next
	// one enters (past the last, until the window covers the document);
	// only the wrapper's numbers change, so take the far end if it fits.
	e := f.exps[lo]
	far := max(e, f.t.CoverExpansion())
	if lo+1 < len(f.exps) {
		far = f.exps[lo+1] - 1
	}
	if far > e {
		ok, err := fits(far)
		if err != nil {
			return BudgetSpace{}, err
		}
		if ok {
			e = far
		}
	}
	return f.grownSpace(budget, e, StageGrow), nil
}

// grownSpace is the unbudgeted rendering at e as a budgeted result.
func (f *fitter) grownSpace(budget int64, e int, stage BudgetStage) BudgetSpace {
	v := f.view(e)
	var b strings.Builder
	writeLines(&b, v, nil, defaultCaps)
	out := BudgetSpace{Space: space(v, nil, b.String()), Budget: budget, Encoding: f.opts.Encoding,
		Tokens: f.grown[e], Expansion: e, Stage: stage}
	for _, it := range v.Items {
		if it.IsAction() {
			out.Kept = append(out.Kept, it.Node)
		}
	}
	return out
}

// Loss states of the viewport rendering, in the order they lose: state s
// drops the first min(s, C) context lines of textOrder; past C, cut level
// j = s-C (up to K = MaxText-MinCut) cuts texts and values to MaxText-j
// characters; past C+K, the first s-C-K IDs of idOrder are dropped.

// loss is one loss state spelled out.
type loss struct {
	show  []bool
	caps  caps
	stage BudgetStage
}

func (f *fitter) prepareViewport() {
	if f.vp != nil {
		return
	}
	f.vp = f.view(0)
	for k, it := range f.vp.Items {
		if it.IsAction() {
			f.idOrder = append(f.idOrder, k)
		} else {
			f.textOrder = append(f.textOrder, k)
		}
	}
	dist := make([]float64, len(f.vp.Items))
	for k, it := range f.vp.Items {
		dist[k] = f.t.CentreDistance(it.Node)
	}
	// Farthest first; at equal distance the later line goes first.
	far := func(a, b int) int {
		if c := cmp.Compare(dist[b], dist[a]); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	}
	slices.SortStableFunc(f.textOrder, far)
	slices.SortStableFunc(f.idOrder, far)
}

// states returns the number of the last loss state (everything dropped).
func (f *fitter) states() int {
	return len(f.textOrder) + (MaxText - MinCut) + len(f.idOrder)
}

func (f *fitter) loss(s int) loss {
	l := loss{show: make([]bool, len(f.vp.Items)), caps: defaultCaps, stage: StageDropText}
	for k := range l.show {
		l.show[k] = true
	}
	c, k := len(f.textOrder), MaxText-MinCut
	for _, i := range f.textOrder[:min(s, c)] {
		l.show[i] = false
	}
	if j := min(max(s-c, 0), k); j > 0 {
		n := MaxText - j
		l.caps = caps{text: n, attr: min(n, MaxAttrValue)}
		l.stage = StageCutText
	}
	if d := min(max(s-c-k, 0), len(f.idOrder)); d > 0 {
		for _, i := range f.idOrder[:d] {
			l.show[i] = false
		}
		l.stage = StageDropIDs
	}
	return l
}

// lossText renders loss state s: the action space and its cut count.
func (f *fitter) lossText(l loss) (string, int) {
	var b strings.Builder
	cuts := writeLines(&b, f.vp, l.show, l.caps)
	return b.String(), cuts
}

func (f *fitter) lossTokens(s int) (int64, error) {
	if n, ok := f.lost[s]; ok {
		return n, nil
	}
	text, _ := f.lossText(f.loss(s))
	n, err := f.count(perception(f.vp, text))
	if err != nil {
		return 0, err
	}
	f.lost[s] = n
	return n, nil
}

// fitViewport finds the least loss of the viewport rendering that fits.
func (f *fitter) fitViewport(budget int64) (BudgetSpace, error) {
	f.prepareViewport()
	fits := func(s int) (bool, error) {
		n, err := f.lossTokens(s)
		return n <= budget, err
	}
	last := f.states()
	if ok, err := fits(last); err != nil || !ok {
		if err != nil {
			return BudgetSpace{}, err
		}
		return BudgetSpace{Budget: budget, Encoding: f.opts.Encoding, Stage: StageEmpty,
			Space:      Space{Counts: map[byte]int{}},
			DroppedIDs: len(f.idOrder), DroppedLines: len(f.vp.Items)}, nil
	}
	// State 0 (the whole viewport) does not fit; the last state does.
	_, hi, err := boundary(0, last, false, fits)
	if err != nil {
		return BudgetSpace{}, err
	}
	l := f.loss(hi)
	text, cuts := f.lossText(l)
	out := BudgetSpace{Space: space(f.vp, l.show, text), Budget: budget, Encoding: f.opts.Encoding,
		Tokens: f.lost[hi], Expansion: 0, Stage: l.stage, CutTexts: cuts}
	for k, it := range f.vp.Items {
		switch {
		case l.show[k] && it.IsAction():
			out.Kept = append(out.Kept, it.Node)
		case !l.show[k]:
			out.DroppedLines++
			if it.IsAction() {
				out.DroppedIDs++
			}
		}
	}
	return out, nil
}

// boundary is the binary search of budget fitting: given lo < hi, where
// the probe gives loFits at lo and the opposite at hi (hi itself is never
// probed, so it may stand for "past the end"), it narrows them to
// neighbours with the same property and returns them. Probes are made in
// a fixed order that depends only on the answers, so a larger budget,
// whose answers differ only from "no" to "yes", ends on the side of more
// kept.
func boundary(lo, hi int, loFits bool, fits func(int) (bool, error)) (int, int, error) {
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		ok, err := fits(mid)
		if err != nil {
			return 0, 0, err
		}
		if ok == loFits {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, hi, nil
}
