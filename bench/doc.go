// Package bench answers the question the project exists for: how do the
// renderer's mode (fast, deep) and viewport_expansion change an action
// space's token cost, recall, compression and render time, how does it
// compare with the formats agents read today (Playwright's AI snapshot,
// the accessibility tree, the HTML), and did a change make them worse?
//
// The model is a matrix swept over stored page states. A crawl dataset
// (its pages and blobs tables, see package dataset) keeps every page's
// capture, accessibility tree, AI snapshot and HTML, so a sweep needs no
// browser: [Sweep] decodes each page once into a space.Page and renders
// it under every [Cell] ([Config.Cells]: actionspace in mode × expansion ×
// text policy, the other formats per expansion, token budgets with the
// cut-from-the-end baselines), measures it with the one space.Meter
// (tokens in every encoding, recall against the page's oracle) and
// streams one [CellRow] per page × cell into cells.parquet; a page
// without a format's record has no row in that format's cells. Renders are pure, so two sweeps over the same
// captures give byte-identical action spaces (their SHA-256 is in every
// row) and identical token counts; only timings vary. To keep timings
// steady on shared machines, a separate timing pass renders each fast-mode
// cell [Config.Repeat] times, with no token counting beside it, and keeps
// the fastest run.
//
// [WriteResults] aggregates the rows into one [CellSummary] per cell
// (summary.parquet and summary.json, with cost estimates from a [Prices]
// table, the token ratios of the action space to the other formats and
// the pages where it misses most of what they have) and writes report.md
// with its SVG charts. [Compare] is the
// regression gate: it compares a run's summary with a baseline's, cell by
// cell, under per-metric [Threshold]s.
//
// Deep mode plugs in through the [Renderer] interface ([Config.Deep]);
// fast mode is [Fast].
package bench
