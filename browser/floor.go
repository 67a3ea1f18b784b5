package browser

import (
	"context"
	"time"

	"actionspace/pipeline"
)

// floorPage is the load of a floor crawl (pipeline.PageConfig.Floor): it
// navigates tab to rawURL up to the load event and reads the page's HTML
// with Playwright's content(), the bare loop a crawl's throughput is
// measured against. Its failures are classified as a crawl's are
// (navigationError).
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
	return ld, nil
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
