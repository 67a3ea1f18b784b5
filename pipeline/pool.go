package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"golang.org/x/sync/errgroup"

	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/internal/bounded"
)

// Defaults for [Config].
const (
	DefaultTimeout = 30 * time.Second
	DefaultRetries = 1
	// DefaultGrace is how long pages in flight may finish after an
	// interrupt.
	DefaultGrace = 10 * time.Second
	// DefaultRecyclePages is how many URLs a worker loads in one page and
	// browser context before it replaces them.
	DefaultRecyclePages = 50
)

// Bounds the pool puts on a browser that stops answering. The adapter is
// meant to return within about a second of its deadlines; these catch the
// case where it does not, so that no worker hangs.
const (
	// WatchdogSlack is how long past an attempt's deadline the pool waits
	// for Page.Load before it abandons the page and records a timeout.
	WatchdogSlack = 5 * time.Second
	// CloseWait is how long the pool waits for Page.Close before it
	// abandons the page, logging it; a Page's Close should return within it.
	CloseWait = 5 * time.Second
	// retryBackoff is the pause before the second attempt at a URL; later
	// attempts wait a multiple of it.
	retryBackoff = 250 * time.Millisecond
)

// DefaultWorkers is one processing worker per core, at least 2: processing
// is CPU work (the pages loaded at once are Config.InFlight).
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

// Result is everything the crawl learned about one target: the rows it
// gives each table of the dataset.
type Result = parts.Rows

// Stats counts what a run did. Targets = OK + Failed + Unfinished (+
// Skipped, for a resumed crawl).
type Stats struct {
	// RunID is the run the rows belong to (for a resume, the dataset's).
	RunID   string
	Targets int
	OK      int
	Failed  int
	// Retried counts the targets that needed more than one attempt.
	Retried int
	// Unfinished counts the targets that got no row because the run
	// stopped first; a resume crawls them.
	Unfinished int
	// Skipped counts the targets a resumed crawl found already done.
	Skipped int
	// Recrawled counts the targets a resumed crawl crawled again because
	// their row had failed transiently (they are in OK or Failed too);
	// Superseded the old rows removed once their new rows were in.
	Recrawled, Superseded int
	// BytesWritten is the size of the part files published (uploaded, on
	// a bucket).
	BytesWritten int64
	// Relaunches counts the times the browser died and was started again.
	Relaunches int
	Elapsed    time.Duration
}

// Run crawls every target and calls emit once per finished target, from
// the calling goroutine only, so emit needs no locks. It blocks until every
// target has been emitted or the run stops.
//
// When ctx is canceled no new target starts; the targets in flight get
// cfg.Grace to finish, and those that do not are not emitted (their rows
// would only say "canceled"; a resume crawls them instead). Run then
// returns ctx's error, unless every target was emitted after all. It
// returns another error only when the run cannot go on: the browser cannot
// give pages any more, or emit fails.
func Run(ctx context.Context, cfg Config, browser Browser, targets []Target, emit func(Result) error) (Stats, error) {
	if err := cfg.Validate(); err != nil {
		return Stats{}, err
	}
	return run(ctx, cfg, browser, targets, emit)
}

// run is Run on a config already validated.
func run(ctx context.Context, cfg Config, browser Browser, targets []Target, emit func(Result) error) (Stats, error) {
	log := cfg.logger()
	proc, err := newProcessor(cfg, browser.Version())
	if err != nil {
		return Stats{}, err
	}
	start := time.Now()
	stats := Stats{RunID: cfg.RunID, Targets: len(targets)}

	// feed stops taking targets; hard ends the pages in flight. An
	// interrupt cancels feed at once and hard after the grace period; a
	// fatal error cancels both.
	feed, stopFeed := context.WithCancelCause(ctx)
	defer stopFeed(nil)
	hard, stopHard := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopHard(nil)
	runDone := make(chan struct{})
	defer close(runDone)
	go func() {
		select {
		case <-ctx.Done():
		case <-runDone:
			return
		}
		log.Warn("run interrupted: no new URLs; waiting for the pages in flight", "grace", cfg.Grace)
		t := time.NewTimer(cfg.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			stopHard(fmt.Errorf("grace period of %v over: %w", cfg.Grace, context.Cause(ctx)))
		case <-runDone:
		}
	}()
	fatal := func(err error) {
		stopFeed(err)
		stopHard(err)
	}

	work := make(chan Target)
	// Loaders hand their loads to the processors through jobs, whose
	// capacity bounds the loads waiting to be processed: at most
	// inFlight (one each) + cap(jobs) + Workers loads are held at once.
	inFlight := cfg.PagesInFlight()
	jobs := make(chan job, cfg.Workers)
	results := make(chan Result, cfg.Workers)
	var g errgroup.Group
	g.SetLimit(inFlight + 1) // the feeder and the loaders
	g.Go(func() error {
		defer close(work)
		for _, t := range targets {
			if feed.Err() != nil {
				return nil
			}
			select {
			case work <- t:
			case <-feed.Done():
				return nil
			}
		}
		return nil
	})
	for w := range inFlight {
		g.Go(func() error {
			wk := &worker{id: w, cfg: cfg, browser: browser, log: log.With(logWorker, w)}
			defer wk.close()
			for t := range work {
				if feed.Err() != nil {
					continue // stopping: leave it to a resume
				}
				j, done, err := wk.handle(hard, t)
				if err != nil {
					fatal(err)
					return err
				}
				if done {
					jobs <- j
				}
			}
			return nil
		})
	}
	loaded := make(chan error, 1)
	go func() {
		loaded <- g.Wait()
		close(jobs)
	}()
	processed := make(chan struct{})
	go func() {
		defer close(processed)
		processJobs(hard, proc, cfg.Workers, jobs, results, log)
	}()
	waited := make(chan error, 1)
	go func() {
		<-processed
		waited <- <-loaded
		close(results)
	}()

	var emitErr error
	emitted := 0
	for res := range results {
		if emitErr != nil {
			continue // drain so that workers can exit
		}
		if err := emit(res); err != nil {
			emitErr = fmt.Errorf("emit %s: %w", res.Page.URL, err)
			fatal(emitErr)
			continue
		}
		emitted++
		if res.Page.Status == dataset.StatusOK {
			stats.OK++
		} else {
			stats.Failed++
		}
		if res.Page.Attempts > 1 {
			stats.Retried++
		}
	}
	stats.Unfinished = len(targets) - emitted
	stats.Elapsed = time.Since(start)
	if err := <-waited; err != nil {
		return stats, err
	}
	if emitErr != nil {
		return stats, emitErr
	}
	if stats.Unfinished == 0 {
		return stats, nil // interrupted too late to leave anything out
	}
	return stats, ctx.Err()
}

