package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/internal/bounded"
)

// chromiumArgs are the launch flags for Debian's Chromium in this
// environment; --no-sandbox is added only when running as root.
var chromiumArgs = []string{
	"--headless",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
}

const (
	// isolatedWorld names the world the settle and capture scripts run in.
	isolatedWorld = "actionspace"
	// loadGrace is how long Load waits past its deadline for Playwright's
	// own timeout (set to the same deadline) to end the load cleanly, which
	// keeps the page usable. After that the page is abandoned.
	loadGrace = time.Second
)

// Log keys of the browser adapter.
const (
	logDialogType  = "dialog_type"
	logPopupURL    = "popup_url"
	logSettled     = "settled"
	logMutations   = "mutations"
	logSettleTime  = "settle_time"
	logBrowserPath = "chromium"
	logBrowserVer  = "chromium_version"
)

// errPageBroken marks a page that must not load another URL: its renderer
// crashed, it was closed, or a load had to be abandoned.
var errPageBroken = errors.New("page is no longer usable")

// settleScript resolves once the document has gone quiet ms without a
// mutation, or after max ms, with {settled, mutations}.
const settleScript = `(quiet, max) => new Promise((resolve) => {
  let mutations = 0, timer = 0, cap = 0;
  const finish = (settled) => {
    observer.disconnect();
    clearTimeout(timer);
    clearTimeout(cap);
    resolve({settled, mutations});
  };
  const observer = new MutationObserver((records) => {
    mutations += records.length;
    clearTimeout(timer);
    timer = setTimeout(() => finish(true), quiet);
  });
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  timer = setTimeout(() => finish(true), quiet);
  cap = setTimeout(() => finish(false), max);
})`

var (
	_ Browser = (*pwBrowser)(nil)
	_ Page    = (*pwPage)(nil)
)

// pwBrowser is a local Chromium driven through Playwright.
type pwBrowser struct {
	cfg     BrowserConfig
	arg     string // cfg.CaptureArg as JSON
	pw      *playwright.Playwright
	browser playwright.Browser

	closeOnce sync.Once
	closeErr  error
}

