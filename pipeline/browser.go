package pipeline

import (
	"context"
	"fmt"
	"time"

	"actionspace/axtree"
	"actionspace/dom"
)

// Browser hands out pages. The crawl core defines it and package browser
// implements it (a local Chromium, a relaunching one, a fleet of remote
// browser servers); the core's tests use fakes. It is safe for concurrent
// use: the pool asks it for one Page per worker.
type Browser interface {
	// NewPage opens a page in a fresh browser context (its own cookies and
	// storage) that loads URLs as cfg says.
	NewPage(ctx context.Context, cfg PageConfig) (Page, error)
	// Version is the browser's version, recorded in the files' metadata.
	Version() string
	// Close closes every page and the browser.
	Close() error
}

// Page loads one URL at a time: calls to Load must not overlap. After a
// Load that fails with KindBrowser the page is dead: Close it and ask the
// Browser for a new one. Any other failure leaves it ready for the next URL.
type Page interface {
	// Load navigates to url, lets the DOM settle, runs the capture script,
	// takes the extras (accessibility tree, AI snapshot) and a viewport
	// screenshot when the page's config asks for them, and reads the HTML,
	// all within ctx's deadline (it returns at most about
	// a second after it). On failure it returns a *PageError and, once
	// navigation has started, the partial Load: HTTP status (kept for
	// KindHTTP), content type, final URL and the timings so far.
	Load(ctx context.Context, url string) (*Load, error)
	// Close closes the page and its browser context. It should return
	// within CloseWait, after which the pool abandons the page.
	Close() error
}

// Load is what one page load produced.
type Load struct {
	// FinalURL is the page's URL after redirects, when it was captured.
	FinalURL string
	// HTTPStatus is the status of the main response; 0 when there was none.
	HTTPStatus int
	// ContentType is the main response's Content-Type header.
	ContentType string
	// HTML is the serialized DOM after the capture, as page.Content gives
	// it, serialized by the page up to PageConfig.MaxHTMLBytes UTF-16 code
	// units (never stopping inside a tag), with the value attributes of
	// password inputs taken out (dom.RedactSecrets) and then cut at
	// PageConfig.MaxHTMLBytes bytes (dom.CutHTML).
	HTML string
	// HTMLBytes is the length of what the page serialized, before the
	// redaction and the cut, in bytes: the whole HTML's, or, when the page
	// stopped at the cap, a lower bound of it. HTMLTruncated reports that
	// the page stopped or the cut took something off.
	HTMLBytes     int
	HTMLTruncated bool
	// Capture is the JSON string the capture script returned.
	Capture []byte
	// Screenshot is the viewport screenshot taken right after the capture,
	// at the same scroll position, encoded as ScreenshotFormat says; nil
	// when screenshots are off or taking it failed (which does not fail the
	// load).
	Screenshot []byte
	// ScreenshotFormat is the encoding of Screenshot: ScreenshotJPEG or
	// ScreenshotPNG; empty when Screenshot is nil.
	ScreenshotFormat string
	// BrowserVersion is the version of the browser that served the page
	// (with several browser servers, the one this page ran on).
	BrowserVersion string
	// CapturedAt is when the capture script returned, by the crawler's
	// clock (not the page's, which a page can change).
	CapturedAt time.Time
	// BlockedRequests counts the requests of the page that the network
	// policy refused (see NetworkConfig): subresources, frames, script
	// navigations; a refused main navigation fails the load with
	// KindBlocked instead.
	BlockedRequests int
	// AXTree is Chromium's accessibility tree of the captured page state,
	// every frame included, taken on the captured page state (after the
	// capture, the screenshot and the HTML, which only read the page) when PageConfig.Extras asks for it; nil when it
	// did not, or the tree was skipped (AXTreeSkipped says why).
	AXTree *axtree.Record
	// AXTreeSkipped says why an accessibility tree asked for is nil:
	// dataset.SkippedTooLarge or dataset.SkippedFailed; empty otherwise.
	AXTreeSkipped string
	// AISnapshot is Playwright's AI snapshot of the same page state, with
	// boxes, taken at the same time as the accessibility tree (see
	// ExtrasConfig.Sequential) when PageConfig.Extras asks for it; nil when it did not, or it was skipped
	// (AISnapshotSkipped says why).
	AISnapshot *axtree.Snapshot
	// AISnapshotSkipped says why an AI snapshot asked for is nil:
	// dataset.SkippedTooLarge, dataset.SkippedMalformed or
	// dataset.SkippedFailed; empty otherwise.
	AISnapshotSkipped string
	// ActionableProbeTime is the actionable-now probe's wall time (zero
	// when it did not run); the probe itself is AXTree.Probe.
	// ActionableProbeSkipped says why a probe asked for is missing or
	// partial: dataset.SkippedNoOracle, dataset.SkippedFailed or
	// dataset.SkippedDeadline; empty otherwise.
	ActionableProbeTime    time.Duration
	ActionableProbeSkipped string
	// Navigate is the time to the load event; Settle the wait for a quiet
	// DOM; CaptureTime the capture script's round trip; AXTreeTime and
	// AISnapshotTime the extras' (zero when not taken); Content the time to
	// read the HTML; ScreenshotTime the screenshot's round trip (zero when
	// none was taken).
	Navigate, Settle, CaptureTime, AXTreeTime, AISnapshotTime, Content, ScreenshotTime time.Duration
	// Steps are the steps PageConfig.Steps asked for, in order, performed
	// after this first capture; empty without steps. A step that failed
	// ends them: the steps after it are not performed.
	Steps []StepState
}

