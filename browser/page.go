package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/dom"
	"actionspace/egress"
	"actionspace/internal/bounded"
	"actionspace/pipeline"
)

const (
	// isolatedWorld names the world the settle and capture scripts run in.
	isolatedWorld = "actionspace"
	// loadGrace is how long Load waits past its deadline for Playwright's
	// own timeout (set to the same deadline) to end the load cleanly, which
	// keeps the page usable. After that the page is abandoned.
	loadGrace = time.Second
	// quietWait bounds how long stopping a failed page's scripts (see
	// pwTab.quiet) waits for the renderer to acknowledge; the commands are
	// sent either way, and the close that follows does not wait longer.
	quietWait = time.Second
	// quietRetry is how often quiet terminates the running script again
	// while the disabling of scripts is not in.
	quietRetry = 100 * time.Millisecond
)

// pwTab is one Playwright page in its own browser context, with a CDP
// session for the isolated world.
type pwTab struct {
	context   playwright.BrowserContext
	page      playwright.Page
	cdp       playwright.CDPSession
	mainFrame playwright.Frame
	// egress is the context's proxy session, nil when the network policy
	// is lifted; class is its class, the class of the URLs the tab loads.
	egress *egress.Session
	class  pipeline.AddrClass
	used   bool // a URL was loaded in it
	// requests counts the page's pending requests when it settles on
	// evidence (see watchEvidence); nil otherwise.
	requests *requestWatch
}

// quiet stops the scripts of the tab's page before a failed or abandoned
// tab is closed: closing a context can take seconds while its renderer
// runs on (a 1 ms timer flooding the history, a busy loop, a page
// resetting a huge title), and a close the pool gives up on leaves it
// running for good, starving the other tabs of CPU. Scripts are disabled
// for the page (no timer, event handler or new document's script runs
// again), and the script running now is terminated until the disabling is
// in, then once more for a callback that started in between. Neither
// crashes the renderer: the page does not count as crashed, and the
// renderers of other contexts go on. It waits at most quietWait; the
// errors of a page already gone are expected and only reported.
func (t *pwTab) quiet() error {
	ctx, cancel := context.WithTimeout(context.Background(), quietWait)
	defer cancel()
	send := func(method string, params map[string]any) <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := t.cdp.Send(method, params)
			if err != nil {
				err = fmt.Errorf("%s: %w", method, shortError{err})
			}
			done <- err
		}()
		return done
	}
	wait := func(done <-chan error) error {
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return fmt.Errorf("stop the page's scripts: no answer in %v", quietWait)
		}
	}
	terminate := func() <-chan error { return send("Runtime.terminateExecution", map[string]any{}) }
	// Disabling is handled on the renderer's main thread, which a script
	// that never yields holds: termination, handled apart, frees it, and
	// is repeated while a timer could start the script again.
	disabled := send("Emulation.setScriptExecutionDisabled", map[string]any{"value": true})
	tick := time.NewTicker(quietRetry)
	defer tick.Stop()
	terminated := terminate()
	for {
		select {
		case err := <-disabled:
			if err != nil {
				return errors.Join(err, wait(terminated))
			}
			return errors.Join(wait(terminated), wait(terminate()))
		case <-tick.C:
			terminated = terminate()
		case <-ctx.Done():
			return fmt.Errorf("stop the page's scripts: no answer in %v", quietWait)
		}
	}
}

// close closes the browser context, then its proxy session.
func (t *pwTab) close() error {
	var errs []error
	if err := t.context.Close(); err != nil && !errors.Is(err, playwright.ErrTargetClosed) {
		errs = append(errs, fmt.Errorf("close page: %w", shortError{err}))
	}
	if t.egress != nil {
		errs = append(errs, t.egress.Close())
	}
	return errors.Join(errs...)
}

