package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/internal/bounded"
	"actionspace/pipeline"
)

// Bounds of a [Remote].
const (
	// DefaultEndpointWait is how long a Remote waits for a browser
	// endpoint to be up when none is — at the start (the servers may come
	// up after the crawl) and when every one has been lost — before the
	// crawl gives up.
	DefaultEndpointWait = 2 * time.Minute
	// connectTimeout bounds one connection attempt to an endpoint.
	connectTimeout = 30 * time.Second
	// reconnectBackoff is the pause before the first reconnection attempt
	// to a lost endpoint; it doubles after each failure up to
	// reconnectMaxBackoff.
	reconnectBackoff    = time.Second
	reconnectMaxBackoff = 30 * time.Second
)

// connectFunc connects to one endpoint. lost is called, at most once,
// when that connection dies. A seam for tests.
type connectFunc func(ctx context.Context, endpoint string, lost func(error)) (pipeline.Browser, error)

var (
	_ pipeline.Browser = (*Remote)(nil)
	_ pipeline.Page    = (*remotePage)(nil)
)

// Remote is a pipeline.Browser made of Playwright browser servers (playwright-core's
// `run-server`, the official Playwright server images) reached over
// WebSocket endpoints, instead of a local Chromium.
//
// It holds one connection per endpoint; on each, the server runs a
// browser of its own. NewPage opens the page on the endpoint that has the
// fewest open pages, so the pool's workers spread evenly over the fleet.
// When an endpoint is lost (its server died or the connection broke), its
// pages fail their loads with pipeline.KindBrowser — the pool retries those URLs on
// pages from the other endpoints — and it is reconnected in the background
// with exponential backoff; once back, it gets new pages again. Only when
// no endpoint has been up for the wait (DefaultEndpointWait) does NewPage
// fail, which stops the crawl.
//
// The same endpoint listed twice gets two connections (two browsers on
// that server, or two servers behind a load-balancing Service).
type Remote struct {
	log     *slog.Logger
	connect connectFunc
	wait    time.Duration
	stop    func() error // stops what connect shares, such as the driver

	done chan struct{} // closed by Close: reconnection loops end
	wg   sync.WaitGroup

	mu         sync.Mutex
	eps        []*endpoint
	changed    chan struct{} // closed and replaced when an endpoint comes up
	next       int           // where the search for the least-loaded endpoint starts
	version    string
	reconnects int
	closed     bool
}

// endpoint is one connection slot of a Remote.
type endpoint struct {
	url     string
	name    string           // url as logs and errors show it (pipeline.RedactEndpoint)
	browser pipeline.Browser // nil while down
	gen     int              // incremented by every connection
	pages   int              // open pages of generation gen
	down    error            // why it is down; nil while up
}

// ConnectRemote connects to the Playwright browser servers at
// cfg.Endpoints (ws:// or wss:// URLs) through the Playwright driver
// installed by `make setup`. The servers must run the driver's Playwright
// version (1.64.x); they launch their own Chromium, so cfg.ChromiumPath is
// not used; pages load URLs as the PageConfig each NewPage gets says.
// It returns once at least one endpoint is connected; the others keep
// being retried in the background. It fails when none connects within
// DefaultEndpointWait or ctx. Close the Remote to close the connections
// and stop the driver.
func ConnectRemote(ctx context.Context, cfg Config) (*Remote, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("browser config: %w", err)
	}
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("connect remote browsers: no endpoints")
	}
	pw, err := playwright.Run(&playwright.RunOptions{})
	if err != nil {
		return nil, fmt.Errorf("start playwright driver: %w (run `make setup` to install it)", err)
	}
	connect := func(ctx context.Context, endpoint string, lost func(error)) (pipeline.Browser, error) {
		return connectEndpoint(ctx, pw, cfg, endpoint, lost)
	}
	return newRemote(ctx, cfg, connect, pw.Stop, DefaultEndpointWait)
}

