package space

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
)

// validMatrix is a small valid matrix the table tests edit.
func validMatrix() Matrix {
	return Matrix{
		Formats:    Formats(),
		Modes:      []string{ModeFast},
		Expansions: []int{0, dom.WholePage},
		Texts:      []dom.TextPolicy{dom.TextViewport},
		Encodings:  []metrics.Encoding{metrics.CL100K},
		Budgets:    []int64{100},
	}
}

// TestMatrix_Validate: every list of the matrix is checked in one place,
// and the error starts with the flag that sets it.
func TestMatrix_Validate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		edit    func(*Matrix)
		wantErr string // prefix; "" for valid
	}{
		{"valid", func(*Matrix) {}, ""},
		{"no budgets", func(m *Matrix) { m.Budgets = nil }, ""},
		{"both modes, every text", func(m *Matrix) {
			m.Modes = []string{ModeFast, ModeDeep}
			m.Texts = []dom.TextPolicy{dom.TextViewport, dom.TextAll, dom.TextNone}
		}, ""},
		{"no formats", func(m *Matrix) { m.Formats = nil }, "formats: empty list"},
		{"unknown format", func(m *Matrix) { m.Formats = []string{"markdown"} }, `formats: unknown format "markdown"`},
		{"format twice", func(m *Matrix) { m.Formats = []string{FormatHTML, FormatHTML} }, "formats: html listed twice"},
		{"no modes", func(m *Matrix) { m.Modes = nil }, "mode: empty list"},
		{"unknown mode", func(m *Matrix) { m.Modes = []string{"slow"} }, `mode: unknown mode "slow"`},
		{"mode twice", func(m *Matrix) { m.Modes = []string{ModeFast, ModeFast} }, "mode: fast listed twice"},
		{"no expansions", func(m *Matrix) { m.Expansions = nil }, "viewport-expansion: empty list"},
		{"bad expansion", func(m *Matrix) { m.Expansions = []int{-2} }, "viewport-expansion: viewport_expansion -2"},
		{"expansion twice", func(m *Matrix) { m.Expansions = []int{0, 0} }, "viewport-expansion: 0 listed twice"},
		{"no texts", func(m *Matrix) { m.Texts = nil }, "text: empty list"},
		{"bad text", func(m *Matrix) { m.Texts = []dom.TextPolicy{"some"} }, "text: "},
		{"text twice", func(m *Matrix) { m.Texts = []dom.TextPolicy{dom.TextAll, dom.TextAll} }, "text: all listed twice"},
		{"no encodings", func(m *Matrix) { m.Encodings = nil }, "encodings: empty list"},
		{"bad encoding", func(m *Matrix) { m.Encodings = []metrics.Encoding{"gpt2"} }, `encodings: unknown encoding "gpt2"`},
		{"encoding twice", func(m *Matrix) { m.Encodings = []metrics.Encoding{metrics.O200K, metrics.O200K} }, "encodings: o200k_base listed twice"},
		{"zero budget", func(m *Matrix) { m.Budgets = []int64{0} }, "token-budget: "},
		{"budget twice", func(m *Matrix) { m.Budgets = []int64{100, 100} }, "token-budget: "},
		{"strategies", func(m *Matrix) {
			m.Groups, m.Layouts, m.Onlys = []int{0, 3}, []dom.Layout{dom.LayoutNone, dom.LayoutCoarse}, []dom.Filter{dom.FilterAll, "links+inputs"}
		}, ""},
		{"group 1", func(m *Matrix) { m.Groups = []int{1} }, "group: group 1"},
		{"group twice", func(m *Matrix) { m.Groups = []int{3, 3} }, "group: 3 listed twice"},
		{"bad layout", func(m *Matrix) { m.Layouts = []dom.Layout{"fine"} }, `layout: unknown layout "fine"`},
		{"bad filter", func(m *Matrix) { m.Onlys = []dom.Filter{"forms"} }, `only: unknown element kind "forms"`},
		{"filter out of order", func(m *Matrix) { m.Onlys = []dom.Filter{"inputs+links"} }, `only: filter "inputs+links": write it "links+inputs"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := validMatrix()
			tt.edit(&m)
			err := m.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Errorf("Validate() = %v, want an error starting %q", err, tt.wantErr)
			}
		})
	}
}

// cellKey names a cell in the tests: format/mode/expansion/text, and
// /B<budget> for a budget cell.
func cellKey(c Cell) string {
	k := fmt.Sprintf("%s/%s/%d/%s", c.Format, c.Mode, c.Options.Expansion, c.Options.Text)
	if st := c.Options.Strategy.Key(); st != "" {
		k += "/" + st
	}
	if c.Budget > 0 {
		k += fmt.Sprintf("/B%d", c.Budget)
	}
	return k
}

// TestMatrix_Cells: the cells of a matrix, in the spaces table's row
// order; budget cells only with actionspace, baselines only with Cuts and
// only for the formats with handles on lines.
func TestMatrix_Cells(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    Matrix
		want []string
	}{
		{"every format, two modes and texts", Matrix{Formats: Formats(), Modes: []string{ModeFast, ModeDeep}, Expansions: []int{0, dom.WholePage},
			Texts: []dom.TextPolicy{dom.TextViewport, dom.TextNone}}, []string{
			"actionspace/fast/0/viewport", "actionspace/fast/0/none", "actionspace/deep/0/viewport", "actionspace/deep/0/none",
			"actionspace/fast/-1/viewport", "actionspace/fast/-1/none", "actionspace/deep/-1/viewport", "actionspace/deep/-1/none",
			"browser-use//0/", "browser-use//-1/", "playwright-ai//0/", "playwright-ai//-1/", "axtree//0/", "axtree//-1/", "html//-1/",
		}},
		{"strategies crossed, budgets plain, browser-use cut", Matrix{Formats: []string{FormatActionSpace, FormatBrowserUse}, Modes: []string{ModeFast}, Expansions: []int{0},
			Texts: []dom.TextPolicy{dom.TextNone}, Groups: []int{0, 3}, Layouts: []dom.Layout{dom.LayoutNone, dom.LayoutCoarse}, Onlys: []dom.Filter{"links"},
			Budgets: []int64{100}, Cuts: true}, []string{
			"actionspace/fast/0/none/links", "actionspace/fast/0/none/coarse,links", "actionspace/fast/0/none/g3,links", "actionspace/fast/0/none/g3,coarse,links",
			"browser-use//0/", "actionspace/fast/0/none/B100", "browser-use//-1//B100",
		}},
		{"html once, at the whole page", Matrix{Formats: []string{FormatHTML}, Modes: []string{ModeFast}, Expansions: []int{0, 500},
			Texts: []dom.TextPolicy{dom.TextViewport}, Budgets: []int64{100}}, []string{"html//-1/"}},
		{"budgets without cuts (a crawl)", Matrix{Formats: []string{FormatActionSpace, FormatAXTree}, Modes: []string{ModeDeep}, Expansions: []int{500},
			Texts: []dom.TextPolicy{dom.TextAll}, Budgets: []int64{100, 50}}, []string{
			"actionspace/deep/500/all", "axtree//500/", "actionspace/fast/0/all/B100", "actionspace/fast/0/all/B50",
		}},
		{"budgets with cuts (bench)", Matrix{Formats: []string{FormatHTML, FormatPlaywrightAI, FormatActionSpace, FormatAXTree}, Modes: []string{ModeFast},
			Expansions: []int{0}, Texts: []dom.TextPolicy{dom.TextViewport, dom.TextAll}, Budgets: []int64{100, 200}, Cuts: true}, []string{
			"html//-1/", "playwright-ai//0/", "actionspace/fast/0/viewport", "actionspace/fast/0/all", "axtree//0/",
			"actionspace/fast/0/viewport/B100", "actionspace/fast/0/viewport/B200", "actionspace/fast/0/all/B100", "actionspace/fast/0/all/B200",
			"playwright-ai//-1//B100", "playwright-ai//-1//B200", "axtree//-1//B100", "axtree//-1//B200",
		}},
		{"cuts without actionspace", Matrix{Formats: []string{FormatAXTree}, Modes: []string{ModeFast}, Expansions: []int{0},
			Texts: []dom.TextPolicy{dom.TextViewport}, Budgets: []int64{100}, Cuts: true}, []string{"axtree//0/", "axtree//-1//B100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.m.Encodings = []metrics.Encoding{metrics.CL100K}
			if err := tt.m.Validate(); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range tt.m.Cells() {
				got = append(got, cellKey(c))
				if c.Cut() != (c.Budget > 0 && c.Format != FormatActionSpace) {
					t.Errorf("%s: Cut() = %v", cellKey(c), c.Cut())
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Cells():\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestSweeper_Sweep: the shared loop gives, for every cell of every stored
// page, what rendering and measuring that cell alone gives: the fixed
// cells Page.Render and Meter.Measure, the budget cells Meter.FitBudget
// and MeasureBudget, the baselines Meter.CutFormat and MeasureCut; a
// format the page has no record for is NoRecord; and the loop stops when
// the caller's does.
func TestSweeper_Sweep(t *testing.T) {
	t.Parallel()
	meter, err := NewMeter(metrics.CL100K, metrics.O200K)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := Matrix{Formats: Formats(), Modes: []string{ModeFast}, Expansions: []int{0, dom.WholePage},
		Texts: []dom.TextPolicy{dom.TextViewport, dom.TextAll}, Encodings: meter.Encodings(), Budgets: []int64{150, 600}, Cuts: true}
	cells := m.Cells()
	renderers := Renderers{ModeFast: Fast{}}
	sw := Sweeper{Renderers: renderers, Meter: meter, Repeat: 2}
	budgets, cuts := 0, 0
	for _, s := range storedPages(t) {
		page := decodeStored(t, s)
		html, err := meter.Count(page.HTML)
		if err != nil {
			t.Fatal(err)
		}
		var got []Measured
		for ms := range sw.Sweep(ctx, ctx, page, cells, html) {
			got = append(got, ms)
		}
		if len(got) != len(cells) {
			t.Fatalf("%s: %d cells measured, want %d", s.name, len(got), len(cells))
		}
		for i, c := range cells {
			g := got[i]
			if !reflect.DeepEqual(g.Cell, c) {
				t.Fatalf("%s: cell %d is %s, want %s", s.name, i, cellKey(g.Cell), cellKey(c))
			}
			if g.RenderErr != nil || g.MeasureErr != nil || g.NoRecord {
				t.Errorf("%s %s: render %v, measure %v, no record %v", s.name, cellKey(c), g.RenderErr, g.MeasureErr, g.NoRecord)
				continue
			}
			var want dataset.SpaceMetrics
			var wantBudget dataset.BudgetMetrics
			var text string
			wantExp, wantRuns := c.Options.Expansion, 1
			switch {
			case c.Budget > 0 && c.Format == FormatActionSpace:
				budgets++
				bs, _, err := meter.FitBudget(page.Tree, c.Budget, c.Options.Text)
				if err != nil {
					t.Fatal(err)
				}
				want, wantBudget, err = meter.MeasureBudget(ctx, bs, html, page.Tree, page.Oracle)
				text, wantExp, wantRuns = bs.Perception, bs.Expansion, sw.Repeat
				if err != nil {
					t.Fatal(err)
				}
				page.Quality(&want, Rendered{Space: bs.Space, Handled: page.Oracle.Kept(page.Tree, bs.Kept)}, bs.Expansion)
				if g.Rendered.Perception != text {
					t.Errorf("%s %s: perception text differs from FitBudget's", s.name, cellKey(c))
				}
			case c.Budget > 0:
				cuts++
				cs, _, err := meter.CutFormat(page, c.Format, c.Budget)
				if err != nil {
					t.Fatal(err)
				}
				want, wantBudget, err = meter.MeasureCut(ctx, page, cs, html)
				text, wantExp, wantRuns = cs.Text, dom.WholePage, sw.Repeat
				if err != nil {
					t.Fatal(err)
				}
				page.Quality(&want, Rendered{Format: c.Format, Space: render.Space{ActionSpace: cs.Text}, Handled: cs.Handled}, dom.WholePage)
				if g.Rendered.ActionSpace != text {
					t.Errorf("%s %s: kept text differs from CutFormat's", s.name, cellKey(c))
				}
			default:
				r, err := page.Render(ctx, c.Setting, renderers)
				if err != nil {
					t.Fatal(err)
				}
				if want, err = meter.Measure(ctx, r, html); err != nil {
					t.Fatal(err)
				}
				page.Quality(&want, r, c.Setting.WindowExpansion())
				if g.Rendered.ActionSpace != r.ActionSpace || g.Rendered.Perception != r.Perception {
					t.Errorf("%s %s: text differs from Page.Render's", s.name, cellKey(c))
				}
			}
			if g.Expansion != wantExp || g.Runs != wantRuns || g.Render <= 0 {
				t.Errorf("%s %s: expansion %d, runs %d, render %v; want %d, %d, > 0", s.name, cellKey(c), g.Expansion, g.Runs, g.Render, wantExp, wantRuns)
			}
			g.Metrics.TokenizeMS, want.TokenizeMS = 0, 0 // a timing
			if !reflect.DeepEqual(g.Metrics, want) || !reflect.DeepEqual(g.Budget, wantBudget) {
				t.Errorf("%s %s: measures\n got %+v %+v\nwant %+v %+v", s.name, cellKey(c), g.Metrics, g.Budget, want, wantBudget)
			}
		}
	}
	if budgets == 0 || cuts == 0 {
		t.Errorf("%d budget cells and %d baselines checked, want some of each", budgets, cuts)
	}

	// A page without an AI snapshot: its playwright-ai cells (fixed and
	// cut) are NoRecord and nothing else; the loop stops with the caller.
	page := decodeStored(t, storedPages(t)[0])
	page.Snapshot = nil
	n, noRecord := 0, 0
	for ms := range sw.Sweep(ctx, ctx, page, cells, Tokens{}) {
		n++
		if ms.NoRecord != (ms.Cell.Format == FormatPlaywrightAI) {
			t.Errorf("%s: NoRecord %v", cellKey(ms.Cell), ms.NoRecord)
		}
		if ms.NoRecord {
			noRecord++
			if ms.Runs != 0 || ms.Rendered.ActionSpace != "" {
				t.Errorf("%s: a cell without its record was rendered", cellKey(ms.Cell))
			}
		}
	}
	if noRecord != len(m.Expansions)+len(m.Budgets) || n != len(cells) {
		t.Errorf("%d cells, %d without record; want %d, %d", n, noRecord, len(cells), len(m.Expansions)+len(m.Budgets))
	}
	n = 0
	for range sw.Sweep(ctx, ctx, page, cells, Tokens{}) {
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("the loop went on after the caller stopped: %d", n)
	}
}
