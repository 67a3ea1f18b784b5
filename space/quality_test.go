package space

import (
	"context"
	"math"
	"testing"

	"actionspace/axtree"
	"actionspace/dataset"
	"actionspace/dom"
)

// qualityPage is a hand-made page: a heading, a Pay button with a price,
// a Cancel button the capture found covered, an alert and, far below the
// screen, a Terms link. Its accessibility record has the three controls;
// probe, when not nil, is its actionable-now probe.
func qualityPage(t *testing.T, probe *axtree.Probe) *Page {
	t.Helper()
	el := func(parent int, tag string, y float64, signals []string, attrs ...string) dom.Node {
		n := dom.Node{Kind: dom.ElementNode, Parent: parent, Tag: tag, Rect: dom.Rect{10, y, 200, 20}, Visible: true, Signals: signals, Block: 1}
		for i := 0; i+1 < len(attrs); i += 2 {
			n.Attrs = append(n.Attrs, [2]string{attrs[i], attrs[i+1]})
		}
		return n
	}
	text := func(parent int, s string, y float64) dom.Node {
		return dom.Node{Kind: dom.TextNode, Parent: parent, Text: s, Rect: dom.Rect{10, y, 100, 20}, Visible: true}
	}
	covered := 0
	c := &dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{ViewportWidth: 1000, ViewportHeight: 500, DocWidth: 1000, DocHeight: 3000},
		Nodes: []dom.Node{
			{Kind: dom.ElementNode, Parent: -1, Tag: "html", Block: 1, Visible: true, Rect: dom.Rect{0, 0, 1000, 3000}}, // 0
			el(0, "body", 0, nil),                           // 1
			el(1, "h1", 10, nil),                            // 2
			text(2, "Checkout", 10),                         // 3
			el(1, "button", 40, []string{"tag"}),            // 4
			text(4, "Pay $19.99", 40),                       // 5
			el(1, "button", 70, []string{"tag"}),            // 6
			text(6, "Cancel", 70),                           // 7
			el(1, "a", 2000, []string{"tag"}, "href", "/t"), // 8
			text(8, "Terms", 2000),                          // 9
			el(1, "p", 100, nil, "role", "alert"),           // 10
			text(10, "Card declined", 100),                  // 11
		}}
	c.Nodes[6].Topmost = &covered
	box := func(y float64) *dom.Rect { return &dom.Rect{10, y, 200, 20} }
	rec := &axtree.Record{Version: axtree.Version,
		Frames: []axtree.Frame{{ID: "main", Parent: -1, Owner: -1, Root: 0}},
		Nodes: []axtree.Node{
			{Parent: -1, Role: "RootWebArea", Capture: -1},
			{Parent: 0, Role: "button", Name: "Pay $19.99", Tag: "button", Box: box(40), Capture: 4},
			{Parent: 0, Role: "button", Name: "Cancel", Tag: "button", Box: box(70), Capture: 6},
			{Parent: 0, Role: "link", Name: "Terms", Tag: "a", Box: box(2000), Capture: 8},
		},
		Probe: probe}
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	return NewPage(dom.NewTree(c), rec, nil, "<h1>Checkout</h1><button>Pay $19.99</button><button>Cancel</button><a href=/t>Terms</a><p role=alert>Card declined</p>")
}

