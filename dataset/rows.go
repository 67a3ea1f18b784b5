package dataset

import "time"

// SchemaVersion is the version of the tables' schema: the row structs below
// (and the bench's, which embed them). It is written into every file's
// key-value metadata and into every row's schema_version column. Any change
// to a column name, type, meaning or nullability bumps it. Version 2 moved
// the heavy values to the blobs table and added schema_version and format;
// version 3 added the reason columns (html_tokens_skipped, tokens_skipped,
// ratio_skipped, recall_skipped, text_skipped) and moved the html format's
// text out of the spaces table. Version 4 added the actionable-now oracle
// (pages.actionable_probe*, spaces.actionable_*, oracle.actionable and
// covering_*), the text measures (spaces.text_coverage, salient_*), the
// states after a page's steps (crawl --steps): the step column of
// spaces, elements, oracle and blobs, and the steps table, and the
// compression strategies' columns (group_min_run, layout,
// element_filter, recall_filtered), the spaces table's id_policy and
// step measures (handles_*, delta_*).
const SchemaVersion = 4

// Status values of PageRow.Status.
const (
	// StatusOK marks a page that was loaded and captured.
	StatusOK = "ok"
	// StatusError marks a page that could not be loaded or captured; its
	// row says why in ErrorKind and ErrorMessage.
	StatusError = "error"
)

// Status values of StepRow.Status: how a step of a page ended.
const (
	// StepOK: the step acted (or, for wait, waited) and the state it left
	// was captured, in the same document.
	StepOK = "ok"
	// StepNavigated: the step took the page to another document (a link,
	// a form, going back) and the new document's state was captured.
	StepNavigated = "navigated"
	// StepSkipped: the step found nothing to act on (no collapsed control
	// or empty text input in the viewport, a document that scrolls no
	// further, nothing to go back from); nothing was done or captured.
	StepSkipped = "skipped"
	// StepFailed: the action or the capture after it failed (error_kind
	// and error_message say why); no state was captured, and the page's
	// later steps were not performed.
	StepFailed = "failed"
	// StepTimeout: the step's time limit ran out first; as for failed.
	StepTimeout = "timeout"
)

// Why a value is missing: the values of the *_skipped columns. Each
// column documents which of them it takes; empty means nothing is missing.
const (
	// SkippedTooLarge: the page, record or text was larger than its cap
	// (for a token count: it holds a stretch the tokenizer cannot count in
	// bounded time).
	SkippedTooLarge = "too_large"
	// SkippedMalformed: the browser returned a record that does not parse.
	SkippedMalformed = "malformed"
	// SkippedFailed: the browser failed to take it, or the count or fit
	// failed (the error is logged).
	SkippedFailed = "failed"
	// SkippedDeadline: its time limit ran out first (for a record, after
	// a second try).
	SkippedDeadline = "deadline"
	// SkippedNoText: the space has no text to count (a deep-mode dry run).
	SkippedNoText = "no_text"
	// SkippedNoOracle: the page has no oracle (its accessibility tree was
	// not asked for, or skipped: pages.axtree_skipped).
	SkippedNoOracle = "no_oracle"
	// SkippedNoneInWindow: no oracle element is in the row's window, so
	// a recall has no denominator.
	SkippedNoneInWindow = "none_in_window"
	// SkippedNotApplicable: the measure does not exist for the row's
	// format (recall of html, which has no handles).
	SkippedNotApplicable = "not_applicable"
	// SkippedSpaceUncounted: a ratio whose space tokens are null (the
	// row's tokens_skipped says why).
	SkippedSpaceUncounted = "space_uncounted"
	// SkippedHTMLUncounted: a ratio whose page's HTML tokens are null
	// (pages.html_tokens_skipped says why).
	SkippedHTMLUncounted = "html_uncounted"
	// SkippedZeroTokens: a ratio over a space of no tokens.
	SkippedZeroTokens = "zero_tokens"
	// SkippedInBlobs: the text is stored once, in the blobs table (the
	// html format's text is blobs.html).
	SkippedInBlobs = "in_blobs"
	// SkippedNotProbed: the page has no actionable-now probe (crawl
	// --actionable-probe none, or the probe failed:
	// pages.actionable_probe_skipped).
	SkippedNotProbed = "not_probed"
)