// Defaults for [PageConfig].
const (
	DefaultViewportWidth  = 1280
	DefaultViewportHeight = 720
	DefaultSettleQuiet    = 500 * time.Millisecond
	DefaultSettleMax      = 2 * time.Second
	// DefaultMaxFrames is how many cross-origin frames a page's capture
	// takes in at most: each costs a capture of its own, and pages made
	// of frames (the attack page of 50) would otherwise take most of the
	// URL's time limit.
	DefaultMaxFrames = 10
	// DefaultMaxAXNodes is the default of ExtrasConfig.MaxAXNodes.
	// Chromium builds a page's accessibility tree in one reply, about 400
	// bytes a node, and cannot be interrupted: a table of 3,000 rows (some
	// 36,000 DOM nodes) took 18 s on a loaded 2-core machine.
	DefaultMaxAXNodes = 50000
	// DefaultMaxAXText is the default of ExtrasConfig.MaxAXText, the
	// capture's own character budget (dom.DefaultMaxChars): the page of
	// 20 MB of paragraphs (corpora's /attacks/html), 11,000 nodes, took
	// 63 s for its accessibility tree and 32 s for an AI snapshot that
	// was then dropped as too long.
	DefaultMaxAXText = dom.DefaultMaxChars
	// DefaultMaxAISnapshotBytes is the default of
	// ExtrasConfig.MaxAISnapshotBytes, the capture's own character budget
	// (dom.DefaultMaxChars).
	DefaultMaxAISnapshotBytes = dom.DefaultMaxChars
)

