package space

import (
	"context"
	"testing"

	"actionspace/dom"
	"actionspace/metrics"
)

// TestRender_Only: on every corpus page, an element filter's recall
// against the filtered oracle is measured beside the recall against all
// of it: the filter's own recall is that of the plain rendering on the
// kept kinds, and the full recall never rises; without a filter the
// column stays null. The strategy columns say what was rendered.
func TestRender_Only(t *testing.T) {
	meter, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	modes := Renderers{ModeFast: Fast{}}
	filters := 0
	for _, s := range storedPages(t) {
		page := decodeStored(t, s)
		plain := Setting{Format: FormatActionSpace, Mode: ModeFast, Options: dom.Options{Expansion: dom.WholePage}}
		only := plain
		only.Options.Only = "links+buttons"
		rp, err := page.Render(ctx, plain, modes)
		if err != nil {
			t.Fatal(err)
		}
		ro, err := page.Render(ctx, only, modes)
		if err != nil {
			t.Fatal(err)
		}
		mp, _ := meter.Measure(ctx, rp, Tokens{})
		mo, _ := meter.Measure(ctx, ro, Tokens{})
		if mp.RecallFiltered != nil {
			t.Errorf("%s: recall_filtered %v without a filter", s.name, *mp.RecallFiltered)
		}
		if ro.OnlyScore == nil || ro.OnlyScore.InWindow == 0 {
			continue
		}
		filters++
		// The plain rendering's recall on the kept kinds.
		want := page.Oracle.ScoreFilter(page.Tree.Window(dom.WholePage), rp.Handled, "links+buttons")
		if mo.RecallFiltered == nil || ro.OnlyScore.Handled != want.Handled || ro.OnlyScore.InWindow != want.InWindow {
			t.Errorf("%s: filtered score %+v, the plain rendering's on links and buttons %+v", s.name, ro.OnlyScore, want)
		}
		if *mo.Recall > *mp.Recall {
			t.Errorf("%s: the filter raised the full recall: %v > %v", s.name, *mo.Recall, *mp.Recall)
		}
		cols := only.Columns(false)
		if *cols.ElementFilter != "links+buttons" || *cols.Layout != "none" || *cols.GroupMinRun != 0 {
			t.Errorf("%s: strategy columns %v %v %v", s.name, *cols.GroupMinRun, *cols.Layout, *cols.ElementFilter)
		}
	}
	if filters == 0 {
		t.Fatal("no corpus page has a link or button in the oracle")
	}
	if c := (Setting{Format: FormatAXTree}).Columns(false); c.GroupMinRun != nil || c.Layout != nil || c.ElementFilter != nil {
		t.Errorf("axtree has strategy columns")
	}
}

// TestRender_SalientText: on every corpus page and window, the salient
// text policy carries as much salient text as the viewport policy, in
// no more tokens, and no less than none; on some page it is strictly
// between the two in tokens, and on some it carries more salient text
// than the viewport policy, whose context lines are cut at 120
// characters. Under an open modal dialog (the cookie page) the salient
// policy keeps the salient text behind the dialog, which the viewport
// policy leaves out: there it carries strictly more salient text, and
// may cost more tokens.
func TestRender_SalientText(t *testing.T) {
	meter, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	between, better, modal := 0, 0, 0
	for _, s := range storedPages(t) {
		page := decodeStored(t, s)
		for _, e := range []int{0, dom.WholePage} {
			measure := func(text dom.TextPolicy) (tokens int64, salient float64) {
				set := Setting{Format: FormatActionSpace, Mode: ModeFast, Options: dom.Options{Expansion: e, Text: text}}
				r, err := page.Render(ctx, set, Renderers{ModeFast: Fast{}})
				if err != nil {
					t.Fatal(err)
				}
				m, err := meter.Measure(ctx, r, Tokens{})
				if err != nil {
					t.Fatal(err)
				}
				page.Quality(&m, r, e)
				if m.SalientRecall == nil {
					return *m.TokensCL100K, -1
				}
				return *m.TokensCL100K, *m.SalientRecall
			}
			tn, sn := measure(dom.TextNone)
			ts, ss := measure(dom.TextSalient)
			tv, sv := measure(dom.TextViewport)
			behind := page.Tree.Select(dom.Options{Expansion: e, Text: dom.TextSalient}).Modal
			if behind {
				modal++
			}
			if ss < sv || (ts > tv && !behind) || ts < tn || ss < sn || (behind && ss <= sv) {
				t.Errorf("%s E=%d (modal %v): tokens none %d, salient %d, viewport %d; salient recall %.3f, %.3f, %.3f", s.name, e, behind, tn, ts, tv, sn, ss, sv)
			}
			if tn < ts && ts < tv {
				between++
			}
			if ss > sv {
				better++ // a price deep in a paragraph the viewport policy cuts
			}
		}
	}
	if between == 0 {
		t.Error("the salient policy never lies strictly between none and viewport")
	}
	if better == 0 {
		t.Error("the salient policy never carries more salient text than the viewport policy (the article's price in a long paragraph)")
	}
	if modal == 0 {
		t.Error("no corpus page has a modal dialog open (the cookie page's)")
	}
}
