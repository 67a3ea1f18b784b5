package space

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/oracle"
)

// storedDir holds the stored corpus page states (tools/goldens).
const storedDir = "../render/testdata"

// stored is one stored corpus page: its name and the records as the
// blobs table holds them (json+zstd).
type stored struct {
	name                        string
	capture, axTree, aiSnapshot []byte
	html                        string
}

// storedPages reads every stored corpus page state.
func storedPages(t testing.TB) []stored {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(storedDir, "*", "axtree.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 14 {
		t.Fatalf("found %d stored page states in %s, want one per corpus page (14); run `make goldens`", len(dirs), storedDir)
	}
	var out []stored
	for _, p := range dirs {
		dir := filepath.Dir(p)
		s := stored{name: filepath.Base(dir), html: string(gunzip(t, filepath.Join(dir, "page.html.gz")))}
		for file, dst := range map[string]*[]byte{"capture.json.gz": &s.capture, "axtree.json.gz": &s.axTree, "aisnapshot.json.gz": &s.aiSnapshot} {
			packed, err := dataset.CompressCapture(gunzip(t, filepath.Join(dir, file)))
			if err != nil {
				t.Fatal(err)
			}
			*dst = packed
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b stored) int { return strings.Compare(a.name, b.name) })
	return out
}

func gunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}

func decodeStored(t testing.TB, s stored) *Page {
	t.Helper()
	p, err := DecodePage(s.capture, s.axTree, s.aiSnapshot, s.html)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	return p
}

// fixedSettings are the settings of the matrix of every format, fast
// mode, the viewport text policy and expansions.
func fixedSettings(expansions ...int) []Setting {
	var out []Setting
	for _, c := range (Matrix{Formats: Formats(), Modes: []string{ModeFast}, Expansions: expansions, Texts: []dom.TextPolicy{dom.TextViewport}}).Cells() {
		out = append(out, c.Setting)
	}
	return out
}

func TestParseFormats(t *testing.T) {
	got, err := ParseFormats(" axtree,actionspace ")
	if err != nil || !slices.Equal(got, []string{FormatAXTree, FormatActionSpace}) {
		t.Errorf("ParseFormats = %v, %v", got, err)
	}
	for _, bad := range []string{"", "axtree,axtree", "markdown", "html,"} {
		if _, err := ParseFormats(bad); err == nil {
			t.Errorf("ParseFormats(%q): no error", bad)
		}
	}
	if ax, snap := Records([]string{FormatActionSpace, FormatHTML}); ax || snap {
		t.Errorf("Records(actionspace, html) = %v, %v; want neither", ax, snap)
	}
	if ax, snap := Records(Formats()); !ax || !snap {
		t.Errorf("Records(all) = %v, %v; want both", ax, snap)
	}
}

