package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/dom"
	"actionspace/internal/bounded"
	"actionspace/pipeline"
)

// chromiumArgs are the launch flags for Debian's Chromium in this
// environment, its headless build (DefaultChromiumPath) or the full
// browser (FullChromiumPath); --no-sandbox is added only when running as
// root.
//
// WebRTC may not send UDP past the proxy (its TCP goes through the proxy
// like every other connection). Each build reads its own switch for that:
// the full browser --webrtc-ip-handling-policy, the headless build only
// --force-webrtc-ip-handling-policy (TestEgress_Pages fails in each
// without its switch). The headless build would also render cross-site
// frames in the page's own renderer process; --site-per-process gives
// them processes of their own, as the full browser does by default.
var chromiumArgs = []string{
	"--webrtc-ip-handling-policy=disable_non_proxied_udp",
	"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
	"--site-per-process",
	"--headless",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
}

var (
	_ pipeline.Browser = (*pwBrowser)(nil)
	_ pipeline.Page    = (*pwPage)(nil)
)

// pwBrowser is a local Chromium driven through Playwright, or, inside a
// remoteBrowser, a connection to a browser server.
type pwBrowser struct {
	cfg     Config
	pw      *playwright.Playwright
	browser playwright.Browser

	closeOnce sync.Once
	closeErr  error
}

// Launch starts the Playwright driver (installed by `make setup`) and
// launches the Chromium at cfg.ChromiumPath, headless. Close the Browser
// to stop both.
func Launch(ctx context.Context, cfg Config) (pipeline.Browser, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("browser config: %w", err)
	}
	if err := CheckChromium(cfg.ChromiumPath); err != nil {
		return nil, fmt.Errorf("launch %w", err)
	}
	b, err, ok := bounded.Call(ctx, 0,
		func() (*pwBrowser, error) { return launch(ctx, cfg) },
		func(b *pwBrowser, _ error) {
			if b != nil {
				_ = b.Close()
			}
		})
	if !ok {
		return nil, fmt.Errorf("launch chromium: %w", ctx.Err())
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

func launch(ctx context.Context, cfg Config) (*pwBrowser, error) {
	pw, err := playwright.Run(&playwright.RunOptions{})
	if err != nil {
		return nil, fmt.Errorf("start playwright driver: %w (run `make setup` to install it)", err)
	}
	root := os.Geteuid() == 0
	args := append([]string(nil), chromiumArgs...)
	if root {
		args = append(args, "--no-sandbox")
	}
	if heap := cfg.jsHeapMB(); heap > 0 {
		args = append(args, fmt.Sprintf("--js-flags=--max-old-space-size=%d", heap))
	}
	opts := playwright.BrowserTypeLaunchOptions{
		ExecutablePath:  playwright.String(cfg.ChromiumPath),
		Headless:        playwright.Bool(true),
		ChromiumSandbox: playwright.Bool(!root),
		Args:            args,
	}
	if ms := timeoutMS(ctx); ms > 0 {
		opts.Timeout = playwright.Float(ms)
	}
	br, err := pw.Chromium.Launch(opts)
	if err != nil {
		_ = pw.Stop()
		return nil, fmt.Errorf("launch chromium %s: %w", cfg.ChromiumPath, shortError{err})
	}
	cfg.logger().Debug("chromium launched", logBrowserPath, cfg.ChromiumPath, logBrowserVer, br.Version())
	return &pwBrowser{cfg: cfg, pw: pw, browser: br}, nil
}

// Version returns Chromium's version, such as "156.0.8078.114".
func (b *pwBrowser) Version() string { return b.browser.Version() }

// NewPage opens a page in a fresh browser context: the configured viewport,
// downloads refused, certificate errors not ignored, JavaScript on. Dialogs
// are answered (beforeunload accepted so navigation goes on, the others
// dismissed) and popups closed as they open.
func (b *pwBrowser) NewPage(ctx context.Context, cfg pipeline.PageConfig) (pipeline.Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("new page: %w", err)
	}
	p := &pwPage{browser: b, log: b.cfg.logger(), cfg: cfg, script: dom.Script(), scriptArg: cfg.Script}
	if b.cfg.script != "" {
		p.script, p.scriptArg = b.cfg.script, b.cfg.scriptArg
	}
	arg, err := json.Marshal(p.scriptArg)
	if err != nil {
		return nil, fmt.Errorf("new page: capture script argument: %w", err)
	}
	p.arg = string(arg)
	p.dead, p.kill = context.WithCancel(context.Background())
	// Most crawls list public URLs: the first tab is public, and takes
	// the class of its first URL when that is another (pwPage.currentTab).
	tab, err := b.openTab(p, pipeline.ClassPublic)
	if err != nil {
		return nil, err
	}
	p.tab = tab
	return p, nil
}