// newRemote connects to every endpoint of cfg with connect and returns
// once one is up (or wait has passed). stop, if set, runs after Close.
func newRemote(ctx context.Context, cfg Config, connect connectFunc, stop func() error, wait time.Duration) (*Remote, error) {
	r := &Remote{
		log:     cfg.logger(),
		connect: connect,
		wait:    wait,
		stop:    stop,
		done:    make(chan struct{}),
		changed: make(chan struct{}),
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	for _, u := range cfg.Endpoints {
		r.eps = append(r.eps, &endpoint{url: u, name: pipeline.RedactEndpoint(u), down: errors.New("not connected yet")})
	}
	// First attempts in parallel, without the backoff.
	var wg sync.WaitGroup
	for _, ep := range r.eps {
		wg.Go(func() { r.dial(ctx, ep) })
	}
	wg.Wait()
	r.mu.Lock()
	for _, ep := range r.eps {
		if ep.browser == nil {
			r.log.Warn("browser endpoint not reachable; retrying in the background", logEndpoint, ep.name, logError, ep.down)
			r.wg.Add(1)
			go r.reconnect(ep)
		}
	}
	r.mu.Unlock()
	if err := r.waitUp(ctx); err != nil {
		_ = r.Close()
		return nil, fmt.Errorf("connect remote browsers: %w", err)
	}
	return r, nil
}

// dial makes one connection attempt to ep and, when it works, puts the
// browser in service.
func (r *Remote) dial(ctx context.Context, ep *endpoint) error {
	r.mu.Lock()
	gen := ep.gen + 1
	r.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	go func() { // Close cuts a connection attempt short
		select {
		case <-r.done:
			cancel()
		case <-cctx.Done():
		}
	}()
	b, err := r.connect(cctx, ep.url, func(cause error) { r.lost(ep, gen, cause) })
	if err != nil {
		err = endpointError{err: err, endpoint: ep.url}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		ep.down = err
		return err
	}
	if r.closed {
		go closeWithin(b, oldBrowserWait)
		return errors.New("remote browser closed")
	}
	ep.browser, ep.gen, ep.pages, ep.down = b, gen, 0, nil
	v := b.Version()
	switch {
	case r.version == "":
		r.version = v
	case v != r.version:
		r.log.Warn("browser endpoints run different browser versions; the dataset records the first", logEndpoint, ep.name, logBrowserVer, v, "first", r.version)
	}
	close(r.changed)
	r.changed = make(chan struct{})
	return nil
}

// reconnect retries ep with backoff until it is up or the Remote closes.
func (r *Remote) reconnect(ep *endpoint) {
	defer r.wg.Done()
	backoff := reconnectBackoff
	for attempt := 1; ; attempt++ {
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-r.done:
			t.Stop()
			return
		}
		err := r.dial(context.Background(), ep)
		if err == nil {
			r.mu.Lock()
			r.reconnects++
			r.mu.Unlock()
			r.log.Warn("browser endpoint reconnected", logEndpoint, ep.name, logAttempt, attempt)
			return
		}
		select {
		case <-r.done:
			return
		default:
		}
		r.log.Info("browser endpoint still unreachable", logEndpoint, ep.name, logAttempt, attempt, logError, err)
		backoff = min(2*backoff, reconnectMaxBackoff)
	}
}

// lost takes ep's connection of generation gen out of service, closes
// what is left of it and starts reconnecting; a later generation is left
// alone.
func (r *Remote) lost(ep *endpoint, gen int, cause error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || ep.gen != gen || ep.browser == nil {
		return
	}
	b := ep.browser
	cause = endpointError{err: cause, endpoint: ep.url}
	ep.browser, ep.pages, ep.down = nil, 0, cause
	r.log.Warn("browser endpoint lost; its URLs go to the others while it is retried", logEndpoint, ep.name, logError, cause, logUp, r.upLocked())
	go closeWithin(b, oldBrowserWait)
	r.wg.Add(1)
	go r.reconnect(ep)
}

