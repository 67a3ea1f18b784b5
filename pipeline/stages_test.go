package pipeline

import (
	"context"
	"sync"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/space"
)

// gateDeep is a deep renderer that says when it starts and returns only
// once release is closed: processing that holds until the test lets it go.
type gateDeep struct {
	started chan struct{}
	release chan struct{}
}

func (d gateDeep) Render(ctx context.Context, v *dom.View) (space.Rendered, error) {
	d.started <- struct{}{}
	select {
	case <-d.release:
		return space.Fast{}.Render(ctx, v)
	case <-ctx.Done():
		return space.Rendered{}, ctx.Err()
	}
}

// loadCounter is a fake browser's load that counts the loads started,
// finished and running at once, each taking delay.
type loadCounter struct {
	delay time.Duration

	mu                         sync.Mutex
	started, finished, running int
	maxRunning                 int
}

func (c *loadCounter) load(ctx context.Context, url string) (*Load, error) {
	c.mu.Lock()
	c.started++
	c.running++
	c.maxRunning = max(c.maxRunning, c.running)
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.running--
		c.finished++
		c.mu.Unlock()
	}()
	select {
	case <-time.After(c.delay):
		return okLoad(url), nil
	case <-ctx.Done():
		return nil, &PageError{Kind: ErrorKindOf(ctx.Err()), URL: url, Err: ctx.Err()}
	}
}

func (c *loadCounter) counts() (started, finished, maxRunning int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started, c.finished, c.maxRunning
}

// stagesConfig is fakeConfig with a deep mode that holds the processing
// of every page until the test releases it.
func stagesConfig(t *testing.T, workers, inFlight int) (Config, gateDeep) {
	cfg := fakeConfig(t)
	cfg.Workers, cfg.InFlight = workers, inFlight
	cfg.Formats = []string{space.FormatActionSpace}
	cfg.UseFormats(cfg.Formats)
	deep := gateDeep{started: make(chan struct{}, 100), release: make(chan struct{})}
	cfg.Modes = []string{space.ModeFast, space.ModeDeep}
	cfg.Deep = deep
	return cfg, deep
}

