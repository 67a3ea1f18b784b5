package pipeline

import (
	"context"
	"testing"
	"time"

	"actionspace/internal/browsertest"
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

// testBrowserConfig is the default config with testCaptureScript.
func testBrowserConfig() BrowserConfig {
	cfg := DefaultBrowserConfig()
	cfg.CaptureScript = testCaptureScript
	cfg.CaptureArg = map[string]any{"probe": "x"}
	return cfg
}

// mustLaunchChromium launches Chromium for the test (after requireChromium)
// and closes it when the test ends.
func mustLaunchChromium(tb testing.TB, cfg BrowserConfig) Browser {
	tb.Helper()
	requireChromium(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := LaunchChromium(ctx, cfg)
	if err != nil {
		tb.Fatalf("LaunchChromium: %v", err)
	}
	tb.Cleanup(func() {
		if err := b.Close(); err != nil {
			tb.Errorf("Browser.Close: %v", err)
		}
	})
	return b
}

// mustNewPage opens a page that is closed when the test ends.
func mustNewPage(tb testing.TB, b Browser) Page {
	tb.Helper()
	p, err := b.NewPage(context.Background())
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