// LaunchChromium starts the Playwright driver (installed by `make setup`)
// and launches the Chromium at cfg.ChromiumPath, headless. Close the
// Browser to stop both.
func LaunchChromium(ctx context.Context, cfg BrowserConfig) (Browser, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("browser config: %w", err)
	}
	cfg = cfg.withDefaults()
	if _, err := os.Stat(cfg.ChromiumPath); err != nil {
		return nil, fmt.Errorf("launch chromium: %w (install it with apt-get install chromium)", err)
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

func launch(ctx context.Context, cfg BrowserConfig) (*pwBrowser, error) {
	arg, err := json.Marshal(cfg.CaptureArg)
	if err != nil {
		return nil, fmt.Errorf("capture arg: %w", err)
	}
	pw, err := playwright.Run(&playwright.RunOptions{})
	if err != nil {
		return nil, fmt.Errorf("start playwright driver: %w (run `make setup` to install it)", err)
	}
	root := os.Geteuid() == 0
	args := append([]string(nil), chromiumArgs...)
	if root {
		args = append(args, "--no-sandbox")
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
	cfg.Logger.Debug("chromium launched", logBrowserPath, cfg.ChromiumPath, logBrowserVer, br.Version())
	return &pwBrowser{cfg: cfg, arg: string(arg), pw: pw, browser: br}, nil
}

// Version returns Chromium's version, such as "156.0.8078.114".
func (b *pwBrowser) Version() string { return b.browser.Version() }

// NewPage opens a page in a fresh browser context: the configured viewport,
// downloads refused, certificate errors not ignored, JavaScript on. Dialogs
// are answered (beforeunload accepted so navigation goes on, the others
// dismissed) and popups closed as they open.
func (b *pwBrowser) NewPage(ctx context.Context) (Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("new page: %w", err)
	}
	p := &pwPage{browser: b, log: b.cfg.Logger}
	p.dead, p.kill = context.WithCancel(context.Background())
	tab, err := b.openTab(p)
	if err != nil {
		return nil, err
	}
	p.tab = tab
	return p, nil
}

// openTab opens a browser context with one page in it, and a CDP session
// on that page, for p.
func (b *pwBrowser) openTab(p *pwPage) (*pwTab, error) {
	if !b.browser.IsConnected() {
		return nil, &PageError{Kind: KindBrowser, Err: errors.New("new page: browser disconnected")}
	}
	bctx, err := b.browser.NewContext(playwright.BrowserNewContextOptions{
		Viewport:          &playwright.Size{Width: b.cfg.ViewportWidth, Height: b.cfg.ViewportHeight},
		AcceptDownloads:   playwright.Bool(false), // downloads are canceled
		IgnoreHttpsErrors: playwright.Bool(false),
		JavaScriptEnabled: playwright.Bool(true),
	})
	if err != nil {
		return nil, &PageError{Kind: kindOf(err, KindBrowser), Err: fmt.Errorf("new browser context: %w", shortError{err})}
	}
	bctx.OnDialog(p.onDialog)
	page, err := bctx.NewPage()
	if err != nil {
		_ = bctx.Close()
		return nil, &PageError{Kind: kindOf(err, KindBrowser), Err: fmt.Errorf("new page: %w", shortError{err})}
	}
	cdp, err := bctx.NewCDPSession(page)
	if err != nil {
		_ = bctx.Close()
		return nil, &PageError{Kind: kindOf(err, KindBrowser), Err: fmt.Errorf("new CDP session: %w", shortError{err})}
	}
	tab := &pwTab{context: bctx, page: page, cdp: cdp, mainFrame: page.MainFrame()}
	page.OnPopup(p.onPopup)
	page.OnResponse(func(r playwright.Response) { p.onResponse(tab, r) })
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

// pwTab is one Playwright page in its own browser context, with a CDP
// session for the isolated world.
type pwTab struct {
	context   playwright.BrowserContext
	page      playwright.Page
	cdp       playwright.CDPSession
	mainFrame playwright.Frame
}

func (t *pwTab) close() error {
	if err := t.context.Close(); err != nil && !errors.Is(err, playwright.ErrTargetClosed) {
		return fmt.Errorf("close page: %w", shortError{err})
	}
	return nil
}

// pwPage implements Page on a pwTab. After a failed load it swaps the tab
// for a fresh one before the next URL: a page that failed a navigation
// keeps Chromium's error page, after which later navigations and dialogs
// misbehave (net::ERR_ABORTED, unanswerable dialogs).
type pwPage struct {
	browser *pwBrowser
	log     *slog.Logger

	stage atomic.Value // string: the stage the current load is in

	mu      sync.Mutex
	tab     *pwTab          // nil while being replaced
	stale   bool            // the last load failed: replace tab before the next
	broken  error           // non-nil once the page must not be used again
	dead    context.Context // done once broken is set
	kill    context.CancelFunc
	mainNav *navResponse // the main frame's last navigation response

	closeOnce sync.Once
	closeErr  error
}

// navResponse is what a main-frame navigation response said.
type navResponse struct {
	url, statusText, contentType string
	status                       int
}

// onResponse remembers the main frame's navigation responses: when
// Chromium fails a navigation on an error status with an empty body
// (net::ERR_HTTP_RESPONSE_CODE_FAILURE), or the load event never comes,
// Goto returns no response, but the status is still known.
func (p *pwPage) onResponse(tab *pwTab, r playwright.Response) {
	if !r.Request().IsNavigationRequest() || r.Frame() != tab.mainFrame {
		return
	}
	nav := &navResponse{url: r.URL(), status: r.Status(), statusText: r.StatusText(), contentType: r.Headers()["content-type"]}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tab == tab {
		p.mainNav = nav
	}
}

func (p *pwPage) takeMainNav() *navResponse {
	p.mu.Lock()
	defer p.mu.Unlock()
	nav := p.mainNav
	p.mainNav = nil
	return nav
}

// tabFailed marks p broken when its current tab crashed or closed; events
// of a tab being replaced do not count.
func (p *pwPage) tabFailed(tab *pwTab, cause error) {
	p.mu.Lock()
	current := p.tab == tab
	p.mu.Unlock()
	if current {
		p.markBroken(cause)
	}
}

func (p *pwPage) markBroken(cause error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken == nil {
		p.broken = fmt.Errorf("%w: %v", errPageBroken, cause)
		p.kill()
	}
}

func (p *pwPage) brokenErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.broken
}

// activeTab returns the tab in use, nil while it is being replaced.
func (p *pwPage) activeTab() *pwTab {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tab
}

// currentTab returns the tab to load the next URL in, replacing it first
// when the last load failed.
func (p *pwPage) currentTab() (*pwTab, error) {
	p.mu.Lock()
	tab, stale := p.tab, p.stale
	if stale {
		p.tab = nil // its close event is not a failure of p
	}
	p.mu.Unlock()
	if !stale {
		return tab, nil
	}
	if tab != nil {
		_ = tab.close()
	}
	fresh, err := p.browser.openTab(p)
	if err != nil {
		p.markBroken(err)
		return nil, err
	}
	p.mu.Lock()
	if p.broken != nil { // closed meanwhile
		err := p.broken
		p.mu.Unlock()
		_ = fresh.close()
		return nil, err
	}
	p.tab, p.stale = fresh, false
	p.mu.Unlock()
	return fresh, nil
}

func (p *pwPage) onDialog(d playwright.Dialog) {
	// Handlers run on their own goroutine, so answering here cannot stall
	// the connection. Accepting beforeunload lets the next navigation go on.
	var err error
	if d.Type() == "beforeunload" {
		err = d.Accept()
	} else {
		err = d.Dismiss()
	}
	p.log.Debug("answered dialog", logDialogType, d.Type(), logError, err)
}

func (p *pwPage) onPopup(popup playwright.Page) {
	p.log.Debug("closing popup", logPopupURL, popup.URL())
	// Popup events arrive on the connection's goroutine: close elsewhere.
	go func() { _ = popup.Close() }()
}

// Close closes the page's browser context, and with it the page.
func (p *pwPage) Close() error {
	p.closeOnce.Do(func() {
		p.markBroken(errors.New("page closed"))
		if tab := p.activeTab(); tab != nil {
			p.closeErr = tab.close()
		}
	})
	return p.closeErr
}

// Load implements [Page]. It runs the load on another goroutine so that it
// can return when ctx is done even if the browser does not answer; a load
// that outlives its deadline by loadGrace, or whose renderer crashes, is
// abandoned and the page closed.
func (p *pwPage) Load(ctx context.Context, rawURL string) (*Load, error) {
	if err := checkLoadURL(rawURL); err != nil {
		return nil, &PageError{Kind: KindInvalidURL, URL: rawURL, Err: err}
	}
	if err := p.brokenErr(); err != nil {
		return nil, &PageError{Kind: KindBrowser, URL: rawURL, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, &PageError{Kind: kindOf(err, KindCanceled), URL: rawURL, Err: err}
	}
	wait, stop := p.loadWait(ctx)
	defer stop()
	ld, err, ok := bounded.Call(wait, 0, func() (*Load, error) {
		ld, err := p.load(ctx, rawURL)
		if err != nil {
			p.mu.Lock()
			p.stale = true
			p.mu.Unlock()
		}
		return ld, err
	}, nil)
	if ok {
		return ld, err
	}
	stage, _ := p.stage.Load().(string)
	var abandon error
	if ctx.Err() == nil { // the page died under the load
		abandon = &PageError{Kind: KindBrowser, URL: rawURL, Err: p.brokenErr()}
	} else {
		abandon = &PageError{Kind: kindOf(ctx.Err(), KindCanceled), URL: rawURL, Err: fmt.Errorf("%s: %w", stage, ctx.Err())}
	}
	p.markBroken(fmt.Errorf("abandoned a load of %s in %s", rawURL, stage))
	// Closing the context ends the stuck calls; the caller's Close waits
	// for it to finish.
	go func() { _ = p.Close() }()
	return nil, abandon
}

// loadWait returns how long Load waits for a load: until the page dies,
// ctx is canceled, or loadGrace after ctx's deadline, for Playwright's own
// timeout (set to the same deadline) to end the load cleanly, which keeps
// the page usable.
func (p *pwPage) loadWait(ctx context.Context) (context.Context, func()) {
	wait, cancel := context.WithCancel(context.Background())
	stopCtx := context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			time.AfterFunc(loadGrace, cancel) // a late cancel is harmless
			return
		}
		cancel()
	})
	stopDead := context.AfterFunc(p.dead, cancel)
	return wait, func() {
		stopCtx()
		stopDead()
		cancel()
	}
}

