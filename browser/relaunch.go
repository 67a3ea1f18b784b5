package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"actionspace/internal/bounded"
	"actionspace/pipeline"
)

// Launcher starts a browser. A [Relauncher] calls it once at the start and
// again each time the browser dies.
type Launcher func(ctx context.Context) (pipeline.Browser, error)

// Bounds of a Relauncher.
const (
	// launchTimeout bounds one launch.
	launchTimeout = 60 * time.Second
	// launchAttempts is how many launches in a row may fail before the
	// Relauncher gives up.
	launchAttempts = 3
	// launchBackoff is the pause after the first failed launch; it doubles
	// after each.
	launchBackoff = time.Second
	// openTimeout bounds one NewPage on the current browser; a browser
	// that does not open a page in that time is treated as dead.
	openTimeout = 30 * time.Second
	// oldBrowserWait is how long a relaunch waits for the dead browser to
	// close before it starts the new one.
	oldBrowserWait = 5 * time.Second
)

var _ pipeline.Browser = (*Relauncher)(nil)

// Relauncher is a pipeline.Browser that survives its browser: when opening a page
// fails because the browser crashed, was killed or lost its connection, it
// closes what is left of it, launches a new one and opens the page there.
// Pages of the dead browser fail their loads with pipeline.KindBrowser; the pool
// closes them and asks for new ones, which come from the new browser.
type Relauncher struct {
	launch Launcher
	log    *slog.Logger

	mu         sync.Mutex
	cur        pipeline.Browser
	gen        int // incremented by every relaunch
	relaunches int
	closed     bool
	failed     error // set when relaunching gave up: the browser stays dead
}

// NewRelauncher launches the first browser and returns a Relauncher around
// it. log (nil means slog.Default()) hears about every relaunch.
func NewRelauncher(ctx context.Context, launch Launcher, log *slog.Logger) (*Relauncher, error) {
	if log == nil {
		log = slog.Default()
	}
	b, err := launch(ctx)
	if err != nil {
		return nil, err
	}
	return &Relauncher{launch: launch, log: log, cur: b}, nil
}

// NewPage opens a page on the current browser, relaunching it first when
// it is dead.
func (r *Relauncher) NewPage(ctx context.Context, cfg pipeline.PageConfig) (pipeline.Page, error) {
	r.mu.Lock()
	b, gen, closed := r.cur, r.gen, r.closed
	r.mu.Unlock()
	if closed {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: errors.New("new page: browser closed")}
	}
	p, err := openPage(ctx, b, cfg)
	if err == nil || ctx.Err() != nil {
		return p, err
	}
	b, err = r.relaunch(ctx, gen, err)
	if err != nil {
		return nil, err
	}
	p, err = openPage(ctx, b, cfg)
	if err != nil {
		return nil, fmt.Errorf("new page on a relaunched browser: %w", err)
	}
	return p, nil
}

// openPage is b.NewPage bounded by openTimeout even if b never answers;
// a page that comes too late is closed.
func openPage(ctx context.Context, b pipeline.Browser, cfg pipeline.PageConfig) (pipeline.Page, error) {
	p, err, ok := bounded.Call(ctx, openTimeout,
		func() (pipeline.Page, error) { return b.NewPage(ctx, cfg) },
		func(p pipeline.Page, _ error) {
			if p != nil {
				_ = p.Close()
			}
		})
	if ok {
		return p, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("new page: %w", err)
	}
	return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: fmt.Errorf("new page: no answer from the browser in %v", openTimeout)}
}

// relaunch replaces the browser of generation gen, unless another caller
// already did, and returns the current browser.
func (r *Relauncher) relaunch(ctx context.Context, gen int, cause error) (pipeline.Browser, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: errors.New("new page: browser closed")}
	}
	if r.gen != gen {
		return r.cur, nil
	}
	if r.failed != nil {
		return nil, r.failed
	}
	r.log.Warn("browser failed; relaunching", logError, cause, "relaunches", r.relaunches)
	closeWithin(r.cur, oldBrowserWait)
	backoff := launchBackoff
	var err error
	for attempt := 1; attempt <= launchAttempts; attempt++ {
		lctx, cancel := context.WithTimeout(ctx, launchTimeout)
		var b pipeline.Browser
		b, err = r.launch(lctx)
		cancel()
		if err == nil {
			r.cur = b
			r.gen++
			r.relaunches++
			r.log.Warn("browser relaunched", "relaunches", r.relaunches)
			return b, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("relaunch browser: %w", ctx.Err())
		}
		r.log.Warn("browser relaunch failed", logError, err, logAttempt, attempt)
		if attempt < launchAttempts {
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return nil, fmt.Errorf("relaunch browser: %w", ctx.Err())
			}
			backoff *= 2
		}
	}
	r.failed = fmt.Errorf("relaunch browser after %v: %d launches failed, the last: %w", cause, launchAttempts, err)
	return nil, r.failed
}

// Version returns the current browser's version.
func (r *Relauncher) Version() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur.Version()
}

// Relaunches returns how many times the browser was relaunched.
func (r *Relauncher) Relaunches() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.relaunches
}

// Current returns the browser in use now (for tests and diagnostics).
func (r *Relauncher) Current() pipeline.Browser {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// Close closes the current browser; NewPage fails afterwards.
func (r *Relauncher) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	return r.cur.Close()
}

// closeWithin closes b, waiting at most wait: a dead browser may never
// answer.
func closeWithin(b pipeline.Browser, wait time.Duration) { bounded.Close(wait, b.Close) }
