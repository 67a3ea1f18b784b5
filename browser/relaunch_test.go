package browser

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/metrics"
	"actionspace/pipeline"
)

// fakeCapture is the smallest capture record dom.Parse accepts.
const fakeCapture = `{"version":1,"page":{"url":"http://fake/","title":"Fake","vw":1280,"vh":720},` +
	`"nodes":[{"k":1,"p":-1,"tag":"html","r":[0,0,1280,720],"v":true}]}`

// fakeBrowser hands out fakePages whose loads call load, for the unit
// tests of the Relauncher. Killed, NewPage and every Load fail with
// KindBrowser.
type fakeBrowser struct {
	load func(ctx context.Context, url string) (*pipeline.Load, error)

	mu   sync.Mutex
	dead bool
}

func (b *fakeBrowser) NewPage(context.Context, pipeline.PageConfig) (pipeline.Page, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: errors.New("new page: browser disconnected")}
	}
	return &fakePage{b: b}, nil
}

func (b *fakeBrowser) Version() string { return "fake/1" }
func (b *fakeBrowser) Close() error    { return nil }

func (b *fakeBrowser) kill() {
	b.mu.Lock()
	b.dead = true
	b.mu.Unlock()
}

type fakePage struct{ b *fakeBrowser }

func (p *fakePage) Load(ctx context.Context, url string) (*pipeline.Load, error) {
	p.b.mu.Lock()
	dead := p.b.dead
	p.b.mu.Unlock()
	if dead {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, URL: url, Err: errors.New("browser has disconnected")}
	}
	return p.b.load(ctx, url)
}

func (p *fakePage) Close() error { return nil }

func okLoad(url string) *pipeline.Load {
	return &pipeline.Load{FinalURL: url, HTTPStatus: 200, ContentType: "text/html", HTML: "<html></html>", Capture: []byte(fakeCapture)}
}

// fakeConfig is a fast crawl config for fake browsers.
func fakeConfig(t testing.TB) pipeline.Config {
	cfg := pipeline.DefaultConfig()
	cfg.RunID = "fake"
	cfg.Workers = 4
	cfg.Timeout = 2 * time.Second
	cfg.Expansions = []int{0}
	cfg.Encodings = []metrics.Encoding{metrics.CL100K}
	cfg.Logger = testLogger(t)
	return cfg
}

// TestRelauncher: when the browser dies, the next NewPage launches a new
// one, once for all the workers that notice; the crawl goes on.
func TestRelauncher(t *testing.T) {
	var (
		mu       sync.Mutex
		browsers []*fakeBrowser
	)
	launch := func(ctx context.Context) (pipeline.Browser, error) {
		mu.Lock()
		defer mu.Unlock()
		b := &fakeBrowser{load: func(ctx context.Context, url string) (*pipeline.Load, error) {
			time.Sleep(5 * time.Millisecond)
			return okLoad(url), nil
		}}
		browsers = append(browsers, b)
		return b, nil
	}
	r, err := NewRelauncher(context.Background(), launch, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cfg := fakeConfig(t)
	cfg.Workers = 4
	var rows int
	stats, err := pipeline.Run(context.Background(), cfg, r, pipeline.TargetsFromURLs(fakeURLs(100)), func(res pipeline.Result) error {
		rows++
		if rows == 20 {
			r.Current().(*fakeBrowser).kill()
		}
		if res.Page.Status != dataset.StatusOK {
			t.Errorf("%s: %s %s", res.Page.URL, res.Page.ErrorKind, res.Page.ErrorMessage)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows != 100 || stats.OK != 100 {
		t.Errorf("%d rows, stats %+v, want 100 ok", rows, stats)
	}
	if got := r.Relaunches(); got != 1 {
		t.Errorf("Relaunches() = %d, want 1", got)
	}
	if len(browsers) != 2 {
		t.Errorf("%d browsers launched, want 2", len(browsers))
	}
}

// TestRelauncher_GivesUp: when no browser can be launched any more, the run
// stops with the launch error instead of hanging or writing error rows.
func TestRelauncher_GivesUp(t *testing.T) {
	launches := 0
	first := &fakeBrowser{load: func(ctx context.Context, url string) (*pipeline.Load, error) { return okLoad(url), nil }}
	launch := func(ctx context.Context) (pipeline.Browser, error) {
		launches++
		if launches == 1 {
			return first, nil
		}
		return nil, errors.New("chromium: no such file")
	}
	r, err := NewRelauncher(context.Background(), launch, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	first.kill()
	cfg := fakeConfig(t)
	cfg.Workers = 2
	_, err = pipeline.Run(context.Background(), cfg, r, pipeline.TargetsFromURLs(fakeURLs(5)), func(pipeline.Result) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Run error = %v, want the launch failure", err)
	}
	if launches != 1+launchAttempts {
		t.Errorf("%d launches, want 1 + %d attempts", launches, launchAttempts)
	}
}

// fakeURLs returns n distinct URLs.
func fakeURLs(n int) []string {
	urls := make([]string, n)
	for i := range urls {
		urls[i] = "http://fake.test/page?n=" + strconv.Itoa(i)
	}
	return urls
}
