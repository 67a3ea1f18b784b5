package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// requireChromium skips the calling test under -short, or when Chromium or
// the Playwright driver (`make setup`) is missing. When
// ACTIONSPACE_REQUIRE_CHROMIUM=1 (as `make test` sets it) a missing piece
// fails the test instead, so that CI cannot go green by skipping.
func requireChromium(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("real-Chromium test skipped under -short")
	}
	missing := ""
	if _, err := os.Stat(DefaultChromiumPath); err != nil {
		missing = "chromium: " + err.Error() + " (apt-get install chromium)"
	} else if dir, err := testDriverDirectory(); err != nil {
		missing = "playwright driver: " + err.Error()
	} else if _, err := os.Stat(filepath.Join(dir, "package", "cli.js")); err != nil {
		missing = "playwright driver: " + err.Error() + " (run make setup)"
	} else if _, err := os.Stat(filepath.Join(dir, "node")); err != nil && os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
		missing = "playwright driver: " + err.Error() + " (run make setup)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("ACTIONSPACE_REQUIRE_CHROMIUM") == "1" {
		tb.Fatalf("ACTIONSPACE_REQUIRE_CHROMIUM=1 but %s", missing)
	}
	tb.Skip(missing)
}

// testDriverDirectory is where playwright-go looks for its driver by
// default (see cmd/setup).
func testDriverDirectory() (string, error) {
	if dir := os.Getenv("PLAYWRIGHT_DRIVER_PATH"); dir != "" {
		return dir, nil
	}
	d, err := playwright.NewDriver(&playwright.RunOptions{SkipInstallBrowsers: true})
	if err != nil {
		return "", err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	cache := filepath.Join(home, ".cache")
	if runtime.GOOS == "darwin" {
		cache = filepath.Join(home, "Library", "Caches")
	}
	return filepath.Join(cache, "ms-playwright-go", d.Version), nil
}

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