// worker loads one target at a time in its page (a page never serves two
// URLs at once) and hands the load to the processors.
type worker struct {
	id      int
	cfg     Config
	browser Browser
	log     *slog.Logger
	page    Page
	loads   int // URLs loaded in page
}

// close closes the worker's page, waiting at most CloseWait: the page of a
// dead browser may never answer.
func (w *worker) close() {
	if w.page == nil {
		return
	}
	p := w.page
	w.page, w.loads = nil, 0
	if !bounded.Close(CloseWait, p.Close) {
		w.log.Warn("page did not close in time; abandoned", "wait", CloseWait)
	}
}

// handle crawls one target with its retries and returns what the
// processors make its rows of, with done true; done false when ctx ended
// the attempt (the run is stopping); an error only when the browser can
// no longer give pages. The page is free for the next target as soon as
// handle returns: processing needs only the load.
func (w *worker) handle(ctx context.Context, t Target) (job, bool, error) {
	if t.Err != nil {
		return job{t: t, err: t.Err, started: time.Now()}, true, nil
	}
	log := w.log.With(logPageID, t.PageID, logURL, t.URL)
	var (
		load     *Load
		err      error
		attempts int
	)
	started := time.Now()
	for attempts = 1; ; attempts++ {
		if attempts > 1 {
			select {
			case <-time.After(time.Duration(attempts-1) * retryBackoff):
			case <-ctx.Done():
				return job{}, false, nil
			}
		}
		if w.page == nil {
			w.page, err = w.browser.NewPage(ctx, w.cfg.Page)
			if err != nil {
				w.page = nil
				if ctx.Err() != nil {
					return job{}, false, nil
				}
				return job{}, false, fmt.Errorf("new page for %s: %w", t.URL, err)
			}
		}
		load, err = w.load(ctx, t.URL)
		w.loads++
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			w.close()
			return job{}, false, nil
		}
		var pe *PageError
		if !errors.As(err, &pe) {
			pe = &PageError{Kind: KindCapture, URL: t.URL, Err: err}
			err = pe
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
	if w.cfg.RecyclePages > 0 && w.loads >= w.cfg.RecyclePages || err == nil && stepsBrokePage(load) {
		w.close()
	}
	if err != nil {
		log.Info("page failed", logErrorKind, ErrorKindOf(err), logError, err)
	}
	return job{t: t, load: load, err: err, attempts: attempts, started: started}, true, nil
}

// load runs one attempt with its timeout. Should the page not return in
// time (it is meant to), the attempt is a timeout and the page is
// abandoned, so that the worker moves on.
func (w *worker) load(ctx context.Context, url string) (*Load, error) {
	actx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	page := w.page
	ld, err, ok := bounded.Call(context.Background(), w.cfg.Timeout+WatchdogSlack,
		func() (*Load, error) { return page.Load(actx, url) },
		func(*Load, error) { _ = page.Close() })
	if ok {
		return ld, err
	}
	w.log.Warn("page did not return after its deadline; abandoned", logURL, url, "slack", WatchdogSlack)
	w.page, w.loads = nil, 0
	if ctx.Err() != nil {
		return nil, &PageError{Kind: KindCanceled, URL: url, Err: ctx.Err()}
	}
	return nil, &PageError{Kind: KindTimeout, URL: url, Err: fmt.Errorf("page did not return %v after its deadline: %w", WatchdogSlack, context.DeadlineExceeded)}
}
