package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/overlay"
	"actionspace/render"
)

// Screenshot modes of [Config.Screenshots].
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

// ParseScreenshotMode validates a screenshot mode name.
func ParseScreenshotMode(s string) (string, error) {
	switch s {
	case ScreenshotsNone, ScreenshotsPlain, ScreenshotsLabeled:
		return s, nil
	}
	return "", fmt.Errorf("unknown screenshot mode %q (want none, plain or labeled)", s)
}

// screenshotsOn reports whether mode takes screenshots; the empty mode is
// ScreenshotsNone.
func screenshotsOn(mode string) bool { return mode != "" && mode != ScreenshotsNone }

// validateScreenshots checks that the screenshot mode is known and agrees
// with the browser's setting: a mode that stores screenshots needs a
// browser that takes them, and the reverse.
func (c Config) validateScreenshots() error {
	if c.Screenshots != "" {
		if _, err := ParseScreenshotMode(c.Screenshots); err != nil {
			return fmt.Errorf("screenshots: %w", err)
		}
	}
	on, taken := screenshotsOn(c.Screenshots), c.Browser.Screenshot != ""
	switch {
	case on && !taken:
		return fmt.Errorf("screenshots: %s, but the browser config takes none (set Browser.Screenshot)", c.Screenshots)
	case !on && taken:
		return fmt.Errorf("screenshots: none, but the browser config takes %s screenshots", c.Browser.Screenshot)
	}
	return nil
}

// screenshot takes the viewport screenshot into ld when the browser config
// asks for one. It runs right after the capture, so the page is at the
// scroll position the capture recorded. A failure is logged and leaves the
// screenshot out: the load goes on (a crashed renderer fails the next
// stage anyway).
func (p *pwPage) screenshot(ctx context.Context, tab *pwTab, rawURL string, ld *Load) {
	cfg := p.browser.cfg
	if cfg.Screenshot == "" {
		return
	}
	p.stage.Store("screenshot")
	opts := playwright.PageScreenshotOptions{
		FullPage: playwright.Bool(false),
		// Leave the caret alone: hiding it injects a style into the page.
		Caret:      playwright.ScreenshotCaretInitial,
		Animations: playwright.ScreenshotAnimationsAllow,
		Scale:      playwright.ScreenshotScaleDevice,
		Type:       playwright.ScreenshotTypePng,
	}
	if cfg.Screenshot == ScreenshotJPEG {
		opts.Type = playwright.ScreenshotTypeJpeg
		opts.Quality = playwright.Int(cfg.ScreenshotQuality)
	}
	if ms := timeoutMS(ctx); ms > 0 {
		opts.Timeout = playwright.Float(ms)
	}
	start := time.Now()
	img, err := tab.page.Screenshot(opts)
	ld.ScreenshotTime = time.Since(start)
	if err != nil {
		p.log.Warn("screenshot failed; the page is stored without one", logURL, rawURL, logError, shortError{err})
		return
	}
	ld.Screenshot, ld.ScreenshotFormat = img, cfg.Screenshot
}

// screenshotColumns fills the screenshot columns of a captured page's row
// from its load. In ScreenshotsLabeled mode it draws actions, the first
// expansion's, onto the image and encodes it again in the same format (and
// JPEG quality). An image that does not decode is left out, one that cannot
// be labeled stored plain; both are logged.
func (p *processor) screenshotColumns(row *dataset.PageRow, load *Load, pg dom.PageInfo, actions []render.Action) {
	if len(load.Screenshot) == 0 || !screenshotsOn(p.cfg.Screenshots) {
		return
	}
	log := p.cfg.logger().With(logPageID, row.PageID, logURL, row.URL)
	data := load.Screenshot
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		log.Warn("screenshot does not decode; the page is stored without one", logError, err)
		return
	}
	labeled := false
	if p.cfg.Screenshots == ScreenshotsLabeled {
		out, err := labelScreenshot(data, load.ScreenshotFormat, p.cfg.Browser.withDefaults().ScreenshotQuality, actions, pg)
		if err != nil {
			log.Warn("screenshot not labeled; it is stored plain", logError, err)
		} else {
			data, labeled = out, true
		}
	}
	row.Screenshot = data
	row.ScreenshotFormat = load.ScreenshotFormat
	row.ScreenshotWidth, row.ScreenshotHeight = ptr(int64(cfg.Width)), ptr(int64(cfg.Height))
	row.ScreenshotLabeled = labeled
}

// labelScreenshot decodes a screenshot, draws the actions' boxes and IDs
// on it and encodes it again in format (JPEG at quality).
func labelScreenshot(data []byte, format string, quality int, actions []render.Action, pg dom.PageInfo) ([]byte, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode screenshot: %w", err)
	}
	drawn := overlay.Draw(img, actions, pg.ScrollX, pg.ScrollY, pg.DPR)
	var buf bytes.Buffer
	switch format {
	case ScreenshotJPEG:
		err = jpeg.Encode(&buf, drawn, &jpeg.Options{Quality: quality})
	case ScreenshotPNG:
		err = png.Encode(&buf, drawn)
	default:
		err = fmt.Errorf("unknown format %q", format)
	}
	if err != nil {
		return nil, fmt.Errorf("encode labeled screenshot: %w", err)
	}
	return buf.Bytes(), nil
}