// PageConfig says how every page of a crawl loads a URL: the viewport it
// is opened at, how long the DOM may take to settle, the capture script's
// options and the screenshot. It is plain data; DefaultPageConfig holds
// every default.
type PageConfig struct {
	// ViewportWidth and ViewportHeight size every page, in CSS pixels.
	ViewportWidth, ViewportHeight int
	// SettleQuiet is how long the DOM must go without mutations before
	// the capture.
	SettleQuiet time.Duration
	// SettleMax caps the wait for a quiet DOM; at least SettleQuiet.
	SettleMax time.Duration
	// Settle is the rule that says when the page is quiet enough to
	// capture: SettleEvidence (DefaultPageConfig's; see there) or
	// SettleQuietRule (or "": SettleQuiet without a DOM mutation);
	// SettleMax bounds both.
	Settle string
	// Script bounds the capture script's work and output (see
	// dom.ScriptOptions). The script runs in an isolated world, out of
	// reach of the page's own scripts.
	Script dom.ScriptOptions
	// MaxHTMLBytes caps the HTML stored and counted per page (see
	// Load.HTML); 0 stores none of it.
	MaxHTMLBytes int
	// MaxFrames caps the cross-origin frames captured per page, nested
	// ones included; the capture lists dom.CapFrames when one was left
	// out for it. 0 captures none.
	MaxFrames int
	// Network says which addresses pages may reach.
	Network NetworkConfig
	// Screenshot says whether and how a viewport screenshot is taken and
	// stored.
	Screenshot ScreenshotConfig
	// Extras says which records of the page state, besides the capture,
	// are taken right after it: the formats other than actionspace render
	// from them (see Config.UseFormats).
	Extras ExtrasConfig
	// Steps are the actions performed on the page after its first
	// capture, in order, each followed by a capture of the state it left
	// (StepScroll and the others; see docs/steps.md); none by default.
	Steps []string
	// StepTimeout bounds each step (its action and its capture) inside
	// the URL's time limit; 0 gives each step an equal share of the time
	// the first capture left.
	StepTimeout time.Duration
	// Floor makes every load the bare navigation loop a crawl's
	// throughput is measured against: navigate to the load event, read
	// the page's HTML as Playwright's content() serializes it, and
	// nothing else (no settling, capture, screenshot, cap or redaction;
	// the network policy holds as for any load). The records Extras asks
	// for are taken raw, as ExtrasConfig.Raw says, and dropped: what a
	// crawl storing them cannot do without. The crawl then makes
	// no rows but a pages row with html_bytes and the timings (see
	// tools/throughput, which measures crawls as ratios to it).
	Floor bool
}

// ExtrasConfig says which records of the captured page state a load takes
// besides the capture, right after it and before the screenshot and the
// HTML, and how large a page may be for them. A record a page is too large
// for is skipped, and the pages row says so (axtree_skipped,
// aisnapshot_skipped).
type ExtrasConfig struct {
	// AXTree takes Chromium's accessibility tree of the main frame and
	// every frame, each node tied to the capture's element by DOM identity
	// where it can be: the oracle of recall, and the axtree format.
	AXTree bool
	// AISnapshot takes Playwright's AI snapshot with boxes (what
	// Playwright MCP agents read): the playwright-ai format.
	AISnapshot bool
	// MaxAXNodes skips the accessibility tree and the AI snapshot of a
	// page whose DOM (in the page's process, frames included) holds more
	// nodes, counted before either is taken (crawl --max-ax-nodes).
	MaxAXNodes int
	// MaxAXText skips the accessibility tree and the AI snapshot of a
	// page whose main document holds more characters of text (UTF-16
	// code units, in text nodes outside script, style and noscript),
	// counted in the page before either is taken (crawl --max-ax-text):
	// both carry the page's text, and neither can be cut while the
	// browser builds it.
	MaxAXText int
	// MaxAISnapshotBytes drops an AI snapshot whose text is longer, in
	// bytes (crawl --max-aisnapshot-bytes).
	MaxAISnapshotBytes int
	// ActionableProbe is what the actionable-now probe tests after every
	// other record (crawl --actionable-probe): axtree.ProbeViewport (the
	// oracle elements on screen), axtree.ProbeAll (every one, scrolled
	// into view: it moves the page) or axtree.ProbeNone; "" means none.
	// It needs the accessibility tree.
	ActionableProbe string
	// MaxActionableProbe bounds the elements the probe tests per page
	// (crawl --max-actionable-probe); those past it are untested and the
	// pages row says so (actionable_probe_capped).
	MaxActionableProbe int
	// ActionableProbeTime bounds the probe's time per page (crawl
	// --actionable-probe-time); the elements not reached by then are
	// untested (actionable_probe_skipped "deadline").
	ActionableProbeTime time.Duration
	// Sequential takes the two records one after the other, the
	// accessibility tree first, instead of both at once: what the crawl
	// did before, kept to measure the overlap (tools/extrascost).
	Sequential bool
	// Raw takes the records asked for as a floor load takes them
	// (PageConfig.Floor): at once, in the fewest calls to the browser, and
	// drops them. No size check, no DOM snapshot, no tie to the capture,
	// no actionable probe, and the records' columns are left empty. It
	// measures the least the records cost a crawl (tools/throughput's
	// -raw ways); no crawl flag sets it.
	Raw bool
}