// pwPage implements pipeline.Page on a pwTab. After a failed load it swaps the tab
// for a fresh one before the next URL: a page that failed a navigation
// keeps Chromium's error page, after which later navigations and dialogs
// misbehave (net::ERR_ABORTED, unanswerable dialogs).
type pwPage struct {
	browser   *pwBrowser
	log       *slog.Logger
	cfg       pipeline.PageConfig
	script    string // the capture script's source
	scriptArg any    // its argument (cfg.Script unless a test replaced the script)
	arg       string // scriptArg as JSON

	stage atomic.Value // string: the stage the current load is in

	mu      sync.Mutex
	tab     *pwTab          // nil while being replaced
	stale   bool            // the last load failed: replace tab before the next
	broken  error           // non-nil once the page must not be used again
	dead    context.Context // done once broken is set
	kill    context.CancelFunc
	mainNav *navResponse // the main frame's last navigation response
	// mainTargets are the host:port targets of the main frame's
	// navigations in this load (see refusedMain).
	mainTargets []string

	closeOnce sync.Once
	closeErr  error

	// partial is the load whose steps are being performed, as published
	// before the current step (see runSteps); nil outside the steps.
	partial atomic.Pointer[pipeline.Load]
}

// navResponse is what a main-frame navigation response said.
type navResponse struct {
	url, statusText, contentType string
	status                       int
	// egressErr is why the egress proxy could not reach the target, when
	// the response is its own (status 502); "" otherwise.
	egressErr string
}

func newNavResponse(r playwright.Response) *navResponse {
	h := r.Headers()
	return &navResponse{url: r.URL(), status: r.Status(), statusText: r.StatusText(), contentType: h["content-type"], egressErr: header(h, egress.ErrorHeader)}
}

// onResponse remembers the main frame's navigation responses: when
// Chromium fails a navigation on an error status with an empty body
// (net::ERR_HTTP_RESPONSE_CODE_FAILURE), or the load event never comes,
// Goto returns no response, but the status is still known.
func (p *pwPage) onResponse(tab *pwTab, r playwright.Response) {
	if !r.Request().IsNavigationRequest() || r.Frame() != tab.mainFrame {
		return
	}
	p.onMainResponse(r)
	nav := newNavResponse(r)
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

// currentTab returns the tab to load a URL of network class class in,
// replacing it first when the last load failed, or when its class is
// another (after unloading its page under its own class) and its proxy
// has carried a request.
func (p *pwPage) currentTab(ctx context.Context, class pipeline.AddrClass) (*pwTab, error) {
	p.mu.Lock()
	tab, stale := p.tab, p.stale
	other := tab != nil && tab.egress != nil && tab.class != class
	if other && !stale && !tab.used && tab.egress.Reclass(class) {
		// Nothing has gone through the fresh tab's proxy yet: it takes
		// the class, and the context is kept (a new one would cost the
		// browser a renderer process and its set-up).
		tab.class, other = class, false
	}
	swap := stale || other
	if swap {
		p.tab = nil // its close event is not a failure of p
	}
	p.mu.Unlock()
	if !swap {
		return tab, nil
	}
	if tab != nil {
		if !stale && tab.used {
			p.unload(ctx, tab)
		} else if stale {
			p.quiet(tab)
		}
		_ = tab.close()
	}
	fresh, err := p.browser.openTab(p, class)
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

// Close closes the page's browser context, and with it the page. The
// scripts of a page whose last load failed or was abandoned are stopped
// first (see pwTab.quiet).
func (p *pwPage) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		failed := p.stale || p.broken != nil
		p.mu.Unlock()
		p.markBroken(errors.New("page closed"))
		if tab := p.activeTab(); tab != nil {
			if failed {
				p.quiet(tab)
			}
			p.closeErr = tab.close()
		}
	})
	return p.closeErr
}

// quiet stops the scripts of tab, which failed, before it is closed; a
// failure to is logged, the close goes on.
func (p *pwPage) quiet(tab *pwTab) {
	start := time.Now()
	if err := tab.quiet(); err != nil {
		p.log.Debug("could not stop a failed page's scripts", logError, err, "took", time.Since(start))
	}
}