// TestPage_Render_Corpus renders every stored corpus page in every format
// at the golden expansions and measures it: the texts of playwright-ai and
// axtree are the golden renderings, actionspace's recall is the oracle's
// own scoring of the view, the handles and handled elements agree with the
// score, and html has one window, no handles and no recall.
func TestPage_Render_Corpus(t *testing.T) {
	meter, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	settings := fixedSettings(0, 500, dom.WholePage)
	for _, s := range storedPages(t) {
		page := decodeStored(t, s)
		for _, set := range settings {
			r, err := page.Render(ctx, set, Renderers{ModeFast: Fast{}})
			if err != nil {
				t.Fatalf("%s %+v: %v", s.name, set, err)
			}
			m, err := meter.Measure(context.Background(), r, Tokens{})
			if err != nil {
				t.Fatal(err)
			}
			where := fmt.Sprintf("%s %s E=%d", s.name, set.Format, set.Options.Expansion)
			if r.Score == nil || m.OracleInWindow == nil || *m.OracleInWindow != int64(r.Score.InWindow) ||
				m.ExtraHandles == nil || *m.ExtraHandles != int64(r.Score.Extra) {
				t.Fatalf("%s: score %+v, metrics in window %v extra %v", where, r.Score, ptrString(m.OracleInWindow), ptrString(m.ExtraHandles))
			}
			if m.ActionCount != int64(r.Handles) || r.Score.Handles != r.Handles {
				t.Errorf("%s: action_count %d, handles %d, scored %d", where, m.ActionCount, r.Handles, r.Score.Handles)
			}
			win := page.Tree.Window(set.Options.Expansion)
			switch set.Format {
			case FormatActionSpace:
				want := page.Oracle.View(page.Tree.Select(set.Options)).Score
				if *r.Score != want {
					t.Errorf("%s: score %+v, oracle.View %+v", where, *r.Score, want)
				}
				if m.PerceptionTokensCL100K == nil || m.PerceptionBytes == 0 {
					t.Errorf("%s: no perception text measured", where)
				}
			case FormatHTML:
				if r.ActionSpace != s.html || m.Recall != nil || r.Handles != 0 || *m.ExtraHandles != 0 || set.Options.Expansion != dom.WholePage {
					t.Errorf("%s: %d bytes, recall %v, %d handles, %d extra", where, len(r.ActionSpace), ptrString(m.Recall), r.Handles, *m.ExtraHandles)
				}
			default:
				golden, err := os.ReadFile(filepath.Join(storedDir, s.name, set.Format+"_E"+strconv.Itoa(set.Options.Expansion)+".txt"))
				if err != nil {
					t.Fatal(err)
				}
				if r.ActionSpace != string(golden) {
					t.Errorf("%s: text differs from the golden rendering", where)
				}
				if m.PerceptionBytes != 0 || m.PerceptionTokensCL100K != nil || len(r.Actions) != 0 {
					t.Errorf("%s: perception %d bytes, %v tokens, %d actions; want none", where, m.PerceptionBytes, ptrString(m.PerceptionTokensCL100K), len(r.Actions))
				}
			}
			if set.Format == FormatHTML {
				continue
			}
			handled := 0
			for k, h := range r.Handled {
				if h && page.Oracle.Elements[k].Box.Intersects(win) {
					handled++
				}
			}
			if len(r.Handled) != len(page.Oracle.Elements) || handled != r.Score.Handled {
				t.Errorf("%s: %d handled in the window by Handled, %d by the score", where, handled, r.Score.Handled)
			}
			if rec, ok := r.Score.Recall(); ok != (m.Recall != nil) || (ok && rec != *m.Recall) {
				t.Errorf("%s: recall %v, metrics %v", where, rec, ptrString(m.Recall))
			}
		}
	}
}

// TestPage_Render_Known pins the recall of each format on two pages whose
// misses are known: widgets (a button our rules find hidden and one with a
// not-allowed cursor, which they find disabled; seven extra handles, on
// elements with a handler or a pointer cursor) and cookie (a modal dialog
// keeps five of 47 oracle elements).
func TestPage_Render_Known(t *testing.T) {
	meter, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"widgets actionspace E=-1":   "in window 24, recall 0.9167, extra 7, handles 29",
		"widgets playwright-ai E=-1": "in window 24, recall 1.0000, extra 89, handles 113",
		"widgets axtree E=-1":        "in window 24, recall 1.0000, extra 40, handles 64",
		"widgets html E=-1":          "in window 24, recall null, extra 0, handles 0",
		"cookie actionspace E=0":     "in window 26, recall 0.1923, extra 0, handles 5",
		"cookie actionspace E=-1":    "in window 47, recall 0.1064, extra 0, handles 5",
	}
	got := map[string]string{}
	for _, s := range storedPages(t) {
		if s.name != "widgets" && s.name != "cookie" {
			continue
		}
		page := decodeStored(t, s)
		for _, set := range fixedSettings(0, dom.WholePage) {
			key := fmt.Sprintf("%s %s E=%d", s.name, set.Format, set.Options.Expansion)
			if _, ok := want[key]; !ok {
				continue
			}
			r, err := page.Render(context.Background(), set, Renderers{ModeFast: Fast{}})
			if err != nil {
				t.Fatal(err)
			}
			m, _ := meter.Measure(context.Background(), r, Tokens{})
			rec := "null"
			if m.Recall != nil {
				rec = strconv.FormatFloat(*m.Recall, 'f', 4, 64)
			}
			got[key] = fmt.Sprintf("in window %d, recall %s, extra %d, handles %d", *m.OracleInWindow, rec, *m.ExtraHandles, m.ActionCount)
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s:\n got %s\nwant %s", k, got[k], w)
		}
	}
}