// Defaults of the actionable-now probe.
const (
	// DefaultMaxActionableProbe is the default of
	// ExtrasConfig.MaxActionableProbe: a screen rarely holds more
	// controls; a page's whole length may.
	DefaultMaxActionableProbe = 2000
	// DefaultActionableProbeTime is the default of
	// ExtrasConfig.ActionableProbeTime.
	DefaultActionableProbeTime = 3 * time.Second
)

// DefaultExtrasConfig takes both records, within the default bounds.
func DefaultExtrasConfig() ExtrasConfig {
	return ExtrasConfig{AXTree: true, AISnapshot: true, MaxAXNodes: DefaultMaxAXNodes, MaxAXText: DefaultMaxAXText,
		MaxAISnapshotBytes: DefaultMaxAISnapshotBytes, ActionableProbe: axtree.ProbeViewport, MaxActionableProbe: DefaultMaxActionableProbe, ActionableProbeTime: DefaultActionableProbeTime}
}

// Validate reports the first invalid setting, naming it.
func (c ExtrasConfig) Validate() error {
	switch {
	case c.MaxAXNodes < 1:
		return fmt.Errorf("max-ax-nodes: %d, want > 0", c.MaxAXNodes)
	case c.MaxAXText < 1:
		return fmt.Errorf("max-ax-text: %d, want > 0", c.MaxAXText)
	case c.MaxAISnapshotBytes < 1:
		return fmt.Errorf("max-aisnapshot-bytes: %d, want > 0", c.MaxAISnapshotBytes)
	case c.ActionableProbe != "" && c.ActionableProbe != axtree.ProbeViewport && c.ActionableProbe != axtree.ProbeAll && c.ActionableProbe != axtree.ProbeNone:
		return fmt.Errorf("actionable-probe: %q, want viewport, all or none", c.ActionableProbe)
	case c.ActionableProbe != "" && c.ActionableProbe != axtree.ProbeNone && (c.MaxActionableProbe < 1 || c.ActionableProbeTime <= 0):
		return fmt.Errorf("max-actionable-probe %d, actionable-probe-time %v: want both > 0", c.MaxActionableProbe, c.ActionableProbeTime)
	}
	return nil
}

// DefaultPageConfig returns the settings crawls start from: a 1280x720
// viewport, settling on evidence (SettleEvidence) within DefaultSettleQuiet
// and DefaultSettleMax, the capture script's
// default options, dom.DefaultMaxHTMLBytes of HTML, DefaultMaxFrames
// frames, the default network policy, both extras and no screenshots.
func DefaultPageConfig() PageConfig {
	return PageConfig{
		ViewportWidth:  DefaultViewportWidth,
		ViewportHeight: DefaultViewportHeight,
		SettleQuiet:    DefaultSettleQuiet,
		SettleMax:      DefaultSettleMax,
		Settle:         SettleEvidence,
		Script:         dom.DefaultScriptOptions(),
		MaxHTMLBytes:   dom.DefaultMaxHTMLBytes,
		MaxFrames:      DefaultMaxFrames,
		Screenshot:     DefaultScreenshotConfig(),
		Extras:         DefaultExtrasConfig(),
	}
}