// PageRow is one row of the pages table: one row per URL attempt, successful
// or not. Its fields, in order, are the table's columns; the parquet tag
// gives each column's name. Pointer fields are nullable: nil is written as
// null and means "not measured" (the page failed before that stage, or the
// value does not exist); a zero-valued non-pointer field means zero or empty.
//
// Sizes are in bytes, durations in milliseconds (float64, sub-millisecond
// precision), geometry in CSS pixels.
type PageRow struct {
	// RunID identifies the crawl run that produced the row; every row of a
	// run, in every table, carries the same value.
	RunID string `parquet:"run_id"`
	// PageID identifies the URL: the first 16 hex digits of the SHA-256 of
	// the URL as listed, the same in every run. It joins pages to spaces.
	PageID string `parquet:"page_id"`
	// SchemaVersion is the version of the dataset schema the row was
	// written with (SchemaVersion of package dataset), so that a union of
	// parts written by two versions can be told apart.
	SchemaVersion int64 `parquet:"schema_version"`
	// URL is the URL as given in the input list.
	URL string `parquet:"url"`
	// FinalURL is the URL of the loaded document after redirects; empty
	// when navigation did not commit.
	FinalURL string `parquet:"final_url"`
	// Status is "ok" when the page was captured, "error" otherwise.
	Status string `parquet:"status"`
	// ErrorKind classifies the failure: timeout, navigate, http,
	// content_type, capture, browser, invalid_url or blocked (see the
	// dataset card); empty when Status is "ok".
	ErrorKind string `parquet:"error_kind"`
	// ErrorMessage is the failure's full message; empty when Status is "ok".
	ErrorMessage string `parquet:"error_message" dataset:"blob"`
	// HTTPStatus is the HTTP status code of the main document's response
	// (after redirects); null when no response was received.
	HTTPStatus *int64 `parquet:"http_status"`
	// ContentType is the main response's Content-Type header, as sent;
	// empty when there was no response or no header.
	ContentType string `parquet:"content_type"`
	// Title is the document's title at capture time; empty when none.
	Title string `parquet:"title"`
	// HTMLMetrics are the size and token counts of HTML.
	HTMLMetrics
	// HTMLTruncated reports that the HTML was longer than the crawl stores
	// (crawl --max-html-bytes, 4 MiB by default): the blobs table's html
	// holds at most its first max-html-bytes bytes (cut between characters,
	// never inside a tag) and the html_tokens_* columns count those;
	// html_bytes is then a lower bound of the whole.
	// False for failed pages.
	HTMLTruncated bool `parquet:"html_truncated"`
	// HTMLUncounted reports that the HTML's tokens were not counted, so
	// html_tokens_* are null (html_tokens_skipped says why). Counting is
	// linear in the HTML's length (which --max-html-bytes caps), so only a
	// failure of the tokenizer itself sets it. False for failed pages.
	HTMLUncounted bool `parquet:"html_uncounted"`
	// HTMLTokensSkipped says why html_tokens_* are null on an ok row:
	// "failed" (the tokenizer failed; the count is linear and has no time
	// limit, so this is not expected); empty when counted, and for failed
	// pages (whose HTML was not taken). An encoding not in the run's --encodings is null on every
	// row and has no reason here.
	HTMLTokensSkipped string `parquet:"html_tokens_skipped"`
	// DOMNodes is the number of element nodes the capture walked (document,
	// open shadow roots and captured frames); null without a capture.
	DOMNodes *int64 `parquet:"dom_nodes"`
	// TextNodes is the number of non-empty text nodes the capture recorded;
	// null without a capture.
	TextNodes *int64 `parquet:"text_nodes"`
	// InteractiveNodes is the number of elements the capture found
	// interactive, before any viewport filter; null without a capture.
	InteractiveNodes *int64 `parquet:"interactive_nodes"`
	// ViewportWidth is the width of the browser viewport the page was
	// loaded in (the configured one), in CSS pixels.
	ViewportWidth int64 `parquet:"viewport_width"`
	// ViewportHeight is the height of the browser viewport, in CSS pixels.
	ViewportHeight int64 `parquet:"viewport_height"`
	// ScrollX is the horizontal scroll offset at capture time, in CSS
	// pixels; null without a capture.
	ScrollX *float64 `parquet:"scroll_x"`
	// ScrollY is the vertical scroll offset at capture time, in CSS pixels;
	// null without a capture.
	ScrollY *float64 `parquet:"scroll_y"`
	// PageWidth is the document's scroll width at capture time, in CSS
	// pixels; null without a capture.
	PageWidth *float64 `parquet:"page_width"`
	// PageHeight is the document's scroll height at capture time, in CSS
	// pixels; null without a capture.
	PageHeight *float64 `parquet:"page_height"`
	// DevicePixelRatio is window.devicePixelRatio at capture time; null
	// without a capture.
	DevicePixelRatio *float64 `parquet:"device_pixel_ratio"`
	// BrowserVersion is the version of the browser that served the page,
	// e.g. "156.0.8078.73": with several browser servers
	// (--browser-endpoint), the one the page ran on. A row that no browser
	// loaded (invalid_url) names the crawl's browser.
	BrowserVersion string `parquet:"browser_version"`
	// Attempts is the number of attempts made for the URL, including the
	// one this row reports (1 when the first attempt was final).
	Attempts int64 `parquet:"attempts"`
	// NavigateMS is the time from the start of navigation to the load
	// event (or the navigation's end), in milliseconds; null when
	// navigation was not attempted.
	NavigateMS *float64 `parquet:"navigate_ms"`
	// SettleMS is the time spent waiting for the page to settle after
	// navigation (network idle, animations), in milliseconds; null when the
	// stage was not reached.
	SettleMS *float64 `parquet:"settle_ms"`
	// CaptureMS is the wall time of the capture stage as seen from Go
	// (inject, run, transfer and decode the capture), in milliseconds; null
	// when the stage was not reached.
	CaptureMS *float64 `parquet:"capture_ms"`
	// ContentMS is the time taken to fetch the serialized HTML from the
	// page, in milliseconds; null when the stage was not reached.
	ContentMS *float64 `parquet:"content_ms"`
	// ScreenshotMS is the time taken to take the viewport screenshot (the
	// browser's round trip), in milliseconds; null when no screenshot was
	// asked for or the stage was not reached.
	ScreenshotMS *float64 `parquet:"screenshot_ms"`
	// AXTreeMS is the time taken to take the accessibility tree of the
	// captured page state (DOM snapshot, every frame's tree, the capture's
	// DOM identity), in milliseconds; null when the crawl's formats did not
	// ask for it (axtree) or the stage was not reached.
	AXTreeMS *float64 `parquet:"axtree_ms"`
	// AXTreeSkipped says why the accessibility tree asked for was not
	// stored: "too_large" (the page's DOM, shadow roots and same-origin
	// frames included, holds more nodes than crawl --max-ax-nodes, or its
	// main document more characters of text than crawl --max-ax-text),
	// "deadline" (it did not come within its share of the URL's time
	// limit, twice) or "failed" (the browser's error is logged); empty
	// when it was stored or not asked for.
	AXTreeSkipped string `parquet:"axtree_skipped"`
	// AISnapshotMS is the time taken to take Playwright's AI snapshot,
	// at the same time as the accessibility tree, in milliseconds; null when the
	// crawl's formats did not ask for it (playwright-ai) or the stage was
	// not reached.
	AISnapshotMS *float64 `parquet:"aisnapshot_ms"`
	// AISnapshotSkipped says why the AI snapshot asked for was not stored:
	// "too_large" (its text is longer than crawl --max-aisnapshot-bytes,
	// or the page's DOM holds more nodes than crawl --max-ax-nodes or more
	// text than crawl --max-ax-text, so that it was not taken), "malformed" (its lines do not parse), "deadline" (it did not come
	// within its share of the URL's time limit, twice) or "failed"
	// (Playwright's error is logged: its walk of the page recurses once
	// per level of the DOM, so a DOM nested thousands of levels deep can
	// exhaust its JavaScript stack); empty when it was stored or not asked
	// for.
	AISnapshotSkipped string `parquet:"aisnapshot_skipped"`
	// ScriptMS is the capture script's own run time inside the page, as it
	// measured itself, in milliseconds; null without a capture.
	ScriptMS *float64 `parquet:"script_ms"`
	// TotalMS is the wall time of the whole attempt sequence for the URL,
	// from the first navigation to the row's completion, in milliseconds.
	TotalMS float64 `parquet:"total_ms"`
	// ProcessMS is the Go-side time spent on the page after the browser
	// finished: decoding the capture, building the oracle, rendering every
	// format, mode and expansion, counting tokens (HTML included) and
	// making the elements and oracle rows, in milliseconds; null without a
	// capture.
	ProcessMS *float64 `parquet:"process_ms"`
	// CapturedAt is when the capture script returned (for a failed page:
	// when the last attempt ended), by the crawler's clock (never the
	// page's, which a page can set), a UTC timestamp with microsecond
	// precision.
	CapturedAt time.Time `parquet:"captured_at,timestamp(microsecond:utc)"`
	// CaptureTruncated reports that the page (with its cross-origin frames)
	// had more DOM nodes or characters than the capture's budgets (crawl
	// --max-nodes, --max-capture-chars): the capture, and so every space of
	// the page, holds only what came before the budget ran out, in document
	// order. False for complete captures and failed pages.
	CaptureTruncated bool `parquet:"capture_truncated"`
	// CaptureCapped names the caps of the capture that the page hit, in
	// this order: "url" (the URL cut at --max-url characters), "title"
	// (--max-title), "attributes" (an element with more than
	// --max-attributes attributes: the others dropped but those the
	// renderer and locators read), "names" (an attribute or tag name longer
	// than --max-name-length), "values" (an attribute value, control value
	// or option label cut at --max-attr-value), "text" (a text node cut at
	// --max-text), "options" (a select with more than --max-options
	// options listed), "nodes" (the walk stopped at --max-nodes, or a
	// frame was left out for it), "chars" (the walk stopped at
	// --max-capture-chars), "frames" (a cross-origin frame left out:
	// past --max-frames, or nested more than 4 deep) and "secrets" (more
	// password and hidden values than --max-secrets: those past it are
	// kept out of the capture but not scrubbed from the other records;
	// see docs/secrets.md). "nodes" and "chars"
	// also set capture_truncated. An empty list when nothing was cut, and
	// for failed pages.
	CaptureCapped []string `parquet:"capture_capped,list"`
	// CaptureChars is the number of characters (UTF-16 code units) of the
	// strings the capture holds, texts, names and values of the page and
	// its captured frames: what --max-capture-chars bounds. Null without a
	// capture.
	CaptureChars *int64 `parquet:"capture_chars"`
	// BlockedRequests is the number of the page's requests that the
	// network policy refused: subresources, frames and fetches to
	// link-local or metadata addresses, or from a public page into private
	// ones (see crawl --allow-private). A refused navigation of the page
	// itself (its URL, a redirect, a script navigation) makes the page an
	// error of kind blocked instead. Zero when nothing was refused, and for
	// pages no browser loaded.
	BlockedRequests int64 `parquet:"blocked_requests"`

	// The actionable-now probe (docs/oracles.md): after every other
	// record, the browser tests whether a pointer event at each oracle
	// element's centre reaches it.

	// ActionableProbe is what the probe tested: "viewport" (the oracle
	// elements whose box meets the viewport, the page not moved) or "all"
	// (every oracle element, each scrolled into view); empty when no probe
	// was taken (actionable_probe_skipped says why, when one was asked).
	ActionableProbe string `parquet:"actionable_probe"`
	// ActionableProbeMS is the probe's wall time, in milliseconds; null
	// when it was not run.
	ActionableProbeMS *float64 `parquet:"actionable_probe_ms"`
	// ActionableProbed is the number of oracle elements the probe
	// answered for (reached or covered); null when no probe was taken.
	ActionableProbed *int64 `parquet:"actionable_probed"`
	// ActionableProbeCapped reports that the page had more candidates
	// than crawl --max-actionable-probe: those past it were not tested
	// (their oracle rows say "capped"). False when not capped or not
	// probed.
	ActionableProbeCapped bool `parquet:"actionable_probe_capped"`
	// ActionableProbeSkipped says why the probe asked for is missing or
	// partial: "no_oracle" (no accessibility tree, so no oracle elements
	// to test), "failed" (the browser's error is logged; no probe stored)
	// or "deadline" (its time ran out: the elements not reached are
	// untested, "deadline" in the oracle rows); empty otherwise, and when
	// no probe was asked for.
	ActionableProbeSkipped string `parquet:"actionable_probe_skipped"`
}

