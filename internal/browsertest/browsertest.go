// Package browsertest is the one guard of the tests that need real
// Chromium and the Playwright driver, shared by every package's tests.
package browsertest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mxschmitt/playwright-go"
)

// ChromiumPath is the Chromium the tests launch: browser.DefaultChromiumPath
// (which this package cannot import: browser's own tests import it), and
// a test of package browser checks that the two agree.
const ChromiumPath = "/usr/bin/chromium-headless-shell"

// IsChromium reports whether comm, a process name as /proc/PID/stat gives
// it (the executable's name cut at 15 bytes), is one of Chromium's
// processes: "chromium" for the full browser, "chromium-headle" for the
// headless build.
func IsChromium(comm string) bool {
	return strings.HasPrefix(comm, "chromium")
}

// Require skips the calling test under -short, or when Chromium or the
// Playwright driver (`make setup`) is missing. When
// ACTIONSPACE_REQUIRE_CHROMIUM=1 (as `make test` sets it) a missing piece
// fails the test instead, so that CI cannot go green by skipping.
func Require(tb testing.TB) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("real-Chromium test skipped under -short")
	}
	missing := ""
	if _, err := os.Stat(ChromiumPath); err != nil {
		missing = "chromium: " + err.Error() + " (apt-get install chromium-headless-shell)"
	} else if dir, err := DriverDirectory(); err != nil {
		missing = "playwright driver: " + err.Error()
	} else if _, err := os.Stat(filepath.Join(dir, "package", "cli.js")); err != nil {
		missing = "playwright driver: " + err.Error() + " (run make setup)"
	} else if _, err := os.Stat(filepath.Join(dir, "node")); err != nil && os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
		missing = "playwright driver: " + err.Error() + " (run make setup)"
	}
	if missing != "" {
		Missing(tb, missing)
	}
}

// Missing ends the calling test for want of what a real-Chromium test
// needs, saying what is missing: it fails the test when
// ACTIONSPACE_REQUIRE_CHROMIUM=1, so that CI cannot go green by skipping,
// and skips it otherwise.
func Missing(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv("ACTIONSPACE_REQUIRE_CHROMIUM") == "1" {
		tb.Fatalf("ACTIONSPACE_REQUIRE_CHROMIUM=1 but %s", what)
	}
	tb.Skip(what)
}

// DriverDirectory is where playwright-go looks for its driver by default
// (see cmd/setup).
func DriverDirectory() (string, error) {
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
