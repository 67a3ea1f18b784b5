package main

import (
	"context"
	"fmt"
	"time"

	"actionspace/axtree"
	"actionspace/browser"
	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/pipeline"
)

// state is one captured page state.
type state struct {
	capture                                    *dom.Capture
	axtree                                     *axtree.Record
	snapshot                                   *axtree.Snapshot
	html                                       string
	captureTime, axtreeTime, snapTime, content time.Duration
}

// load loads url the way a crawl does (package browser, the crawl's
// default page settings: settle, capture in an isolated world, the
// accessibility tree and the AI snapshot right after it, then the HTML),
// in a fresh page: Playwright numbers the AI snapshot's refs by the frames
// the page has had (e12, then f1e12 …).
func load(ctx context.Context, b pipeline.Browser, url string) (*state, error) {
	page, err := b.NewPage(ctx, pipeline.DefaultPageConfig())
	if err != nil {
		return nil, err
	}
	defer page.Close()
	ld, err := page.Load(ctx, url)
	if err != nil {
		return nil, err
	}
	return newState(ld)
}

// start serves the corpus and launches the crawl's local Chromium; the
// function it returns closes both.
func start(ctx context.Context) (*corpora.Server, pipeline.Browser, func(), error) {
	srv, err := corpora.Start()
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := launch(ctx)
	if err != nil {
		srv.Close()
		return nil, nil, nil, err
	}
	return srv, b, func() { b.Close(); srv.Close() }, nil
}

// launch starts the crawl's local Chromium.
func launch(ctx context.Context) (pipeline.Browser, error) {
	b, err := browser.Launch(ctx, browser.DefaultConfig())
	if err != nil {
		return nil, fmt.Errorf("%w (run `make setup`)", err)
	}
	return b, nil
}