// Load implements [pipeline.Page]. It runs the load on another goroutine so that it
// can return when ctx is done even if the browser does not answer; a load
// that outlives its deadline by loadGrace, or whose renderer crashes, is
// abandoned and the page closed.
func (p *pwPage) Load(ctx context.Context, rawURL string) (*pipeline.Load, error) {
	if err := checkLoadURL(rawURL); err != nil {
		return nil, &pipeline.PageError{Kind: pipeline.KindInvalidURL, URL: rawURL, Err: err}
	}
	if err := p.brokenErr(); err != nil {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, URL: rawURL, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, &pipeline.PageError{Kind: kindOf(err, pipeline.KindCanceled), URL: rawURL, Err: err}
	}
	wait, stop := p.loadWait(ctx)
	defer stop()
	ld, err, ok := bounded.Call(wait, 0, func() (*pipeline.Load, error) {
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
	if ld := p.abandonedSteps(ctx, p.brokenErr()); ld != nil {
		// Abandoned in a step: the states captured before it stand.
		p.markBroken(fmt.Errorf("abandoned a load of %s in %s", rawURL, stage))
		go func() { _ = p.Close() }()
		return ld, nil
	}
	var abandon error
	if ctx.Err() == nil { // the page died under the load
		abandon = &pipeline.PageError{Kind: pipeline.KindBrowser, URL: rawURL, Err: p.brokenErr()}
	} else {
		abandon = &pipeline.PageError{Kind: kindOf(ctx.Err(), pipeline.KindCanceled), URL: rawURL, Err: fmt.Errorf("%s: %w", stage, ctx.Err())}
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

// load does the work of Load on its own goroutine, under the network
// policy. A refused navigation of the main frame fails the load as
// blocked, whether it came first, after a redirect or from a script once
// the page had loaded (Chromium then shows its error page, which is not
// the page).
func (p *pwPage) load(ctx context.Context, rawURL string) (*pipeline.Load, error) {
	class := pipeline.ClassPublic
	if p.guarded() {
		var err error
		if class, err = p.listedClass(ctx, rawURL); err != nil {
			return nil, err
		}
	}
	p.stage.Store("open")
	tab, err := p.currentTab(ctx, class)
	if err != nil {
		return nil, pageError(rawURL, "open", pipeline.KindBrowser, err)
	}
	tab.used = true
	p.beginTargets(rawURL)
	if tab.egress != nil {
		tab.egress.Reset()
	}
	loadPage := p.loadPage
	if p.cfg.Floor {
		loadPage = p.floorPage
	}
	ld, err := loadPage(ctx, tab, rawURL)
	ld, err = p.blockedLoad(tab, rawURL, ld, err)
	if err == nil && len(p.cfg.Steps) > 0 && !p.cfg.Floor {
		p.runSteps(ctx, tab, rawURL, ld)
	}
	return ld, err
}

// loadPage navigates tab to rawURL, captures and reads the HTML.
func (p *pwPage) loadPage(ctx context.Context, tab *pwTab, rawURL string) (*pipeline.Load, error) {
	ld, nav, err := p.startLoad(ctx, tab, rawURL)
	if err := p.navigationError(ctx, tab, rawURL, ld, nav, err); err != nil {
		return ld, err
	}
	return ld, p.captureState(ctx, tab, rawURL, ld)
}

// navigationError classifies how the navigation that startLoad made
// ended (nav, err), before anything looks at the page: a refused
// main-frame navigation, the proxy's answer instead of the target's, an
// error status, a failed navigation, content that is not HTML. It is nil
// when the page is there to capture. The floor classifies its loads by it
// too.
func (p *pwPage) navigationError(ctx context.Context, tab *pwTab, rawURL string, ld *pipeline.Load, nav *navResponse, err error) error {
	if err != nil {
		if why, _ := p.refusedMain(tab); why != "" {
			return &pipeline.PageError{Kind: pipeline.KindBlocked, URL: rawURL, Err: errors.New(why)}
		}
	}
	if nav != nil && nav.egressErr != "" {
		// The proxy's answer, not the target's: a network failure.
		ld.HTTPStatus, ld.ContentType = 0, ""
		return &pipeline.PageError{Kind: pipeline.KindNavigate, URL: rawURL, Err: fmt.Errorf("navigate: %s", nav.egressErr)}
	}
	if ld.HTTPStatus >= 400 {
		// Checked first: in the full browser an error status with an
		// empty body fails the navigation itself.
		return &pipeline.PageError{Kind: pipeline.KindHTTP, URL: rawURL, Err: &pipeline.StatusError{Code: nav.status, Text: nav.statusText}}
	}
	if err != nil {
		return p.fail(ctx, rawURL, "navigate", pipeline.KindNavigate, err)
	}
	if !isHTML(ld.ContentType) {
		return &pipeline.PageError{Kind: pipeline.KindContentType, URL: rawURL, Err: fmt.Errorf("content type %q is not HTML", ld.ContentType)}
	}
	return nil
}

// captureState captures the page's current state into ld: it settles and
// runs the capture, takes the screenshot, reads the HTML and takes the
// extras. The first state of a load and the state after each step are
// captured by it alike.
func (p *pwPage) captureState(ctx context.Context, tab *pwTab, rawURL string, ld *pipeline.Load) error {
	// The sessions of out-of-process frames, opened when a frame capture
	// or the accessibility tree first needs one.
	sessions := newFrameSessions(tab.page)
	defer sessions.close()
	// A script may navigate the page while it settles, which destroys the
	// isolated world: wait for the new document and try once more.
	var (
		worlds []CaptureWorld
		err    error
	)
	for attempt := 1; ; attempt++ {
		worlds, err = p.settleAndCapture(ctx, tab, rawURL, ld, sessions)
		if err == nil {
			break
		}
		if attempt > 1 && worldGone(err) && ctx.Err() == nil {
			// It navigated again: a refresh or script redirect loop,
			// which is a navigation failure like a redirect loop.
			cause := err
			if pe := (*pipeline.PageError)(nil); errors.As(err, &pe) {
				cause = pe.Err
			}
			return &pipeline.PageError{Kind: pipeline.KindNavigate, URL: rawURL, Err: fmt.Errorf("page kept navigating during capture: %w", cause)}
		}
		if attempt > 1 || !worldGone(err) || ctx.Err() != nil {
			return err
		}
		p.stage.Store("navigate")
		err = tab.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{
			State:   playwright.LoadStateLoad,
			Timeout: playwright.Float(timeoutMS(ctx)),
		})
		if err != nil {
			return p.fail(ctx, rawURL, "navigate", pipeline.KindNavigate, err)
		}
	}

	// The screenshot and the HTML only read the page; the extras come
	// last, on the page state the capture saw, so that a record the
	// browser is slow to give (an AI snapshot of many frames) is given up
	// at its limit and costs no more than itself.
	p.screenshot(ctx, tab, rawURL, ld)

	p.stage.Store("content")
	start := time.Now()
	html, err := p.content(ctx, tab)
	ld.Content = time.Since(start)
	if err != nil {
		return p.fail(ctx, rawURL, "content", pipeline.KindCapture, err)
	}
	// The page stops at the cap (in UTF-16 code units, never inside a
	// tag); password and hidden values out, then the cut in bytes: what is
	// stored and counted is a prefix of the redacted HTML.
	ld.HTMLBytes = len(html.HTML)
	secrets := p.readSecrets(worlds, rawURL)
	ld.HTML, ld.HTMLTruncated = dom.CutHTML(secrets.html(html.HTML), p.cfg.MaxHTMLBytes)
	ld.HTMLTruncated = ld.HTMLTruncated || html.Truncated
	ld.FinalURL = tab.page.URL()
	secrets.load(ld)

	p.takeExtras(ctx, tab, rawURL, AXTreeInput{Session: tab.cdp, Worlds: worlds, FrameSession: sessions.get}, p.cfg.Extras, secrets, ld)
	p.probeActionable(ctx, rawURL, worlds, ld) // last: under --actionable-probe all it scrolls
	return nil
}

// content serializes the main frame's document in a fresh isolated world
// of the page, up to the cap (see readHTML): a UTF-16 code unit is at
// least one byte of UTF-8, so the bytes stored are all there.
func (p *pwPage) content(ctx context.Context, tab *pwTab) (pageHTML, error) {
	_, world, err := tab.isolatedWorld()
	if err != nil {
		return pageHTML{}, fmt.Errorf("create isolated world: %w", err)
	}
	return readHTML(ctx, tab.cdp, world, p.cfg.MaxHTMLBytes)
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
			return newNavResponse(resp), err
		}
		return seen, err
	}
}

// fail classifies err from stage. When ctx is done the failure is its
// deadline or cancellation, whatever the browser said.
func (p *pwPage) fail(ctx context.Context, rawURL, stage string, fallback pipeline.ErrorKind, err error) *pipeline.PageError {
	pe := pageError(rawURL, stage, fallback, err)
	if ctxErr := ctx.Err(); ctxErr != nil && pe.Kind != pipeline.KindBrowser {
		pe.Kind = kindOf(ctxErr, pipeline.KindCanceled)
	}
	if pe.Kind == pipeline.KindBrowser {
		p.markBroken(pe.Err)
	}
	return pe
}
