package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"actionspace/internal/bounded"
	"actionspace/pipeline"
)

// floorPage is the load of a floor crawl (pipeline.PageConfig.Floor): it
// navigates tab to rawURL up to the load event and reads the page's HTML
// with Playwright's content(), the bare loop a crawl's throughput is
// measured against. When the page config's extras ask for them, it then
// takes the records raw (see rawRecords). Its failures are classified
// as a crawl's are (navigationError).
func (p *pwPage) floorPage(ctx context.Context, tab *pwTab, rawURL string) (*pipeline.Load, error) {
	ld, nav, err := p.startLoad(ctx, tab, rawURL)
	if err := p.navigationError(ctx, tab, rawURL, ld, nav, err); err != nil {
		return ld, err
	}
	p.stage.Store("content")
	start := time.Now()
	html, err := tab.page.Content()
	ld.Content = time.Since(start)
	if err != nil {
		return ld, p.fail(ctx, rawURL, "content", pipeline.KindCapture, err)
	}
	ld.HTML, ld.HTMLBytes = html, len(html)
	ld.CapturedAt = time.Now().UTC()
	if err := p.rawRecords(ctx, tab, p.cfg.Extras, ld); err != nil {
		return ld, p.fail(ctx, rawURL, "records", pipeline.KindCapture, err)
	}
	return ld, nil
}

// rawRecords takes, at once, the records cfg asks for, each the least a
// crawl storing it must ask the browser for (pipeline.ExtrasConfig.Raw):
// the AI snapshot as the crawl takes it (TakeAISnapshot), and the main
// frame's accessibility tree in one Accessibility.getFullAXTree, without
// the size check, the DOM snapshot, the frames and the tie to a capture
// that TakeAXTree adds. Both are dropped; ld keeps their times. Each is
// given up when ctx ends, as the crawl's records are.
func (p *pwPage) rawRecords(ctx context.Context, tab *pwTab, cfg pipeline.ExtrasConfig, ld *pipeline.Load) error {
	var axErr, snErr error
	var fs []func()
	if cfg.AXTree {
		fs = append(fs, func() {
			axErr = rawRecord(ctx, "accessibility tree", &ld.AXTreeTime, func() (any, error) {
				return tab.cdp.Send("Accessibility.getFullAXTree", map[string]any{})
			})
		})
	}
	if cfg.AISnapshot {
		fs = append(fs, func() {
			snErr = rawRecord(ctx, "AI snapshot", &ld.AISnapshotTime, func() (any, error) {
				return TakeAISnapshot(tab.page, tab.cdp, 0)
			})
		})
	}
	p.stage.Store("records")
	atOnce(fs...)
	return errors.Join(axErr, snErr)
}

// rawRecord calls take, stops waiting for it when ctx ends, and sets
// took to the time it waited.
func rawRecord(ctx context.Context, name string, took *time.Duration, take func() (any, error)) error {
	start := time.Now()
	_, err, ok := bounded.Call(ctx, 0, take, nil)
	*took = time.Since(start)
	if !ok {
		return fmt.Errorf("%s: %w", name, context.Cause(ctx))
	}
	return err
}

// startLoad starts a load: it navigates tab to rawURL (see navigate) and
// returns the Load with what the navigation told (timing, final URL,
// status, content type), its main response, and its error.
func (p *pwPage) startLoad(ctx context.Context, tab *pwTab, rawURL string) (*pipeline.Load, *navResponse, error) {
	ld := &pipeline.Load{BrowserVersion: p.browser.Version()}
	p.stage.Store("navigate")
	start := time.Now()
	nav, err := p.navigate(ctx, tab, rawURL)
	ld.Navigate = time.Since(start)
	ld.FinalURL = tab.page.URL()
	if nav != nil {
		ld.HTTPStatus, ld.ContentType, ld.FinalURL = nav.status, nav.contentType, nav.url
	}
	return ld, nav, err
}
