package bench

// SchemaVersion is the version of the bench tables: CellRow, CellSummary
// and the Summary JSON document. Any change to a column's name, type,
// meaning or nullability bumps it.
const SchemaVersion = 1

// Output file names inside a bench run directory.
const (
	CellsFile       = "cells.parquet"
	SummaryFile     = "summary.parquet"
	SummaryJSONFile = "summary.json"
	ReportFile      = "report.md"
	TokensChartFile = "tokens_per_page.svg"
	RatioChartFile  = "compression_ratio.svg"
	DeepChartFile   = "deep_tokens.svg"
	StagesChartFile = "stage_times.svg"
	CrawlDir        = "crawl"
)

// CellRow is one row of cells.parquet: one page rendered under one cell.
// Its fields, in order, are the table's columns. Pointer fields are
// nullable: nil means "not measured" (an encoding not requested, a page
// without HTML, a fast-mode row's deep columns). Sizes are in bytes,
// durations in milliseconds.
//
// The action-space text itself is not stored: its SHA-256 is, and the text
// is re-rendered from the stored capture in microseconds.
type CellRow struct {
	// RunID identifies the bench run.
	RunID string `parquet:"run_id"`
	// PageID is the page's ID in the crawl dataset; it joins
	// pages.parquet.
	PageID string `parquet:"page_id"`
	// URL is the page's input URL.
	URL string `parquet:"url"`
	// Cell is the cell's key, MODE/E<expansion>/TEXT (see Cell.Key).
	Cell string `parquet:"cell"`
	// Mode is the renderer: "fast" or "deep".
	Mode string `parquet:"mode"`
	// ViewportExpansion is the expansion in CSS pixels; -1 is the whole
	// page.
	ViewportExpansion int64 `parquet:"viewport_expansion"`
	// TextPolicy is the context-text policy: viewport, all or none.
	TextPolicy string `parquet:"text_policy"`
	// Error is why the page could not be rendered under this cell (a
	// capture that does not decode, a deep-mode failure); empty when it
	// was. A row with an error has zero counts and null tokens.
	Error string `parquet:"error"`
	// ActionCount is the number of IDs: the sum of the ids_* columns.
	ActionCount int64 `parquet:"action_count"`
	// IDsL is the number of L (link) IDs.
	IDsL int64 `parquet:"ids_L"`
	// IDsB is the number of B (button-like) IDs.
	IDsB int64 `parquet:"ids_B"`
	// IDsI is the number of I (input-like) IDs.
	IDsI int64 `parquet:"ids_I"`
	// IDsF is the number of F (image, figure) IDs.
	IDsF int64 `parquet:"ids_F"`
	// IDsO is the number of O (option) IDs.
	IDsO int64 `parquet:"ids_O"`
	// IDsM is the number of M (other interactive) IDs.
	IDsM int64 `parquet:"ids_M"`
	// SpaceBytes is the action-space text's length in bytes.
	SpaceBytes int64 `parquet:"space_bytes"`
	// PerceptionBytes is the perception text's length in bytes.
	PerceptionBytes int64 `parquet:"perception_bytes"`
	// SpaceSHA256 is the hex SHA-256 of the action-space text: equal
	// hashes mean byte-identical spaces across runs.
	SpaceSHA256 string `parquet:"space_sha256"`
	// PerceptionSHA256 is the hex SHA-256 of the perception text.
	PerceptionSHA256 string `parquet:"perception_sha256"`
	// TokensCL100K is the action space's cl100k_base token count; null
	// when the encoding was not requested.
	TokensCL100K *int64 `parquet:"tokens_cl100k"`
	// TokensO200K is the action space's o200k_base token count.
	TokensO200K *int64 `parquet:"tokens_o200k"`
	// PerceptionTokensCL100K is the perception text's cl100k_base count.
	PerceptionTokensCL100K *int64 `parquet:"perception_tokens_cl100k"`
	// PerceptionTokensO200K is the perception text's o200k_base count.
	PerceptionTokensO200K *int64 `parquet:"perception_tokens_o200k"`
	// HTMLBytes is the page's raw HTML size, from the crawl; null when
	// the crawl did not keep it.
	HTMLBytes *int64 `parquet:"html_bytes"`
	// HTMLTokensCL100K is the raw HTML's cl100k_base token count (from
	// the crawl, or counted by bench when the crawl did not).
	HTMLTokensCL100K *int64 `parquet:"html_tokens_cl100k"`
	// HTMLTokensO200K is the raw HTML's o200k_base token count.
	HTMLTokensO200K *int64 `parquet:"html_tokens_o200k"`
	// RatioCL100K is html_tokens_cl100k / tokens_cl100k, how many times
	// smaller the action space is than the HTML; null when either is
	// missing or the space has no tokens.
	RatioCL100K *float64 `parquet:"ratio_cl100k"`
	// RatioO200K is html_tokens_o200k / tokens_o200k.
	RatioO200K *float64 `parquet:"ratio_o200k"`
	// RenderMS is the time to select the view and render it, in
	// milliseconds: the fastest of render_runs runs (deep mode: one run,
	// LLM calls included).
	RenderMS float64 `parquet:"render_ms"`
	// RenderRuns is the number of times the cell was rendered to time it.
	RenderRuns int64 `parquet:"render_runs"`
	// TokenizeMS is the time to count both texts' tokens in every
	// encoding, in milliseconds.
	TokenizeMS float64 `parquet:"tokenize_ms"`

	// The deep-mode columns: null on every fast-mode row.

	// LLMModel is the model name sent to the endpoint.
	LLMModel *string `parquet:"llm_model"`
	// LLMRan is false for a dry run (no endpoint: prompt built and
	// counted only).
	LLMRan *bool `parquet:"llm_ran"`
	// LLMCalls is the number of chat-completion requests, retries
	// included.
	LLMCalls *int64 `parquet:"llm_calls"`
	// LLMRounds is the number of tagging rounds.
	LLMRounds *int64 `parquet:"llm_rounds"`
	// PromptTokensAPI is the prompt tokens the API reported; null when it
	// did not run or reported none.
	PromptTokensAPI *int64 `parquet:"prompt_tokens_api"`
	// CompletionTokensAPI is the completion tokens the API reported;
	// never estimated.
	CompletionTokensAPI *int64 `parquet:"completion_tokens_api"`
	// PromptTokensLocal is the prompts' token count, counted locally.
	PromptTokensLocal *int64 `parquet:"prompt_tokens_local"`
	// LLMMS is the wall time in LLM calls, in milliseconds; null when
	// the LLM did not run.
	LLMMS *float64 `parquet:"llm_ms"`
	// Coverage is the fraction of IDs described; null when the LLM did
	// not run.
	Coverage *float64 `parquet:"coverage"`
	// HallucinatedIDs counts reply IDs the page does not have.
	HallucinatedIDs *int64 `parquet:"hallucinated_ids"`
	// CacheHits counts replies served from the cache.
	CacheHits *int64 `parquet:"cache_hits"`
}
