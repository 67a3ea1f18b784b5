package pipeline

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/space"
)

// fakeCapture is the smallest capture record dom.Parse accepts.
const fakeCapture = `{"version":1,"page":{"url":"http://fake/","title":"Fake","vw":1280,"vh":720},` +
	`"nodes":[{"k":1,"p":-1,"tag":"html","r":[0,0,1280,720],"v":true}]}`

// fakeBrowser hands out fakePages whose loads call load. It counts pages
// and can be killed: then NewPage and every Load fail with KindBrowser.
type fakeBrowser struct {
	load func(ctx context.Context, url string) (*Load, error)

	mu          sync.Mutex
	opened      int
	closed      int
	dead        bool
	pageConfigs []PageConfig // what every NewPage was given
}

// opened is an Opener for Crawl that opens b.
func opened(b Browser) Opener {
	return func(context.Context) (Browser, error) { return b, nil }
}

func (b *fakeBrowser) NewPage(ctx context.Context, cfg PageConfig) (Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pageConfigs = append(b.pageConfigs, cfg)
	if b.dead {
		return nil, &PageError{Kind: KindBrowser, Err: errors.New("new page: browser disconnected")}
	}
	b.opened++
	return &fakePage{b: b}, nil
}

func (b *fakeBrowser) Version() string { return "fake/1" }
func (b *fakeBrowser) Close() error    { return nil }

func (b *fakeBrowser) kill() {
	b.mu.Lock()
	b.dead = true
	b.mu.Unlock()
}

func (b *fakeBrowser) counts() (opened, closed int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opened, b.closed
}

type fakePage struct {
	b      *fakeBrowser
	mu     sync.Mutex
	closed bool
}

func (p *fakePage) Load(ctx context.Context, url string) (*Load, error) {
	p.b.mu.Lock()
	dead := p.b.dead
	p.b.mu.Unlock()
	if dead {
		return nil, &PageError{Kind: KindBrowser, URL: url, Err: errors.New("browser has disconnected")}
	}
	return p.b.load(ctx, url)
}

func (p *fakePage) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		p.b.mu.Lock()
		p.b.closed++
		p.b.mu.Unlock()
	}
	return nil
}

func okLoad(url string) *Load {
	return &Load{FinalURL: url, HTTPStatus: 200, ContentType: "text/html", HTML: "<html></html>", Capture: []byte(fakeCapture)}
}

// fakeConfig is a fast config for fake browsers.
func fakeConfig(t testing.TB) Config {
	cfg := DefaultConfig()
	cfg.RunID = "fake"
	cfg.Workers = 4
	cfg.InFlight = 0 // one page in flight per worker: the tests count pages by Workers
	cfg.Timeout = 2 * time.Second
	cfg.Expansions = []int{0}
	cfg.Encodings = []metrics.Encoding{metrics.CL100K}
	cfg.Logger = testLogger(t)
	return cfg
}

func fakeTargets(n int) []Target {
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("http://fake.test/page?n=%d", i)
	}
	return TargetsFromURLs(urls)
}

// TestRun_OneResultPerTarget: URLs in = rows out, each once, whatever
// fails, with retries of transient failures counted.
func TestRun_OneResultPerTarget(t *testing.T) {
	var calls sync.Map // url -> attempts so far
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) {
		v, _ := calls.LoadOrStore(url, new(atomic.Int32))
		attempt := v.(*atomic.Int32).Add(1)
		var n int
		fmt.Sscanf(url[strings.Index(url, "n=")+2:], "%d", &n)
		switch {
		case n%7 == 0:
			return nil, &PageError{Kind: KindHTTP, URL: url, Err: &StatusError{Code: 404}}
		case n%5 == 0 && attempt == 1:
			return nil, &PageError{Kind: KindNavigate, URL: url, Err: errors.New("net::ERR_CONNECTION_RESET")}
		case n%11 == 0:
			return nil, &PageError{Kind: KindBrowser, URL: url, Err: errors.New("renderer crashed")}
		}
		return okLoad(url), nil
	}}
	targets := fakeTargets(200)
	targets = append(targets, Target{PageID: PageID("x"), URL: "x", Err: &PageError{Kind: KindInvalidURL, URL: "x", Err: errors.New("line 9: not a URL")}})
	seen := map[string]int{}
	stats, err := Run(context.Background(), fakeConfig(t), b, targets, func(res Result) error {
		seen[res.Page.PageID]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(targets) {
		t.Errorf("%d distinct rows, want %d", len(seen), len(targets))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("page %s emitted %d times", id, n)
		}
	}
	if stats.OK+stats.Failed != len(targets) || stats.Unfinished != 0 || stats.Targets != len(targets) {
		t.Errorf("stats = %+v, want ok+failed = %d", stats, len(targets))
	}
	// n%5 (not n%7, not n%11) fails once then loads; n%11 crashes twice.
	if stats.Retried == 0 {
		t.Errorf("stats.Retried = 0, want the retried pages counted")
	}
}