// upLocked counts the endpoints in service.
func (r *Remote) upLocked() int {
	n := 0
	for _, ep := range r.eps {
		if ep.browser != nil {
			n++
		}
	}
	return n
}

// waitUp returns once an endpoint is up, or fails after r.wait or when
// ctx ends, naming why each endpoint is down.
func (r *Remote) waitUp(ctx context.Context) error {
	t := time.NewTimer(r.wait)
	defer t.Stop()
	for {
		r.mu.Lock()
		up, changed, closed := r.upLocked(), r.changed, r.closed
		var why []string
		for _, ep := range r.eps {
			if ep.down != nil {
				why = append(why, fmt.Sprintf("%s: %v", ep.name, ep.down))
			}
		}
		r.mu.Unlock()
		switch {
		case closed:
			return errors.New("remote browser closed")
		case up > 0:
			return nil
		}
		select {
		case <-changed:
		case <-t.C:
			return fmt.Errorf("no browser endpoint up for %v (%s)", r.wait, strings.Join(why, "; "))
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pick reserves a page slot on the endpoint in service with the fewest
// open pages; ties go round-robin. nil when none is up.
func (r *Remote) pick() (*endpoint, pipeline.Browser, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var best *endpoint
	bestAt := 0
	for k := range r.eps {
		i := (r.next + k) % len(r.eps)
		ep := r.eps[i]
		if ep.browser != nil && (best == nil || ep.pages < best.pages) {
			best, bestAt = ep, i
		}
	}
	if best == nil {
		return nil, nil, 0
	}
	best.pages++
	r.next = (bestAt + 1) % len(r.eps)
	return best, best.browser, best.gen
}

// release gives back a page slot of generation gen.
func (r *Remote) release(ep *endpoint, gen int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ep.gen == gen && ep.pages > 0 {
		ep.pages--
	}
}

// NewPage opens a page on the least-loaded endpoint in service. An
// endpoint that cannot open one is taken out of service and the next one
// tried; when none is up, NewPage waits for one up to the Remote's wait.
func (r *Remote) NewPage(ctx context.Context, cfg pipeline.PageConfig) (pipeline.Page, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("new page: %w", err)
		}
		ep, b, gen := r.pick()
		if ep == nil {
			if err := r.waitUp(ctx); err != nil {
				if ctx.Err() != nil {
					return nil, fmt.Errorf("new page: %w", err)
				}
				return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: fmt.Errorf("new page: %w", err)}
			}
			continue
		}
		p, err := openPage(ctx, b, cfg)
		if err == nil {
			return &remotePage{Page: p, remote: r, ep: ep, gen: gen}, nil
		}
		r.release(ep, gen)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("new page: %w", ctx.Err())
		}
		r.lost(ep, gen, err)
	}
}

// Version returns the browser version of the first endpoint connected.
func (r *Remote) Version() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.version
}

// Relaunches returns how many times a lost endpoint was connected again.
func (r *Remote) Relaunches() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reconnects
}

// Up returns the endpoints in service now, in the order given (for tests
// and diagnostics).
func (r *Remote) Up() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var up []string
	for _, ep := range r.eps {
		if ep.browser != nil {
			up = append(up, ep.url)
		}
	}
	return up
}

// Close closes every connection, ends the reconnection attempts and stops
// the driver. NewPage fails afterwards.
func (r *Remote) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.done)
	close(r.changed) // wakes NewPage calls waiting for an endpoint
	r.changed = make(chan struct{})
	var open []pipeline.Browser
	for _, ep := range r.eps {
		if ep.browser != nil {
			open = append(open, ep.browser)
			ep.browser = nil
		}
	}
	r.mu.Unlock()
	var errs []error
	for _, b := range open {
		if err := b.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	r.wg.Wait()
	if r.stop != nil {
		if err := r.stop(); err != nil {
			errs = append(errs, fmt.Errorf("stop playwright driver: %w", err))
		}
	}
	return errors.Join(errs...)
}

