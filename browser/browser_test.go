package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/pipeline"
)

func TestConfig_Validate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		modify func(*Config)
		want   string // substring of the error; "" for none
	}{
		{"default", func(*Config) {}, ""},
		{"no chromium", func(c *Config) { c.ChromiumPath = "" }, "chromium"},
		{"endpoints need no chromium", func(c *Config) { c.ChromiumPath, c.Endpoints = "", []string{"ws://127.0.0.1:3000/"} }, ""},
		{"endpoint not ws", func(c *Config) { c.Endpoints = []string{"http://127.0.0.1:3000/"} }, "ws://"},
		{"endpoint without host", func(c *Config) { c.Endpoints = []string{"ws:///x"} }, "ws://"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.modify(&cfg)
			err := cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate() = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

// TestKindOf classifies Playwright's and the contexts' errors; what they
// do not tell falls back to the stage's kind.
func TestKindOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want pipeline.ErrorKind
	}{
		{"deadline", fmt.Errorf("load: %w", context.DeadlineExceeded), pipeline.KindTimeout},
		{"canceled", context.Canceled, pipeline.KindCanceled},
		{"playwright timeout", fmt.Errorf("%w: %w: Timeout 30000ms exceeded.", playwright.ErrPlaywright, playwright.ErrTimeout), pipeline.KindTimeout},
		{"target closed", fmt.Errorf("%w: Target page, context or browser has been closed", playwright.ErrTargetClosed), pipeline.KindBrowser},
		{"crash", errors.New("Navigation failed because page crashed!"), pipeline.KindBrowser},
		{"broken page", fmt.Errorf("%w: renderer crashed", errPageBroken), pipeline.KindBrowser},
		{"server gone", errors.New("create isolated world: Connection closed"), pipeline.KindBrowser},
		{"net error", errors.New("net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/"), pipeline.KindNavigate},
		{"download", errors.New("Download is starting"), pipeline.KindContentType},
		{"unknown", errors.New("something else"), pipeline.KindCapture},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kindOf(tt.err, pipeline.KindCapture); got != tt.want {
				t.Errorf("kindOf(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func TestPageError_short(t *testing.T) {
	t.Parallel()
	long := pageError("http://a.test/", "navigate", pipeline.KindNavigate,
		fmt.Errorf("%w: net::ERR_NAME_NOT_RESOLVED at http://a.test/\nCall log:\n  - navigating", playwright.ErrPlaywright))
	if got, want := long.Error(), "navigate http://a.test/: navigate: net::ERR_NAME_NOT_RESOLVED at http://a.test/"; got != want {
		t.Errorf("pageError(…).Error() = %q, want %q", got, want)
	}
	if !errors.Is(long, playwright.ErrPlaywright) {
		t.Errorf("pageError lost the cause chain")
	}
}

func TestIsHTML(t *testing.T) {
	t.Parallel()
	tests := []struct {
		contentType string
		want        bool
	}{
		{"text/html", true},
		{"text/html; charset=utf-8", true},
		{"TEXT/HTML;charset=UTF-8", true},
		{"application/xhtml+xml", true},
		{"", true},
		{"application/json", false},
		{"text/plain; charset=utf-8", false},
		{"image/png", false},
		{"text/html;;bad", true},
	}
	for _, tt := range tests {
		if got := isHTML(tt.contentType); got != tt.want {
			t.Errorf("isHTML(%q) = %v, want %v", tt.contentType, got, tt.want)
		}
	}
}

func TestLaunch_Errors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"invalid config", Config{}, "chromium"},
		{"no such chromium", Config{ChromiumPath: "/nonexistent/chromium"}, "/nonexistent/chromium"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Launch(context.Background(), tt.cfg)
			if err == nil {
				b.Close()
				t.Fatalf("Launch succeeded, want an error naming %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Launch error = %v, want it to name %q", err, tt.want)
			}
		})
	}
}

func TestLaunch_NoDriver(t *testing.T) {
	t.Setenv("PLAYWRIGHT_DRIVER_PATH", t.TempDir())
	cfg := testBrowserConfig()
	cfg.launch.ChromiumPath = "/bin/sh" // exists; never launched
	b, err := Launch(context.Background(), cfg.launch)
	if err == nil {
		b.Close()
		t.Fatal("Launch succeeded without a driver")
	}
	if !strings.Contains(err.Error(), "make setup") {
		t.Errorf("Launch error = %v, want it to say to run make setup", err)
	}
}