// checkLoadURL refuses what Chromium cannot navigate to at all. Which
// schemes a crawl accepts is decided when the URL list is read.
func checkLoadURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %w", err)
	}
	if u.Scheme == "" {
		return fmt.Errorf("not an absolute URL: %q", raw)
	}
	return nil
}

// load does the work of Load on its own goroutine.
func (p *pwPage) load(ctx context.Context, rawURL string) (*Load, error) {
	p.stage.Store("open")
	tab, err := p.currentTab()
	if err != nil {
		return nil, pageError(rawURL, "open", KindBrowser, err)
	}
	ld := &Load{}
	p.stage.Store("navigate")
	start := time.Now()
	nav, err := p.navigate(ctx, tab, rawURL)
	ld.Navigate = time.Since(start)
	ld.FinalURL = tab.page.URL()
	if nav != nil {
		ld.HTTPStatus = nav.status
		ld.ContentType = nav.contentType
		ld.FinalURL = nav.url
	}
	if ld.HTTPStatus >= 400 {
		// Checked first: an error status with an empty body fails the
		// navigation itself.
		return ld, &PageError{Kind: KindHTTP, URL: rawURL, Err: &statusError{code: nav.status, text: nav.statusText}}
	}
	if err != nil {
		return ld, p.fail(ctx, rawURL, "navigate", KindNavigate, err)
	}
	if !isHTML(ld.ContentType) {
		return ld, &PageError{Kind: KindContentType, URL: rawURL, Err: fmt.Errorf("content type %q is not HTML", ld.ContentType)}
	}

	// A script may navigate the page while it settles, which destroys the
	// isolated world: wait for the new document and try once more.
	for attempt := 1; ; attempt++ {
		err = p.settleAndCapture(ctx, tab, rawURL, ld)
		if err == nil {
			break
		}
		if attempt > 1 && worldGone(err) && ctx.Err() == nil {
			// It navigated again: a refresh or script redirect loop,
			// which is a navigation failure like a redirect loop.
			cause := err
			if pe := (*PageError)(nil); errors.As(err, &pe) {
				cause = pe.Err
			}
			return ld, &PageError{Kind: KindNavigate, URL: rawURL, Err: fmt.Errorf("page kept navigating during capture: %w", cause)}
		}
		if attempt > 1 || !worldGone(err) || ctx.Err() != nil {
			return ld, err
		}
		p.stage.Store("navigate")
		err = tab.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{
			State:   playwright.LoadStateLoad,
			Timeout: playwright.Float(timeoutMS(ctx)),
		})
		if err != nil {
			return ld, p.fail(ctx, rawURL, "navigate", KindNavigate, err)
		}
	}

	p.screenshot(ctx, tab, rawURL, ld)

	p.stage.Store("content")
	start = time.Now()
	html, err := tab.page.Content()
	ld.Content = time.Since(start)
	if err != nil {
		return ld, p.fail(ctx, rawURL, "content", KindCapture, err)
	}
	ld.HTML = html
	ld.FinalURL = tab.page.URL()
	return ld, nil
}

