package browser

import (
	"context"
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

// mustLaunchChromium launches Chromium for the test (after requireChromium)
// and closes it when the test ends.
func mustLaunchChromium(tb testing.TB, cfg testConfig) *testBrowser {
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

// localOpener opens a local Chromium (with relaunches) for a crawl test,
// logging to log.
func localOpener(cfg pipeline.Config) pipeline.Opener {
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