// testSite serves one route per edge case a crawl meets.
type testSite struct {
	*httptest.Server
	stop chan struct{} // closed to release handlers that never answer
}

func newTestSite(tb testing.TB) *testSite {
	tb.Helper()
	s := &testSite{stop: make(chan struct{})}
	page := func(title, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body>%s</body></html>", title, body)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", page("Home", `<h1>Home</h1><a href="/a">A</a><button>Go</button>`))
	mux.HandleFunc("/late", page("Late", `<main id="root">loading</main>
<script>
window.addEventListener('load', () => setTimeout(() => {
  const p = document.createElement('p');
  p.id = 'late';
  p.textContent = 'arrived';
  document.body.appendChild(p);
}, 300));
</script>`))
	mux.HandleFunc("/ticking", page("Ticking", `<ol id="list"></ol>
<script>
window.addEventListener('load', () => {
  const ticks = Number(new URLSearchParams(location.search).get('ticks')) || 6;
  let n = 0;
  const tick = () => {
    const li = document.createElement('li');
    li.textContent = 'item ' + (++n);
    document.getElementById('list').appendChild(li);
    if (n < ticks) setTimeout(tick, 100);
    else { const p = document.createElement('p'); p.id = 'late'; document.body.appendChild(p); }
  };
  setTimeout(tick, 100);
});
</script>`))
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<!doctype html><title>Not found</title><h1>404</h1>")
	})
	mux.HandleFunc("/missing-empty", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
	})
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("/dialogs", page("Dialogs", `<script>
alert('hello');
const ok = confirm('sure?');
const name = prompt('name?');
document.title = 'Dialogs ' + ok + ' ' + name;
window.addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'stay'; });
</script>`))
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"hello": "world"}`)
	})
	mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="data.bin"`)
		w.Write(make([]byte, 1024))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/", http.StatusFound)
	})
	mux.HandleFunc("/hostile", page("Hostile", `<ul><li>a</li><li>b</li></ul>
<script>
JSON.stringify = () => '"tampered"';
Array.prototype.map = function () { return ['tampered']; };
Document.prototype.querySelectorAll = function () { return []; };
Object.defineProperty(document, 'title', {get: () => 'tampered title'});
</script>`))
	mux.HandleFunc("/popup", page("Opener", `<script>
window.addEventListener('load', () => { window.open('/', '_blank'); });
</script>`))
	mux.HandleFunc("/hop", page("Hop", `<script>
window.addEventListener('load', () => setTimeout(() => { location.href = '/'; }, 50));
</script>`))
	mux.HandleFunc("/busy", page("Busy", `<script>
window.addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0));
</script>`))
	s.Server = httptest.NewServer(mux)
	tb.Cleanup(func() {
		close(s.stop)
		s.Server.Close()
	})
	return s
}

// closedURL returns a URL on a port nothing listens on.
func closedURL(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/"
}

// testCapture is what testCaptureScript returns.
type testCapture struct {
	Title   string         `json:"title"`
	N       int            `json:"n"`
	Late    bool           `json:"late"`
	Doubled []int          `json:"doubled"`
	Arg     map[string]any `json:"arg"`
}

func decodeTestCapture(tb testing.TB, ld *pipeline.Load) testCapture {
	tb.Helper()
	var c testCapture
	if err := json.Unmarshal(ld.Capture, &c); err != nil {
		tb.Fatalf("capture is not the expected JSON: %v: %q", err, ld.Capture)
	}
	return c
}