// navigate goes to rawURL and waits for the load event. A navigation
// started by the previous page's scripts can interrupt it: it then tries
// once more. It returns the main response, from Goto or, when Goto has
// none, from the response events.
func (p *pwPage) navigate(ctx context.Context, tab *pwTab, rawURL string) (*navResponse, error) {
	for attempt := 1; ; attempt++ {
		p.takeMainNav()
		resp, err := tab.page.Goto(rawURL, playwright.PageGotoOptions{
			WaitUntil: playwright.WaitUntilStateLoad,
			Timeout:   playwright.Float(timeoutMS(ctx)),
		})
		seen := p.takeMainNav()
		if err != nil && strings.Contains(err.Error(), "is interrupted by another navigation") && attempt < 2 && ctx.Err() == nil {
			p.log.Debug("navigation interrupted, retrying", logURL, rawURL, logError, shortError{err})
			continue
		}
		if resp != nil {
			return &navResponse{url: resp.URL(), status: resp.Status(), statusText: resp.StatusText(), contentType: resp.Headers()["content-type"]}, err
		}
		return seen, err
	}
}

// settleAndCapture waits for a quiet DOM and runs the capture script, both
// in a fresh isolated world of the main frame.
func (p *pwPage) settleAndCapture(ctx context.Context, tab *pwTab, rawURL string, ld *Load) error {
	p.stage.Store("capture")
	world, err := tab.isolatedWorld()
	if err != nil {
		return p.fail(ctx, rawURL, "capture", KindCapture, fmt.Errorf("create isolated world: %w", err))
	}

	p.stage.Store("settle")
	quiet, capAt := p.browser.cfg.SettleQuiet, p.browser.cfg.SettleMax
	if dl, ok := ctx.Deadline(); ok {
		// Leave at least half of what remains for the capture.
		capAt = min(capAt, time.Until(dl)/2)
		quiet = min(quiet, capAt)
	}
	start := time.Now()
	expr := fmt.Sprintf("(%s)(%d, %d)", settleScript, quiet.Milliseconds(), capAt.Milliseconds())
	res, err := tab.evaluate(world, expr, 0)
	ld.Settle += time.Since(start)
	if err != nil {
		return p.fail(ctx, rawURL, "settle", KindCapture, err)
	}
	if m, ok := res.(map[string]any); ok {
		p.log.Debug("settled", logURL, rawURL, logSettled, m["settled"], logMutations, m["mutations"], logSettleTime, time.Since(start))
	}

	p.stage.Store("capture")
	start = time.Now()
	// The newline keeps a trailing // comment in the script from eating
	// the closing parenthesis.
	expr = "(" + p.browser.cfg.CaptureScript + "\n)(" + p.browser.arg + ")"
	res, err = tab.evaluate(world, expr, timeoutMS(ctx))
	ld.CaptureTime += time.Since(start)
	if err != nil {
		return p.fail(ctx, rawURL, "capture", KindCapture, err)
	}
	s, ok := res.(string)
	if !ok {
		return &PageError{Kind: KindCapture, URL: rawURL, Err: fmt.Errorf("capture: script returned %T, want a JSON string", res)}
	}
	ld.Capture = []byte(s)
	// Cross-origin frames: captured through their own frames, stitched in.
	start = time.Now()
	ld.Capture = p.stitchFrames(ctx, tab, world, rawURL, ld.Capture)
	ld.CaptureTime += time.Since(start)
	return nil
}

