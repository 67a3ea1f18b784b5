// Package pipelinetest is the fake of the crawl core's browser port, as
// net/http/httptest is of net/http: a [Browser] that implements
// pipeline.Browser by replaying the corpus pages stored for the render
// goldens, with faults scripted per URL. It is the fixture of every test
// whose subject is not the browser — storage, resume, budgets, the
// dataset's queries, bench input, secrets in rows — so that those tests
// run the real crawl core (the pool, the renderers, the token counts, the
// part files) in milliseconds a page, without Chromium. Tests of what the
// browser does (loading, settling, capturing, the caps a page attacks,
// fidelity, a real crash) use package browser and real Chromium instead.
//
// # What it serves
//
// [Open] reads every page stored under a directory laid out as
// render/testdata is (one folder per page: capture.json.gz,
// axtree.json.gz, aisnapshot.json.gz, page.html.gz, written by
// internal/goldens with the corpus origin normalized to
// http://corpus.test). [StoredDir] finds that directory from a test's
// working directory; [New] opens it for a test.
//
// A page serves a URL by its path alone: http://127.0.0.1:43121/login.html
// and http://[::1]:9443/login.html?n=7 both replay the stored
// login.html, whatever the host, port or query (a path ending in "/"
// means its index.html). Nothing is dialed: tests name [Origin], a
// loopback origin where nothing needs to listen. The records come back as the
// crawl's own browser gives them: the capture, the HTML, the accessibility
// tree and the AI snapshot with the stored origin replaced by the URL's
// and the capture's page URL set to the URL; the HTML with the values of
// password and hidden inputs taken out (dom.RedactSecrets) and cut at
// PageConfig.MaxHTMLBytes; the
// extras only when PageConfig.Extras asks for them; a screenshot, when
// PageConfig.Screenshot asks for one, of a blank viewport (the stores
// hold no pixels) in the asked encoding. A path with no stored page and no
// scripted fault answers 404 (pipeline.KindHTTP), as the corpus server
// does.
//
// # Steps
//
// The mutation pages (corpora.MutationPaths) are stored with their steps
// too ([StepsDir], written by `go run ./tools/goldens -steps`): the
// state after load as any page, the state each step left in
// step-<k>/, and the steps' actions, targets and statuses. With
// PageConfig.Steps, a load replays step k when the page was stored with
// steps and the actions up to k are those stored: its status, target and
// state (its records as for the first state, with the page URL it had).
// Any other step is skipped (its target says the replay stores no state
// for it). A [StepFail] fault fails its step and ends the steps, as a
// step the browser could not perform does.
//
// What the replay does not do: it does not apply the capture script's
// options, the frame cap or the viewport of the PageConfig (the stored
// capture is what the crawl's default settings took, at 1280x720), nor
// the extras' size caps, nor the network policy. Its timings are nominal:
// every stage it performs takes [StageTime], so that timing columns are
// filled but measure nothing.
//
// # Faults
//
// A [Fault] scripted for a URL (in [Options.Faults], or with
// [Browser.SetFault] while a test runs) replaces its load: [Timeout]
// fails at once with pipeline.KindTimeout; [Hang] blocks until the
// load's context ends and then fails as the browser does (KindTimeout at
// the deadline, KindCanceled when the run is stopped); [Crash] fails with
// pipeline.KindBrowser and leaves the page dead (every later Load on it
// fails the same way, so the pool must open a new one); [Status] fails
// with pipeline.KindHTTP and the HTTP status (500 unless given); [Slow]
// replays the page after Fault.Delay (or fails as Hang when the context
// ends first), to have loads in flight when a test stops a crawl. A fault
// keyed by "path?query" applies to that URL only, one keyed by the path
// to every URL of the path; Fault.Times limits it to the first loads, so
// that a retry or a resume gets the page.
//
// # Determinism and concurrency
//
// The same URL always gives the same records, and a fault its outcome, in
// whatever order the workers load; only CapturedAt (the crawler's clock)
// changes. A Browser is safe for concurrent use, as the pool needs: each
// worker holds its own Page. A Page checks the port's contract: a Load
// while another Load of the page runs, or after Close, is an error.
//
// # In another process
//
// Options (faults included) marshal to JSON, so that a test can hand them
// to a crawl it starts as a subprocess of its own test binary (to kill it,
// or signal it) and have that process build the same Browser.
package pipelinetest