// TestChromium_Load runs one page through a sequence of URLs, each case
// after the failure of the one before: a page must stay usable.
func TestChromium_Load(t *testing.T) {
	b := mustLaunchChromium(t, testBrowserConfig())
	site := newTestSite(t)
	page := mustNewPage(t, b)
	unreachable := closedURL(t)

	tests := []struct {
		name      string
		url       string
		timeout   time.Duration
		wantKind  pipeline.ErrorKind
		wantCode  int
		wantTitle string // of a successful capture
	}{
		{"ok", site.URL + "/", 10 * time.Second, "", 200, "Home"},
		{"404", site.URL + "/missing", 10 * time.Second, pipeline.KindHTTP, 404, ""},
		{"ok after 404", site.URL + "/", 10 * time.Second, "", 200, "Home"},
		{"404 without body", site.URL + "/missing-empty", 10 * time.Second, pipeline.KindHTTP, 404, ""},
		{"503", site.URL + "/broken", 10 * time.Second, pipeline.KindHTTP, 503, ""},
		{"json", site.URL + "/json", 10 * time.Second, pipeline.KindContentType, 200, ""},
		{"download", site.URL + "/download", 10 * time.Second, pipeline.KindContentType, 0, ""},
		{"dialogs", site.URL + "/dialogs", 10 * time.Second, "", 200, "Dialogs false null"},
		{"leaving a beforeunload page", site.URL + "/", 10 * time.Second, "", 200, "Home"},
		{"unreachable", unreachable, 10 * time.Second, pipeline.KindNavigate, 0, ""},
		{"never answers", site.URL + "/slow", 1500 * time.Millisecond, pipeline.KindTimeout, 0, ""},
		{"ok after timeout", site.URL + "/", 10 * time.Second, "", 200, "Home"},
		{"redirect", site.URL + "/redirect", 10 * time.Second, "", 200, "Home"},
		{"invalid URL", "no scheme here", 10 * time.Second, pipeline.KindInvalidURL, 0, ""},
		{"ok at the end", site.URL + "/", 10 * time.Second, "", 200, "Home"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			start := time.Now()
			ld, err := page.Load(ctx, tt.url)
			if elapsed := time.Since(start); elapsed > tt.timeout+2*time.Second {
				t.Errorf("Load took %v, want at most the timeout %v + 2s", elapsed, tt.timeout)
			}
			if got := pipeline.ErrorKindOf(err); got != tt.wantKind {
				t.Fatalf("Load(%s) error = %v (kind %q), want kind %q", tt.url, err, got, tt.wantKind)
			}
			if err != nil {
				var pe *pipeline.PageError
				if !errors.As(err, &pe) || pe.URL != tt.url {
					t.Errorf("Load error = %#v, want a *PageError for %s", err, tt.url)
				}
			}
			if tt.wantCode != 0 {
				if ld == nil {
					t.Fatalf("Load returned no Load, want HTTP status %d", tt.wantCode)
				}
				if ld.HTTPStatus != tt.wantCode {
					t.Errorf("HTTPStatus = %d, want %d", ld.HTTPStatus, tt.wantCode)
				}
			}
			if tt.wantTitle == "" {
				return
			}
			c := decodeTestCapture(t, ld)
			if c.Title != tt.wantTitle {
				t.Errorf("captured title = %q, want %q", c.Title, tt.wantTitle)
			}
			want := tt.url
			if tt.name == "redirect" {
				want = site.URL + "/"
			}
			if got := ld.FinalURL; got != want {
				t.Errorf("FinalURL = %q, want %q", got, want)
			}
			if !strings.HasPrefix(ld.ContentType, "text/html") {
				t.Errorf("ContentType = %q, want text/html", ld.ContentType)
			}
			if !strings.Contains(ld.HTML, "<title>"+tt.wantTitle) && tt.wantTitle == "Home" {
				t.Errorf("HTML = %.200q, want the page's markup", ld.HTML)
			}
			if c.Arg["probe"] != "x" {
				t.Errorf("capture arg = %v, want the configured CaptureArg", c.Arg)
			}
			if ld.Navigate <= 0 || ld.Settle <= 0 || ld.CaptureTime <= 0 || ld.Content <= 0 {
				t.Errorf("timings = %v/%v/%v/%v, want all > 0", ld.Navigate, ld.Settle, ld.CaptureTime, ld.Content)
			}
		})
	}
}

func TestChromium_LoadSettlesLateDOM(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		quiet      time.Duration
		minSettle  time.Duration
		wantLength int // <li> elements in the HTML
	}{
		// One mutation 300ms after load: seen once the quiet window is
		// longer than the gap; the wait then ends a full window after it.
		{"one late mutation", "/late", 500 * time.Millisecond, 500 * time.Millisecond, 0},
		// A mutation every 100ms for 600ms: each restarts a 200ms window,
		// so the capture waits for the last one.
		{"steady mutations", "/ticking", 200 * time.Millisecond, 400 * time.Millisecond, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testBrowserConfig()
			cfg.page.Settle, cfg.page.SettleQuiet = pipeline.SettleQuietRule, tt.quiet
			b := mustLaunchChromium(t, cfg)
			site := newTestSite(t)
			page := mustNewPage(t, b)

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ld, err := page.Load(ctx, site.URL+tt.path)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c := decodeTestCapture(t, ld); !c.Late {
				t.Errorf("capture = %+v, want the element added last", c)
			}
			if !strings.Contains(ld.HTML, `id="late"`) {
				t.Errorf("HTML lacks the late element")
			}
			if got := strings.Count(ld.HTML, "<li>"); got != tt.wantLength {
				t.Errorf("HTML has %d <li>, want %d", got, tt.wantLength)
			}
			if ld.Settle < tt.minSettle || ld.Settle > pipeline.DefaultSettleMax+time.Second {
				t.Errorf("Settle = %v, want between %v and the cap", ld.Settle, tt.minSettle)
			}
		})
	}
}

