package browser

import (
	"context"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/pipeline"
)

// screenshot takes the viewport screenshot into ld when the page's config
// asks for one. It runs right after the capture, so the page is at the
// scroll position the capture recorded. A failure is logged and leaves the
// screenshot out: the load goes on (a crashed renderer fails the next
// stage anyway).
func (p *pwPage) screenshot(ctx context.Context, tab *pwTab, rawURL string, ld *pipeline.Load) {
	cfg := p.cfg.Screenshot
	if !cfg.On() {
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
	if cfg.Format == pipeline.ScreenshotJPEG {
		opts.Type = playwright.ScreenshotTypeJpeg
		opts.Quality = playwright.Int(cfg.Quality)
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
	ld.Screenshot, ld.ScreenshotFormat = img, cfg.Format
}
