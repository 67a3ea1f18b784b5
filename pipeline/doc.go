// Package pipeline crawls URL lists into action-space datasets.
//
// The model is one [Result] per [Target]: every URL that enters [Run]
// leaves it exactly once, as a pages row (ok or error, with an error kind)
// and, when the page was captured, one spaces row per viewport expansion.
// Only an interrupted run leaves targets out: those it had not finished,
// for a resume to crawl.
//
// A run has three layers:
//
//   - [Browser] and [Page]: the small interface over Chromium that the
//     Playwright adapter implements. A Page loads one URL at a time:
//     navigate, wait for the DOM to settle, run the capture script once in
//     an isolated world, optionally take a viewport screenshot, read the
//     HTML. Failures are [PageError]s with a stable [ErrorKind].
//   - [Run]: the worker pool. Workers each own a page, take targets from a
//     queue, bound each attempt with the configured timeout, retry
//     transient failures once, and turn the load into rows (decode the
//     capture once, render every expansion, count tokens, draw the first
//     expansion's IDs on a labeled screenshot). Results are
//     handed to the caller's emit function from a single goroutine.
//   - [Crawl]: a whole job: launch Chromium (through a [Relauncher], which
//     starts a new one when it dies) or connect to Playwright browser
//     servers ([Remote], which spreads pages over them and reconnects a
//     lost one), stream the rows into rotating Parquet part files (see
//     [PagesDir] for the layout), close them properly even when
//     interrupted, and, with [Config].Resume, skip what a killed or
//     interrupted run already wrote ([OpenDataset]).
//
// To scale out, N processes crawl one [Shard] of the same list each (a URL
// belongs to the shard of its page ID modulo N) into their own partition
// of one dataset directory ([dataset.PartsConfig].Partition, "shard=000I").
package pipeline
