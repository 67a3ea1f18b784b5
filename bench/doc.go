// Package bench answers the question the project exists for: how do the
// renderer's mode (fast, deep) and viewport_expansion change an action
// space's token cost, compression and render time, and did a change make
// them worse?
//
// The model is a matrix swept over stored captures. A crawl dataset
// (pages.parquet, see package dataset) keeps every page's capture, so a
// sweep needs no browser: [Sweep] decodes each capture once and renders it
// under every [Cell] (mode × expansion × text policy; [Config.Cells]),
// counts tokens in every encoding and streams one [CellRow] per page × cell
// into cells.parquet. Renders are pure, so two sweeps over the same
// captures give byte-identical action spaces (their SHA-256 is in every
// row) and identical token counts; only timings vary. To keep timings
// steady on shared machines, a separate timing pass renders each fast-mode
// cell [Config.Repeat] times, with no token counting beside it, and keeps
// the fastest run.
//
// [WriteResults] aggregates the rows into one [CellSummary] per cell
// (summary.parquet and summary.json, with cost estimates from a [Prices]
// table) and writes report.md with its SVG charts. [Compare] is the
// regression gate: it compares a run's summary with a baseline's, cell by
// cell, under per-metric [Threshold]s.
//
// Deep mode plugs in through the [Renderer] interface ([Config.Deep]);
// fast mode is [Fast].
package bench