// TestPage_NoOracle: a page without the accessibility tree has no oracle:
// actionspace and html render with null recall columns; axtree and
// playwright-ai are not there to render.
func TestPage_NoOracle(t *testing.T) {
	s := storedPages(t)[0]
	page, err := DecodePage(s.capture, nil, nil, s.html)
	if err != nil {
		t.Fatal(err)
	}
	meter, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	if page.Oracle != nil || page.Has(FormatAXTree) || page.Has(FormatPlaywrightAI) || !page.Has(FormatHTML) || !page.Has(FormatActionSpace) {
		t.Fatalf("oracle %v, has axtree %v, playwright-ai %v", page.Oracle, page.Has(FormatAXTree), page.Has(FormatPlaywrightAI))
	}
	for _, set := range []Setting{{Format: FormatActionSpace, Mode: ModeFast}, {Format: FormatHTML, Options: dom.Options{Expansion: dom.WholePage}}} {
		r, err := page.Render(context.Background(), set, Renderers{ModeFast: Fast{}})
		if err != nil {
			t.Fatal(err)
		}
		m, _ := meter.Measure(context.Background(), r, Tokens{})
		if m.OracleInWindow != nil || m.Recall != nil || m.ExtraHandles != nil || r.Handled != nil {
			t.Errorf("%s without an oracle: in window %v, recall %v, extra %v", set.Format, ptrString(m.OracleInWindow), ptrString(m.Recall), ptrString(m.ExtraHandles))
		}
	}
	if _, err := page.Render(context.Background(), Setting{Format: FormatAXTree}, nil); err == nil {
		t.Errorf("axtree without its record: no error")
	}
	if _, err := page.Render(context.Background(), Setting{Format: FormatActionSpace, Mode: ModeDeep}, Renderers{ModeFast: Fast{}}); err == nil {
		t.Errorf("deep mode without its renderer: no error")
	}
}