func TestChromium_LoadSettleCap(t *testing.T) {
	cfg := testBrowserConfig()
	cfg.page.SettleQuiet = 200 * time.Millisecond
	cfg.page.SettleMax = 250 * time.Millisecond
	b := mustLaunchChromium(t, cfg)
	site := newTestSite(t)
	page := mustNewPage(t, b)

	// /ticking?ticks=100 mutates for 10 s, longer than the default cap:
	// settling can only end by a cap, and it must be the 250ms one. The
	// cap is a timer in the page, which a starved renderer (a loaded
	// machine) runs late: the wait must end well before the default cap,
	// not within a fixed slack of 250ms.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ld, err := page.Load(ctx, site.URL+"/ticking?ticks=100")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if ld.Settle < 200*time.Millisecond || ld.Settle >= pipeline.DefaultSettleMax {
		t.Errorf("Settle = %v, want the 250ms cap: at least 200ms, less than the default cap %v", ld.Settle, pipeline.DefaultSettleMax)
	}
	t.Logf("settle %v", ld.Settle)
}

func TestChromium_LoadIsolatedWorld(t *testing.T) {
	t.Parallel()
	b := mustLaunchChromium(t, testBrowserConfig())
	site := newTestSite(t)
	page := mustNewPage(t, b)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ld, err := page.Load(ctx, site.URL+"/hostile")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	c := decodeTestCapture(t, ld)
	if c.Title != "Hostile" {
		t.Errorf("title = %q, want %q (the page's own getter must not be seen)", c.Title, "Hostile")
	}
	if got, want := fmt.Sprint(c.Doubled), "[2 4 6]"; got != want {
		t.Errorf("doubled = %s, want %s (Array.prototype.map patched by the page)", got, want)
	}
	// html, head, title, body, ul, li, li, script
	if c.N != 8 {
		t.Errorf("element count = %d, want 8 (querySelectorAll patched by the page)", c.N)
	}
}

func TestChromium_LoadCaptureErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		want   string
	}{
		{"throws", `(arg) => { throw new Error('capture broke'); }`, "capture broke"},
		{"not a string", `(arg) => ({a: 1})`, "want a JSON string"},
		{"syntax error", `(arg) => {`, "script threw"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testBrowserConfig()
			cfg.launch.script = tt.script
			b := mustLaunchChromium(t, cfg)
			site := newTestSite(t)
			page := mustNewPage(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ld, err := page.Load(ctx, site.URL+"/")
			if got := pipeline.ErrorKindOf(err); got != pipeline.KindCapture {
				t.Fatalf("Load error = %v (kind %q), want kind %q", err, got, pipeline.KindCapture)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load error = %v, want it to say %q", err, tt.want)
			}
			if ld == nil || ld.HTTPStatus != 200 {
				t.Errorf("Load = %+v, want the partial load with status 200", ld)
			}
		})
	}
}

func TestChromium_LoadNavigationDuringSettle(t *testing.T) {
	t.Parallel()
	b := mustLaunchChromium(t, testBrowserConfig())
	site := newTestSite(t)
	page := mustNewPage(t, b)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ld, err := page.Load(ctx, site.URL+"/hop")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if c := decodeTestCapture(t, ld); c.Title != "Home" {
		t.Errorf("title = %q, want the page the script navigated to", c.Title)
	}
	if got, want := ld.FinalURL, site.URL+"/"; got != want {
		t.Errorf("FinalURL = %q, want %q", got, want)
	}
}

