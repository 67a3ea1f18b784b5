// Package corpora holds actionspace's bundled test corpus and the loopback
// server that serves it.
//
// The corpus is a small local web written for this project: a login form, a
// sign-up form, search results, a 40-card product grid, a product page, a long
// article, a docs page with a 200+ link sidebar, a dashboard table, settings
// with tabs and switches, a page behind a cookie-consent dialog, a page built
// by JavaScript after load, a gallery of custom widgets, a home page and a
// news front page. Together they cover the controls an LLM browser agent
// meets on the real web, so that a crawl, a benchmark or a test can run
// without the internet and give the same pages every time.
//
// Everything is embedded in the binary. [Handler] serves the site (the home
// page at "/") and one generated route, /gen/table?rows=N, a table of N rows
// with a text cell, an input and a button each, used to measure capture speed
// on very large pages; it is not part of the default crawl list. [Start] runs
// the handler on a free port of 127.0.0.1 for a crawl or a browser test, and
// [DefaultPaths] and [DefaultURLs] give the default crawl list (urls.txt).
//
// Under /faults/ the handler also serves the fault corpus ([FaultPaths]):
// pages that never answer, drip, loop, crash their renderer, pop up
// dialogs and windows, download, or are not HTML — the failures a crawl of
// the real web meets. They are not in the default crawl list; the crawl's
// tests use them to prove that every URL still gets its row in time.
//
// Under /mutation/ it serves the mutation corpus ([MutationPaths]): pages
// whose steps (crawl --steps) change the DOM in a known way, each
// actionable element named by a [TruthAttr] attribute, with a
// hand-labeled truth per page ([MutationTruthFor]): per step, which
// truth names get a handle and which must keep theirs.
//
// The package holds no mutable state: every call builds what it returns.
package corpora
