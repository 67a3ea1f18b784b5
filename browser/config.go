package browser

import (
	"fmt"
	"log/slog"
	"net/url"
	"os"

	"actionspace/pipeline"
)

// DefaultChromiumPath is where Debian's chromium-headless-shell package
// installs Chromium's headless build: the same Blink and V8 as the chromium
// package's browser, without the browser's user interface layers. On the
// bundled corpus it captures the same rows in much less time per page
// (docs/throughput.md); --chromium with FullChromiumPath drives
// the full browser instead.
const DefaultChromiumPath = "/usr/bin/chromium-headless-shell"

// FullChromiumPath is where Debian's chromium package installs the full
// browser, which a crawl launches when told to (--chromium) and the tests
// compare with the headless build.
const FullChromiumPath = "/usr/bin/chromium"

// DefaultMaxJSHeapMB is the default of Config.MaxJSHeapMB. Left alone,
// V8 lets a renderer's heap grow to about 4 GiB on a machine of this
// size: the corpus's page that fills it (/faults/crash) took 20 s of a
// core and 4 GiB of memory to crash its renderer, and a crawl holds a
// page of the kind in every tab in flight.
const DefaultMaxJSHeapMB = 1024

// Config says which browser a crawl drives: a local Chromium, or the
// Playwright browser servers at Endpoints. How each page loads a URL is
// the crawl's business (pipeline.PageConfig), handed to every NewPage.
type Config struct {
	// ChromiumPath is the local Chromium executable, used when there are
	// no Endpoints.
	ChromiumPath string
	// Endpoints, when set, are the ws:// URLs of Playwright browser
	// servers (`playwright run-server`) to connect to instead of launching
	// ChromiumPath; see [Remote]. Listing one twice opens two connections
	// to it.
	Endpoints []string
	// MaxJSHeapMB bounds the JavaScript heap of each renderer of a local
	// Chromium, in MiB (V8's old space: --js-flags=--max-old-space-size);
	// a page that needs more crashes its renderer, and its row says the
	// renderer crashed (error_kind browser). 0 means DefaultMaxJSHeapMB, a
	// negative value leaves V8's own limit. Browser servers (Endpoints)
	// launch their Chromium with their own flags.
	MaxJSHeapMB int
	// Logger receives logs about relaunches, lost endpoints, dialogs,
	// popups and settling; nil means slog.Default().
	Logger *slog.Logger

	// script and scriptArg, when script is set, replace the capture script
	// and its argument: tests wrap the real script to run an independent
	// check in the same page state.
	script    string
	scriptArg any
}

// DefaultConfig returns a local Chromium at DefaultChromiumPath.
func DefaultConfig() Config {
	return Config{ChromiumPath: DefaultChromiumPath}
}

// Validate reports the first invalid setting, naming it.
func (c Config) Validate() error {
	if len(c.Endpoints) == 0 && c.ChromiumPath == "" {
		return fmt.Errorf("chromium: empty path")
	}
	// An endpoint is named as pipeline.RedactEndpoint shows it: its path
	// may be the server's secret.
	for i, e := range c.Endpoints {
		u, err := url.Parse(e)
		if err != nil {
			return fmt.Errorf("browser endpoint %d (%s): not a URL", i+1, pipeline.RedactEndpoint(e))
		}
		if (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return fmt.Errorf("browser endpoint %d (%s): want ws://HOST:PORT/PATH or wss://…", i+1, pipeline.RedactEndpoint(e))
		}
	}
	return nil
}

// jsHeapMB is the renderers' heap limit in MiB, 0 for V8's own.
func (c Config) jsHeapMB() int {
	switch {
	case c.MaxJSHeapMB == 0:
		return DefaultMaxJSHeapMB
	case c.MaxJSHeapMB < 0:
		return 0
	}
	return c.MaxJSHeapMB
}

func (c Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// CheckChromium reports, with what to do about it, when there is no
// Chromium executable at path: the one check both commands and Launch
// make.
func CheckChromium(path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("chromium: %w (install it with `make setup` or apt-get install chromium-headless-shell, or pass --chromium)", err)
	}
	return nil
}