// BlobRow is one row of the blobs table: the heavy values of a captured
// page, kept out of the pages table so that a scan of pages reads only small
// columns. It joins PageRow on page_id (and run_id); pages that were not
// captured have no blobs row. A page with steps (crawl --steps) has one
// row per state it captured, keyed by (page_id, step): step 0 for the
// state after load, and one for each step that left a state.
type BlobRow struct {
	// RunID identifies the run; see PageRow.RunID.
	RunID string `parquet:"run_id"`
	// PageID is the page's ID; see PageRow.PageID.
	PageID string `parquet:"page_id"`
	// SchemaVersion is the version of the dataset schema the row was
	// written with (SchemaVersion of package dataset), so that a union of
	// parts written by two versions can be told apart.
	SchemaVersion int64 `parquet:"schema_version"`
	// URL is the page's input URL, repeated from the pages table.
	URL string `parquet:"url"`
	// Step is the page state the row describes: 0 for the state after
	// load (the first capture), k for the state after the page's step k
	// (crawl --steps; the steps table says what the step did).
	Step int64 `parquet:"step"`
	// HTML is the document's HTML serialized from the live DOM at capture
	// time (not the bytes the server sent), as UTF-8, with the value
	// attributes of password inputs taken out, cut at --max-html-bytes
	// (see the pages table's html_truncated); empty when it was not taken.
	// The column is zstd-compressed in the file.
	HTML string `parquet:"html" dataset:"blob"`
	// Capture is the capture record (the JSON the capture script returned),
	// compressed as capture_encoding says; null when there is no capture.
	// Stored so that a page can be rendered again offline, without a
	// browser.
	Capture []byte `parquet:"capture,optional,uncompressed" dataset:"blob"`
	// CaptureEncoding names the encoding of capture: "json+zstd" (a zstd
	// frame holding the JSON record); empty when capture is null.
	CaptureEncoding string `parquet:"capture_encoding"`
	// AXTree is Chromium's accessibility tree of the same page state as the
	// capture (the oracle of recall), compressed as axtree_encoding says;
	// null when it was not taken.
	AXTree []byte `parquet:"axtree,optional,uncompressed" dataset:"blob"`
	// AXTreeEncoding names the encoding of axtree: "json+zstd"; empty when
	// axtree is null.
	AXTreeEncoding string `parquet:"axtree_encoding"`
	// AISnapshot is Playwright's AI snapshot of the same page state, with
	// boxes, compressed as aisnapshot_encoding says; null when it was not
	// taken.
	AISnapshot []byte `parquet:"aisnapshot,optional,uncompressed" dataset:"blob"`
	// AISnapshotEncoding names the encoding of aisnapshot: "json+zstd";
	// empty when aisnapshot is null.
	AISnapshotEncoding string `parquet:"aisnapshot_encoding"`
	// Screenshot is the screenshot of the viewport (not the whole page),
	// taken right after the capture at the same scroll position, so that
	// the actions' boxes, minus scroll_x and scroll_y and times
	// device_pixel_ratio, land on their elements; encoded as
	// screenshot_format says. With `crawl --screenshots labeled` the boxes
	// and IDs of the run's first viewport expansion are drawn on it (see
	// ScreenshotLabeled). Null when screenshots were off (the default) or the
	// screenshot failed, and for failed pages.
	Screenshot []byte `parquet:"screenshot,optional,uncompressed" dataset:"blob"`
	// ScreenshotFormat names the encoding of Screenshot: "jpeg" or "png";
	// empty when Screenshot is null.
	ScreenshotFormat string `parquet:"screenshot_format"`
	// ScreenshotWidth is the width of Screenshot in image pixels (the
	// viewport width times the device pixel ratio); null when Screenshot is
	// null.
	ScreenshotWidth *int64 `parquet:"screenshot_width"`
	// ScreenshotHeight is the height of Screenshot in image pixels; null
	// when Screenshot is null.
	ScreenshotHeight *int64 `parquet:"screenshot_height"`
	// ScreenshotLabeled is true when the boxes and IDs of the first
	// viewport expansion's actions are drawn on Screenshot: an outline
	// inside each box and the ID in a filled tag at its top-left corner
	// (above it for controls narrower than the tag), one colour per letter (L blue, B red, I green, F purple, O orange, M
	// teal). Elements outside the viewport (possible with an expansion
	// above 0) are not on the image. False for plain screenshots and when
	// there is none.
	ScreenshotLabeled bool `parquet:"screenshot_labeled"`
}