// TestRun_LoadsWhileProcessing: with one page in flight and one
// processor, the page loads its next URL while the last one is being
// processed.
func TestRun_LoadsWhileProcessing(t *testing.T) {
	t.Parallel()
	lc := &loadCounter{delay: 10 * time.Millisecond}
	b := &fakeBrowser{load: lc.load}
	cfg, deep := stagesConfig(t, 1, 1)
	done := make(chan error, 1)
	var rows []Result
	go func() {
		_, err := Run(context.Background(), cfg, b, fakeTargets(3), func(res Result) error {
			rows = append(rows, res)
			return nil
		})
		done <- err
	}()
	<-deep.started // the first page is being processed, and held
	deadline := time.Now().Add(5 * time.Second)
	for {
		if started, _, _ := lc.counts(); started >= 2 {
			break
		}
		if time.Now().After(deadline) {
			close(deep.release)
			t.Fatal("the second URL did not start loading while the first page was processed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	close(deep.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	if _, _, maxRunning := lc.counts(); maxRunning != 1 {
		t.Errorf("%d loads ran at once, want 1 (InFlight)", maxRunning)
	}
}

// TestRun_InFlightBounds: InFlight pages load at once, no more; and while
// processing is held, loading stops once the loads waiting for it fill
// the queue: at most InFlight + 2×Workers loads are held (one each
// loader, the queue of Workers, one each processor), which keeps memory
// bounded. Released, every URL still gets its one row.
func TestRun_InFlightBounds(t *testing.T) {
	t.Parallel()
	const workers, inFlight, n = 1, 3, 20
	lc := &loadCounter{delay: 30 * time.Millisecond}
	b := &fakeBrowser{load: lc.load}
	cfg, deep := stagesConfig(t, workers, inFlight)
	done := make(chan error, 1)
	seen := map[string]int{}
	go func() {
		_, err := Run(context.Background(), cfg, b, fakeTargets(n), func(res Result) error {
			if res.Page.Status != dataset.StatusOK {
				t.Errorf("%s: %s %s", res.Page.URL, res.Page.ErrorKind, res.Page.ErrorMessage)
			}
			seen[res.Page.URL]++
			return nil
		})
		done <- err
	}()
	<-deep.started
	// Wait until loading has stopped: no load started for a while.
	last, stable := -1, 0
	for stable < 20 {
		time.Sleep(20 * time.Millisecond)
		started, _, _ := lc.counts()
		if started == last {
			stable++
		} else {
			last, stable = started, 0
		}
	}
	_, finished, maxRunning := lc.counts()
	if want := inFlight + 2*workers; finished != want {
		t.Errorf("%d loads finished while processing was held, want %d (InFlight + 2×Workers)", finished, want)
	}
	close(deep.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if maxRunning != inFlight {
		t.Errorf("%d loads ran at once, want %d (InFlight)", maxRunning, inFlight)
	}
	if len(seen) != n {
		t.Errorf("%d URLs got rows, want %d", len(seen), n)
	}
	for u, c := range seen {
		if c != 1 {
			t.Errorf("%s: %d rows, want 1", u, c)
		}
	}
}

// TestRun_InterruptWithLoadsQueued: the pages already loaded and waiting
// for a processor when the run is interrupted are processed within the
// grace period and get their rows; no URL starts after the interrupt.
func TestRun_InterruptWithLoadsQueued(t *testing.T) {
	t.Parallel()
	lc := &loadCounter{delay: 10 * time.Millisecond}
	b := &fakeBrowser{load: lc.load}
	cfg, deep := stagesConfig(t, 1, 2)
	cfg.Grace = 5 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var rows []Result
	var stats Stats
	go func() {
		var err error
		stats, err = Run(ctx, cfg, b, fakeTargets(20), func(res Result) error {
			rows = append(rows, res)
			return nil
		})
		done <- err
	}()
	<-deep.started
	// Let the loaders fill the queue, then interrupt and release.
	for {
		if _, finished, _ := lc.counts(); finished >= 2+2*1 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	time.Sleep(50 * time.Millisecond)
	startedAtInterrupt, _, _ := lc.counts()
	close(deep.release)
	err := <-done
	if err == nil || ctx.Err() == nil {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	started, finished, _ := lc.counts()
	if started != startedAtInterrupt {
		t.Errorf("%d URLs started after the interrupt", started-startedAtInterrupt)
	}
	if len(rows) != finished || stats.OK != finished || stats.Unfinished != 20-finished {
		t.Errorf("%d rows, stats %+v; want a row for each of the %d pages loaded", len(rows), stats, finished)
	}
}

// TestRun_Floor: a floor crawl makes one pages row per URL, ok, with the
// HTML's size and the load's timings, and processes nothing.
func TestRun_Floor(t *testing.T) {
	t.Parallel()
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) {
		return &Load{FinalURL: url, HTTPStatus: 200, HTMLBytes: 1234, Navigate: 20 * time.Millisecond, Content: time.Millisecond}, nil
	}}
	cfg := fakeConfig(t)
	cfg.Page.Floor = true
	var rows []Result
	stats, err := Run(context.Background(), cfg, b, fakeTargets(5), func(res Result) error {
		rows = append(rows, res)
		return nil
	})
	if err != nil || stats.OK != 5 || len(rows) != 5 {
		t.Fatalf("Run = %+v, %v with %d rows; want 5 ok rows", stats, err, len(rows))
	}
	for _, r := range rows {
		p := r.Page
		if p.Status != dataset.StatusOK || p.HTMLBytes == nil || *p.HTMLBytes != 1234 || p.NavigateMS == nil || *p.NavigateMS != 20 {
			t.Errorf("%s: status %s (%s), html_bytes %s, navigate_ms %s; want ok, 1234, 20", p.URL, p.Status, p.ErrorMessage, ptrString(p.HTMLBytes), ptrString(p.NavigateMS))
		}
		if len(r.Spaces) != 0 || r.Blob != nil || p.ProcessMS != nil {
			t.Errorf("%s: %d spaces rows, blob %v, process_ms %s; want nothing processed", p.URL, len(r.Spaces), r.Blob != nil, ptrString(p.ProcessMS))
		}
	}
}
