// Package pipeline crawls URL lists into action-space datasets.
//
// The model is one [Result] per [Target]: every URL that enters [Run]
// leaves it exactly once, as a pages row (ok or error, with an error kind)
// and, when the page was captured, one spaces row per viewport expansion.
//
// A run has three layers:
//
//   - [Browser] and [Page]: the small interface over Chromium that the
//     Playwright adapter implements. A Page loads one URL at a time:
//     navigate, wait for the DOM to settle, run the capture script once in
//     an isolated world, read the HTML. Failures are [PageError]s with a
//     stable [ErrorKind].
//   - [Run]: the worker pool. Workers each own a page, take targets from a
//     queue, bound each attempt with the configured timeout, retry
//     transient failures once, and turn the load into rows (decode the
//     capture once, render every expansion, count tokens). Results are
//     handed to the caller's emit function from a single goroutine.
//   - [Crawl]: a whole job: launch Chromium, stream the rows into the
//     Parquet files, close them properly even when interrupted.
package pipeline