// SpaceRow is one row of the spaces table: one row per page x captured
// state (step) x format x mode x viewport_expansion x text policy, for pages that were captured
// (and, for playwright-ai and axtree, whose record was stored), and one per
// page x token budget (crawl --token-budget). It joins PageRow on page_id
// (and run_id). Pointer fields are nullable as for PageRow; the deep-mode
// columns are null on every fast-mode row and every other format's, the
// budget columns on every unbudgeted row.
type SpaceRow struct {
	// RunID identifies the run; see PageRow.RunID.
	RunID string `parquet:"run_id"`
	// PageID is the page's ID; see PageRow.PageID.
	PageID string `parquet:"page_id"`
	// SchemaVersion is the version of the dataset schema the row was
	// written with (SchemaVersion of package dataset), so that a union of
	// parts written by two versions can be told apart.
	SchemaVersion int64 `parquet:"schema_version"`
	// URL is the page's input URL, repeated from the pages table.
	URL string `parquet:"url"`
	// Step is the page state the row describes: 0 for the state after
	// load (the first capture), k for the state after the page's step k
	// (crawl --steps; the steps table says what the step did).
	Step int64 `parquet:"step"`
	// Format is the perception format the row renders: "actionspace" (this
	// project's action space, in the mode of Mode), "playwright-ai"
	// (Playwright's AI snapshot), "axtree" (the accessibility tree as
	// WebArena and BrowserGym print it) or "html" (the page's HTML).
	Format string `parquet:"format"`
	// Mode is the actionspace renderer: "fast" (pure code) or "deep"
	// (LLM-tagged); empty for the other formats, whose text code alone
	// makes.
	Mode string `parquet:"mode"`
	// ViewportExpansion is the number of CSS pixels the viewport was grown
	// by on every side to select elements; -1 means the whole page (the one
	// window of the html format). On a budgeted row it is the window the
	// budget reached, the same value as budget_expansion (0 when lines were
	// dropped from the viewport's rendering), and on a cut-from-the-end
	// baseline -1 (the whole page's text, cut): filter on token_budget IS
	// NULL for the fixed windows.
	ViewportExpansion int64 `parquet:"viewport_expansion"`
	// TextPolicy says which context text lines an actionspace row emitted:
	// "viewport" (rendered text inside the grown viewport), "all" (all
	// text, as the reference design does) or "none"; empty for the other
	// formats, which have no such switch.
	TextPolicy string `parquet:"text_policy"`
	// IDPolicy says how an actionspace row numbered its IDs: "positional"
	// (one counter per letter in document order over the row's window,
	// recomputed at every step) or "stable" (an element keeps its ID for
	// the life of its document, across steps and windows; see
	// docs/handles.md); empty for the other formats, whose handles are
	// their own.
	IDPolicy string `parquet:"id_policy"`
	// StrategyColumns are the compression strategies an actionspace row
	// was rendered with; null for the other formats.
	StrategyColumns
	// BudgetMetrics are the token budget the row was fitted into and what
	// fitting it cost; null on an unbudgeted row.
	BudgetMetrics
	// ActionSpace is the text an agent reads, UTF-8: in fast mode, one line
	// per action or context text; in deep mode, the rendered LLM
	// description; for playwright-ai and axtree, that format's text in the
	// window. Empty for html, whose text is the blobs table's html (see
	// text_skipped), and when the text is not stored (text_skipped).
	ActionSpace string `parquet:"action_space" dataset:"blob"`
	// PerceptionText is the full perception text of an actionspace row: the
	// action space wrapped in page metadata, scroll hints and start/end
	// markers; empty for the other formats, which have no wrapper.
	PerceptionText string `parquet:"perception_text" dataset:"blob"`
	// Actions is the structured list of the actions in ActionSpace, in ID
	// order as they appear in the text; an empty list when there are none,
	// and for the other formats.
	Actions []Action `parquet:"actions,list"`
	// TextSkipped says why action_space (and perception_text) are empty
	// although the space has a text, which the measures still describe:
	// "in_blobs" (html: the text is the blobs table's html, stored once),
	// "too_large" (the row would have been larger than 2 MiB: the texts,
	// and if that was not enough the actions list, were left out) or
	// "no_text" (a deep-mode dry run writes no description); empty when
	// the text is stored.
	TextSkipped string `parquet:"text_skipped"`
	// SpaceMetrics are the space's measurements: counts, sizes, tokens,
	// ratios, timings and the deep-mode figures.
	SpaceMetrics
	// LLMError is why deep mode did not finish for this space (a call that
	// failed after its retries, or a first reply that stayed unparseable);
	// the other deep columns then hold what was done before. Null when it
	// finished, and on fast rows.
	LLMError *string `parquet:"llm_error"`
}

