package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/pipeline"
)

// fakeFleet is a set of fake browser servers, by endpoint URL, that can be
// taken down and brought back. Its connect is a Remote's connectFunc.
type fakeFleet struct {
	mu     sync.Mutex
	down   map[string]bool
	conns  map[string][]*fakeConn
	served map[string]int // loads per endpoint
	delay  time.Duration  // per load
}

func newFakeFleet(delay time.Duration) *fakeFleet {
	return &fakeFleet{down: map[string]bool{}, conns: map[string][]*fakeConn{}, served: map[string]int{}, delay: delay}
}

func (f *fakeFleet) connect(ctx context.Context, endpoint string, lost func(error)) (pipeline.Browser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down[endpoint] {
		return nil, fmt.Errorf("connect %s: connection refused", endpoint)
	}
	c := &fakeConn{fleet: f, endpoint: endpoint, lost: lost}
	f.conns[endpoint] = append(f.conns[endpoint], c)
	return c, nil
}

// kill takes endpoint down: its connections die and report it.
func (f *fakeFleet) kill(endpoint string) {
	f.mu.Lock()
	f.down[endpoint] = true
	conns := f.conns[endpoint]
	f.conns[endpoint] = nil
	for _, c := range conns {
		c.dead = true
	}
	f.mu.Unlock()
	for _, c := range conns {
		c.lost(errors.New("disconnected"))
	}
}

func (f *fakeFleet) revive(endpoint string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down[endpoint] = false
}

func (f *fakeFleet) servedBy() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.served {
		out[k] = v
	}
	return out
}

// fakeConn is one connection to a fake server.
type fakeConn struct {
	fleet    *fakeFleet
	endpoint string
	lost     func(error)
	dead     bool // guarded by fleet.mu
}

func (c *fakeConn) isDead() bool {
	c.fleet.mu.Lock()
	defer c.fleet.mu.Unlock()
	return c.dead
}

func (c *fakeConn) NewPage(ctx context.Context, _ pipeline.PageConfig) (pipeline.Page, error) {
	if c.isDead() {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: errors.New("new page: browser disconnected")}
	}
	return &fakeConnPage{conn: c}, nil
}

func (c *fakeConn) Version() string { return "fake-remote/1" }
func (c *fakeConn) Close() error    { return nil }

type fakeConnPage struct{ conn *fakeConn }

func (p *fakeConnPage) Load(ctx context.Context, url string) (*pipeline.Load, error) {
	select {
	case <-time.After(p.conn.fleet.delay):
	case <-ctx.Done():
		return nil, &pipeline.PageError{Kind: pipeline.KindTimeout, URL: url, Err: ctx.Err()}
	}
	if p.conn.isDead() {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, URL: url, Err: errors.New("target closed")}
	}
	p.conn.fleet.mu.Lock()
	p.conn.fleet.served[p.conn.endpoint]++
	p.conn.fleet.mu.Unlock()
	return okLoad(url), nil
}

func (p *fakeConnPage) Close() error { return nil }

// newFakeRemote connects a Remote to the fleet's endpoints.
func newFakeRemote(t *testing.T, f *fakeFleet, wait time.Duration, endpoints ...string) (*Remote, error) {
	t.Helper()
	cfg := Config{Endpoints: endpoints, Logger: testLogger(t)}
	r, err := newRemote(context.Background(), cfg, f.connect, nil, wait)
	if err == nil {
		t.Cleanup(func() { r.Close() })
	}
	return r, err
}

