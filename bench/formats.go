package bench

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"gonum.org/v1/plot"

	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/space"
)

// MaxRecallGaps is how many pages Summary.RecallGaps lists.
const MaxRecallGaps = 10

// FormatRatio compares the action space's tokens with another format's
// on the same pages at one expansion.
type FormatRatio struct {
	// Format is the other format; Cell its cell.
	Format string `json:"format"`
	Cell   string `json:"cell"`
	// Expansion is the expansion both were rendered for (html: -1, the
	// only window it has).
	Expansion int `json:"viewport_expansion"`
	// ActionSpaceCell is the actionspace cell compared: fast mode, the
	// first text policy swept (viewport by default).
	ActionSpaceCell string `json:"actionspace_cell"`
	// Pages is the number of pages with both texts counted (the other
	// one non-empty).
	Pages int `json:"pages"`
	// RatioMedian is the median over those pages of the per-page ratio
	// actionspace tokens / the format's tokens, in the headline encoding
	// (action-space text, without the perception wrapper); below 1 the
	// action space is smaller. Null without pages.
	RatioMedian *float64 `json:"token_ratio_median"`
}

// RecallGap is one page where the whole-page action space handles fewer
// of the page's oracle elements than another format does.
type RecallGap struct {
	// URL is the page.
	URL string `json:"url"`
	// OracleElements is the number of the page's oracle elements (in the
	// whole page's window).
	OracleElements int64 `json:"oracle_elements"`
	// ActionSpace is the recall of the actionspace cell compared (fast,
	// E=-1, the first text policy); PlaywrightAI and AXTree those formats'
	// recall at E=-1, null when not swept or not stored for the page.
	ActionSpace  float64  `json:"actionspace_recall"`
	PlaywrightAI *float64 `json:"playwright_ai_recall"`
	AXTree       *float64 `json:"axtree_recall"`
	// Gap is the largest of the other recalls minus the action space's:
	// the share of the page's oracle elements another format handles and
	// the action space does not, at least.
	Gap float64 `json:"gap"`
}

// pageFigures are one page's per-cell figures the format comparisons
// need: headline tokens, recall and oracle elements in the window, by
// cell key, over the rows without error.
type pageFigures struct {
	url    string
	tokens map[string]float64
	recall map[string]float64
	oracle map[string]int64
	// filtered is recall_filtered, by cell key (element filter cells).
	filtered map[string]float64
}

// figures collects a page's figures from its rows, in enc.
func figures(url string, rows []CellRow, enc metrics.Encoding) pageFigures {
	f := pageFigures{url: url, tokens: map[string]float64{}, recall: map[string]float64{}, oracle: map[string]int64{}, filtered: map[string]float64{}}
	for i := range rows {
		r := &rows[i]
		if r.Error != "" {
			continue
		}
		if t := [2]*int64{r.TokensCL100K, r.TokensO200K}[slot(enc)]; t != nil {
			f.tokens[r.Cell] = float64(*t)
		}
		if r.Recall != nil {
			f.recall[r.Cell] = *r.Recall
		}
		if r.OracleInWindow != nil {
			f.oracle[r.Cell] = *r.OracleInWindow
		}
		if r.RecallFiltered != nil {
			f.filtered[r.Cell] = *r.RecallFiltered
		}
	}
	return f
}

// comparedCell is the actionspace cell the format comparisons use at
// expansion e: fast mode, the first text policy swept.
func comparedCell(cfg RunConfig, e int) Cell {
	t := dom.TextViewport
	if len(cfg.Texts) > 0 {
		t = dom.TextPolicy(cfg.Texts[0])
	}
	return Cell{Format: space.FormatActionSpace, Mode: space.ModeFast, Expansion: e, Text: t}
}