// SpaceMetrics are the measurements of one rendered space, shared by the
// spaces table and the bench's cells table so that each of these columns
// is declared once. Pointer fields are nullable: nil means "not measured"
// (an encoding not requested, a deep-mode dry run's missing text, a
// fast-mode row's deep columns).
type SpaceMetrics struct {
	// ActionCount is the number of handles in the text: for actionspace
	// the IDs (the sum of the ids_* columns), for playwright-ai the refs,
	// for axtree the node ids; 0 for html.
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
	// SpaceBytes is the length of the action space text in bytes (UTF-8);
	// 0 when there is no text (a deep-mode dry run).
	SpaceBytes int64 `parquet:"space_bytes"`
	// PerceptionBytes is the length of the perception text in bytes
	// (UTF-8); 0 when there is no text, and for formats without one.
	PerceptionBytes int64 `parquet:"perception_bytes"`
	// TokensCL100K is the number of cl100k_base tokens in the action space
	// text; null when the encoding was not requested, or when there is no
	// text to count (a deep-mode dry run writes no description).
	TokensCL100K *int64 `parquet:"tokens_cl100k"`
	// TokensO200K is the number of o200k_base tokens in the action space
	// text; null as for tokens_cl100k.
	TokensO200K *int64 `parquet:"tokens_o200k"`
	// PerceptionTokensCL100K is the number of cl100k_base tokens in the
	// perception text; null as for tokens_cl100k, and for formats without
	// a perception text.
	PerceptionTokensCL100K *int64 `parquet:"perception_tokens_cl100k"`
	// PerceptionTokensO200K is the number of o200k_base tokens in the
	// perception text; null as for perception_tokens_cl100k.
	PerceptionTokensO200K *int64 `parquet:"perception_tokens_o200k"`
	// RatioCL100K is the page's html_tokens_cl100k divided by tokens_cl100k
	// (how many times smaller the action space is than the raw HTML); null
	// when either count is missing or the action space has no tokens.
	RatioCL100K *float64 `parquet:"ratio_cl100k"`
	// RatioO200K is html_tokens_o200k divided by tokens_o200k; null as for
	// ratio_cl100k.
	RatioO200K *float64 `parquet:"ratio_o200k"`
	// TokensSkipped says why tokens_* and perception_tokens_* are null:
	// "deadline" (the count did not finish within the page's processing
	// limit), "too_large" (the text holds a stretch the tokenizer cannot
	// count in bounded time), "failed" (the count failed, or a token
	// budget could not be fitted) or "no_text" (a deep-mode dry run);
	// empty when counted. An encoding not requested, and the perception
	// columns of a format without a wrapper, are null with no reason.
	TokensSkipped string `parquet:"tokens_skipped"`
	// RatioSkipped says why ratio_* are null: "space_uncounted" (see
	// tokens_skipped), "html_uncounted" (see pages.html_tokens_skipped) or
	// "zero_tokens" (the text has no tokens); empty when computed.
	RatioSkipped string `parquet:"ratio_skipped"`
	// OracleInWindow is the number of the page's oracle elements (the
	// actionable elements by Chromium's accessibility tree, not by our
	// rules: see the oracle table) whose box meets the row's window; null
	// when no oracle was captured (the crawl's formats left out axtree, or
	// the page's tree was skipped: pages.axtree_skipped).
	OracleInWindow *int64 `parquet:"oracle_in_window"`
	// Recall is the fraction of the oracle elements in the window that got
	// a handle in the text (an ID of the element or of a label of it, a
	// ref, a node id), in [0, 1]; null when no oracle was captured, when no
	// oracle element is in the window, and for the html format, which has
	// no handles.
	Recall *float64 `parquet:"recall"`
	// ExtraHandles is the number of handles in the text that stand for no
	// oracle element (0 for html); null when no oracle was captured.
	ExtraHandles *int64 `parquet:"extra_handles"`
	// RecallSkipped says why recall is null: "no_oracle" (then
	// oracle_in_window and extra_handles are null too),
	// "none_in_window", "not_applicable" (html) or "failed" (a token
	// budget that could not be fitted); empty when measured.
	RecallSkipped string `parquet:"recall_skipped"`
	// RecallFiltered is the recall against the oracle elements the row's
	// element filter keeps (element_filter: those whose role is of a kept
	// kind), in [0, 1]; recall beside it is against all of them, which a
	// filter lowers by design. Null without a filter (element_filter
	// "all", the other formats), without an oracle, and when no kept
	// oracle element is in the window.
	RecallFiltered *float64 `parquet:"recall_filtered"`

	// The actionable-now oracle and the text measures (docs/oracles.md).

	// ActionableInWindow is the number of oracle elements whose box meets
	// the row's window and that the page's probe found a pointer event
	// reaches (pages.actionable_probe says which elements were tested:
	// under "viewport" only those on screen); null when actionable_recall
	// is null for no_oracle, not_probed or failed.
	ActionableInWindow *int64 `parquet:"actionable_in_window"`
	// ActionableRecall is the fraction of those elements that got a
	// handle in the text (as for recall), in [0, 1]; null when
	// actionable_skipped says why.
	ActionableRecall *float64 `parquet:"actionable_recall"`
	// ActionableProbe is what the page's probe tested, as
	// pages.actionable_probe: "viewport" or "all"; empty when not probed.
	ActionableProbe string `parquet:"actionable_probe"`
	// ActionableSkipped says why actionable_recall is null: "no_oracle",
	// "not_probed" (see pages.actionable_probe_skipped), "none_in_window"
	// (no element the probe reached is in the window), "not_applicable"
	// (html) or "failed" (a token budget that could not be fitted); empty
	// when measured.
	ActionableSkipped string `parquet:"actionable_skipped"`
	// TextCoverage is the share of the page's visible text in the row's
	// window that the row's text carries: the words (runs of letters and
	// digits, lower-cased) of the capture's rendered text nodes whose box
	// meets the window, counted as a multiset, matched against the words
	// of the text; in [0, 1]. Null when text_coverage_skipped says why.
	TextCoverage *float64 `parquet:"text_coverage"`
	// TextCoverageSkipped says why text_coverage is null: "no_text" (a
	// deep-mode dry run), "none_in_window" (no visible word in the
	// window) or "failed" (a token budget that could not be fitted);
	// empty when measured.
	TextCoverageSkipped string `parquet:"text_coverage_skipped"`
	// SalientInWindow is the number of the page's salient texts (headings,
	// alert, status and live regions, error messages of invalid controls,
	// prices: docs/oracles.md) that meet the row's window; null when
	// salient_recall is null for no_text or failed.
	SalientInWindow *int64 `parquet:"salient_in_window"`
	// SalientRecall is the fraction of them whose text appears verbatim in
	// the row's text (every text run of the item, white space collapsed,
	// case kept), in [0, 1]; null when salient_skipped says why.
	SalientRecall *float64 `parquet:"salient_recall"`
	// SalientSkipped says why salient_recall is null: "no_text",
	// "none_in_window" (no salient text in the window) or "failed"; empty
	// when measured.
	SalientSkipped string `parquet:"salient_skipped"`
	// SalientCapped reports that the page had more salient texts, or
	// longer ones, than the rules keep (1,000 items of at most 300
	// characters): the rest are not scored.
	SalientCapped bool `parquet:"salient_capped"`
	// RenderMS is the time taken to select the view and build the action
	// space and perception text from the decoded capture (for the other
	// formats, their text from their record), and in a crawl to score it
	// against the oracle, in milliseconds (nanosecond precision); for deep
	// mode it includes the LLM calls (see llm_ms). The bench's cells keep
	// the fastest of render_runs renders.
	RenderMS float64 `parquet:"render_ms"`
	// TokenizeMS is the time taken to count the tokens of both texts in
	// every encoding, in milliseconds.
	TokenizeMS float64 `parquet:"tokenize_ms"`

	// The deep-mode columns: null on every fast-mode row.

	// LLMModel is the model name sent to the chat-completions endpoint.
	LLMModel *string `parquet:"llm_model"`
	// LLMRan is true when the endpoint was called (or the reply came from
	// the cache), false when no endpoint was configured and only the prompt
	// was built and counted.
	LLMRan *bool `parquet:"llm_ran"`
	// LLMCalls is the number of chat-completion requests sent, retries
	// included; 0 when every reply came from the cache.
	LLMCalls *int64 `parquet:"llm_calls"`
	// LLMRounds is the number of tagging rounds: 1 for the first listing,
	// plus one per incremental round for missing IDs.
	LLMRounds *int64 `parquet:"llm_rounds"`
	// PromptTokensAPI is the sum of prompt tokens the API reported over all
	// calls; null when the LLM did not run or the API reported no usage.
	PromptTokensAPI *int64 `parquet:"prompt_tokens_api"`
	// CompletionTokensAPI is the sum of completion tokens the API reported;
	// null as for prompt_tokens_api. Never estimated.
	CompletionTokensAPI *int64 `parquet:"completion_tokens_api"`
	// PromptTokensLocal is the number of tokens in the prompts, counted
	// locally with the model's encoding; set even when the LLM did not run.
	PromptTokensLocal *int64 `parquet:"prompt_tokens_local"`
	// LLMMS is the wall time spent in LLM calls, retries included, in
	// milliseconds; null when no reply was used and no call made (a dry
	// run).
	LLMMS *float64 `parquet:"llm_ms"`
	// Coverage is the fraction of the page's IDs the LLM described, in
	// [0, 1]; null when the LLM did not run.
	Coverage *float64 `parquet:"coverage"`
	// HallucinatedIDs is the number of IDs in the replies that the page
	// does not have (dropped); null when the LLM did not run.
	HallucinatedIDs *int64 `parquet:"hallucinated_ids"`
	// CacheHits is the number of replies served from the on-disk cache
	// instead of the endpoint.
	CacheHits *int64 `parquet:"cache_hits"`

	// The step columns (docs/handles.md): how the row's handles and text
	// changed since the same format, mode, window, text and ID policy at
	// the page's previous step. Null at a page's first step, on budgeted
	// rows, cut-from-the-end baselines and html rows; the handles_*
	// columns are null too when a capture of the two steps carries no
	// element keys (made before they existed). A handle's element is the
	// element it names: an ID's or a browser-use index's captured
	// element, the captured element an AI snapshot ref's box ties to, the DOM node an axtree node id is (the
	// id is the backend DOM node id); a handle tied to no element counts
	// as new and removed, never as kept or wrong.

	// HandlesKept is the number of handles of the previous step's text
	// whose element still has a handle in this text.
	HandlesKept *int64 `parquet:"handles_kept"`
	// HandlesSame is how many of handles_kept kept the same handle.
	HandlesSame *int64 `parquet:"handles_same"`
	// HandlesWrong is the number of handles of this text that the previous
	// step's text also held, for another element: an agent acting on the
	// handle it read at the previous step reaches the wrong element (the
	// silent re-point).
	HandlesWrong *int64 `parquet:"handles_wrong"`
	// HandlesNew is the number of handles of this text whose element had
	// no handle in the previous step's text.
	HandlesNew *int64 `parquet:"handles_new"`
	// HandlesRemoved is the number of handles of the previous step's text
	// whose element has no handle in this text (handles_kept +
	// handles_removed is the previous row's action_count).
	HandlesRemoved *int64 `parquet:"handles_removed"`
	// DeltaBytes is the length in bytes of the delta from the previous
	// step's text to this one (docs/handles.md: line based, naming the
	// removed handles; applied to the previous text it gives this one
	// exactly); 0 when the text did not change. Null also for a deep-mode
	// dry run (no text).
	DeltaBytes *int64 `parquet:"delta_bytes"`
	// DeltaTokensCL100K is the number of cl100k_base tokens of that delta:
	// what the step costs an agent that reads deltas, against
	// tokens_cl100k for the full text. Null as for delta_bytes, and when
	// the encoding was not requested.
	DeltaTokensCL100K *int64 `parquet:"delta_tokens_cl100k"`
	// DeltaTokensO200K is the number of o200k_base tokens of that delta;
	// null as for delta_tokens_cl100k.
	DeltaTokensO200K *int64 `parquet:"delta_tokens_o200k"`
}

