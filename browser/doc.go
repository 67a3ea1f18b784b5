// Package browser is the one place that speaks Playwright and the Chrome
// DevTools Protocol: it implements the crawl core's pipeline.Browser and
// pipeline.Page on real Chromium.
//
// The model: a Browser hands out Pages, each a tab in a fresh browser
// context. A Page loads one URL at a time as its pipeline.PageConfig
// says: navigate and wait for the load event, wait for the DOM to settle,
// run the capture script once in an isolated world (out of reach of the
// page's own JavaScript), capture the cross-origin frames it met in their
// own worlds and stitch them in, take the viewport screenshot, read the
// HTML. Every failure comes back as a pipeline.PageError whose Kind is
// classified here, partly from Playwright's message text (kindOf).
//
// Where the browser comes from:
//   - [Launch] starts the Playwright driver and a local Chromium;
//   - [Relauncher] wraps a launcher and starts a new browser when the
//     current one dies;
//   - [Remote] connects to Playwright browser servers (`run-server`),
//     spreads pages over them and reconnects a lost one;
//   - [Open] picks between a Relauncher and a Remote from a [Config], and
//     [Opener] hands that to pipeline.Crawl.
//
// Calls into a browser that stopped answering are bounded with
// internal/bounded, so that no worker waits forever.
package browser