// compareFormats fills the summary's format comparisons from the pages'
// figures: the token ratios at every expansion, and the recall gaps at
// the whole page.
func (s *Summary) compareFormats(pages []pageFigures) {
	if !slices.Contains(s.Config.Formats, space.FormatActionSpace) || !slices.Contains(s.Config.Modes, space.ModeFast) {
		return
	}
	for _, c := range s.Cells {
		if c.Format == space.FormatActionSpace || c.TokenBudget != nil {
			continue
		}
		e := int(c.ViewportExpansion)
		as := comparedCell(s.Config, e).Key()
		var ratios []float64
		for _, p := range pages {
			a, okA := p.tokens[as]
			o, okO := p.tokens[c.Cell]
			if okA && okO && o > 0 {
				ratios = append(ratios, a/o)
			}
		}
		s.FormatRatios = append(s.FormatRatios, FormatRatio{Format: c.Format, Cell: c.Cell, Expansion: e,
			ActionSpaceCell: as, Pages: len(ratios), RatioMedian: num(metrics.Median(ratios))})
	}
	as := comparedCell(s.Config, dom.WholePage).Key()
	ai := Cell{Format: space.FormatPlaywrightAI, Expansion: dom.WholePage}.Key()
	ax := Cell{Format: space.FormatAXTree, Expansion: dom.WholePage}.Key()
	s.RecallGaps = nil
	for _, p := range pages {
		r, ok := p.recall[as]
		if !ok {
			continue
		}
		g := RecallGap{URL: p.url, OracleElements: p.oracle[as], ActionSpace: r, Gap: math.Inf(-1)}
		if v, ok := p.recall[ai]; ok {
			g.PlaywrightAI, g.Gap = ptr(v), math.Max(g.Gap, v-r)
		}
		if v, ok := p.recall[ax]; ok {
			g.AXTree, g.Gap = ptr(v), math.Max(g.Gap, v-r)
		}
		if g.Gap > 0 {
			s.RecallGaps = append(s.RecallGaps, g)
		}
	}
	slices.SortStableFunc(s.RecallGaps, func(a, b RecallGap) int {
		return cmp.Or(cmp.Compare(b.Gap, a.Gap), cmp.Compare(a.URL, b.URL))
	})
	s.RecallGapPages = len(s.RecallGaps)
	if len(s.RecallGaps) > MaxRecallGaps {
		s.RecallGaps = s.RecallGaps[:MaxRecallGaps]
	}
}

