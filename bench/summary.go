package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"actionspace/dataset"
	"actionspace/metrics"
)

// Summary describes a bench run as a whole: what was swept, over which
// pages, on which machine, how fast, and one CellSummary per cell. It is
// written as summary.json (its Cells also as summary.parquet) and is what
// the regression gate reads back as a baseline.
type Summary struct {
	// SchemaVersion is dataset.SchemaVersion when the file was written.
	SchemaVersion int `json:"schema_version"`
	// RunID identifies the bench run.
	RunID string `json:"run_id"`
	// CreatedAt is when the sweep finished, in UTC.
	CreatedAt time.Time `json:"created_at"`
	// ToolVersion is the actionspace build's version.
	ToolVersion string `json:"tool_version"`
	// Input describes the crawl dataset swept.
	Input Input `json:"input"`
	// Config is the sweep's matrix and settings.
	Config RunConfig `json:"config"`
	// Machine is where the sweep ran; timings are only comparable on the
	// same machine.
	Machine Machine `json:"machine"`
	// Speed is the render throughput.
	Speed Speed `json:"speed"`
	// Stages are the per-page stage timings: the crawl's (navigate,
	// settle, capture, content, from the pages files) and the bench's
	// (decode, render, deep render, tokenize).
	Stages []Stage `json:"stages"`
	// Prices is the price table the costs were computed with.
	Prices Prices `json:"prices"`
	// Cells holds one summary per cell, in Config.Cells order.
	Cells []CellSummary `json:"cells"`
	// FormatRatios compare the action space's tokens with every other
	// format's at equal expansion (see FormatRatio).
	FormatRatios []FormatRatio `json:"format_ratios"`
	// RecallGaps are the pages where the whole-page action space misses
	// most of what another format has (see RecallGap): at most
	// MaxRecallGaps, the largest gap first.
	RecallGaps []RecallGap `json:"recall_gaps"`
	// RecallGapPages is the number of pages where another format's
	// whole-page recall is above the action space's (RecallGaps lists the
	// first of them).
	RecallGapPages int `json:"recall_gap_pages"`
}

// Input describes the crawl dataset a bench run swept. Sweep fills the
// label (from the crawl's metadata) and the counts; the caller sets Path.
type Input struct {
	// Label says what the dataset is, e.g. "bundled corpus"; free text.
	Label string `json:"label,omitempty"`
	// Path is the crawl dataset swept: a directory or a pages file.
	Path string `json:"path"`
	// Files is the number of pages files (parts) read.
	Files int `json:"files"`
	// CrawlRunID is the crawl's run ID, from the file's metadata.
	CrawlRunID string `json:"crawl_run_id"`
	// BrowserVersion is the browser the crawl used, from the metadata.
	BrowserVersion string `json:"browser_version"`
	// Rows is the number of rows in the pages file.
	Rows int `json:"rows"`
	// Rendered is the number of pages with a capture, each rendered under
	// every cell.
	Rendered int `json:"rendered"`
	// Skipped is the number of rows without a capture (failed pages).
	Skipped int `json:"skipped"`
	// Failed is the number of captures that did not decode; their cells
	// rows carry the error.
	Failed int `json:"failed"`
}

// RunConfig is the part of Config a summary records.
type RunConfig struct {
	Formats    []string `json:"formats"`
	Modes      []string `json:"modes"`
	Expansions []int    `json:"viewport_expansions"`
	Texts      []string `json:"text_policies"`
	Encodings  []string `json:"encodings"`
	Budgets    []int64  `json:"token_budgets,omitempty"`
	Repeat     int      `json:"repeat"`
	Workers    int      `json:"workers"`
}