// isolatedWorld creates a new isolated world in the main frame's current
// document and returns its execution context id. The page's scripts cannot
// reach its globals, so patched built-ins (JSON, Array.prototype) do not
// affect what runs there; the DOM is shared.
func (t *pwTab) isolatedWorld() (float64, error) {
	res, err := t.cdp.Send("Page.getFrameTree", map[string]any{})
	if err != nil {
		return 0, err
	}
	frameID, ok := dig(res, "frameTree", "frame", "id").(string)
	if !ok {
		return 0, errors.New("Page.getFrameTree: no main frame id")
	}
	return createIsolatedWorld(t.cdp, frameID)
}

// evaluate runs expr in the execution context world, awaits a returned
// promise and returns its value. timeoutMS > 0 bounds the script's run.
func (t *pwTab) evaluate(world float64, expr string, timeoutMS float64) (any, error) {
	return evaluateIn(t.cdp, world, expr, timeoutMS)
}

// evaluateIn is evaluate through any CDP session, such as a frame's.
func evaluateIn(cdp playwright.CDPSession, world float64, expr string, timeoutMS float64) (any, error) {
	params := map[string]any{
		"expression":    expr,
		"contextId":     world,
		"returnByValue": true,
		"awaitPromise":  true,
	}
	if timeoutMS > 0 {
		params["timeout"] = timeoutMS
	}
	res, err := cdp.Send("Runtime.evaluate", params)
	if err != nil {
		return nil, err
	}
	if details, ok := dig(res, "exceptionDetails").(map[string]any); ok {
		msg, _ := dig(details, "exception", "description").(string)
		if msg == "" {
			msg, _ = details["text"].(string)
		}
		msg, _, _ = strings.Cut(msg, "\n")
		return nil, fmt.Errorf("script threw: %s", msg)
	}
	return dig(res, "result", "value"), nil
}

// fail classifies err from stage. When ctx is done the failure is its
// deadline or cancellation, whatever the browser said.
func (p *pwPage) fail(ctx context.Context, rawURL, stage string, fallback ErrorKind, err error) *PageError {
	pe := pageError(rawURL, stage, fallback, err)
	if ctxErr := ctx.Err(); ctxErr != nil && pe.Kind != KindBrowser {
		pe.Kind = kindOf(ctxErr, KindCanceled)
	}
	if pe.Kind == KindBrowser {
		p.markBroken(pe.Err)
	}
	return pe
}

// worldGone reports whether err says the isolated world's document went
// away (the page navigated).
func worldGone(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
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
