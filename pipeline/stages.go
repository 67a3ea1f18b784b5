package pipeline

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"actionspace/dataset"
)

// A run has two stages with limits of their own. Loading a page
// (navigation, settling, the capture, the extras) is mostly waiting on
// Chromium, which works in its own processes; processing it (decoding,
// rendering every cell, counting tokens, the oracle) is CPU work in this
// one. Config.InFlight loaders each own a page and load one target after
// another; Config.Workers processors, one per core by default, make the
// rows. A page loads its next target while its last one is processed.

// DefaultInFlightPerWorker is how many pages are loaded at once per
// processing worker by default (Config.InFlight), chosen by measurement
// with tools/throughput (docs/throughput.md): on a 2-core machine, more
// pages in flight than cores made the crawl and the floor alike slower,
// as Chromium's own processes need the cores too. The loaders still load
// the next page while the last one is processed.
const DefaultInFlightPerWorker = 1

// PagesInFlight is the number of pages loaded at once: Config.InFlight,
// or, when it is 0, DefaultInFlightPerWorker per worker.
func (c Config) PagesInFlight() int {
	if c.InFlight > 0 {
		return c.InFlight
	}
	return DefaultInFlightPerWorker * c.Workers
}

// job is one target whose loading is over: its load (nil when none
// started), or the error that failed it.
type job struct {
	t        Target
	load     *Load
	err      error
	attempts int
	started  time.Time
}

// processJobs runs n processors that turn every job into its result until
// jobs is closed. A page's processing runs on a context the interrupt does
// not cancel; stop (the end of the grace period) ends it, and the page
// then gets no result (see processor.process).
func processJobs(stop context.Context, proc *processor, n int, jobs <-chan job, results chan<- Result, log *slog.Logger) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for j := range jobs {
				if res, ok := proc.run(stop, j, log); ok {
					results <- res
				}
			}
		})
	}
	wg.Wait()
}

// run makes the result of one job: an error row for a failed target, the
// rows of a loaded page otherwise; ok false when stop ended the
// processing.
func (p *processor) run(stop context.Context, j job, log *slog.Logger) (Result, bool) {
	if j.err != nil {
		return p.failed(j.t, j.load, j.err, j.attempts, j.started), true
	}
	if p.cfg.Page.Floor {
		return p.floor(j), true
	}
	res, ok := p.process(stop, j.t, j.load, j.attempts, j.started)
	if !ok {
		log.Info("processing stopped at the end of the grace period; the page gets no row", logPageID, j.t.PageID, logURL, j.t.URL)
		return Result{}, false
	}
	log.Debug("page done", logPageID, j.t.PageID, logURL, j.t.URL, logStatus, res.Page.Status, logSpaces, len(res.Spaces))
	return res, true
}

// floor makes the one row of a page a floor crawl loaded
// (PageConfig.Floor): its pages row, with the HTML's size and the load's
// timings; nothing is processed.
func (p *processor) floor(j job) Result {
	row := p.base(j.t, j.load, j.attempts, j.started)
	row.Status = dataset.StatusOK
	row.HTMLBytes = ptr(int64(j.load.HTMLBytes))
	if !j.load.CapturedAt.IsZero() {
		row.CapturedAt = j.load.CapturedAt.UTC()
	}
	return Result{Page: row}
}
