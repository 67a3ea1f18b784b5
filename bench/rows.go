package bench

import "actionspace/dataset"

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
	BudgetChartFile = "recall_vs_budget.svg"
	ParetoChartFile = "tokens_vs_recall.svg"
)

// CellRow is one row of cells.parquet: one page rendered under one cell.
// Its fields, in order, are the table's columns; the measurements are the
// spaces table's (dataset.SpaceMetrics), so each of those columns is
// declared once. Pointer fields are nullable: nil means "not measured" (an
// encoding not requested, a page without HTML, a fast-mode row's deep
// columns). Sizes are in bytes, durations in milliseconds. The tables'
// schema version is dataset.SchemaVersion.
//
// The action-space text itself is not stored: its SHA-256 is, and the text
// is re-rendered from the stored capture in microseconds.
type CellRow struct {
	// RunID identifies the bench run.
	RunID string `parquet:"run_id"`
	// PageID is the page's ID in the crawl dataset; it joins its pages
	// table.
	PageID string `parquet:"page_id"`
	// SchemaVersion is dataset.SchemaVersion, the version the row was
	// written with.
	SchemaVersion int64 `parquet:"schema_version"`
	// URL is the page's input URL.
	URL string `parquet:"url"`
	// Cell is the cell's key, MODE/E<expansion>/TEXT, or MODE/B<budget>/TEXT
	// for a budget cell (see Cell.Key).
	Cell string `parquet:"cell"`
	// Format is the perception format rendered (see the spaces table's
	// format column).
	Format string `parquet:"format"`
	// Mode is the renderer: "fast" or "deep".
	Mode string `parquet:"mode"`
	// ViewportExpansion is the expansion in CSS pixels; -1 is the whole
	// page. In a budget cell, the window the budget reached on this page
	// (budget_expansion), as in the spaces table.
	ViewportExpansion int64 `parquet:"viewport_expansion"`
	// TextPolicy is the context-text policy: viewport, all or none.
	TextPolicy string `parquet:"text_policy"`
	// BudgetMetrics are a budget cell's budget, the window it reached,
	// what it dropped and its recall (see the spaces table); null in the
	// other cells.
	dataset.BudgetMetrics
	// Error is why the page could not be rendered under this cell (a
	// capture that does not decode, a deep-mode failure); empty when it
	// was. A row with an error has zero counts and null tokens.
	Error string `parquet:"error"`
	// SpaceSHA256 is the hex SHA-256 of the action-space text: equal
	// hashes mean byte-identical spaces across runs.
	SpaceSHA256 string `parquet:"space_sha256"`
	// PerceptionSHA256 is the hex SHA-256 of the perception text.
	PerceptionSHA256 string `parquet:"perception_sha256"`
	// HTMLMetrics are the page's HTML size and tokens, from the crawl (the
	// tokens counted by bench when the crawl did not count an encoding).
	dataset.HTMLMetrics
	// SpaceMetrics are the space's measurements, as in the spaces table;
	// render_ms is the fastest of render_runs renders (deep mode: one run,
	// LLM calls included; a budget cell: fitting the budget, the token
	// counts of its probes included).
	dataset.SpaceMetrics
	// RenderRuns is the number of times the cell was rendered to time it.
	RenderRuns int64 `parquet:"render_runs"`
}
