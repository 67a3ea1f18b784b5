package space

import (
	"strings"
	"unicode"

	"actionspace/dataset"
	"actionspace/dom"
)

// Quality sets the measures of what a rendered space is worth to an
// agent besides its recall, for the space r rendered in the window of
// expansion e (dom.WholePage for html and cut-from-the-end baselines):
// its recall against the actionable-now oracle (the oracle elements the
// page's probe found a pointer event reaches; r.Handled says which got a
// handle), the share of the window's visible words its text carries, and
// the share of the window's salient texts it carries verbatim. Each
// measure that cannot be taken is null with its reason (see the
// *_skipped columns of dataset.SpaceMetrics).
func (p *Page) Quality(sm *dataset.SpaceMetrics, r Rendered, e int) {
	p.actionable(sm, r, e)
	if r.NoText {
		sm.TextCoverageSkipped, sm.SalientSkipped = dataset.SkippedNoText, dataset.SkippedNoText
		return
	}
	text := r.ActionSpace
	if cov, ok := Coverage(p.VisibleWords(e), text); ok {
		sm.TextCoverage = ptr(cov)
	} else {
		sm.TextCoverageSkipped = dataset.SkippedNoneInWindow
	}
	sal := p.salient()
	sm.SalientCapped = sal.Capped
	collapsed := dom.CollapseSpace(text)
	var in, found int64
	for _, it := range sal.Items {
		if !it.InWindow(p.Tree, e) {
			continue
		}
		in++
		if it.In(collapsed) {
			found++
		}
	}
	sm.SalientInWindow = ptr(in)
	if in == 0 {
		sm.SalientSkipped = dataset.SkippedNoneInWindow
		return
	}
	sm.SalientRecall = ptr(float64(found) / float64(in))
}

// WindowExpansion is the expansion of the window s renders in: its own,
// the whole page for html (which has no other window).
func (s Setting) WindowExpansion() int {
	if s.Format == FormatHTML {
		return dom.WholePage
	}
	return s.Options.Expansion
}

// QualityFailed sets the reasons of a space that could not be rendered
// (a token budget that could not be fitted): every measure of Quality is
// null, "failed".
func QualityFailed(sm *dataset.SpaceMetrics) {
	sm.ActionableSkipped, sm.TextCoverageSkipped, sm.SalientSkipped = dataset.SkippedFailed, dataset.SkippedFailed, dataset.SkippedFailed
}

// actionable sets the actionable-now columns.
func (p *Page) actionable(sm *dataset.SpaceMetrics, r Rendered, e int) {
	switch {
	case p.Oracle == nil:
		sm.ActionableSkipped = dataset.SkippedNoOracle
		return
	case p.Oracle.Probe() == "":
		sm.ActionableSkipped = dataset.SkippedNotProbed
		return
	}
	sm.ActionableProbe = p.Oracle.Probe()
	if r.Format == FormatHTML {
		sm.ActionableSkipped = dataset.SkippedNotApplicable
		return
	}
	s, _ := p.Oracle.Actionable(p.Tree.Window(e), r.Handled)
	sm.ActionableInWindow = ptr(int64(s.InWindow))
	rec, ok := s.Recall()
	if !ok {
		sm.ActionableSkipped = dataset.SkippedNoneInWindow
		return
	}
	sm.ActionableRecall = ptr(rec)
}

// salient returns the page's salient texts, found once.
func (p *Page) salient() dom.SalientTexts {
	p.salientOnce.Do(func() { p.salientTexts = dom.Salient(p.Tree) })
	return p.salientTexts
}

// VisibleWords returns the words of the page's visible text in the
// window of expansion e: the capture's rendered text nodes whose box
// meets it (Tree.NodeInWindow), cut into words by Words.
func (p *Page) VisibleWords(e int) map[string]int {
	nodes := p.Tree.Capture.Nodes
	bag := map[string]int{}
	for i := range nodes {
		nd := &nodes[i]
		if nd.Kind != dom.TextNode || !nd.Visible || !p.Tree.NodeInWindow(i, e) {
			continue
		}
		Words(nd.Text, func(w string) { bag[w]++ })
	}
	return bag
}

// Words calls each with every word of s, in order: a run of letters,
// marks and digits, lower-cased. Punctuation, symbols and white space
// separate words, so "Sign-in." and "sign in" have the same words.
func Words(s string, each func(w string)) {
	start := -1
	for i, r := range s {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			each(strings.ToLower(s[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		each(strings.ToLower(s[start:]))
	}
}

// Coverage is the share of the words of page (a multiset) that text
// carries: the sum over words of the smaller of the two counts, over the
// page's total. ok is false when page has no words.
func Coverage(page map[string]int, text string) (float64, bool) {
	total := 0
	for _, n := range page {
		total += n
	}
	if total == 0 {
		return 0, false
	}
	have := make(map[string]int, len(page))
	Words(text, func(w string) {
		if _, ok := page[w]; ok {
			have[w]++
		}
	})
	covered := 0
	for w, n := range page {
		covered += min(n, have[w])
	}
	return float64(covered) / float64(total), true
}