// Validate reports the first invalid setting, naming it.
func (c PageConfig) Validate() error {
	switch {
	case c.ViewportWidth < 1:
		return fmt.Errorf("viewport width: %d, want > 0", c.ViewportWidth)
	case c.ViewportHeight < 1:
		return fmt.Errorf("viewport height: %d, want > 0", c.ViewportHeight)
	case c.SettleQuiet < 0:
		return fmt.Errorf("settle quiet: %v, want >= 0", c.SettleQuiet)
	case c.SettleMax < c.SettleQuiet:
		return fmt.Errorf("settle max: %v, less than settle quiet %v", c.SettleMax, c.SettleQuiet)
	case c.Settle != "" && c.Settle != SettleQuietRule && c.Settle != SettleEvidence:
		return fmt.Errorf("settle: %q, want %q or %q", c.Settle, SettleQuietRule, SettleEvidence)
	case c.Script.MaxNodes < 1:
		return fmt.Errorf("max nodes: %d, want > 0", c.Script.MaxNodes)
	case c.MaxHTMLBytes < 0:
		return fmt.Errorf("max HTML bytes: %d, want >= 0", c.MaxHTMLBytes)
	case c.MaxFrames < 0:
		return fmt.Errorf("max frames: %d, want >= 0", c.MaxFrames)
	}
	if err := c.validateSteps(); err != nil {
		return err
	}
	if err := c.Network.Validate(); err != nil {
		return err
	}
	if err := c.Script.Validate(); err != nil {
		return err
	}
	if err := c.Extras.Validate(); err != nil {
		return err
	}
	return c.Screenshot.Validate()
}

// Screenshot modes of [ScreenshotConfig].
const (
	// ScreenshotsNone takes no screenshots.
	ScreenshotsNone = "none"
	// ScreenshotsPlain stores the viewport screenshot of every page as the
	// browser took it.
	ScreenshotsPlain = "plain"
	// ScreenshotsLabeled stores it with the boxes and IDs of the run's
	// first viewport expansion drawn on it (see package overlay).
	ScreenshotsLabeled = "labeled"
)

// Screenshot formats, as [ScreenshotConfig.Format] and
// [Load.ScreenshotFormat] name them.
const (
	ScreenshotJPEG = "jpeg"
	ScreenshotPNG  = "png"
)

// DefaultScreenshotQuality is the JPEG quality of screenshots: a 1280x720
// viewport is typically 45–150 KB at it.
const DefaultScreenshotQuality = 70

// ScreenshotConfig is the one place that says what becomes of screenshots:
// whether the browser takes one per page, in which encoding, and whether
// the crawl labels it.
type ScreenshotConfig struct {
	// Mode is ScreenshotsNone, ScreenshotsPlain or ScreenshotsLabeled.
	// The browser takes a screenshot of the viewport (not the whole page)
	// right after the capture, at the same scroll position, so that the
	// capture's boxes line up with it; the page is not modified for it.
	Mode string
	// Format is ScreenshotJPEG or ScreenshotPNG. Chromium takes a JPEG in
	// tens of milliseconds, a PNG in about half a second.
	Format string
	// Quality is the JPEG quality, 1 to 100; PNG ignores it.
	Quality int
}

// DefaultScreenshotConfig takes no screenshots; turned on, it takes JPEGs
// at DefaultScreenshotQuality.
func DefaultScreenshotConfig() ScreenshotConfig {
	return ScreenshotConfig{Mode: ScreenshotsNone, Format: ScreenshotJPEG, Quality: DefaultScreenshotQuality}
}

// ParseScreenshotMode validates a screenshot mode name.
func ParseScreenshotMode(s string) (string, error) {
	switch s {
	case ScreenshotsNone, ScreenshotsPlain, ScreenshotsLabeled:
		return s, nil
	}
	return "", fmt.Errorf("unknown screenshot mode %q (want none, plain or labeled)", s)
}

// On reports whether screenshots are taken.
func (c ScreenshotConfig) On() bool { return c.Mode != ScreenshotsNone }

// Validate reports the first invalid setting, naming it.
func (c ScreenshotConfig) Validate() error {
	if _, err := ParseScreenshotMode(c.Mode); err != nil {
		return fmt.Errorf("screenshots: %w", err)
	}
	switch {
	case c.Format != ScreenshotJPEG && c.Format != ScreenshotPNG:
		return fmt.Errorf("screenshot format: %q, want %q or %q", c.Format, ScreenshotJPEG, ScreenshotPNG)
	case c.Format == ScreenshotJPEG && (c.Quality < 1 || c.Quality > 100):
		return fmt.Errorf("screenshot quality: %d, want 1 to 100", c.Quality)
	}
	return nil
}