// TestRemote_SpreadsPages: pages go to the endpoint with the fewest open
// pages, round-robin on ties.
func TestRemote_SpreadsPages(t *testing.T) {
	f := newFakeFleet(0)
	eps := []string{"ws://a:1/", "ws://b:1/", "ws://c:1/"}
	r, err := newFakeRemote(t, f, time.Second, eps...)
	if err != nil {
		t.Fatal(err)
	}
	var pages []*remotePage
	count := map[string]int{}
	for range 6 {
		p, err := r.NewPage(context.Background(), pipeline.DefaultPageConfig())
		if err != nil {
			t.Fatal(err)
		}
		rp := p.(*remotePage)
		pages = append(pages, rp)
		count[rp.ep.url]++
	}
	for _, ep := range eps {
		if count[ep] != 2 {
			t.Errorf("%s got %d pages, want 2 (all: %v)", ep, count[ep], count)
		}
	}
	// Free a slot on b: the next page goes there.
	var onB *remotePage
	for _, p := range pages {
		if p.ep.url == eps[1] {
			onB = p
			break
		}
	}
	onB.Close()
	onB.Close() // a second Close frees nothing more
	p, err := r.NewPage(context.Background(), pipeline.DefaultPageConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := p.(*remotePage).ep.url; got != eps[1] {
		t.Errorf("after closing a page of %s, the next page went to %s", eps[1], got)
	}
	if got, want := r.Version(), "fake-remote/1"; got != want {
		t.Errorf("Version() = %q, want %q", got, want)
	}
}

// TestRemote_LostEndpoint: an endpoint killed mid-run costs no URL — the
// ones it held are retried on the others — every target yields one row,
// and the endpoint is reconnected in the background once it is back.
func TestRemote_LostEndpoint(t *testing.T) {
	f := newFakeFleet(5 * time.Millisecond)
	a, b := "ws://a:1/", "ws://b:1/"
	r, err := newFakeRemote(t, f, 5*time.Second, a, b)
	if err != nil {
		t.Fatal(err)
	}
	cfg := fakeConfig(t)
	cfg.Workers = 4
	targets := pipeline.TargetsFromURLs(fakeURLs(300))
	seen := map[string]int{}
	n := 0
	stats, err := pipeline.Run(context.Background(), cfg, r, targets, func(res pipeline.Result) error {
		seen[res.Page.PageID]++
		if res.Page.Status != "ok" {
			t.Errorf("%s: status %s (%s: %s), want ok", res.Page.URL, res.Page.Status, res.Page.ErrorKind, res.Page.ErrorMessage)
		}
		n++
		if n == 50 {
			f.kill(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(targets) || stats.OK != len(targets) {
		t.Errorf("%d distinct rows, %d ok; want %d of each", len(seen), stats.OK, len(targets))
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("page %s emitted %d times", id, c)
		}
	}
	served := f.servedBy()
	if served[a] == 0 || served[b] == 0 || served[a] < served[b] {
		t.Errorf("loads per endpoint = %v, want both used and %s (never lost) the most", served, a)
	}
	if got := r.Up(); len(got) != 1 || got[0] != a {
		t.Errorf("Up() = %v after %s was killed, want [%s]", got, b, a)
	}

	f.revive(b)
	deadline := time.Now().Add(10 * time.Second)
	for len(r.Up()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := r.Up(); len(got) != 2 {
		t.Fatalf("Up() = %v after %s came back, want both", got, b)
	}
	if got := r.Relaunches(); got != 1 {
		t.Errorf("Relaunches() = %d, want 1", got)
	}
	before := f.servedBy()[b]
	if _, err := pipeline.Run(context.Background(), cfg, r, pipeline.TargetsFromURLs(fakeURLs(40)), func(pipeline.Result) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if f.servedBy()[b] == before {
		t.Errorf("the reconnected endpoint %s got no pages", b)
	}
}

// TestRemote_AllDown: with no endpoint up, connecting fails after the wait;
// once every endpoint is lost, NewPage fails (which stops a run) after it.
func TestRemote_AllDown(t *testing.T) {
	f := newFakeFleet(0)
	a, b := "ws://a:1/", "ws://b:1/"
	f.kill(a)
	f.kill(b)
	start := time.Now()
	_, err := newFakeRemote(t, f, 300*time.Millisecond, a, b)
	if err == nil || !strings.Contains(err.Error(), "no browser endpoint up for 300ms") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("newRemote with every endpoint down: %v, want a no-endpoint error naming the causes", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %v, want about the wait", d)
	}

	f.revive(a)
	f.revive(b)
	r, err := newFakeRemote(t, f, 300*time.Millisecond, a, b)
	if err != nil {
		t.Fatal(err)
	}
	f.kill(a)
	f.kill(b)
	_, err = r.NewPage(context.Background(), pipeline.DefaultPageConfig())
	var pe *pipeline.PageError
	if !errors.As(err, &pe) || pe.Kind != pipeline.KindBrowser || !strings.Contains(err.Error(), "no browser endpoint up") {
		t.Errorf("NewPage with every endpoint lost: %v, want a KindBrowser no-endpoint error", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.NewPage(ctx, pipeline.DefaultPageConfig()); !errors.Is(err, context.Canceled) {
		t.Errorf("NewPage on a canceled context: %v, want context.Canceled", err)
	}
	r.Close()
	if _, err := r.NewPage(context.Background(), pipeline.DefaultPageConfig()); err == nil {
		t.Error("NewPage after Close: no error")
	}
}

// TestRemote_CloseWakesNewPage: a NewPage waiting for an endpoint returns
// when the Remote is closed, not after the wait.
func TestRemote_CloseWakesNewPage(t *testing.T) {
	f := newFakeFleet(0)
	a := "ws://a:1/"
	r, err := newFakeRemote(t, f, time.Minute, a)
	if err != nil {
		t.Fatal(err)
	}
	f.kill(a)
	errc := make(chan error, 1)
	go func() {
		_, err := r.NewPage(context.Background(), pipeline.DefaultPageConfig())
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond)
	r.Close()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("NewPage after Close: no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("NewPage still waiting 5s after Close")
	}
}

// TestRemote_LateEndpoint: a crawl that starts before its browser servers
// waits for the first one to come up.
func TestRemote_LateEndpoint(t *testing.T) {
	f := newFakeFleet(0)
	a, b := "ws://a:1/", "ws://b:1/"
	f.kill(a)
	f.kill(b)
	go func() {
		time.Sleep(200 * time.Millisecond)
		f.revive(b)
	}()
	r, err := newFakeRemote(t, f, 10*time.Second, a, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Up(); len(got) != 1 || got[0] != b {
		t.Errorf("Up() = %v, want [%s]", got, b)
	}
	p, err := r.NewPage(context.Background(), pipeline.DefaultPageConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := p.(*remotePage).ep.url; got != b {
		t.Errorf("page on %s, want %s", got, b)
	}
}

func TestValidateEndpoints(t *testing.T) {
	tests := []struct {
		endpoints []string
		ok        bool
	}{
		{nil, true},
		{[]string{"ws://127.0.0.1:3000/"}, true},
		{[]string{"wss://browsers.example.org/pw?token=x", "ws://pw:3000/"}, true},
		{[]string{"http://127.0.0.1:3000/"}, false},
		{[]string{"127.0.0.1:3000"}, false},
		{[]string{"ws:///nohost"}, false},
		{[]string{"ws://ok:1/", "::bad"}, false},
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		cfg.Endpoints = tt.endpoints
		if err := cfg.Validate(); (err == nil) != tt.ok {
			t.Errorf("Config{Endpoints: %q}.Validate() = %v, want ok %v", tt.endpoints, err, tt.ok)
		}
	}
}