// TestRun_Interrupt: canceling the run starts no new URL; the pages in
// flight finish within the grace period and are emitted, or, past it, are
// not (a resume crawls them), and Run returns ctx's error.
func TestRun_Interrupt(t *testing.T) {
	tests := []struct {
		name         string
		grace        time.Duration
		loadTime     time.Duration
		wantInFlight bool // the loads in flight at the interrupt are emitted
	}{
		{"in flight finish within grace", 2 * time.Second, 300 * time.Millisecond, true},
		{"grace over", 100 * time.Millisecond, 5 * time.Second, false},
		{"no grace", 0, 5 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			started := make(chan string, 100)
			b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) {
				started <- url
				select {
				case <-time.After(tt.loadTime):
					return okLoad(url), nil
				case <-ctx.Done():
					return nil, &PageError{Kind: ErrorKindOf(ctx.Err()), URL: url, Err: ctx.Err()}
				}
			}}
			cfg := fakeConfig(t)
			cfg.Workers = 2
			cfg.Grace = tt.grace
			cfg.Timeout = 10 * time.Second
			ctx, cancel := context.WithCancel(context.Background())
			go func() { // interrupt once both workers are busy
				<-started
				<-started
				cancel()
			}()
			var emitted []string
			start := time.Now()
			stats, err := Run(ctx, cfg, b, fakeTargets(20), func(res Result) error {
				emitted = append(emitted, res.Page.URL)
				return nil
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run error = %v, want context.Canceled", err)
			}
			if elapsed := time.Since(start); elapsed > tt.grace+2*time.Second {
				t.Errorf("Run took %v, want the grace %v and little more", elapsed, tt.grace)
			}
			wantEmitted := 0
			if tt.wantInFlight {
				wantEmitted = 2
			}
			if len(emitted) != wantEmitted || stats.OK != wantEmitted || stats.Unfinished != 20-wantEmitted {
				t.Errorf("emitted %v, stats %+v; want %d emitted and %d unfinished", emitted, stats, wantEmitted, 20-wantEmitted)
			}
			if n := len(started); n != 0 {
				t.Errorf("%d URLs started after the interrupt", n)
			}
		})
	}
}

// TestRun_Watchdog: a page that ignores its deadline is abandoned as a
// timeout and the worker goes on with a new page.
func TestRun_Watchdog(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) {
		if strings.HasSuffix(url, "n=0") {
			<-release // ignores ctx
			return nil, errors.New("released")
		}
		return okLoad(url), nil
	}}
	cfg := fakeConfig(t)
	cfg.Workers = 1
	cfg.Retries = 0
	cfg.Timeout = 100 * time.Millisecond
	rows := map[string]dataset.PageRow{}
	start := time.Now()
	_, err := Run(context.Background(), cfg, b, fakeTargets(3), func(res Result) error {
		rows[res.Page.URL] = res.Page
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > cfg.Timeout+WatchdogSlack+2*time.Second {
		t.Errorf("Run took %v", elapsed)
	}
	if r := rows["http://fake.test/page?n=0"]; r.ErrorKind != string(KindTimeout) {
		t.Errorf("stuck page: error_kind %q (%s), want timeout", r.ErrorKind, r.ErrorMessage)
	}
	for _, u := range []string{"http://fake.test/page?n=1", "http://fake.test/page?n=2"} {
		if rows[u].Status != dataset.StatusOK {
			t.Errorf("%s after the stuck page: %+v", u, rows[u])
		}
	}
	if opened, _ := b.counts(); opened != 2 {
		t.Errorf("%d pages opened, want 2 (the stuck one replaced)", opened)
	}
}

// TestRun_RecyclePages: a worker replaces its page every RecyclePages URLs.
func TestRun_RecyclePages(t *testing.T) {
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) { return okLoad(url), nil }}
	cfg := fakeConfig(t)
	cfg.Workers = 1
	cfg.RecyclePages = 3
	if _, err := Run(context.Background(), cfg, b, fakeTargets(10), func(Result) error { return nil }); err != nil {
		t.Fatal(err)
	}
	opened, closed := b.counts()
	if opened != 4 || closed != 4 {
		t.Errorf("opened %d pages and closed %d, want 4 and 4 (10 URLs, 3 a page)", opened, closed)
	}
}

// TestRun_EmitError: a failing sink stops the run with its error.
func TestRun_EmitError(t *testing.T) {
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) { return okLoad(url), nil }}
	boom := errors.New("disk full")
	n := 0
	_, err := Run(context.Background(), fakeConfig(t), b, fakeTargets(50), func(Result) error {
		n++
		if n == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Errorf("Run error = %v, want %v", err, boom)
	}
}