func TestChromium_LoadClosesPopups(t *testing.T) {
	t.Parallel()
	b := mustLaunchChromium(t, testBrowserConfig())
	site := newTestSite(t)
	page := mustNewPage(t, b)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := page.Load(ctx, site.URL+"/popup"); err != nil {
		t.Fatalf("Load: %v", err)
	}
	bctx := page.(*pwPage).activeTab().context
	deadline := time.Now().Add(5 * time.Second)
	for len(bctx.Pages()) > 1 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := len(bctx.Pages()); got != 1 {
		t.Errorf("context has %d pages, want 1 (the popup closed)", got)
	}
}

// TestChromium_LoadStuckRenderer: a page that spins forever blocks every
// script; pipeline.Load must still return near its deadline, and the page is then
// dead. It has a browser of its own: the spinning renderer must not take a
// core from the other tests for as long as the shared browser lives.
func TestChromium_LoadStuckRenderer(t *testing.T) {
	b := mustLaunchOwnChromium(t, testBrowserConfig())
	site := newTestSite(t)
	page := mustNewPage(t, b)

	const timeout = 2 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	_, err := page.Load(ctx, site.URL+"/busy")
	if elapsed := time.Since(start); elapsed > timeout+2*time.Second {
		t.Errorf("Load took %v, want at most %v + 2s", elapsed, timeout)
	}
	if got := pipeline.ErrorKindOf(err); got != pipeline.KindTimeout {
		t.Fatalf("Load error = %v (kind %q), want %q", err, got, pipeline.KindTimeout)
	}
	_, err = page.Load(context.Background(), site.URL+"/")
	if got := pipeline.ErrorKindOf(err); got != pipeline.KindBrowser {
		t.Errorf("Load after an abandoned load: error = %v (kind %q), want %q", err, got, pipeline.KindBrowser)
	}

	// The browser still hands out working pages.
	fresh := mustNewPage(t, b)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel2()
	if _, err := fresh.Load(ctx2, site.URL+"/"); err != nil {
		t.Errorf("Load on a new page: %v", err)
	}
}

func TestChromium_LoadCanceled(t *testing.T) {
	b := mustLaunchChromium(t, testBrowserConfig())
	site := newTestSite(t)
	page := mustNewPage(t, b)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := page.Load(ctx, site.URL+"/slow")
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Load took %v after cancel at 300ms, want it to return promptly", elapsed)
	}
	if got := pipeline.ErrorKindOf(err); got != pipeline.KindCanceled {
		t.Errorf("Load error = %v (kind %q), want %q", err, got, pipeline.KindCanceled)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%v, context.Canceled) = false, want true", err)
	}
}

func TestChromium_LoadCrash(t *testing.T) {
	// A long settle keeps the renderer busy with this page when it crashes.
	cfg := testBrowserConfig()
	cfg.page.Settle, cfg.page.SettleQuiet, cfg.page.SettleMax = pipeline.SettleQuietRule, 3*time.Second, 3*time.Second
	// No network policy: a policy class change opens a fresh context at
	// the load, and the crash must reach the tab taken below.
	cfg.page.Network.AllowPrivate = true
	b := mustLaunchChromium(t, cfg)
	site := newTestSite(t)
	page := mustNewPage(t, b)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tab := page.(*pwPage).activeTab()
	crashed := make(chan time.Time, 1)
	go func() {
		// Crash the renderer once it holds the page (on a busy machine the
		// navigation may take longer than any fixed delay, and a crash
		// before it commits would hit the blank page's renderer, which
		// the navigation then leaves), while the long settle goes on.
		for !strings.HasPrefix(tab.mainFrame.URL(), site.URL) {
			if ctx.Err() != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond)
		crashed <- time.Now()
		// Page.crash never answers: its target is gone.
		go tab.cdp.Send("Page.crash", map[string]any{})
	}()
	_, err := page.Load(ctx, site.URL+"/")
	if got := pipeline.ErrorKindOf(err); got != pipeline.KindBrowser {
		t.Fatalf("Load during a crash: error = %v (kind %q), want %q", err, got, pipeline.KindBrowser)
	}
	select {
	case at := <-crashed:
		if late := time.Since(at); late > 2500*time.Millisecond {
			t.Errorf("Load returned %v after the crash, want it to notice within 2.5s (the settle had 3s to go)", late)
		}
	default:
		t.Errorf("Load returned (%v) before the page's renderer was crashed", err)
	}
	var pe *pipeline.PageError
	if !errors.As(err, &pe) || !pe.Transient() {
		t.Errorf("a crash should be transient: %v", err)
	}
	_, err = page.Load(ctx, site.URL+"/")
	if got := pipeline.ErrorKindOf(err); got != pipeline.KindBrowser {
		t.Errorf("Load on a crashed page: error = %v (kind %q), want %q", err, got, pipeline.KindBrowser)
	}
	fresh := mustNewPage(t, b)
	if _, err := fresh.Load(ctx, site.URL+"/"); err != nil {
		t.Errorf("Load on a new page after a crash: %v", err)
	}
}