// ElementRow is one row of the elements table: one row per captured page
// state (step) and element that is interactive by our rules (a candidate for an ID:
// interactive by its own signals, enabled and visible; docs/perception.md),
// in capture order. Which of them a window gives an ID follows from the
// columns: for a viewport_expansion E >= 0, those with outside_px <= E that
// are neither occluded nor nested, less the labels whose control is among
// them, and, when one of them is in_modal, only the in_modal ones
// (examples/queries.sql, elements-match-action-count). It joins PageRow on
// page_id (and run_id), and OracleRow on element = capture_element.
type ElementRow struct {
	// RunID identifies the run; see PageRow.RunID.
	RunID string `parquet:"run_id"`
	// PageID is the page's ID; see PageRow.PageID.
	PageID string `parquet:"page_id"`
	// SchemaVersion is the version of the dataset schema the row was
	// written with (SchemaVersion of package dataset), so that a union of
	// parts written by two versions can be told apart.
	SchemaVersion int64 `parquet:"schema_version"`
	// URL is the page's input URL, repeated from the pages table.
	URL string `parquet:"url"`
	// Step is the page state the row describes: 0 for the state after
	// load (the first capture), k for the state after the page's step k
	// (crawl --steps; the steps table says what the step did).
	Step int64 `parquet:"step"`
	// Element is the element's index in the page's capture (its node
	// number, text nodes counted), unique within the page.
	Element int64 `parquet:"element"`
	// Tag is the element's lower-case tag name.
	Tag string `parquet:"tag"`
	// Role is its ARIA role, explicit or implicit; empty when it has none.
	Role string `parquet:"role"`
	// Name is its name as the action space shows it at the whole page (its
	// visible text, else aria-label, title, alt, placeholder, name or
	// value); for an element without an ID there, from those attributes
	// only.
	Name string `parquet:"name"`
	// Locator finds the element again in a live page; see
	// Action.Locator.
	Locator string `parquet:"locator"`
	// X is the left edge of the element's bounding box, in page
	// coordinates (CSS pixels).
	X float64 `parquet:"x"`
	// Y is the top edge of the bounding box, in page coordinates (CSS
	// pixels).
	Y float64 `parquet:"y"`
	// Width is the bounding box's width in CSS pixels.
	Width float64 `parquet:"width"`
	// Height is the bounding box's height in CSS pixels.
	Height float64 `parquet:"height"`
	// Frame is how many frames deep the element is (0 in the main
	// document).
	Frame int64 `parquet:"frame"`
	// Shadow is true for an element inside a shadow root.
	Shadow bool `parquet:"shadow"`
	// Occluded is true when another element covers the point a click
	// lands on, the centre of the visible part of its first box fragment
	// (measured only when the centre of its box is inside the real
	// viewport): it gets no ID in any window.
	Occluded bool `parquet:"occluded"`
	// Nested is true for an element inside an interactive element that is
	// not a distinct control: it gets no ID of its own in any window.
	Nested bool `parquet:"nested"`
	// InModal is true for an element inside a visible modal dialog: when a
	// window gives such an element an ID, only those elements get IDs.
	InModal bool `parquet:"in_modal"`
	// LabelFor is, for a label of a control, the control's element number;
	// a label gets no ID in a window where its control gets one. Null for
	// other elements.
	LabelFor *int64 `parquet:"label_for"`
	// OutsidePX is the element's distance outside the viewport in CSS
	// pixels: the smallest viewport_expansion whose window meets the part
	// of its box left visible by scroll boxes (0 on screen); null when no
	// expansion up to 2^24 does (an element parked far off the page).
	OutsidePX *int64 `parquet:"outside_px"`
	// WholePageID is the element's ID in the fast action space of the whole
	// page (viewport_expansion -1); null when it has none there.
	WholePageID *string `parquet:"whole_page_id"`
	// WholePageExclusion says why the element has no ID at the whole page:
	// occluded, outside_window, nested, label_of_control or modal_backdrop;
	// empty when it has one.
	WholePageExclusion string `parquet:"whole_page_exclusion"`
	// Signals are the reasons the element is interactive by our rules,
	// strongest first, comma-separated: tag, editable, role, tabindex,
	// handler, cursor, haspopup, label.
	Signals string `parquet:"signals"`
	// OracleElement is the oracle element the element stands for (the
	// oracle table's element; for a label, its control's); null when it
	// stands for none or no oracle was captured.
	OracleElement *int64 `parquet:"oracle_element"`
	// ExtraReason is, for an element that stands for no oracle element,
	// why our rules found it interactive: its strongest signal (cursor,
	// handler, tabindex, label …); an ID on it is an extra handle. Null
	// when it stands for one, or no oracle was captured.
	ExtraReason *string `parquet:"extra_reason"`
}