// TestPage_Tables: on every stored corpus page, the elements rows hold
// every element interactive by our rules, and from their columns alone
// the rule of examples/queries.sql (within outside_px, neither occluded
// nor nested, no label whose control has an ID, only the modal's when one
// has an ID) gives each window's IDs; the oracle rows' misses and the
// elements' extra handles at the whole page are the oracle's own.
func TestPage_Tables(t *testing.T) {
	outside := map[string]int{} // oracle elements outside the whole page, by miss reason
	defer func() {
		if got, want := fmt.Sprint(outside), "map[outside_window:104]"; got != want {
			t.Errorf("oracle elements outside the whole-page window by miss reason: %s, want %s", got, want)
		}
	}()
	for _, s := range storedPages(t) {
		page := decodeStored(t, s)
		elements, oracleRows := page.Tables("r", "p", "u")
		interactive := 0
		for i := range page.Tree.Capture.Nodes {
			if page.Tree.Interactive(i) {
				interactive++
			}
		}
		if len(elements) != interactive || len(oracleRows) != len(page.Oracle.Elements) {
			t.Fatalf("%s: %d elements rows for %d interactive, %d oracle rows for %d elements",
				s.name, len(elements), interactive, len(oracleRows), len(page.Oracle.Elements))
		}
		for _, e := range []int{0, 1, 250, 500, 1000, 5000} {
			v := page.Tree.Select(dom.Options{Expansion: e})
			var want []int64
			for _, it := range v.Items {
				if it.IsAction() {
					want = append(want, int64(it.Node))
				}
			}
			if got := idsFromRows(elements, e); !slices.Equal(got, want) {
				t.Errorf("%s E=%d: the elements rows give IDs to %v, the view to %v", s.name, e, got, want)
			}
		}
		res := page.Oracle.View(page.Tree.Select(dom.Options{Expansion: dom.WholePage}))
		misses := map[string]int{}
		for _, r := range oracleRows {
			if r.RunID != "r" || r.PageID != "p" || r.URL != "u" {
				t.Fatalf("%s: oracle row keyed %q %q %q", s.name, r.RunID, r.PageID, r.URL)
			}
			if r.MissReason != nil && r.InWholePage {
				misses[*r.MissReason]++
			}
			if !r.InWholePage {
				outside[ptrString(r.MissReason)]++
			}
		}
		wantMisses := map[string]int{}
		for _, m := range res.Misses {
			wantMisses[m.Reason]++
		}
		if fmt.Sprint(misses) != fmt.Sprint(wantMisses) {
			t.Errorf("%s: misses by reason %v, oracle.View %v", s.name, misses, wantMisses)
		}
		extras := map[string]int{}
		for _, r := range elements {
			if r.WholePageID != nil && r.ExtraReason != nil {
				extras[*r.ExtraReason]++
			}
			if (r.OracleElement == nil) == (r.ExtraReason == nil) {
				t.Errorf("%s: element %d has oracle element %v and extra reason %v", s.name, r.Element, ptrString(r.OracleElement), ptrString(r.ExtraReason))
			}
		}
		wantExtras := map[string]int{}
		for _, x := range res.Extras {
			wantExtras[x.Reason]++
		}
		if fmt.Sprint(extras) != fmt.Sprint(wantExtras) {
			t.Errorf("%s: extra handles by reason %v, oracle.View %v", s.name, extras, wantExtras)
		}
	}
}

// idsFromRows applies, to elements rows alone, the rule a window of
// expansion e gives IDs by (the one examples/queries.sql writes in SQL),
// and returns the elements that get one.
func idsFromRows(rows []dataset.ElementRow, e int) []int64 {
	in := map[int64]bool{}
	for _, r := range rows {
		if r.OutsidePX != nil && *r.OutsidePX <= int64(e) && !r.Occluded && !r.Nested {
			in[r.Element] = true
		}
	}
	var kept []dataset.ElementRow
	modal := false
	for _, r := range rows {
		if !in[r.Element] || (r.LabelFor != nil && in[*r.LabelFor]) {
			continue
		}
		kept = append(kept, r)
		modal = modal || r.InModal
	}
	var out []int64
	for _, r := range kept {
		if r.InModal || !modal {
			out = append(out, r.Element)
		}
	}
	return out
}

// TestMeasure_Formats: the Meter's recall columns for a hand-made score.
func TestMeasure_Formats(t *testing.T) {
	meter, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		r                       Rendered
		inWindow, recall, extra string
	}{
		{Rendered{Format: FormatAXTree, Handles: 4, Score: &oracle.Score{InWindow: 4, Handled: 3, Handles: 4, Extra: 1}}, "4", "0.75", "1"},
		{Rendered{Format: FormatPlaywrightAI, Handles: 2, Score: &oracle.Score{Handles: 2, Extra: 2}}, "0", "null", "2"},
		{Rendered{Format: FormatHTML, Score: &oracle.Score{InWindow: 9}}, "9", "null", "0"},
		{Rendered{Format: FormatAXTree, Handles: 4}, "null", "null", "null"},
	} {
		tt.r.ActionSpace = "[1] button 'Go'"
		m, err := meter.Measure(context.Background(), tt.r, Tokens{})
		if err != nil {
			t.Fatal(err)
		}
		got := ptrString(m.OracleInWindow) + " " + ptrString(m.Recall) + " " + ptrString(m.ExtraHandles)
		if want := tt.inWindow + " " + tt.recall + " " + tt.extra; got != want {
			t.Errorf("%s %+v: %s, want %s", tt.r.Format, tt.r.Score, got, want)
		}
		if m.ActionCount != int64(tt.r.Handles) || m.TokensCL100K == nil || m.PerceptionTokensCL100K != nil {
			t.Errorf("%s: action_count %d, tokens %v, perception tokens %v", tt.r.Format, m.ActionCount, ptrString(m.TokensCL100K), ptrString(m.PerceptionTokensCL100K))
		}
	}
}

