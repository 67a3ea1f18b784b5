package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"actionspace/dom"
	"actionspace/internal/browsertest"
	"actionspace/pipeline"
)

// requireChromium is the shared real-Chromium guard (internal/browsertest).
func requireChromium(tb testing.TB) {
	tb.Helper()
	browsertest.Require(tb)
}

// testDriverDirectory is where playwright-go looks for its driver by default.
func testDriverDirectory() (string, error) { return browsertest.DriverDirectory() }

// testCaptureScript is a tiny stand-in for the real capture script. It
// leans on the built-ins a hostile page overrides (JSON.stringify,
// Array.prototype.map, querySelectorAll) so that the isolated world is put
// to the test.
const testCaptureScript = `(arg) => JSON.stringify({
  title: document.title,
  n: document.querySelectorAll('*').length,
  late: document.getElementById('late') !== null,
  doubled: [1, 2, 3].map((x) => x * 2),
  arg,
})`

// testConfig is what a browser test launches: the adapter's config (where
// a test may replace the capture script) and the config of its pages.
type testConfig struct {
	launch Config
	page   pipeline.PageConfig
}

// defaultTestConfig is a local Chromium with the real capture script and
// the crawl's default pages, but without the extras (the accessibility
// tree and the AI snapshot): most tests look at the capture alone, and
// the extras cost a few hundred milliseconds a load. The tests of the
// extras turn them on.
func defaultTestConfig() testConfig {
	cfg := testConfig{launch: DefaultConfig(), page: pipeline.DefaultPageConfig()}
	cfg.page.Extras.AXTree, cfg.page.Extras.AISnapshot = false, false
	return cfg
}

// testBrowserConfig is defaultTestConfig with testCaptureScript, and no
// extras (they need a real capture to tie to).
func testBrowserConfig() testConfig {
	cfg := defaultTestConfig()
	cfg.launch.script = testCaptureScript
	cfg.launch.scriptArg = map[string]any{"probe": "x"}
	return cfg
}

// wrapScript replaces the capture script with script, which gets arg; the
// real script is dom.Script().
func (c *testConfig) wrapScript(script string, arg any) {
	c.launch.script, c.launch.scriptArg = script, arg
}

// testBrowser is a launched browser with the page config its pages open
// with.
type testBrowser struct {
	pipeline.Browser
	page pipeline.PageConfig
}

// TestMain runs the package's tests and then closes the Chromium they
// shared, if one of them started it.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := chromium.close(); err != nil {
		fmt.Fprintln(os.Stderr, "close the shared Chromium:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// chromium is the one Chromium of this test binary.
var chromium sharedChromium

// sharedChromium is a Chromium (and its Playwright driver) launched on
// first use and shared by the tests of the binary: a launch costs seconds,
// and many seconds on a busy machine, while each page already lives in a
// browser context of its own (its own cookies, storage and renderer), so
// tests that share the browser share nothing else. A test that kills or
// relaunches the browser launches its own with mustLaunchOwnChromium.
type sharedChromium struct {
	once sync.Once
	b    *pwBrowser
	err  error
}

// get returns the shared browser, launching it on the first call.
func (s *sharedChromium) get() (*pwBrowser, error) {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cfg := DefaultConfig()
		cfg.Logger = testLogger(nil)
		b, err := Launch(ctx, cfg)
		if err != nil {
			s.err = fmt.Errorf("launch the shared Chromium: %w", err)
			return
		}
		s.b = b.(*pwBrowser)
	})
	return s.b, s.err
}

// close closes the shared browser if it was launched.
func (s *sharedChromium) close() error {
	if s.b == nil {
		return nil
	}
	return s.b.Close()
}

// view returns a handle on the shared browser whose pages open with cfg's
// capture script and logger.
func (s *sharedChromium) view(cfg Config) (*sharedView, error) {
	b, err := s.get()
	if err != nil {
		return nil, err
	}
	return &sharedView{b: &pwBrowser{cfg: cfg, pw: b.pw, browser: b.browser}}, nil
}