// OracleRow is one row of the oracle table: one row per captured page
// state (step) and oracle element, the page's actionable elements by Chromium's
// accessibility tree rather than our capture's rules (nodes with a widget
// role, or keyboard-focusable, not ignored, hidden or disabled, with a
// non-empty box; document and frame roots never count), in tree order. It
// exists for pages whose accessibility tree was stored. It joins PageRow on
// page_id (and run_id), and ElementRow on capture_element = element.
type OracleRow struct {
	// RunID identifies the run; see PageRow.RunID.
	RunID string `parquet:"run_id"`
	// PageID is the page's ID; see PageRow.PageID.
	PageID string `parquet:"page_id"`
	// SchemaVersion is the version of the dataset schema the row was
	// written with (SchemaVersion of package dataset), so that a union of
	// parts written by two versions can be told apart.
	SchemaVersion int64 `parquet:"schema_version"`
	// URL is the page's input URL, repeated from the pages table.
	URL string `parquet:"url"`
	// Step is the page state the row describes: 0 for the state after
	// load (the first capture), k for the state after the page's step k
	// (crawl --steps; the steps table says what the step did).
	Step int64 `parquet:"step"`
	// Element is the oracle element's number within the page, from 0 in
	// tree order.
	Element int64 `parquet:"element"`
	// Role is Chromium's role of the node, e.g. "button".
	Role string `parquet:"role"`
	// Name is Chromium's accessible name of the node.
	Name string `parquet:"name"`
	// X is the left edge of the node's border box, in page coordinates
	// (CSS pixels).
	X float64 `parquet:"x"`
	// Y is the top edge of the border box, in page coordinates (CSS
	// pixels).
	Y float64 `parquet:"y"`
	// Width is the border box's width in CSS pixels.
	Width float64 `parquet:"width"`
	// Height is the border box's height in CSS pixels.
	Height float64 `parquet:"height"`
	// Frame is how many frames deep the node is (0 in the main document).
	Frame int64 `parquet:"frame"`
	// QualifiedBy says why the node is an oracle element: "role" (a widget
	// role) or "focusable" (keyboard-focusable).
	QualifiedBy string `parquet:"qualified_by"`
	// OutsidePX is the node's distance outside the viewport in CSS pixels:
	// the smallest viewport_expansion whose window meets its box (0 on
	// screen); null when no expansion up to 2^24 does.
	OutsidePX *int64 `parquet:"outside_px"`
	// InWholePage is true when the node's box meets the whole-page window
	// (the scrollable document): it counts in oracle_in_window at
	// viewport_expansion -1.
	InWholePage bool `parquet:"in_whole_page"`
	// CaptureElement is the capture element the node was tied to (the
	// elements table's element, when that element is interactive by our
	// rules); null when none was found.
	CaptureElement *int64 `parquet:"capture_element"`
	// MatchedBy says how it was tied: "identity" (the browser resolved the
	// node's DOM node to the element the capture saw) or "geometry" (the
	// capture element in the same frame whose box overlaps most, the roles
	// agreeing first); empty when it was not tied.
	MatchedBy string `parquet:"matched_by"`
	// MissReason says why the fast action space of the whole page
	// (viewport_expansion -1) gave the node no handle: outside_window (its
	// box misses the whole-page window), occluded, modal_backdrop, nested,
	// hidden, disabled, not_interactive (our rules' verdict on its capture
	// element), label_of_control, or not_captured (no capture element);
	// null when it got one.
	MissReason *string `parquet:"miss_reason"`
	// Actionable is the actionable-now probe's answer: true when a pointer
	// event at the centre of the visible part of the node's box reaches
	// it (the node, a descendant, or a label of it), false when another
	// element covers it; null when it was not tested (actionable_skipped).
	Actionable *bool `parquet:"actionable"`
	// ActionableSkipped says why actionable is null: "not_probed" (the
	// page has no probe), "not_candidate" (the viewport probe tests only
	// the nodes on screen), "offscreen" (no part of its box was inside its
	// viewport when tested), "gone" (no longer in the document, or not the
	// capture's node), "not_captured" (no capture element tied to it by
	// DOM identity, which the probe finds it by), "capped" (past crawl
	// --max-actionable-probe) or "deadline" (the probe's time ran out);
	// empty when tested.
	ActionableSkipped string `parquet:"actionable_skipped"`
	// CoveringTag is the lower-case tag of the element the pointer event
	// reaches instead, when actionable is false; null otherwise.
	CoveringTag *string `parquet:"covering_tag"`
	// CoveringRole is that element's role, explicit or implicit (empty
	// when it has none); null when actionable is not false.
	CoveringRole *string `parquet:"covering_role"`
}

// StrategyColumns are the compression strategies an actionspace space was
// rendered with (docs/strategies.md), shared by the spaces table and the
// bench's cells table. Rows written before schema version 4 have none:
// read null as no strategy (0, "none", "all").
type StrategyColumns struct {
	// GroupMinRun is the least run of same-shaped siblings the text folds
	// into one header line plus one line per sibling (--group); 0 when
	// grouping was off. Null for the other formats and for budget rows,
	// which are rendered plain.
	GroupMinRun *int64 `parquet:"group_min_run"`
	// Layout says whether each ID's line carries a coarse position
	// (--layout): "none" or "coarse" (the centre of the element's box in
	// hundreds of CSS pixels). Null for the other formats and for budget
	// rows.
	Layout *string `parquet:"layout"`
	// ElementFilter is the element kinds that got IDs (--only): "all", or
	// kinds joined by "+" from links, buttons, inputs, images, options,
	// other. Null for the other formats and for budget rows.
	ElementFilter *string `parquet:"element_filter"`
}