func TestChromium_BrowserPages(t *testing.T) {
	t.Parallel()
	b := mustLaunchChromium(t, testBrowserConfig())
	if v := b.Version(); !strings.Contains(v, ".") {
		t.Errorf("Version() = %q, want a dotted version", v)
	}
	site := newTestSite(t)

	// Pages are independent: several load at once.
	const n = 4
	errs := make(chan error, n)
	for i := range n {
		p := mustNewPage(t, b)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			ld, err := p.Load(ctx, site.URL+"/ticking")
			if err == nil {
				var c testCapture
				if err = json.Unmarshal(ld.Capture, &c); err == nil && !c.Late {
					err = fmt.Errorf("page %d: late element missing", i)
				}
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}

	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.NewPage(canceled, b.page); !errors.Is(err, context.Canceled) {
		t.Errorf("NewPage(canceled ctx) = %v, want context.Canceled", err)
	}
}

func TestChromium_Viewport(t *testing.T) {
	t.Parallel()
	cfg := testBrowserConfig()
	cfg.page.ViewportWidth, cfg.page.ViewportHeight = 800, 600
	cfg.launch.script = `() => JSON.stringify({w: innerWidth, h: innerHeight})`
	b := mustLaunchChromium(t, cfg)
	site := newTestSite(t)
	page := mustNewPage(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ld, err := page.Load(ctx, site.URL+"/")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if got, want := string(ld.Capture), `{"w":800,"h":600}`; got != want {
		t.Errorf("viewport = %s, want %s", got, want)
	}
}

// TestChromium_LoadDomCapture runs the real capture script of package dom,
// on the hostile page too: its record must decode.
func TestChromium_LoadDomCapture(t *testing.T) {
	t.Parallel()
	b := mustLaunchChromium(t, defaultTestConfig())
	site := newTestSite(t)
	page := mustNewPage(t, b)
	for _, path := range []string{"/", "/hostile"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		ld, err := page.Load(ctx, site.URL+path)
		cancel()
		if err != nil {
			t.Fatalf("Load(%s): %v", path, err)
		}
		c, err := dom.Parse(ld.Capture)
		if err != nil {
			t.Fatalf("dom.Parse(capture of %s): %v", path, err)
		}
		if c.Page.URL != site.URL+path || c.Page.ViewportWidth != pipeline.DefaultViewportWidth || len(c.Nodes) == 0 {
			t.Errorf("capture of %s: page %+v with %d nodes, want its URL, a %dpx viewport and nodes",
				path, c.Page, len(c.Nodes), pipeline.DefaultViewportWidth)
		}
	}
}

// TestChromium_JSHeapBound: a page that fills its heap crashes its
// renderer once the heap reaches Config.MaxJSHeapMB, well before V8's own
// limit (4 GiB here, 20 s and more of a core to reach), and the load says
// the renderer crashed.
func TestChromium_JSHeapBound(t *testing.T) {
	cfg := defaultTestConfig()
	cfg.launch.MaxJSHeapMB = 128
	b := mustLaunchOwnChromium(t, cfg)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err = mustNewPage(t, b).Load(ctx, srv.URL+"/faults/crash")
	t.Logf("crashed after %v: %v", time.Since(start).Round(time.Millisecond), err)
	if got := pipeline.ErrorKindOf(err); got != pipeline.KindBrowser || !strings.Contains(err.Error(), "crashed") {
		t.Errorf("Load of a page that fills a 128 MiB heap: %v (kind %q), want the renderer crashed (%q)", err, got, pipeline.KindBrowser)
	}
}

// TestConfig_jsHeapMB: 0 is the default bound, a negative value none.
func TestConfig_jsHeapMB(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want int }{{0, DefaultMaxJSHeapMB}, {-1, 0}, {256, 256}} {
		if got := (Config{MaxJSHeapMB: tt.in}).jsHeapMB(); got != tt.want {
			t.Errorf("MaxJSHeapMB %d: bound %d, want %d", tt.in, got, tt.want)
		}
	}
}
