package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/metrics"
	"actionspace/render"
	"actionspace/space"
)

// WriteResults writes a finished sweep into out (a directory or a bucket
// prefix), beside cells.parquet: summary.parquet, summary.json, the charts
// (SVG) and report.md. gate, if not nil, is the comparison with a
// baseline and goes into the report. Every file appears complete or not
// at all, replacing an earlier run's (store.Store.Replace).
func WriteResults(ctx context.Context, out store.Store, r *Result, gate *Gate) error {
	s := &r.Summary
	sw, err := out.Replace(ctx, SummaryFile)
	if err != nil {
		return err
	}
	w, err := parts.NewFile[CellSummary](sw, SummaryFile, dataset.Metadata{
		ToolVersion:    s.ToolVersion,
		BrowserVersion: s.Input.BrowserVersion,
		RunID:          s.RunID,
	}, dataset.WriterConfig{})
	if err != nil {
		return err
	}
	for _, c := range s.Cells {
		if err := w.Write(c); err != nil {
			_ = w.Abort()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	if err := writeObject(ctx, out, SummaryJSONFile, append(js, '\n')); err != nil {
		return err
	}
	charts, err := r.charts()
	if err != nil {
		return err
	}
	var files []string
	for _, c := range charts {
		if err := writeObject(ctx, out, c.file, c.svg); err != nil {
			return err
		}
		files = append(files, c.file)
	}
	var b bytes.Buffer
	r.WriteReport(&b, files, gate)
	return writeObject(ctx, out, ReportFile, b.Bytes())
}

// writeObject writes data to the object name of out, which holds either
// the old or the complete new content.
func writeObject(ctx context.Context, out store.Store, name string, data []byte) error {
	w, err := out.Replace(ctx, name)
	if err != nil {
		return err
	}
	defer w.Abort()
	if _, err := w.Write(data); err != nil {
		return err
	}
	return w.Close()
}

// WriteHeadline prints the one-screen summary of a run: the input, the
// headline table (mean action-space tokens per page, per mode, text policy
// and expansion), the median compression ratios, IDs per page and the
// render speed.
func (r *Result) WriteHeadline(w io.Writer) {
	s := &r.Summary
	enc := s.headline()
	fmt.Fprintf(w, "bench %s: %d pages x %d cells = %d cells rows in %.1fs (%d rows skipped: no capture; %d captures failed to decode)\n",
		s.RunID, s.Input.Rendered, len(s.Cells), s.Speed.Cells, s.Speed.WallSeconds, s.Input.Skipped, s.Input.Failed)
	fmt.Fprintf(w, "\naction-space tokens per page (mean, %s; deep mode: the LLM's description, none in a dry run):\n", enc)
	r.writeGrid(w, "", func(c *CellSummary) string { return fmtOpt(c.TokensMean(enc), 0) })
	if r.hasDeep() {
		fmt.Fprintf(w, "\ndeep-mode tagging prompt tokens per page (mean, counted locally):\n")
		r.writeGrid(w, space.ModeDeep, func(c *CellSummary) string { return fmtOpt(c.PromptTokensLocalMean, 0) })
	}
	fmt.Fprintf(w, "\nIDs per page (mean):\n")
	r.writeGrid(w, space.ModeFast, func(c *CellSummary) string { return fmtOpt(c.IDsMean, 1) })
	fmt.Fprintf(w, "\ncompression ratio (median HTML tokens / action-space tokens, %s):\n", enc)
	r.writeGrid(w, space.ModeFast, func(c *CellSummary) string { return fmtOpt(c.RatioMedian(enc), 1) })
	r.writeFormatsHeadline(w)
	r.writeBudgetHeadline(w)
	fmt.Fprintf(w, "\nspeed: %.0f renders/s per core (select + render, %d renders); %.0f cells/s per worker end to end (%d workers)\n",
		s.Speed.RendersPerSecondPerCore, s.Speed.Renders, s.Speed.CellsPerSecondPerCore, s.Speed.Workers)
}

// hasDeep reports whether the run has deep-mode cells.
func (r *Result) hasDeep() bool {
	return slices.Contains(r.Summary.Config.Modes, space.ModeDeep)
}

// writeGrid prints one figure per cell as a plain-text table: a row per
// mode and text policy, a column per expansion. mode, if not empty, keeps
// that mode's rows only.
func (r *Result) writeGrid(w io.Writer, mode string, cell func(*CellSummary) string) {
	s := &r.Summary
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "  mode\ttext\t")
	for _, e := range s.Config.Expansions {
		fmt.Fprintf(tw, "E=%s\t", ExpansionLabel(e))
	}
	fmt.Fprintln(tw)
	for _, sr := range s.series() {
		if mode != "" && sr.Mode != mode {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t", sr.Mode, sr.Text)
		for _, e := range s.Config.Expansions {
			v := "-"
			if c := s.Cell(Cell{Mode: sr.Mode, Expansion: e, Text: sr.Text}.Key()); c != nil {
				v = cell(c)
			}
			fmt.Fprintf(tw, "%s\t", v)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// mdGrid writes one figure per cell as a Markdown table; mode, if not
// empty, keeps that mode's rows only.
func (r *Result) mdGrid(w io.Writer, mode string, cell func(*CellSummary) string) {
	s := &r.Summary
	fmt.Fprint(w, "| mode | text |")
	for _, e := range s.Config.Expansions {
		fmt.Fprintf(w, " E=%s |", ExpansionLabel(e))
	}
	fmt.Fprint(w, "\n|---|---|")
	for range s.Config.Expansions {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, sr := range s.series() {
		if mode != "" && sr.Mode != mode {
			continue
		}
		fmt.Fprintf(w, "| %s | %s |", sr.Mode, sr.Text)
		for _, e := range s.Config.Expansions {
			v := "–"
			if c := s.Cell(Cell{Mode: sr.Mode, Expansion: e, Text: sr.Text}.Key()); c != nil {
				v = cell(c)
			}
			fmt.Fprintf(w, " %s |", v)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// WriteReport writes report.md: the run, the headline table, a table of
// every cell, the costs, the deep-mode breakdown, the stage times, the
// speed and, when gate is set, the regression gate. charts lists the chart
// files written beside it.
func (r *Result) WriteReport(w io.Writer, charts []string, gate *Gate) {
	s := &r.Summary
	enc := s.headline()
	has := func(f string) bool {
		for _, c := range charts {
			if c == f {
				return true
			}
		}
		return false
	}
	img := func(f, alt string) {
		if has(f) {
			fmt.Fprintf(w, "![%s](%s)\n\n", alt, f)
		}
	}

	fmt.Fprintf(w, "# Bench report: %s\n\n", s.RunID)
	label := s.Input.Label
	if label == "" {
		label = "crawl dataset"
	}
	fmt.Fprintf(w, "- **Input:** %s, `%s` (pages files: %d; crawl run `%s`, browser %s): %d pages rendered, %d rows skipped (no capture), %d captures failed to decode.\n",
		label, s.Input.Path, s.Input.Files, s.Input.CrawlRunID, orDash(s.Input.BrowserVersion), s.Input.Rendered, s.Input.Skipped, s.Input.Failed)
	budgets := ""
	if len(s.Config.Budgets) > 0 {
		budgets = fmt.Sprintf(", plus token budgets %s × text", joinInts(s.Config.Budgets))
	}
	fmt.Fprintf(w, "- **Matrix:** formats %s; actionspace: modes %s × viewport_expansion %s × text %s%s; the other formats per expansion (html: the whole page), cut from the end at every budget = %d cells; tokens counted in %s (the tables lead with %s).\n",
		strings.Join(s.Config.Formats, ", "), strings.Join(s.Config.Modes, ", "), joinInts(s.Config.Expansions), strings.Join(s.Config.Texts, ", "), budgets, len(s.Cells),
		strings.Join(s.Config.Encodings, ", "), enc)
	fmt.Fprintf(w, "- **Machine:** %s, %d CPUs, GOMAXPROCS %d, %s %s/%s; %d workers; each fast cell timed as the fastest of %d renders.\n",
		orUnknown(s.Machine.CPUModel), s.Machine.CPUs, s.Machine.GOMAXPROCS, s.Machine.GoVersion, s.Machine.GOOS, s.Machine.GOARCH,
		s.Config.Workers, s.Config.Repeat)
	fmt.Fprintf(w, "- **Build:** actionspace %s; written %s.\n\n", s.ToolVersion, s.CreatedAt.Format("2006-01-02 15:04:05 MST"))

	fmt.Fprintf(w, "## Tokens per page\n\nMean action-space tokens per page (%s), by mode, text policy and viewport_expansion (`page` = the whole page, -1). In deep mode the action space is the LLM's description; a dry run has none (–).\n\n", enc)
	r.mdGrid(w, "", func(c *CellSummary) string { return fmtOpt(c.TokensMean(enc), 0) })
	img(TokensChartFile, "tokens per page vs viewport_expansion")
	if r.hasDeep() {
		fmt.Fprintf(w, "Deep mode: tagging prompt tokens per page (mean, counted locally in %s), what the LLM is sent before it writes anything:\n\n", render.LocalEncoding)
		r.mdGrid(w, space.ModeDeep, func(c *CellSummary) string { return fmtOpt(c.PromptTokensLocalMean, 0) })
	}
	fmt.Fprintf(w, "IDs per page (mean; deep mode has the same IDs):\n\n")
	r.mdGrid(w, space.ModeFast, func(c *CellSummary) string { return fmtOpt(c.IDsMean, 1) })

	fmt.Fprintf(w, "## Every cell\n\nTokens are per page, of the action space (perception = the text with its page wrapper). Ratio = HTML tokens / action-space tokens, median over pages. Render = select the view and render it, milliseconds.\n\n")
	encs := s.Config.Encodings
	fmt.Fprint(w, "| cell | pages | errors |")
	for _, e := range encs {
		fmt.Fprintf(w, " tokens mean (%s) | median | p90 | sum | perception mean | ratio median |", e)
	}
	fmt.Fprint(w, " IDs/page | bytes/page | render ms median | p90 |\n|---|---:|---:|")
	for range encs {
		fmt.Fprint(w, "---:|---:|---:|---:|---:|---:|")
	}
	fmt.Fprint(w, "---:|---:|---:|---:|\n")
	for i := range s.Cells {
		c := &s.Cells[i]
		fmt.Fprintf(w, "| `%s` | %d | %d |", c.Cell, c.Pages, c.Errors)
		for _, e := range encs {
			e := metrics.Encoding(e)
			var sum *float64
			if v := pick(e, c.TokensCL100KSum, c.TokensO200KSum); v != nil {
				sum = ptr(float64(*v))
			}
			fmt.Fprintf(w, " %s | %s | %s | %s | %s | %s |", fmtOpt(c.TokensMean(e), 1), fmtOpt(c.TokensMedian(e), 1),
				fmtOpt(c.TokensP90(e), 1), fmtOpt(sum, 0), fmtOpt(c.PerceptionTokensMean(e), 1), fmtOpt(c.RatioMedian(e), 1))
		}
		fmt.Fprintf(w, " %s | %s | %s | %s |\n", fmtOpt(c.IDsMean, 1), fmtOpt(c.SpaceBytesMean, 0),
			fmtOpt(c.RenderMSMedian, 3), fmtOpt(c.RenderMSP90, 3))
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "## Compression ratio\n\nMedian compression ratio (%s): how many times fewer tokens the action space costs than the page's HTML.\n\n", enc)
	r.mdGrid(w, "", func(c *CellSummary) string { return fmtOpt(c.RatioMedian(enc), 1) })
	if has(RatioChartFile) {
		img(RatioChartFile, "compression ratio distribution per cell")
	} else {
		fmt.Fprintf(w, "No ratios: the crawl dataset holds no HTML token counts or HTML.\n\n")
	}

	r.writeFormats(w, has(ParetoChartFile))
	r.writeSteps(w)
	r.writeStrategies(w)
	r.writeBudgets(w, has(BudgetChartFile))
	r.writeCosts(w)
	r.writeDeep(w, has(DeepChartFile))

	fmt.Fprintf(w, "## Time per stage\n\nCrawl stages come from the crawl dataset's pages rows; bench stages are measured here: decode = decompress and parse the capture and build the tree, once per page; render = select and render one fast-mode cell (the fastest of the timed runs); deep render = one deep-mode cell, LLM calls included (in a dry run: building and counting the prompt); tokenize = count one cell's tokens in every encoding; budget fit = fit one budget cell (the fastest of the timed runs, token counts of its probes included); format render = render one cell of another format (its window of the stored AI snapshot or accessibility tree, handles tied to the oracle; html: the page as stored), the fastest of the timed runs; cut from end = render a format's whole page and cut it to a budget (the fastest of the timed runs, token counts of its probes included).\n\n")
	fmt.Fprint(w, "| stage | source | measurements | median ms | p90 ms | mean ms |\n|---|---|---:|---:|---:|---:|\n")
	for _, st := range s.Stages {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s |\n", st.Name, st.Source, st.Count, fmtOpt(st.MedianMS, 3), fmtOpt(st.P90MS, 3), fmtOpt(st.MeanMS, 3))
	}
	fmt.Fprintln(w)
	img(StagesChartFile, "time per stage")

	fmt.Fprintf(w, "## Speed\n\n- Render path (select the view + render): **%.0f renders per second per core** (%d timed renders, %.3f core-seconds).\n",
		s.Speed.RendersPerSecondPerCore, s.Speed.Renders, s.Speed.RenderSeconds)
	fmt.Fprintf(w, "- End to end (read, decode, %d renders per fast cell, count tokens, write): %d cells rows in %.2f s wall on %d workers = %.0f cells per second per worker.\n\n",
		s.Config.Repeat, s.Speed.Cells, s.Speed.WallSeconds, s.Speed.Workers, s.Speed.CellsPerSecondPerCore)

	if gate != nil {
		fmt.Fprintf(w, "## Regression gate\n\n```\n")
		gate.WriteText(w)
		fmt.Fprintf(w, "```\n\n")
		if len(gate.Checks) > 0 {
			fmt.Fprint(w, "| cell | metric | baseline | this run | worse by | limit | verdict |\n|---|---|---:|---:|---:|---|---|\n")
			for _, c := range gate.Checks {
				verdict := "ok"
				if c.Regressed {
					verdict = "**REGRESSED**"
				}
				fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s |\n", c.Cell, c.Metric, fmtNum(c.Base), fmtNum(c.Current),
					fmtWorsePct(c), limitText(c.Limit), verdict)
			}
			fmt.Fprintln(w)
		}
	}

	fmt.Fprintf(w, "## About the timings\n\nToken counts, IDs and ratios are deterministic: the same captures give the same figures on any machine. Timings are not: they depend on the machine and on whatever else it runs, and shared machines are noisy. Each fast cell's render time is the fastest of %d renders, and cells are compared by their median over pages, which keeps one-off stalls out; still, compare render times only between runs on the same machine.\n", s.Config.Repeat)
}

// writeCosts writes the cost table: per cell, the estimated dollars per
// thousand pages for every priced model.
func (r *Result) writeCosts(w io.Writer) {
	s := &r.Summary
	fmt.Fprintf(w, "## Estimated cost\n\n")
	if len(s.Prices.Models) == 0 {
		fmt.Fprintf(w, "No price table.\n\n")
		return
	}
	fmt.Fprintf(w, "US dollars per 1,000 pages for one agent step per page (the model reads the perception text once) plus, in deep mode, the tagging calls. Prices: %s", orDash(s.Prices.Note))
	if s.Prices.AsOf != "" {
		fmt.Fprintf(w, " (as of %s)", s.Prices.AsOf)
	}
	fmt.Fprint(w, ".\n\n| cell |")
	for _, m := range s.Prices.Models {
		fmt.Fprintf(w, " %s (%s, $%s/$%s per 1M) |", m.Model, m.Encoding,
			strconv.FormatFloat(m.InputPer1M, 'f', -1, 64), strconv.FormatFloat(m.OutputPer1M, 'f', -1, 64))
	}
	fmt.Fprint(w, "\n|---|")
	for range s.Prices.Models {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	partial := false
	for _, c := range s.Cells {
		fmt.Fprintf(w, "| `%s` |", c.Cell)
		for _, m := range s.Prices.Models {
			v := "–"
			for _, k := range c.Costs {
				if k.Model == m.Model {
					v = "$" + strconv.FormatFloat(k.USDPer1KPages, 'f', 4, 64)
					if k.Partial {
						v += "*"
						partial = true
					}
				}
			}
			fmt.Fprintf(w, " %s |", v)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	if partial {
		fmt.Fprintf(w, "\\* input side only: some deep-mode pages have no API-reported completion tokens (a dry run), and completion tokens are never estimated.\n\n")
	}
}

// writeDeep writes the deep-mode breakdown.
func (r *Result) writeDeep(w io.Writer, chart bool) {
	s := &r.Summary
	fmt.Fprintf(w, "## Deep mode: calls and tokens\n\n")
	var deep []*CellSummary
	for i := range s.Cells {
		if s.Cells[i].Mode == space.ModeDeep {
			deep = append(deep, &s.Cells[i])
		}
	}
	if len(deep) == 0 {
		fmt.Fprintf(w, "No deep-mode cells in this run (modes: %s).\n\n", strings.Join(s.Config.Modes, ", "))
		return
	}
	fmt.Fprint(w, "A dry run (no LLM endpoint) builds and counts the first-round prompt only: LLM ran = 0, API figures empty.\n\n")
	fmt.Fprint(w, "| cell | pages | LLM ran | calls | prompt tokens (local, sum) | per page | prompt tokens (API) | completion tokens (API) | LLM ms median | coverage | hallucinated IDs | cache hits |\n")
	fmt.Fprint(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, c := range deep {
		fmt.Fprintf(w, "| `%s` | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.Cell, c.Pages,
			fmtInt(c.LLMRanPages), fmtInt(c.LLMCalls), fmtInt(c.PromptTokensLocal), fmtOpt(c.PromptTokensLocalMean, 0),
			fmtInt(c.PromptTokensAPI), fmtInt(c.CompletionTokensAPI), fmtOpt(c.LLMMSMedian, 1), fmtOpt(c.CoverageMean, 3),
			fmtInt(c.HallucinatedIDs), fmtInt(c.CacheHits))
	}
	fmt.Fprintln(w)
	if chart {
		fmt.Fprintf(w, "![deep-mode tokens per page](%s)\n\n", DeepChartFile)
	}
}

func fmtOpt(x *float64, prec int) string {
	if x == nil {
		return "–"
	}
	return strconv.FormatFloat(*x, 'f', prec, 64)
}

func fmtInt(x *int64) string {
	if x == nil {
		return "–"
	}
	return strconv.FormatInt(*x, 10)
}

func fmtWorsePct(c Check) string {
	switch {
	case c.Worse > 1e300:
		return "new"
	case c.Limit.Metric == MetricRecall:
		return fmt.Sprintf("%+.2f points", c.Worse)
	}
	return fmt.Sprintf("%+.1f%%", c.Worse)
}

func joinInts[T int | int64](xs []T) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.FormatInt(int64(x), 10))
	}
	return strings.Join(s, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
