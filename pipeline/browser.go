package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"actionspace/dom"
)

// Browser hands out pages. It is safe for concurrent use; the pool asks it
// for one Page per worker.
type Browser interface {
	// NewPage opens a page in a fresh browser context (its own cookies and
	// storage).
	NewPage(ctx context.Context) (Page, error)
	// Version is the browser's version, recorded with every page.
	Version() string
	// Close closes every page and the browser.
	Close() error
}

// Page loads one URL at a time: calls to Load must not overlap. After a
// Load that fails with KindBrowser the page is dead: Close it and ask the
// Browser for a new one. Any other failure leaves it ready for the next URL.
type Page interface {
	// Load navigates to url, lets the DOM settle, runs the capture script,
	// takes a viewport screenshot when the config asks for one, and reads
	// the HTML, all within ctx's deadline (it returns at most
	// about a second after it). On failure it returns a *PageError and,
	// once navigation has started, the partial Load: HTTP status (kept for
	// KindHTTP), content type, final URL and the timings so far.
	Load(ctx context.Context, url string) (*Load, error)
	// Close closes the page and its browser context.
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
	// HTML is the serialized DOM (page.Content) after the capture.
	HTML string
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
	// Navigate is the time to the load event; Settle the wait for a quiet
	// DOM; CaptureTime the capture script's round trip; Content the time to
	// read the HTML; ScreenshotTime the screenshot's round trip (zero when
	// none was taken).
	Navigate, Settle, CaptureTime, Content, ScreenshotTime time.Duration
}

// Screenshot formats, as [BrowserConfig.Screenshot] and
// [Load.ScreenshotFormat] name them.
const (
	ScreenshotJPEG = "jpeg"
	ScreenshotPNG  = "png"
)

// Defaults for [BrowserConfig].
const (
	DefaultChromiumPath   = "/usr/bin/chromium"
	DefaultViewportWidth  = 1280
	DefaultViewportHeight = 720
	DefaultSettleQuiet    = 500 * time.Millisecond
	DefaultSettleMax      = 2 * time.Second
	// DefaultScreenshotQuality is the JPEG quality of screenshots: a
	// 1280x720 viewport is typically 45–150 KB at it.
	DefaultScreenshotQuality = 70
)

// BrowserConfig holds the settings of a local Chromium and of every page it
// opens. Zero values mean the defaults, except CaptureScript.
type BrowserConfig struct {
	// ChromiumPath is the Chromium executable; "" means DefaultChromiumPath.
	ChromiumPath string
	// Endpoints, when set, are the ws:// URLs of Playwright browser
	// servers (`playwright run-server`) that Crawl connects to instead of
	// launching ChromiumPath; see [Remote]. Listing one twice opens two
	// connections to it.
	Endpoints []string
	// ViewportWidth and ViewportHeight size every page, in CSS pixels; 0
	// means DefaultViewportWidth / DefaultViewportHeight.
	ViewportWidth, ViewportHeight int
	// CaptureScript is the source of a JavaScript function expression that
	// takes one argument and returns a JSON string (see dom.Script). It runs
	// in an isolated world, out of reach of the page's own scripts.
	CaptureScript string
	// CaptureArg is passed to CaptureScript, marshaled as JSON.
	CaptureArg any
	// SettleQuiet is how long the DOM must go without mutations before the
	// capture; 0 means DefaultSettleQuiet.
	SettleQuiet time.Duration
	// SettleMax caps the wait for a quiet DOM; 0 means DefaultSettleMax.
	SettleMax time.Duration
	// Screenshot, when set, makes every Load take a screenshot of the
	// viewport (not the whole page) right after the capture, at the same
	// scroll position, so that the capture's boxes line up with it:
	// ScreenshotJPEG or ScreenshotPNG. Empty means no screenshots. The page
	// is not modified for it (the text caret and animations are left as
	// they are). Chromium takes a JPEG in tens of milliseconds, a PNG in
	// about half a second.
	Screenshot string
	// ScreenshotQuality is the JPEG quality, 1 to 100; 0 means
	// DefaultScreenshotQuality. PNG ignores it.
	ScreenshotQuality int
	// Logger receives debug logs about dialogs, popups and settling; nil
	// means slog.Default().
	Logger *slog.Logger
}

// DefaultBrowserConfig returns the settings crawls start from: Debian's
// Chromium, a 1280x720 viewport and the dom package's capture script.
func DefaultBrowserConfig() BrowserConfig {
	return BrowserConfig{
		ChromiumPath:   DefaultChromiumPath,
		ViewportWidth:  DefaultViewportWidth,
		ViewportHeight: DefaultViewportHeight,
		CaptureScript:  dom.Script(),
		CaptureArg:     dom.DefaultScriptOptions(),
		SettleQuiet:    DefaultSettleQuiet,
		SettleMax:      DefaultSettleMax,
	}
}

// Validate reports the first invalid setting, naming it.
func (c BrowserConfig) Validate() error {
	switch {
	case c.ViewportWidth < 0:
		return fmt.Errorf("viewport width: %d, want > 0", c.ViewportWidth)
	case c.ViewportHeight < 0:
		return fmt.Errorf("viewport height: %d, want > 0", c.ViewportHeight)
	case c.CaptureScript == "":
		return fmt.Errorf("capture script: empty")
	case c.SettleQuiet < 0:
		return fmt.Errorf("settle quiet: %v, want >= 0", c.SettleQuiet)
	case c.SettleMax < 0:
		return fmt.Errorf("settle max: %v, want >= 0", c.SettleMax)
	case c.Screenshot != "" && c.Screenshot != ScreenshotJPEG && c.Screenshot != ScreenshotPNG:
		return fmt.Errorf("screenshot: %q, want %q, %q or empty", c.Screenshot, ScreenshotJPEG, ScreenshotPNG)
	case c.ScreenshotQuality < 0 || c.ScreenshotQuality > 100:
		return fmt.Errorf("screenshot quality: %d, want 1 to 100 (0 = %d)", c.ScreenshotQuality, DefaultScreenshotQuality)
	}
	if err := validateEndpoints(c.Endpoints); err != nil {
		return err
	}
	c = c.withDefaults()
	if c.SettleMax < c.SettleQuiet {
		return fmt.Errorf("settle max: %v, less than settle quiet %v", c.SettleMax, c.SettleQuiet)
	}
	if _, err := json.Marshal(c.CaptureArg); err != nil {
		return fmt.Errorf("capture arg: %w", err)
	}
	return nil
}

// withDefaults fills the zero values that mean a default.
func (c BrowserConfig) withDefaults() BrowserConfig {
	if c.ChromiumPath == "" {
		c.ChromiumPath = DefaultChromiumPath
	}
	if c.ViewportWidth == 0 {
		c.ViewportWidth = DefaultViewportWidth
	}
	if c.ViewportHeight == 0 {
		c.ViewportHeight = DefaultViewportHeight
	}
	if c.SettleQuiet == 0 {
		c.SettleQuiet = DefaultSettleQuiet
	}
	if c.SettleMax == 0 {
		c.SettleMax = DefaultSettleMax
	}
	if c.ScreenshotQuality == 0 {
		c.ScreenshotQuality = DefaultScreenshotQuality
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}