// sharedView is one test's handle on the shared Chromium: a
// pipeline.Browser whose pages are the test's own, and whose Close closes
// those pages (as a crawl does with its browser at the end) but leaves the
// browser running for the other tests.
type sharedView struct {
	b *pwBrowser

	mu     sync.Mutex
	pages  []pipeline.Page
	closed bool
}

// NewPage opens a page on the shared browser, in a browser context of its
// own.
func (v *sharedView) NewPage(ctx context.Context, cfg pipeline.PageConfig) (pipeline.Page, error) {
	closed := errors.New("new page: browser closed")
	v.mu.Lock()
	done := v.closed
	v.mu.Unlock()
	if done {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: closed}
	}
	p, err := v.b.NewPage(ctx, cfg) // unlocked: a crawl's workers open pages at once
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		_ = p.Close()
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: closed}
	}
	v.pages = append(v.pages, p)
	return p, nil
}

// Version is the shared browser's version.
func (v *sharedView) Version() string { return v.b.Version() }

// Close closes the pages opened through v.
func (v *sharedView) Close() error {
	v.mu.Lock()
	pages := v.pages
	v.pages, v.closed = nil, true
	v.mu.Unlock()
	var errs []error
	for _, p := range pages {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// mustLaunchChromium returns the test's handle on the shared Chromium
// (after requireChromium), with cfg's capture script and logger; the pages
// opened through it are closed when the test ends.
func mustLaunchChromium(tb testing.TB, cfg testConfig) *testBrowser {
	tb.Helper()
	requireChromium(tb)
	v, err := chromium.view(cfg.launch)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := v.Close(); err != nil {
			tb.Errorf("close the test's pages: %v", err)
		}
	})
	return &testBrowser{Browser: v, page: cfg.page}
}

// mustLaunchOwnChromium launches a Chromium for the test alone (after
// requireChromium) and closes it when the test ends: for a test that
// kills, crashes or closes the browser itself, which would take the shared
// one from the other tests.
func mustLaunchOwnChromium(tb testing.TB, cfg testConfig) *testBrowser {
	tb.Helper()
	requireChromium(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := Launch(ctx, cfg.launch)
	if err != nil {
		tb.Fatalf("Launch: %v", err)
	}
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("Browser.Close: %v", err)
		}
	})
	return &testBrowser{Browser: b, page: cfg.page}
}

// mustNewPage opens a page that is closed when the test ends.
func mustNewPage(tb testing.TB, b *testBrowser) pipeline.Page {
	tb.Helper()
	p, err := b.NewPage(context.Background(), b.page)
	if err != nil {
		tb.Fatalf("NewPage: %v", err)
	}
	tb.Cleanup(func() {
		if err := p.Close(); err != nil {
			tb.Errorf("Page.Close: %v", err)
		}
	})
	return p
}

// localOpener hands a crawl test the shared Chromium, logging to
// cfg.Logger; the crawl's Close closes its pages, not the browser.
func localOpener(cfg pipeline.Config) pipeline.Opener {
	return func(context.Context) (pipeline.Browser, error) {
		b := DefaultConfig()
		b.Logger = cfg.Logger
		return chromium.view(b)
	}
}

// launchingOpener opens a local Chromium of the crawl's own, with
// relaunches, as the crawl command does: for a test of what happens when
// that browser dies.
func launchingOpener(cfg pipeline.Config) pipeline.Opener {
	b := DefaultConfig()
	b.Logger = cfg.Logger
	return Opener(b)
}

// remoteOpener connects a crawl test to the browser servers at endpoints.
func remoteOpener(cfg pipeline.Config, endpoints ...string) pipeline.Opener {
	return Opener(Config{Endpoints: endpoints, Logger: cfg.Logger})
}

// scriptOptions are the capture script's default options.
func scriptOptions() dom.ScriptOptions { return dom.DefaultScriptOptions() }