// BudgetMetrics describe a space fitted into a token budget (crawl and
// bench --token-budget), shared by the spaces table and the bench's cells
// table: the budget, the window it reached, what was left out and what the
// kept handles are worth against the oracle. Every column is null on an
// unbudgeted row.
type BudgetMetrics struct {
	// TokenBudget is the budget N the space was fitted into, in tokens of
	// the run's headline encoding (the first of --encodings), counted over
	// the whole perception text, wrapper included (over the text itself for
	// a cut-from-the-end baseline, which has no wrapper); the row's
	// perception tokens in that encoding never exceed it. Null on an
	// unbudgeted row.
	TokenBudget *int64 `parquet:"token_budget"`
	// BudgetExpansion is the window the budget reached, in CSS pixels grown
	// on every side of the viewport: -1 when the whole page fitted, 0 when
	// not even the viewport fitted (lines were then dropped or cut). Null
	// on an unbudgeted row and on a cut-from-the-end baseline, which cuts
	// the whole page's text and grows no window.
	BudgetExpansion *int64 `parquet:"budget_expansion"`
	// BudgetStage says how the budget was met: "whole-page", "grow",
	// "drop-text", "cut-text", "drop-ids" or "empty" (not even the wrapper
	// fitted) for actionspace, from the least to the most lost;
	// "cut-from-end" for a baseline whose text lost its trailing lines
	// ("whole-page" when all of it fitted). Null on an unbudgeted row.
	BudgetStage *string `parquet:"budget_stage"`
	// DroppedIDs is the number of handles (IDs, refs, node ids) of the
	// unbudgeted rendering the row starts from (at budget_expansion; the
	// whole text for a baseline) that the row leaves out; 0 in the
	// whole-page and grow stages. Null on an unbudgeted row.
	DroppedIDs *int64 `parquet:"dropped_ids"`
	// DroppedLines is the number of lines of that rendering the row leaves
	// out, handles and context text alike (the action space's lines, not
	// the wrapper's). Null on an unbudgeted row.
	DroppedLines *int64 `parquet:"dropped_lines"`
	// CutTexts is the number of element texts and attribute values the row
	// shows shorter than the unbudgeted rendering does (the cut-text and
	// drop-ids stages); 0 otherwise. Null on an unbudgeted row.
	CutTexts *int64 `parquet:"cut_texts"`
	// PageRecall is the fraction of the page's oracle elements (those whose
	// box meets the whole page's window, E = -1) that got a handle in the
	// row. The denominator does not move with the budget, so for one page
	// and format page_recall never falls as the budget grows. Null on an
	// unbudgeted row, when no accessibility tree was captured, or when the
	// page has no oracle element.
	PageRecall *float64 `parquet:"page_recall"`
	// ViewportRecall is the fraction of the viewport's oracle elements
	// (those whose box meets the screen, E = 0) that got a handle in the
	// row: what the budget kept of what the user sees. Null as for
	// page_recall, and when no oracle element is on the screen.
	ViewportRecall *float64 `parquet:"viewport_recall"`
}

// HTMLMetrics are the size and token counts of a page's HTML, shared by
// the pages table and the bench's cells table.
type HTMLMetrics struct {
	// HTMLBytes is the length of the page's HTML as serialized from the
	// DOM, in bytes (UTF-8), before any cut; when html_truncated is set, a
	// lower bound: the page serializes its HTML itself and stops at the
	// cap, so this is what it serialized before it stopped (at least
	// --max-html-bytes). Null when the HTML was not taken.
	HTMLBytes *int64 `parquet:"html_bytes"`
	// HTMLTokensCL100K is the number of cl100k_base tokens in the HTML as
	// stored (the blobs table's html: password values taken out, cut at
	// --max-html-bytes); null when the HTML was not taken or not counted
	// (html_uncounted) or the encoding was not requested.
	HTMLTokensCL100K *int64 `parquet:"html_tokens_cl100k"`
	// HTMLTokensO200K is the number of o200k_base tokens in the HTML as
	// stored; null as for html_tokens_cl100k.
	HTMLTokensO200K *int64 `parquet:"html_tokens_o200k"`
}

// Action is one action of an action space: an element with an ID that an
// agent can act on.
type Action struct {
	// ID is the element's handle in the action space, e.g. "B1".
	ID string `parquet:"id"`
	// Role is the element's ARIA role (explicit or implicit), e.g. "button".
	Role string `parquet:"role"`
	// Tag is the element's lower-case tag name, e.g. "button".
	Tag string `parquet:"tag"`
	// Kind is what an agent does with it: "click", "fill" (I IDs, takes a
	// value) or "select" (options and select boxes).
	Kind string `parquet:"kind"`
	// Name is the element's accessible name as rendered in the text.
	Name string `parquet:"name"`
	// Locator finds the element again in a live page: XPath segments, one
	// per document or shadow root, joined by " >> " (see dom.Tree.Locator);
	// at most 256 bytes, empty when none fits.
	Locator string `parquet:"locator"`
	// X is the left edge of the element's bounding box, in page coordinates
	// (CSS pixels from the document's left edge).
	X float64 `parquet:"x"`
	// Y is the top edge of the bounding box, in page coordinates (CSS
	// pixels from the document's top, not the viewport's).
	Y float64 `parquet:"y"`
	// Width is the bounding box's width in CSS pixels.
	Width float64 `parquet:"width"`
	// Height is the bounding box's height in CSS pixels.
	Height float64 `parquet:"height"`
}

// StepRow is one row of the steps table: one row per step of a page that
// was crawled with steps (crawl --steps), in order, for pages whose first
// capture succeeded; none without steps. Step 0, the state after load, is
// the pages row. A step that left a state (ok or navigated) has that
// state's rows in blobs, spaces, elements and oracle under the same
// step; a skipped, failed or timed-out one has none. It joins PageRow on
// page_id (and run_id), and the other tables on (page_id, step).
type StepRow struct {
	// RunID identifies the run; see PageRow.RunID.
	RunID string `parquet:"run_id"`
	// PageID is the page's ID; see PageRow.PageID.
	PageID string `parquet:"page_id"`
	// SchemaVersion is the version of the dataset schema the row was
	// written with (SchemaVersion of package dataset), so that a union of
	// parts written by two versions can be told apart.
	SchemaVersion int64 `parquet:"schema_version"`
	// URL is the page's input URL, repeated from the pages table.
	URL string `parquet:"url"`
	// Step is the step's number, from 1, in the order the steps were
	// performed.
	Step int64 `parquet:"step"`
	// Action is what the step did: "scroll" (the document down by one
	// viewport height), "expand" (a click on the first visible collapsed
	// control in the viewport), "type" (a fixed string typed into the
	// first visible empty text input in the viewport), "wait" (a pause,
	// then a settle) or "back" (back in the history, after a step that
	// changed the URL); see docs/steps.md.
	Action string `parquet:"action"`
	// Target describes what the step acted on, for a person: the
	// element's tag, role and name as the page gives them and the rule
	// that picked it, or the scroll offsets, at most 200 bytes; never the
	// value typed. For a skipped step, why nothing was done; empty for
	// wait.
	Target string `parquet:"target"`
	// Status says how the step ended: "ok" (acted, and the state it left
	// captured in the same document), "navigated" (it took the page to
	// another document, whose state was captured), "skipped" (nothing to
	// act on; nothing captured), "failed" or "timeout" (the action or the
	// capture failed, or its time limit ran out: nothing captured, and the
	// page's later steps not performed).
	Status string `parquet:"status"`
	// ErrorKind classifies a failed or timed-out step as the pages table's
	// error_kind does; empty otherwise.
	ErrorKind string `parquet:"error_kind"`
	// ErrorMessage is a failed or timed-out step's full message; empty
	// otherwise.
	ErrorMessage string `parquet:"error_message"`
	// FinalURL is the page's URL after the step, without user
	// information; empty when no state was captured.
	FinalURL string `parquet:"final_url"`
	// BlockedRequests is the number of requests of the page that the
	// network policy refused during the step (see
	// pages.blocked_requests, which counts step 0's); 0 when no state was
	// captured.
	BlockedRequests int64 `parquet:"blocked_requests"`
	// MS is the step's wall time, the action and the capture of the state
	// it left (extras and HTML included), in milliseconds.
	MS float64 `parquet:"ms"`
}
