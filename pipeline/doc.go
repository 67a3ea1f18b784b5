// Package pipeline is the crawl core: it turns URL lists into action-space
// datasets.
//
// The model is one [Result] per [Target]: every URL that enters [Run]
// leaves it exactly once, as a pages row (ok or error, with an error kind)
// and, when the page was captured, one spaces row per mode and viewport
// expansion. Only an interrupted run leaves targets out: those it had not
// finished, for a resume to crawl.
//
// A run has three layers:
//
//   - [Browser] and [Page]: the small interface over a browser that the
//     core defines and package browser implements on Chromium. A Page
//     loads one URL at a time as the [PageConfig] it was opened with says.
//     Failures are [PageError]s with a stable [ErrorKind]. The core's own
//     tests run on fakes of it.
//   - [Run]: the pool, in two stages. Loaders ([Config].InFlight of
//     them) each own a page, take targets from a queue, bound each
//     attempt with the configured timeout and retry transient failures;
//     processors ([Config].Workers, one per core) turn each load into
//     rows (decode the capture once, render every mode and expansion
//     through package space, draw the first expansion's IDs on a labeled
//     screenshot), while its page loads the next target. A bounded queue
//     between the two keeps memory bounded. Results are handed to the
//     caller's emit function from a single goroutine.
//   - [Crawl]: a whole job: open the browser (an [Opener], such as
//     browser.Opener), stream the rows into rotating part files
//     (dataset.Parts), close them properly even when interrupted, and,
//     with [Config].Resume, skip what a killed or interrupted run already
//     wrote (parts.Resume).
//
// To scale out, N processes crawl one [Shard] of the same list each (a URL
// belongs to the shard of its page ID modulo N) into their own partition
// of one dataset directory ([parts.Config].Partition, "shard=000I").
//
// The package links no browser: `go list -deps` shows no Playwright.
package pipeline