func ptrString[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// TestMeter_CutFormat cuts every stored page's whole-page playwright-ai
// and axtree texts from the end at growing budgets and measures each cut:
// the kept text recounts exactly within the budget, its recall never
// falls as the budget grows, a budget above the whole text keeps the
// E=-1 rendering with its recall and handles, and the other formats are
// refused.
func TestMeter_CutFormat(t *testing.T) {
	m, err := NewMeter(metrics.CL100K, metrics.O200K)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	budgets := []int64{1, 200, 1000, 3000, 1 << 20}
	for _, s := range storedPages(t) {
		p := decodeStored(t, s)
		for _, f := range []string{FormatPlaywrightAI, FormatAXTree} {
			whole, err := p.Render(ctx, Setting{Format: f, Options: dom.Options{Expansion: dom.WholePage}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			prevPage, prevView := -1.0, -1.0
			for _, n := range budgets {
				name := fmt.Sprintf("%s %s budget %d", s.name, f, n)
				cs, _, err := m.CutFormat(p, f, n)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				sm, bm, err := m.MeasureCut(ctx, p, cs, Tokens{})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				recount, err := m.Count(cs.Text)
				if err != nil {
					t.Fatal(err)
				}
				if got := *sm.TokensCL100K; got != *recount.CL100K || got > n || !strings.HasPrefix(whole.ActionSpace, cs.Text) {
					t.Errorf("%s: %d tokens, recount %d: over the budget, or not a prefix of the whole text", name, got, *recount.CL100K)
				}
				if bm.PageRecall == nil || *bm.PageRecall < prevPage || (bm.ViewportRecall != nil && *bm.ViewportRecall < prevView) {
					t.Errorf("%s: page recall %v, viewport recall %v fell below %.4f, %.4f", name, bm.PageRecall, bm.ViewportRecall, prevPage, prevView)
					continue
				}
				prevPage = *bm.PageRecall
				if bm.ViewportRecall != nil {
					prevView = *bm.ViewportRecall
				}
				if cs.Lines == cs.TotalLines {
					wantRecall, _ := whole.Score.Recall()
					if cs.Text != whole.ActionSpace || sm.ActionCount != int64(whole.Handles) || *sm.Recall != wantRecall ||
						*sm.ExtraHandles != int64(whole.Score.Extra) || *bm.BudgetStage != "whole-page" || *bm.BudgetExpansion != dom.WholePage {
						t.Errorf("%s: the whole text fits, but the cut is not the E=-1 rendering (%d handles, recall %v, extra %v)", name, sm.ActionCount, *sm.Recall, *sm.ExtraHandles)
					}
				} else if *bm.BudgetStage != "cut-from-end" || bm.BudgetExpansion != nil || *bm.DroppedLines != int64(cs.TotalLines-cs.Lines) {
					t.Errorf("%s: budget columns %+v", name, bm)
				}
			}
		}
	}
	p := decodeStored(t, storedPages(t)[0])
	for _, f := range []string{FormatActionSpace, FormatHTML} {
		if _, _, err := m.CutFormat(p, f, 1000); err == nil {
			t.Errorf("CutFormat(%s): no error", f)
		}
	}
}