// remotePage is a page of one endpoint; closing it frees its slot there.
type remotePage struct {
	pipeline.Page
	remote *Remote
	ep     *endpoint
	gen    int
	once   sync.Once
}

// Close closes the page and gives its slot back.
func (p *remotePage) Close() error {
	err := p.Page.Close()
	p.once.Do(func() { p.remote.release(p.ep, p.gen) })
	return err
}

// remoteBrowser is one connection to a browser server, driven by the
// local adapter's page code. Closing it closes the connection (and with it
// the server's browser), not the shared driver.
type remoteBrowser struct {
	*pwBrowser
	endpoint  string // as logs and errors show it
	closeOnce sync.Once
	closeErr  error
}

// connectEndpoint connects to the Playwright server at endpoint through
// pw. lost is called when the connection dies.
func connectEndpoint(ctx context.Context, pw *playwright.Playwright, cfg Config, endpoint string, lost func(error)) (pipeline.Browser, error) {
	name := pipeline.RedactEndpoint(endpoint)
	opts := playwright.BrowserTypeConnectOptions{Timeout: playwright.Float(float64(connectTimeout.Milliseconds()))}
	if ms := timeoutMS(ctx); ms > 0 {
		opts.Timeout = playwright.Float(ms)
	}
	br, err, ok := bounded.Call(ctx, 0,
		func() (playwright.Browser, error) { return pw.Chromium.Connect(endpoint, opts) },
		func(b playwright.Browser, _ error) {
			if b != nil {
				_ = b.Close()
			}
		})
	switch {
	case !ok:
		return nil, fmt.Errorf("connect %s: %w", name, ctx.Err())
	case err != nil:
		return nil, fmt.Errorf("connect %s: %w", name, endpointError{err: shortError{err}, endpoint: endpoint})
	}
	br.OnDisconnected(func(playwright.Browser) { lost(errors.New("disconnected")) })
	cfg.logger().Debug("connected to a browser endpoint", logEndpoint, name, logBrowserVer, br.Version())
	return &remoteBrowser{pwBrowser: &pwBrowser{cfg: cfg, browser: br}, endpoint: name}, nil
}

// Close closes the connection; the server closes its browser.
func (b *remoteBrowser) Close() error {
	b.closeOnce.Do(func() {
		if err := b.browser.Close(); err != nil {
			b.closeErr = fmt.Errorf("close connection to %s: %w", b.endpoint, err)
		}
	})
	return b.closeErr
}

// endpointError is an error whose message may name an endpoint URL as it
// was given (Playwright's do): its message shows the endpoint as
// pipeline.RedactEndpoint does, so that a token in the URL's path or
// query reaches no log or error.
type endpointError struct {
	err      error
	endpoint string
}

func (e endpointError) Error() string { return pipeline.RedactErrorText(e.err.Error(), e.endpoint) }

func (e endpointError) Unwrap() error { return e.err }

// Open opens the browser a crawl drives: a connection to the servers of
// cfg.Endpoints when there are any (see [Remote]), and otherwise a local
// Chromium behind a [Relauncher]. Both replace what dies and count it
// (Relaunches). It is a pipeline.Opener once bound to cfg.
func Open(ctx context.Context, cfg Config) (pipeline.Browser, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("browser config: %w", err)
	}
	if len(cfg.Endpoints) > 0 {
		return ConnectRemote(ctx, cfg)
	}
	launch := func(ctx context.Context) (pipeline.Browser, error) { return Launch(ctx, cfg) }
	return NewRelauncher(ctx, launch, cfg.logger())
}

// Opener returns Open bound to cfg, for pipeline.Crawl.
func Opener(cfg Config) pipeline.Opener {
	return func(ctx context.Context) (pipeline.Browser, error) { return Open(ctx, cfg) }
}