// TestRun_PageConfig: every page is opened with the crawl's page config,
// and the pages rows record its viewport.
func TestRun_PageConfig(t *testing.T) {
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) { return okLoad(url), nil }}
	cfg := fakeConfig(t)
	cfg.Page.ViewportWidth, cfg.Page.ViewportHeight = 999, 555
	cfg.Page.Script.MaxNodes = 1234
	var rows []Result
	if _, err := Run(context.Background(), cfg, b, fakeTargets(8), func(r Result) error { rows = append(rows, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(b.pageConfigs) == 0 {
		t.Fatal("no page opened")
	}
	for _, got := range b.pageConfigs {
		if !reflect.DeepEqual(got, cfg.Page) {
			t.Errorf("NewPage got %+v, want the crawl's %+v", got, cfg.Page)
		}
	}
	for _, r := range rows {
		if r.Page.ViewportWidth != 999 || r.Page.ViewportHeight != 555 {
			t.Errorf("%s: viewport %dx%d, want 999x555", r.Page.URL, r.Page.ViewportWidth, r.Page.ViewportHeight)
		}
	}
}

// slowDeep is a deep renderer that takes its time: it says when it
// starts, and returns after delay, or with ctx's error once ctx is done.
type slowDeep struct {
	started chan struct{}
	delay   time.Duration
}

func (d slowDeep) Render(ctx context.Context, v *dom.View) (space.Rendered, error) {
	d.started <- struct{}{}
	select {
	case <-time.After(d.delay):
		return space.Fast{}.Render(ctx, v)
	case <-ctx.Done():
		return space.Rendered{}, fmt.Errorf("deep: %w", ctx.Err())
	}
}

// TestRun_InterruptWhileProcessing: an interrupt does not cut short the
// processing of a page already loaded (its row is whole); the end of the
// grace period does, and then the page gets no row and Run returns ctx's
// error, so that the crawl exits non-zero and a resume processes the page.
func TestRun_InterruptWhileProcessing(t *testing.T) {
	tests := []struct {
		name    string
		grace   time.Duration
		wantRow bool
	}{
		{"processing finishes within grace", 5 * time.Second, true},
		{"grace over during processing", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) { return okLoad(url), nil }}
			deep := slowDeep{started: make(chan struct{}, 1), delay: 500 * time.Millisecond}
			cfg := fakeConfig(t)
			cfg.Workers = 1
			cfg.Grace = tt.grace
			cfg.Modes = []string{space.ModeFast, space.ModeDeep}
			cfg.Deep = deep
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-deep.started
				cancel() // the page is loaded and being processed
			}()
			var rows []Result
			stats, err := Run(ctx, cfg, b, fakeTargets(1), func(res Result) error {
				rows = append(rows, res)
				return nil
			})
			if !tt.wantRow {
				if !errors.Is(err, context.Canceled) || len(rows) != 0 || stats.Unfinished != 1 {
					t.Fatalf("Run = %+v, %v with %d rows; want context.Canceled, no row, 1 unfinished", stats, err, len(rows))
				}
				return
			}
			if err != nil || len(rows) != 1 || stats.Unfinished != 0 {
				t.Fatalf("Run = %+v, %v with %d rows; want no error and the page's row", stats, err, len(rows))
			}
			for _, s := range rows[0].Spaces {
				if s.LLMError != nil || s.TokensCL100K == nil || s.TokensSkipped != "" {
					t.Errorf("%s/%s row: llm_error %s, tokens %s, tokens_skipped %q; want a whole row", s.Format, s.Mode, ptrString(s.LLMError), ptrString(s.TokensCL100K), s.TokensSkipped)
				}
			}
		})
	}
}

// TestRun_ProcessingHasItsOwnLimit: a page whose load took its whole time
// limit is still processed whole: the counts have a limit of their own.
func TestRun_ProcessingHasItsOwnLimit(t *testing.T) {
	cfg := fakeConfig(t)
	cfg.Workers = 1
	cfg.Timeout = 300 * time.Millisecond
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) {
		<-ctx.Done() // a load that returns at its deadline, with its capture
		time.Sleep(50 * time.Millisecond)
		return okLoad(url), nil
	}}
	var rows []Result
	if _, err := Run(context.Background(), cfg, b, fakeTargets(1), func(res Result) error {
		rows = append(rows, res)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	pg := rows[0].Page
	if pg.Status != dataset.StatusOK || pg.HTMLTokensCL100K == nil || pg.HTMLTokensSkipped != "" {
		t.Errorf("pages row: status %s, html tokens %s, skipped %q; want ok and counted", pg.Status, ptrString(pg.HTMLTokensCL100K), pg.HTMLTokensSkipped)
	}
	for _, s := range rows[0].Spaces {
		if s.TokensCL100K == nil || s.TokensSkipped != "" {
			t.Errorf("%s row: tokens %s, skipped %q; want counted", s.Format, ptrString(s.TokensCL100K), s.TokensSkipped)
		}
	}
}
