package bench

import (
	"bytes"
	"cmp"
	"path/filepath"
	"strings"
	"testing"

	"actionspace/dom"
	"actionspace/space"
)

// TestSummary_CompareStrategies: each fixed fast actionspace cell gets its
// median token ratios to the plain action space and to playwright-ai, and
// the cheapest cell that keeps both recall targets is named per
// expansion; a cheaper cell that misses a target is not.
func TestSummary_CompareStrategies(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	cell := func(key string, tokens, actionable, salient float64) CellSummary {
		c, err := ParseCellKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return CellSummary{Cell: key, Format: c.format(), Mode: c.Mode, ViewportExpansion: int64(c.Expansion), TextPolicy: string(c.Text),
			TokensCL100KMean: f(tokens), RecallMean: f(actionable), ActionableRecallMean: f(actionable), SalientRecallMean: f(salient)}
	}
	s := &Summary{Config: RunConfig{Formats: []string{space.FormatActionSpace, space.FormatPlaywrightAI}, Modes: []string{space.ModeFast},
		Expansions: []int{-1}, Texts: []string{"viewport", "none"}, Encodings: []string{"cl100k_base"}}}
	s.Cells = []CellSummary{
		cell("fast/E-1/viewport", 1000, 0.995, 1),
		cell("fast/E-1/none", 400, 0.995, 0.5),         // cheaper, misses salient
		cell("fast/E-1/viewport/g3", 700, 0.995, 0.96), // the cheapest that keeps both
		cell("fast/E-1/viewport/links", 300, 0.6, 0.96),
		cell("fast/B1000/viewport", 100, 1, 1), // budget cells are not settings of a window
		{Cell: "playwright-ai/E-1", Format: space.FormatPlaywrightAI, ViewportExpansion: -1, TokensCL100KMean: f(2000)},
	}
	pages := []pageFigures{
		{url: "a", tokens: map[string]float64{"fast/E-1/viewport": 1000, "fast/E-1/viewport/g3": 600, "playwright-ai/E-1": 2000, "fast/E-1/none": 400, "fast/E-1/viewport/links": 300},
			filtered: map[string]float64{"fast/E-1/viewport/links": 0.9}},
		{url: "b", tokens: map[string]float64{"fast/E-1/viewport": 1000, "fast/E-1/viewport/g3": 800, "playwright-ai/E-1": 4000, "fast/E-1/none": 400, "fast/E-1/viewport/links": 300},
			filtered: map[string]float64{"fast/E-1/viewport/links": 0.7}},
	}
	s.compareStrategies(pages)
	if len(s.Strategies) != 4 {
		t.Fatalf("%d strategy rows, want 4 (no budget cell, no other format): %+v", len(s.Strategies), s.Strategies)
	}
	var g3 *StrategyRow
	for i := range s.Strategies {
		if s.Strategies[i].Cell == "fast/E-1/viewport/g3" {
			g3 = &s.Strategies[i]
		}
	}
	if g3 == nil || g3.Strategy != "g3" || *g3.PlainRatio != 0.7 || *g3.PlaywrightRatio != (0.3+0.2)/2 {
		t.Errorf("g3 row %+v", g3)
	}
	if len(s.Cheapest) != 1 || s.Cheapest[0].Cell != "fast/E-1/viewport/g3" {
		t.Errorf("cheapest %+v, want fast/E-1/viewport/g3", s.Cheapest)
	}
	r := &Result{Summary: *s}
	var b bytes.Buffer
	r.writeStrategies(&b)
	for _, want := range []string{"## Compression strategies", "| `fast/E-1/viewport/links` | page | viewport | links | 300 | 0.600 | 0.600 | 0.960 | 0.800 | 0.30 | 0.11 |", "- E=page: `fast/E-1/viewport/g3`, 700 tokens per page (0.70× the plain action space, 0.25× playwright-ai)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
	// The Pareto chart draws a panel per quality measure.
	svg, err := r.paretoPanels()
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"Tokens against recall", "Tokens against actionable recall", "Tokens against salient recall"} {
		if !bytes.Contains(svg, []byte(title)) {
			t.Errorf("the Pareto chart has no panel %q", title)
		}
	}
}

// TestSweep_Strategies sweeps stored captures with every strategy: each
// strategy cell renders on every page (the timing pass renders the same
// text as the measuring pass), its rows say their strategy, and grouping
// and layout keep the plain cell's IDs.
func TestSweep_Strategies(t *testing.T) {
	captures := storedCaptures(t)
	dir := writeCaptureDataset(t, t.TempDir(), captures, datasetOptions{})
	out := t.TempDir()
	cfg := testConfig("test-strategies")
	cfg.Expansions, cfg.Texts = []int{-1}, []dom.TextPolicy{dom.TextViewport, dom.TextSalient}
	cfg.Groups, cfg.Layouts, cfg.Onlys = []int{0, 3}, []dom.Layout{dom.LayoutNone, dom.LayoutCoarse}, []dom.Filter{dom.FilterAll, "links"}
	mustSweep(t, cfg, dir, out)
	_, rows := arrowTable(t, filepath.Join(out, CellsFile))
	ids := map[string]any{} // the plain cell's ids per page and text
	for _, r := range rows {
		if r["error"] != "" {
			t.Errorf("%s %s: %v", r["url"], r["cell"], r["error"])
		}
		c, err := ParseCellKey(r["cell"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if r["group_min_run"] != int64(c.Group) || r["layout"] != cmp.Or(string(c.Layout), "none") || r["element_filter"] != cmp.Or(string(c.Only), "all") {
			t.Errorf("%s: strategy columns %v %v %v", r["cell"], r["group_min_run"], r["layout"], r["element_filter"])
		}
		if (r["recall_filtered"] != nil) != (c.Only != "" && r["oracle_in_window"] != nil) && r["recall_filtered"] != nil {
			t.Errorf("%s: recall_filtered %v", r["cell"], r["recall_filtered"])
		}
		if c.Only == "" {
			key := r["url"].(string) + string(c.Text)
			if c.Group == 0 && c.Layout == "" {
				ids[key] = r["action_count"]
			}
		}
	}
	for _, r := range rows {
		c, _ := ParseCellKey(r["cell"].(string))
		if c.Only == "" && r["action_count"] != ids[r["url"].(string)+string(c.Text)] {
			t.Errorf("%s %s: %v IDs, the plain cell %v", r["url"], r["cell"], r["action_count"], ids[r["url"].(string)+string(c.Text)])
		}
	}
	if want := len(captures) * 2 * 8; len(rows) != want {
		t.Errorf("%d rows, want %d", len(rows), want)
	}
}