// formatCells returns the cells of fixed expansion the formats section
// shows: the compared actionspace cells and every other format's, in
// format order (space.Formats), then expansion order.
func (s *Summary) formatCells() []*CellSummary {
	var out []*CellSummary
	for _, f := range space.Formats() {
		for _, e := range s.Config.Expansions {
			key := Cell{Format: f, Expansion: e}.Key()
			if f == space.FormatActionSpace {
				key = comparedCell(s.Config, e).Key()
			}
			if c := s.Cell(key); c != nil {
				out = append(out, c)
			}
		}
		if f == space.FormatHTML && !slices.Contains(s.Config.Expansions, dom.WholePage) {
			if c := s.Cell(Cell{Format: f, Expansion: dom.WholePage}.Key()); c != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// hasFormats reports whether the run swept a format besides actionspace.
func (s *Summary) hasFormats() bool {
	return slices.ContainsFunc(s.Config.Formats, func(f string) bool { return f != space.FormatActionSpace })
}

// writeFormatsHeadline prints the formats side by side for the
// one-screen summary.
func (r *Result) writeFormatsHeadline(w io.Writer) {
	s := &r.Summary
	if !s.hasFormats() {
		return
	}
	enc := s.headline()
	fmt.Fprintf(w, "\nformats (tokens per page in %s, of the text itself; recall = mean over pages with an oracle):\n", enc)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "  cell\tpages\ttokens mean\ttokens median\trecall mean\tactionspace:format tokens\t\n")
	for _, c := range s.formatCells() {
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t\n", c.Cell, c.Pages, fmtOpt(c.TokensMean(enc), 0), fmtOpt(c.TokensMedian(enc), 0),
			fmtOpt(c.RecallMean, 3), fmtOpt(s.ratioOf(c.Cell), 2))
	}
	tw.Flush()
}

// ratioOf returns the token ratio of actionspace to the cell's format,
// nil when the cell is not compared (actionspace itself).
func (s *Summary) ratioOf(cell string) *float64 {
	for _, f := range s.FormatRatios {
		if f.Cell == cell {
			return f.RatioMedian
		}
	}
	return nil
}

// writeFormats writes the report's formats section: every format side by
// side, the Pareto chart, the token ratios and the pages where the action
// space misses what another format has.
func (r *Result) writeFormats(w io.Writer, chart bool) {
	s := &r.Summary
	if !s.hasFormats() {
		return
	}
	enc := s.headline()
	fmt.Fprintf(w, "## Formats side by side\n\n")
	fmt.Fprintf(w, "The same page states rendered in every format swept, in the same windows: the action space (fast mode, text `%s`), browser-use's serializer text (`browser-use`), Playwright's AI snapshot (`playwright-ai`), the accessibility tree as WebArena prints it (`axtree`) and the HTML (whole page only). Tokens are per page, of the text itself (the action space without its perception wrapper), %s. Recall is the share of the window's oracle elements (the accessibility tree's actionable elements) that got a handle, mean and median over the pages with an oracle element in the window; html has no handles, so no recall. Pages without a format's stored record have no row in its cells (no record).\n\n",
		comparedCell(s.Config, 0).Text, enc)
	fmt.Fprint(w, "| cell | format | E | pages | no record | tokens mean | tokens median | recall mean | recall median | extra handles/page | actionspace:format tokens (median) |\n")
	fmt.Fprint(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range s.formatCells() {
		fmt.Fprintf(w, "| `%s` | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s |\n", c.Cell, c.Format, ExpansionLabel(int(c.ViewportExpansion)),
			c.Pages, c.NoRecordPages, fmtOpt(c.TokensMean(enc), 0), fmtOpt(c.TokensMedian(enc), 0), fmtOpt(c.RecallMean, 3),
			fmtOpt(c.RecallMedian, 3), fmtOpt(c.ExtraHandlesMean, 1), fmtOpt(s.ratioOf(c.Cell), 2))
	}
	fmt.Fprintln(w)
	if chart {
		fmt.Fprintf(w, "![tokens against recall, per format and expansion](%s)\n\n", ParetoChartFile)
	}
	if len(s.FormatRatios) > 0 {
		fmt.Fprintf(w, "**Token ratio.** Per page, the action space's tokens divided by the other format's at the same expansion (%s); the median over the pages that have both. Below 1, the action space is the smaller.\n\n", enc)
		fmt.Fprint(w, "| format |")
		for _, e := range s.Config.Expansions {
			fmt.Fprintf(w, " E=%s |", ExpansionLabel(e))
		}
		fmt.Fprint(w, "\n|---|")
		for range s.Config.Expansions {
			fmt.Fprint(w, "---:|")
		}
		fmt.Fprintln(w)
		for _, f := range space.Formats()[1:] {
			if !slices.Contains(s.Config.Formats, f) {
				continue
			}
			fmt.Fprintf(w, "| %s |", f)
			for _, e := range s.Config.Expansions {
				v := "–"
				for _, fr := range s.FormatRatios {
					if fr.Format == f && fr.Expansion == e {
						v = fmtOpt(fr.RatioMedian, 2)
					}
				}
				fmt.Fprintf(w, " %s |", v)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "**Where the action space misses what another format has.** Per page, the whole-page (E=-1) recall of `%s` against playwright-ai's and axtree's; gap = the larger of theirs minus the action space's. %d pages have a gap; the %d largest:\n\n",
		comparedCell(s.Config, dom.WholePage).Key(), s.RecallGapPages, len(s.RecallGaps))
	if len(s.RecallGaps) == 0 {
		fmt.Fprintf(w, "None.\n\n")
		return
	}
	fmt.Fprint(w, "| page | oracle elements | actionspace recall | playwright-ai recall | axtree recall | gap |\n|---|---:|---:|---:|---:|---:|\n")
	for _, g := range s.RecallGaps {
		fmt.Fprintf(w, "| %s | %d | %.3f | %s | %s | %.3f |\n", g.URL, g.OracleElements, g.ActionSpace, fmtOpt(g.PlaywrightAI, 3), fmtOpt(g.AXTree, 3), g.Gap)
	}
	fmt.Fprintln(w)
}

// paretoChart: mean tokens per page against mean recall, one point per
// format and expansion, the points of a format joined in expansion order
// (the Pareto view: up and to the left is better); the first panel of
// the Pareto chart (paretoPanels).
func (r *Result) paretoChart() (*plot.Plot, error) {
	return r.paretoOf("recall", func(c *CellSummary) *float64 { return c.RecallMean })
}