// Machine identifies the machine a sweep ran on.
type Machine struct {
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	CPUModel   string `json:"cpu_model,omitempty"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	GoVersion  string `json:"go_version"`
}

// Speed is the throughput of a sweep.
type Speed struct {
	// Renders is the number of timed renders of the action space (page ×
	// fast-mode cell × repeat; the other formats' renders are timed too,
	// per cell, but not counted here).
	Renders int64 `json:"renders"`
	// RenderSeconds is the summed time of those renders; each ran on one
	// core, so it is their cost in core-seconds.
	RenderSeconds float64 `json:"render_seconds"`
	// RendersPerSecondPerCore is Renders / RenderSeconds: how many views
	// one core selects and renders per second.
	RendersPerSecondPerCore float64 `json:"renders_per_second_per_core"`
	// Cells is the number of cells rows written (page × cell).
	Cells int64 `json:"cells"`
	// WallSeconds is the sweep's wall time, reading and writing included.
	WallSeconds float64 `json:"wall_seconds"`
	// Workers is the number of pages rendered at once.
	Workers int `json:"workers"`
	// CellsPerSecondPerCore is Cells / WallSeconds / Workers: end-to-end
	// throughput (decode, repeats, tokens, writing) per worker.
	CellsPerSecondPerCore float64 `json:"cells_per_second_per_core"`
	// CalibrationMS is the median time of a fixed reference workload
	// timed alongside every page's renders: the machine's speed during
	// the sweep. The gate scales render times by the ratio of two runs'
	// calibrations, so that a slower machine or a busier moment is not
	// taken for a slower renderer. Null when no page was rendered.
	CalibrationMS *float64 `json:"calibration_ms"`
}

// Stage is the distribution of one stage's time per page.
type Stage struct {
	// Name is the stage: navigate, settle, capture, content (crawl);
	// decode (per page), render (fast mode, per page × cell), deep render
	// (deep mode, LLM calls or a dry run's prompt, per page × cell),
	// tokenize (per page × cell with a text), budget fit (per page ×
	// actionspace budget cell), format render (per page × cell of another
	// format: render the window and tie its handles to the oracle) and
	// cut from end (per page × cut baseline: render the whole page and
	// cut it) (bench).
	Name string `json:"name"`
	// Source is "crawl" or "bench".
	Source string `json:"source"`
	// Count is the number of measurements (pages; page × cell for render
	// and tokenize).
	Count int `json:"count"`
	// MedianMS, P90MS and MeanMS summarise the measurements, in
	// milliseconds; null without measurements.
	MedianMS *float64 `json:"median_ms"`
	P90MS    *float64 `json:"p90_ms"`
	MeanMS   *float64 `json:"mean_ms"`
}

// CellSummary aggregates one cell over every page: one row of
// summary.parquet and one entry of summary.json's cells. Token statistics
// are per page, over the pages rendered without error; a statistic is null
// when nothing was measured (an encoding not requested, no deep rows).
type CellSummary struct {
	// Cell is the cell's key (see Cell.Key).
	Cell string `json:"cell" parquet:"cell"`
	// Format is the cell's format (space.Formats).
	Format string `json:"format" parquet:"format"`
	// Mode, ViewportExpansion and TextPolicy spell the cell out (mode and
	// text policy are empty for the formats other than actionspace); a
	// budget cell has no expansion of its own (0; see BudgetSummary).
	Mode              string `json:"mode" parquet:"mode"`
	ViewportExpansion int64  `json:"viewport_expansion" parquet:"viewport_expansion"`
	TextPolicy        string `json:"text_policy" parquet:"text_policy"`
	// BudgetSummary is a budget cell's budget and what it kept; null in
	// the other cells.
	BudgetSummary
	// Pages is the number of pages rendered under the cell, errors
	// included.
	Pages int64 `json:"pages" parquet:"pages"`
	// Errors is the number of pages that failed to render.
	Errors int64 `json:"errors" parquet:"errors"`
	// NoRecordPages is the number of pages with a capture but without
	// the record the cell's format renders from (the crawl did not store
	// the AI snapshot or the accessibility tree: not asked for, or
	// skipped); they have no row in the cell and count nowhere else in
	// it.
	NoRecordPages int64 `json:"no_record_pages" parquet:"no_record_pages"`

	// Action-space tokens per page, cl100k_base.
	TokensCL100KMean   *float64 `json:"tokens_cl100k_mean" parquet:"tokens_cl100k_mean"`
	TokensCL100KMedian *float64 `json:"tokens_cl100k_median" parquet:"tokens_cl100k_median"`
	TokensCL100KP90    *float64 `json:"tokens_cl100k_p90" parquet:"tokens_cl100k_p90"`
	TokensCL100KSum    *int64   `json:"tokens_cl100k_sum" parquet:"tokens_cl100k_sum"`
	// Action-space tokens per page, o200k_base.
	TokensO200KMean   *float64 `json:"tokens_o200k_mean" parquet:"tokens_o200k_mean"`
	TokensO200KMedian *float64 `json:"tokens_o200k_median" parquet:"tokens_o200k_median"`
	TokensO200KP90    *float64 `json:"tokens_o200k_p90" parquet:"tokens_o200k_p90"`
	TokensO200KSum    *int64   `json:"tokens_o200k_sum" parquet:"tokens_o200k_sum"`
	// Perception-text tokens per page (the action space plus its
	// wrapper), mean.
	PerceptionTokensCL100KMean *float64 `json:"perception_tokens_cl100k_mean" parquet:"perception_tokens_cl100k_mean"`
	PerceptionTokensO200KMean  *float64 `json:"perception_tokens_o200k_mean" parquet:"perception_tokens_o200k_mean"`
	// IDs per page.
	IDsMean   *float64 `json:"ids_mean" parquet:"ids_mean"`
	IDsMedian *float64 `json:"ids_median" parquet:"ids_median"`
	// SpaceBytesMean is the action space's mean size in bytes.
	SpaceBytesMean *float64 `json:"space_bytes_mean" parquet:"space_bytes_mean"`
	// Median compression ratio (HTML tokens / action-space tokens).
	RatioCL100KMedian *float64 `json:"ratio_cl100k_median" parquet:"ratio_cl100k_median"`
	RatioO200KMedian  *float64 `json:"ratio_o200k_median" parquet:"ratio_o200k_median"`
	// OraclePages is the number of pages with a recall: an oracle (an
	// accessibility tree) with at least one element in the window.
	OraclePages *int64 `json:"oracle_pages" parquet:"oracle_pages"`
	// RecallMean and RecallMedian summarise the recall column over those
	// pages: the share of the window's oracle elements that got a handle.
	// Null for html, which has no handles.
	RecallMean   *float64 `json:"recall_mean" parquet:"recall_mean"`
	RecallMedian *float64 `json:"recall_median" parquet:"recall_median"`
	// ExtraHandlesMean is the mean number of handles per page that stand
	// for no oracle element, over the pages with an oracle.
	ExtraHandlesMean *float64 `json:"extra_handles_mean" parquet:"extra_handles_mean"`
	// Render time per page, milliseconds (see CellRow.RenderMS).
	RenderMSMedian *float64 `json:"render_ms_median" parquet:"render_ms_median"`
	RenderMSP90    *float64 `json:"render_ms_p90" parquet:"render_ms_p90"`
	// TokenizeMSMedian is the median token-counting time per page.
	TokenizeMSMedian *float64 `json:"tokenize_ms_median" parquet:"tokenize_ms_median"`

	// Deep mode; null on fast cells.

	// LLMRanPages is the number of pages the LLM really ran for.
	LLMRanPages *int64 `json:"llm_ran_pages" parquet:"llm_ran_pages"`
	// LLMCalls is the total number of chat-completion requests.
	LLMCalls *int64 `json:"llm_calls" parquet:"llm_calls"`
	// PromptTokensAPI and CompletionTokensAPI are the API-reported usage
	// sums; null when no call reported usage.
	PromptTokensAPI     *int64 `json:"prompt_tokens_api" parquet:"prompt_tokens_api"`
	CompletionTokensAPI *int64 `json:"completion_tokens_api" parquet:"completion_tokens_api"`
	// PromptTokensLocal is the sum of locally counted prompt tokens.
	PromptTokensLocal *int64 `json:"prompt_tokens_local" parquet:"prompt_tokens_local"`
	// PromptTokensLocalMean is its mean per page.
	PromptTokensLocalMean *float64 `json:"prompt_tokens_local_mean" parquet:"prompt_tokens_local_mean"`
	// LLMMSMedian is the median LLM wall time per page.
	LLMMSMedian *float64 `json:"llm_ms_median" parquet:"llm_ms_median"`
	// CoverageMean is the mean fraction of IDs described, over the pages
	// the LLM ran for.
	CoverageMean *float64 `json:"coverage_mean" parquet:"coverage_mean"`
	// HallucinatedIDs is the total of reply IDs the pages do not have.
	HallucinatedIDs *int64 `json:"hallucinated_ids" parquet:"hallucinated_ids"`
	// CacheHits is the total of replies served from the cache.
	CacheHits *int64 `json:"cache_hits" parquet:"cache_hits"`

	// Costs holds the estimated cost per model of the price table whose
	// encoding was counted.
	Costs []Cost `json:"costs" parquet:"costs,list"`
}

// BudgetSummary aggregates a budget cell over its pages (those rendered
// without error); every figure is null in the cells of a fixed expansion.
type BudgetSummary struct {
	// TokenBudget is the cell's budget, in tokens of the headline encoding.
	TokenBudget *int64 `json:"token_budget" parquet:"token_budget"`
	// WholePagePages is the number of pages whose whole page fitted.
	WholePagePages *int64 `json:"whole_page_pages" parquet:"whole_page_pages"`
	// BudgetExpansionMedian is the median window reached (budget_expansion,
	// CSS pixels) over the pages whose whole page did not fit; null when
	// every page fitted.
	BudgetExpansionMedian *float64 `json:"budget_expansion_median" parquet:"budget_expansion_median"`
	// DroppedIDsMean is the mean number of IDs dropped per page.
	DroppedIDsMean *float64 `json:"dropped_ids_mean" parquet:"dropped_ids_mean"`
	// RecallPages is the number of pages with a page_recall (an oracle
	// with at least one element).
	RecallPages *int64 `json:"recall_pages" parquet:"recall_pages"`
	// PageRecallMean is the mean of page_recall over those pages: the
	// share of each page's oracle elements that got a handle, a
	// denominator that does not move with the budget.
	PageRecallMean *float64 `json:"page_recall_mean" parquet:"page_recall_mean"`
	// ViewportRecallMean is the mean of viewport_recall over the pages
	// with an oracle element on the screen.
	ViewportRecallMean *float64 `json:"viewport_recall_mean" parquet:"viewport_recall_mean"`
}

// TokensMean returns the mean action-space tokens per page in enc.
func (s *CellSummary) TokensMean(enc metrics.Encoding) *float64 {
	return pick(enc, s.TokensCL100KMean, s.TokensO200KMean)
}

// TokensMedian returns the median action-space tokens per page in enc.
func (s *CellSummary) TokensMedian(enc metrics.Encoding) *float64 {
	return pick(enc, s.TokensCL100KMedian, s.TokensO200KMedian)
}

// TokensP90 returns the 90th percentile of action-space tokens in enc.
func (s *CellSummary) TokensP90(enc metrics.Encoding) *float64 {
	return pick(enc, s.TokensCL100KP90, s.TokensO200KP90)
}

// PerceptionTokensMean returns the mean perception tokens per page in enc.
func (s *CellSummary) PerceptionTokensMean(enc metrics.Encoding) *float64 {
	return pick(enc, s.PerceptionTokensCL100KMean, s.PerceptionTokensO200KMean)
}

// RatioMedian returns the median compression ratio in enc.
func (s *CellSummary) RatioMedian(enc metrics.Encoding) *float64 {
	return pick(enc, s.RatioCL100KMedian, s.RatioO200KMedian)
}

func pick[T any](enc metrics.Encoding, cl100k, o200k *T) *T {
	switch enc {
	case metrics.CL100K:
		return cl100k
	case metrics.O200K:
		return o200k
	}
	return nil
}

// Cell returns the summary of the cell with the given key, or nil.
func (s *Summary) Cell(key string) *CellSummary {
	for i := range s.Cells {
		if s.Cells[i].Cell == key {
			return &s.Cells[i]
		}
	}
	return nil
}

// ReadSummary reads a summary.json, e.g. a baseline.
func ReadSummary(path string) (*Summary, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read summary: %w", err)
	}
	var s Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("read summary %s: %w", path, err)
	}
	if s.SchemaVersion != dataset.SchemaVersion {
		return nil, fmt.Errorf("read summary %s: schema version %d, want %d", path, s.SchemaVersion, dataset.SchemaVersion)
	}
	return &s, nil
}

// slot returns the index of enc's column set: 0 for cl100k_base, 1 for
// o200k_base.
func slot(enc metrics.Encoding) int {
	if enc == metrics.O200K {
		return 1
	}
	return 0
}

// cellAcc accumulates one cell's rows.
type cellAcc struct {
	cell           Cell
	pages, errors  int64
	noRecord       int64
	recall         []float64
	extra          []float64
	tokens         [2][]float64
	tokenSum       [2]int64
	ptokens        [2][]float64
	ptokenSum      [2]int64
	ratio          [2][]float64
	ids, bytes     []float64
	renderMS       []float64
	tokenizeMS     []float64
	deepRows       int64
	ranPages       int64
	calls          int64
	promptAPI      *int64
	completionAPI  *int64
	promptLocal    int64
	promptLocalPer []float64
	promptForCost  int64 // API-reported where present, else local
	noCompletion   bool  // some deep row has no completion figure
	llmMS          []float64
	coverage       []float64
	hallucinated   *int64
	cacheHits      int64
	// Budget cells.
	wholePage      int64
	budgetExp      []float64
	droppedIDs     []float64
	pageRecall     []float64
	viewportRecall []float64
}

// add folds one row into the cell. A failed row counts as an error, but
// its deep-mode figures still count: the calls were made.
func (a *cellAcc) add(r *CellRow) {
	a.pages++
	if r.LLMRan != nil {
		a.addDeep(r)
	}
	if r.Error != "" {
		a.errors++
		return
	}
	for i, pair := range [2][2]*int64{{r.TokensCL100K, r.PerceptionTokensCL100K}, {r.TokensO200K, r.PerceptionTokensO200K}} {
		if pair[0] != nil {
			a.tokens[i] = append(a.tokens[i], float64(*pair[0]))
			a.tokenSum[i] += *pair[0]
		}
		if pair[1] != nil {
			a.ptokens[i] = append(a.ptokens[i], float64(*pair[1]))
			a.ptokenSum[i] += *pair[1]
		}
	}
	if r.RatioCL100K != nil {
		a.ratio[0] = append(a.ratio[0], *r.RatioCL100K)
	}
	if r.RatioO200K != nil {
		a.ratio[1] = append(a.ratio[1], *r.RatioO200K)
	}
	a.ids = append(a.ids, float64(r.ActionCount))
	if r.SpaceSHA256 != "" {
		a.bytes = append(a.bytes, float64(r.SpaceBytes))
	}
	a.renderMS = append(a.renderMS, r.RenderMS)
	if r.Recall != nil {
		a.recall = append(a.recall, *r.Recall)
	}
	if r.ExtraHandles != nil {
		a.extra = append(a.extra, float64(*r.ExtraHandles))
	}
	if r.TokenizeMS > 0 {
		a.tokenizeMS = append(a.tokenizeMS, r.TokenizeMS)
	}
	if a.cell.Budget > 0 {
		a.addBudget(&r.BudgetMetrics)
	}
}

// addBudget folds a budget row's figures.
func (a *cellAcc) addBudget(b *dataset.BudgetMetrics) {
	if e := b.BudgetExpansion; e != nil {
		if *e == -1 {
			a.wholePage++
		} else {
			a.budgetExp = append(a.budgetExp, float64(*e))
		}
	}
	if b.DroppedIDs != nil {
		a.droppedIDs = append(a.droppedIDs, float64(*b.DroppedIDs))
	}
	if b.PageRecall != nil {
		a.pageRecall = append(a.pageRecall, *b.PageRecall)
	}
	if b.ViewportRecall != nil {
		a.viewportRecall = append(a.viewportRecall, *b.ViewportRecall)
	}
}

// budgetSummary computes a budget cell's figures.
func (a *cellAcc) budgetSummary() BudgetSummary {
	if a.cell.Budget == 0 {
		return BudgetSummary{}
	}
	return BudgetSummary{
		TokenBudget:           ptr(a.cell.Budget),
		WholePagePages:        ptr(a.wholePage),
		BudgetExpansionMedian: num(metrics.Median(a.budgetExp)),
		DroppedIDsMean:        num(metrics.Mean(a.droppedIDs)),
		RecallPages:           ptr(int64(len(a.pageRecall))),
		PageRecallMean:        num(metrics.Mean(a.pageRecall)),
		ViewportRecallMean:    num(metrics.Mean(a.viewportRecall)),
	}
}

// addDeep folds a row's deep-mode figures.
func (a *cellAcc) addDeep(r *CellRow) {
	a.deepRows++
	if *r.LLMRan {
		a.ranPages++
	}
	a.calls += deref(r.LLMCalls)
	a.promptAPI = addOpt(a.promptAPI, r.PromptTokensAPI)
	a.completionAPI = addOpt(a.completionAPI, r.CompletionTokensAPI)
	if r.CompletionTokensAPI == nil {
		a.noCompletion = true
	}
	local := deref(r.PromptTokensLocal)
	a.promptLocal += local
	a.promptLocalPer = append(a.promptLocalPer, float64(local))
	if r.PromptTokensAPI != nil {
		a.promptForCost += *r.PromptTokensAPI
	} else {
		a.promptForCost += local
	}
	if r.LLMMS != nil {
		a.llmMS = append(a.llmMS, *r.LLMMS)
	}
	if r.Coverage != nil {
		a.coverage = append(a.coverage, *r.Coverage)
	}
	a.hallucinated = addOpt(a.hallucinated, r.HallucinatedIDs)
	a.cacheHits += deref(r.CacheHits)
}

// summary computes the cell's summary.
func (a *cellAcc) summary(encs []metrics.Encoding, prices Prices) CellSummary {
	s := CellSummary{
		Cell:              a.cell.Key(),
		Format:            a.cell.format(),
		Mode:              a.cell.Mode,
		ViewportExpansion: int64(a.cell.Expansion),
		TextPolicy:        string(a.cell.Text),
		BudgetSummary:     a.budgetSummary(),
		Pages:             a.pages,
		Errors:            a.errors,
		NoRecordPages:     a.noRecord,
		RecallMean:        num(metrics.Mean(a.recall)),
		RecallMedian:      num(metrics.Median(a.recall)),
		ExtraHandlesMean:  num(metrics.Mean(a.extra)),
		IDsMean:           num(metrics.Mean(a.ids)),
		IDsMedian:         num(metrics.Median(a.ids)),
		SpaceBytesMean:    num(metrics.Mean(a.bytes)),
		RenderMSMedian:    num(metrics.Median(a.renderMS)),
		RenderMSP90:       num(metrics.Percentile(a.renderMS, 90)),
		TokenizeMSMedian:  num(metrics.Median(a.tokenizeMS)),
	}
	if len(a.recall) > 0 {
		s.OraclePages = ptr(int64(len(a.recall)))
	}
	for _, enc := range encs {
		i := slot(enc)
		if len(a.tokens[i]) == 0 {
			continue
		}
		mean, median, p90 := num(metrics.Mean(a.tokens[i])), num(metrics.Median(a.tokens[i])), num(metrics.Percentile(a.tokens[i], 90))
		sum := ptr(a.tokenSum[i])
		pmean := num(metrics.Mean(a.ptokens[i]))
		rmed := num(metrics.Median(a.ratio[i]))
		switch enc {
		case metrics.CL100K:
			s.TokensCL100KMean, s.TokensCL100KMedian, s.TokensCL100KP90, s.TokensCL100KSum = mean, median, p90, sum
			s.PerceptionTokensCL100KMean, s.RatioCL100KMedian = pmean, rmed
		case metrics.O200K:
			s.TokensO200KMean, s.TokensO200KMedian, s.TokensO200KP90, s.TokensO200KSum = mean, median, p90, sum
			s.PerceptionTokensO200KMean, s.RatioO200KMedian = pmean, rmed
		}
	}
	if a.deepRows > 0 {
		s.LLMRanPages = ptr(a.ranPages)
		s.LLMCalls = ptr(a.calls)
		s.PromptTokensAPI, s.CompletionTokensAPI = a.promptAPI, a.completionAPI
		s.PromptTokensLocal = ptr(a.promptLocal)
		s.PromptTokensLocalMean = num(metrics.Mean(a.promptLocalPer))
		s.LLMMSMedian = num(metrics.Median(a.llmMS))
		s.CoverageMean = num(metrics.Mean(a.coverage))
		s.HallucinatedIDs = a.hallucinated
		s.CacheHits = ptr(a.cacheHits)
	}
	ok := a.pages - a.errors
	for _, m := range prices.Models {
		if !slices.Contains(encs, m.Encoding) {
			continue // the model's encoding was not counted
		}
		i := slot(m.Encoding)
		read := a.ptokenSum[i] // the perception text
		if !a.cell.actionSpace() {
			read = a.tokenSum[i] // the other formats have no wrapper
		}
		s.Costs = append(s.Costs, m.cost(ok, read+a.promptForCost, deref(a.completionAPI), a.noCompletion))
	}
	return s
}

// stageAcc accumulates one stage's timings.
type stageAcc struct {
	name, source string
	ms           []float64
}

func (a *stageAcc) add(ms *float64) {
	if ms != nil {
		a.ms = append(a.ms, *ms)
	}
}

func (a *stageAcc) stage() Stage {
	return Stage{Name: a.name, Source: a.source, Count: len(a.ms),
		MedianMS: num(metrics.Median(a.ms)), P90MS: num(metrics.Percentile(a.ms, 90)), MeanMS: num(metrics.Mean(a.ms))}
}

// machine describes the machine the process runs on.
func machine() Machine {
	m := Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// num returns x as a nullable value: nil for NaN or an infinity.
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// addOpt adds an optional value to an optional sum: the sum stays nil
// until a value arrives.
func addOpt(sum, v *int64) *int64 {
	if v == nil {
		return sum
	}
	return ptr(deref(sum) + *v)
}