// TestPage_Quality: actionable recall counts only the elements the probe
// found reachable (the covered Cancel button, which the action space
// leaves out, is no loss; the untested Terms link is not counted); text
// coverage is the share of the window's visible words the text carries;
// salient recall the share of its headings, prices and alerts found
// verbatim.
func TestPage_Quality(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	probe := &axtree.Probe{Mode: axtree.ProbeViewport, Candidates: 2, Hits: []axtree.Hit{
		{Node: 1, Reached: &yes}, {Node: 2, Reached: &no, Tag: "div", Role: "dialog"}}}
	page := qualityPage(t, probe)
	ctx := context.Background()
	type want struct {
		recall, actionable, coverage, salient float64
		actionableIn, salientIn               int64
	}
	for _, c := range []struct {
		name string
		s    Setting
		want want
	}{
		// Screen words: checkout pay 19 99 cancel card declined (7);
		// the text of none has pay 19 99: 3/7. Salient on screen:
		// Checkout, $19.99, Card declined: 1 found.
		{"none E=0", Setting{Format: FormatActionSpace, Mode: ModeFast, Options: dom.Options{Expansion: 0, Text: dom.TextNone}},
			want{recall: 0.5, actionable: 1, coverage: 3.0 / 7, salient: 1.0 / 3, actionableIn: 1, salientIn: 3}},
		{"viewport E=0", Setting{Format: FormatActionSpace, Mode: ModeFast, Options: dom.Options{Expansion: 0, Text: dom.TextViewport}},
			want{recall: 0.5, actionable: 1, coverage: 1, salient: 1, actionableIn: 1, salientIn: 3}},
		// The whole page adds Terms (a word, and an oracle element the
		// probe did not test).
		{"none E=-1", Setting{Format: FormatActionSpace, Mode: ModeFast, Options: dom.Options{Expansion: dom.WholePage, Text: dom.TextNone}},
			want{recall: 2.0 / 3, actionable: 1, coverage: 4.0 / 8, salient: 1.0 / 3, actionableIn: 1, salientIn: 3}},
	} {
		r, err := page.Render(ctx, c.s, Renderers{ModeFast: Fast{}})
		if err != nil {
			t.Fatal(err)
		}
		var sm dataset.SpaceMetrics
		sm.Recall = nil
		if s := r.Score; s != nil {
			rec, _ := s.Recall()
			sm.Recall = &rec
		}
		page.Quality(&sm, r, c.s.WindowExpansion())
		check := func(name string, got *float64, want float64) {
			if got == nil || math.Abs(*got-want) > 1e-9 {
				t.Errorf("%s: %s = %v, want %v", c.name, name, ptrString(got), want)
			}
		}
		check("recall", sm.Recall, c.want.recall)
		check("actionable_recall", sm.ActionableRecall, c.want.actionable)
		check("text_coverage", sm.TextCoverage, c.want.coverage)
		check("salient_recall", sm.SalientRecall, c.want.salient)
		if sm.ActionableInWindow == nil || *sm.ActionableInWindow != c.want.actionableIn || sm.SalientInWindow == nil || *sm.SalientInWindow != c.want.salientIn {
			t.Errorf("%s: actionable_in_window %v, salient_in_window %v", c.name, ptrString(sm.ActionableInWindow), ptrString(sm.SalientInWindow))
		}
		if sm.ActionableProbe != axtree.ProbeViewport || sm.ActionableSkipped != "" || sm.TextCoverageSkipped != "" || sm.SalientSkipped != "" {
			t.Errorf("%s: probe %q, reasons %q %q %q", c.name, sm.ActionableProbe, sm.ActionableSkipped, sm.TextCoverageSkipped, sm.SalientSkipped)
		}
	}

	// html: no handles, so no actionable recall; all its words.
	r, err := page.Render(ctx, Setting{Format: FormatHTML}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sm dataset.SpaceMetrics
	page.Quality(&sm, r, dom.WholePage)
	if sm.ActionableRecall != nil || sm.ActionableSkipped != dataset.SkippedNotApplicable || sm.TextCoverage == nil || *sm.TextCoverage != 1 || sm.SalientRecall == nil || *sm.SalientRecall != 1 {
		t.Errorf("html: actionable %v (%q), coverage %v, salient %v", ptrString(sm.ActionableRecall), sm.ActionableSkipped, ptrString(sm.TextCoverage), ptrString(sm.SalientRecall))
	}
	// A dry run has no text; a page without probe no actionable recall.
	sm = dataset.SpaceMetrics{}
	page.Quality(&sm, Rendered{NoText: true, Handled: make([]bool, 3)}, 0)
	if sm.TextCoverageSkipped != dataset.SkippedNoText || sm.SalientSkipped != dataset.SkippedNoText || sm.ActionableRecall == nil {
		t.Errorf("dry run: %q %q, actionable %v", sm.TextCoverageSkipped, sm.SalientSkipped, ptrString(sm.ActionableRecall))
	}
	sm = dataset.SpaceMetrics{}
	qualityPage(t, nil).Quality(&sm, r, dom.WholePage)
	if sm.ActionableSkipped != dataset.SkippedNotProbed || sm.ActionableInWindow != nil || sm.ActionableProbe != "" {
		t.Errorf("no probe: %q, in window %v, probe %q", sm.ActionableSkipped, ptrString(sm.ActionableInWindow), sm.ActionableProbe)
	}
	sm = dataset.SpaceMetrics{}
	noOracle := NewPage(page.Tree, nil, nil, page.HTML)
	noOracle.Quality(&sm, r, dom.WholePage)
	if sm.ActionableSkipped != dataset.SkippedNoOracle {
		t.Errorf("no oracle: %q", sm.ActionableSkipped)
	}
}

func TestWords(t *testing.T) {
	t.Parallel()
	var got []string
	Words("Sign-in. Ünïcode  café, $19.99 — ok", func(w string) { got = append(got, w) })
	want := []string{"sign", "in", "ünïcode", "café", "19", "99", "ok"}
	if len(got) != len(want) {
		t.Fatalf("words %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("words %q, want %q", got, want)
		}
	}
	cov, ok := Coverage(map[string]int{"a": 2, "b": 1, "c": 1}, "A a a b")
	if !ok || cov != 0.75 {
		t.Errorf("coverage %v %v, want 0.75 (a twice of twice, b once)", cov, ok)
	}
	if _, ok := Coverage(map[string]int{}, "x"); ok {
		t.Error("coverage of no words is defined")
	}
}

// TestPage_Tables_Probe: the oracle rows carry the probe's answer, the
// covering element of a covered one, and why the others have none.
func TestPage_Tables_Probe(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	page := qualityPage(t, &axtree.Probe{Mode: axtree.ProbeViewport, Candidates: 2, Hits: []axtree.Hit{
		{Node: 1, Reached: &yes}, {Node: 2, Reached: &no, Tag: "div", Role: "dialog"}}})
	_, rows := page.Tables("run", "page", "http://x/")
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = ptrString(r.Actionable) + "|" + r.ActionableSkipped + "|" + ptrString(r.CoveringTag) + "|" + ptrString(r.CoveringRole)
	}
	want := []string{"true||null|null", "false||div|dialog", "null|" + NotCandidate + "|null|null"}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
	_, rows = qualityPage(t, nil).Tables("run", "page", "http://x/")
	for _, r := range rows {
		if r.Actionable != nil || r.ActionableSkipped != dataset.SkippedNotProbed {
			t.Errorf("no probe: element %d actionable %v (%q)", r.Element, ptrString(r.Actionable), r.ActionableSkipped)
		}
	}
}
