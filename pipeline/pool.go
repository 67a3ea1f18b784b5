package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"actionspace/dataset"
)

// Defaults for [Config].
const (
	DefaultTimeout = 30 * time.Second
	DefaultRetries = 1
)

// DefaultWorkers is one worker per core, at least 2: a worker spends most
// of its time waiting on Chromium, which runs in other processes.
func DefaultWorkers() int { return max(2, runtime.NumCPU()) }

// Target is one URL to crawl.
type Target struct {
	// PageID is the stable identity of the URL (see [PageID]).
	PageID string
	URL    string
	// Line is the 1-based line of the URL list it came from (0 if none).
	Line int
	// Err, when set, refuses the target before any browser sees it: the
	// crawl records it as an error row.
	Err *PageError
}

// Result is everything the crawl learned about one target.
type Result struct {
	Page   dataset.PageRow
	Spaces []dataset.SpaceRow
}

// Stats counts what a run did.
type Stats struct {
	Targets int
	OK      int
	Failed  int
	Retried int
	Elapsed time.Duration
}

// Run crawls every target and calls emit once per target, from the calling
// goroutine only, so emit needs no locks. It blocks until every target has
// been emitted or ctx is done. It returns an error only when the run cannot
// go on: the browser fails to give pages, or emit fails. A canceled run
// emits the targets it finished and returns ctx's error.
func Run(ctx context.Context, cfg Config, browser Browser, targets []Target, emit func(Result) error) (Stats, error) {
	if err := cfg.Validate(); err != nil {
		return Stats{}, err
	}
	log := cfg.logger()
	proc, err := newProcessor(cfg, browser.Version())
	if err != nil {
		return Stats{}, err
	}
	start := time.Now()
	stats := Stats{Targets: len(targets)}

	work := make(chan Target)
	results := make(chan Result, cfg.Workers)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(cfg.Workers + 1)
	g.Go(func() error {
		defer close(work)
		for _, t := range targets {
			select {
			case work <- t:
			case <-gctx.Done():
				return nil
			}
		}
		return nil
	})
	var retried sync.Map
	var wg sync.WaitGroup
	for w := range cfg.Workers {
		wg.Add(1)
		g.Go(func() error {
			defer wg.Done()
			wk := &worker{id: w, cfg: cfg, browser: browser, proc: proc, log: log.With(logWorker, w)}
			defer wk.close()
			for t := range work {
				res, retries, err := wk.handle(gctx, t)
				if err != nil {
					return err
				}
				if retries > 0 {
					retried.Store(t.PageID, retries)
				}
				select {
				case results <- res:
				case <-gctx.Done():
					return nil
				}
			}
			return nil
		})
	}
	go func() { wg.Wait(); close(results) }()

	var emitErr error
	for res := range results {
		if emitErr != nil {
			continue // drain so workers can exit
		}
		if res.Page.Status == dataset.StatusOK {
			stats.OK++
		} else {
			stats.Failed++
		}
		if err := emit(res); err != nil {
			emitErr = fmt.Errorf("emit %s: %w", res.Page.URL, err)
		}
	}
	retried.Range(func(_, _ any) bool { stats.Retried++; return true })
	stats.Elapsed = time.Since(start)
	if err := g.Wait(); err != nil {
		return stats, err
	}
	if emitErr != nil {
		return stats, emitErr
	}
	return stats, ctx.Err()
}

// worker owns one page at a time; a page never serves two URLs at once.
type worker struct {
	id      int
	cfg     Config
	browser Browser
	proc    *processor
	log     *slog.Logger
	page    Page
}

func (w *worker) close() {
	if w.page != nil {
		_ = w.page.Close()
		w.page = nil
	}
}

// handle crawls one target with its retries and always returns its result,
// unless the browser can no longer give pages.
func (w *worker) handle(ctx context.Context, t Target) (Result, int, error) {
	if t.Err != nil {
		return w.proc.failed(t, nil, t.Err, 0, time.Now()), 0, nil
	}
	log := w.log.With(logPageID, t.PageID, logURL, t.URL)
	var (
		load     *Load
		err      error
		attempts int
	)
	started := time.Now()
	for attempts = 1; ; attempts++ {
		if w.page == nil {
			w.page, err = w.browser.NewPage(ctx)
			if err != nil {
				if ctx.Err() != nil {
					err = &PageError{Kind: KindCanceled, URL: t.URL, Err: ctx.Err()}
					break
				}
				return Result{}, 0, fmt.Errorf("new page for %s: %w", t.URL, err)
			}
		}
		actx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
		load, err = w.page.Load(actx, t.URL)
		cancel()
		if err == nil {
			break
		}
		var pe *PageError
		if !errors.As(err, &pe) {
			pe = &PageError{Kind: KindCapture, URL: t.URL, Err: err}
			err = pe
		}
		if ctx.Err() != nil {
			err = &PageError{Kind: KindCanceled, URL: t.URL, Err: ctx.Err()}
			break
		}
		if pe.Kind == KindBrowser || pe.Kind == KindTimeout {
			// a crashed or stuck page is not reused
			w.close()
		}
		if !pe.Transient() || attempts > w.cfg.Retries {
			break
		}
		log.Debug("retrying", logErrorKind, pe.Kind, logError, err, logAttempt, attempts)
	}
	if err != nil {
		log.Info("page failed", logErrorKind, ErrorKindOf(err), logError, err)
		return w.proc.failed(t, load, err, attempts, started), attempts - 1, nil
	}
	res := w.proc.succeeded(t, load, attempts, started)
	log.Debug("page done", logStatus, res.Page.Status, logSpaces, len(res.Spaces))
	return res, attempts - 1, nil
}