// openTab opens a browser context with one page in it, and a CDP session
// on that page, for p; unless p's network policy is lifted, the context's
// requests all go through a proxy session of its own, which lets pages
// loaded in it reach what a page listed under a URL of class may.
func (b *pwBrowser) openTab(p *pwPage, class pipeline.AddrClass) (*pwTab, error) {
	if !b.browser.IsConnected() {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: errors.New("new page: browser disconnected")}
	}
	opts := playwright.BrowserNewContextOptions{
		Viewport:          &playwright.Size{Width: p.cfg.ViewportWidth, Height: p.cfg.ViewportHeight},
		AcceptDownloads:   playwright.Bool(false), // downloads are canceled
		IgnoreHttpsErrors: playwright.Bool(false),
		JavaScriptEnabled: playwright.Bool(true),
	}
	tab := &pwTab{class: class}
	if p.guarded() {
		var err error
		if tab.egress, opts.Proxy, err = p.openEgress(class); err != nil {
			return nil, err
		}
	}
	fail := func(what string, err error) (*pwTab, error) {
		if tab.context != nil {
			_ = tab.context.Close()
		}
		if tab.egress != nil {
			_ = tab.egress.Close()
		}
		return nil, &pipeline.PageError{Kind: kindOf(err, pipeline.KindBrowser), Err: fmt.Errorf("%s: %w", what, shortError{err})}
	}
	bctx, err := b.browser.NewContext(opts)
	if err != nil {
		return fail("new browser context", err)
	}
	tab.context = bctx
	bctx.OnDialog(p.onDialog)
	page, err := bctx.NewPage()
	if err != nil {
		return fail("new page", err)
	}
	cdp, err := bctx.NewCDPSession(page)
	if err != nil {
		return fail("new CDP session", err)
	}
	tab.page, tab.cdp, tab.mainFrame = page, cdp, page.MainFrame()
	page.OnPopup(p.onPopup)
	page.OnResponse(func(r playwright.Response) { p.onResponse(tab, r) })
	if tab.egress != nil {
		page.OnRequestFailed(func(r playwright.Request) { p.onRequestFailed(tab, r) })
	}
	if err := p.watchEvidence(tab); err != nil {
		return fail("watch the page for settling", err)
	}
	page.OnCrash(func(playwright.Page) { p.tabFailed(tab, errors.New("renderer crashed")) })
	page.OnClose(func(playwright.Page) { p.tabFailed(tab, errors.New("page closed")) })
	return tab, nil
}

// Close closes the browser and stops the driver.
func (b *pwBrowser) Close() error {
	b.closeOnce.Do(func() {
		var errs []error
		if err := b.browser.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close chromium: %w", err))
		}
		if err := b.pw.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stop playwright driver: %w", err))
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}

// isHTML reports whether a Content-Type is HTML. An empty one counts: the
// browser sniffed it and rendered a document.
func isHTML(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt, _, _ = strings.Cut(strings.ToLower(contentType), ";")
		mt = strings.TrimSpace(mt)
	}
	return mt == "text/html" || mt == "application/xhtml+xml"
}

// timeoutMS converts what is left of ctx's deadline into a Playwright
// timeout in milliseconds (at least 1); 0, meaning none, without a deadline.
func timeoutMS(ctx context.Context) float64 {
	dl, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	return max(1, float64(time.Until(dl).Milliseconds()))
}

// dig walks nested JSON objects by key; nil when a step is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
