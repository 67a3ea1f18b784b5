package pipeline

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

	"actionspace/dom"
)

func TestBrowserConfig_Validate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*BrowserConfig)
		want   string // substring of the error; "" for none
	}{
		{"default", func(*BrowserConfig) {}, ""},
		{"zero values mean defaults", func(c *BrowserConfig) { *c = BrowserConfig{CaptureScript: "(a) => ''"} }, ""},
		{"negative width", func(c *BrowserConfig) { c.ViewportWidth = -1 }, "viewport width"},
		{"negative height", func(c *BrowserConfig) { c.ViewportHeight = -5 }, "viewport height"},
		{"no script", func(c *BrowserConfig) { c.CaptureScript = "" }, "capture script"},
		{"negative quiet", func(c *BrowserConfig) { c.SettleQuiet = -time.Second }, "settle quiet"},
		{"negative max", func(c *BrowserConfig) { c.SettleMax = -time.Second }, "settle max"},
		{"max below quiet", func(c *BrowserConfig) { c.SettleQuiet, c.SettleMax = time.Second, 500*time.Millisecond }, "settle max"},
		{"unmarshalable arg", func(c *BrowserConfig) { c.CaptureArg = func() {} }, "capture arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultBrowserConfig()
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

func TestBrowserConfig_withDefaults(t *testing.T) {
	got := BrowserConfig{}.withDefaults()
	if got.ChromiumPath != DefaultChromiumPath || got.ViewportWidth != DefaultViewportWidth ||
		got.ViewportHeight != DefaultViewportHeight || got.SettleQuiet != DefaultSettleQuiet ||
		got.SettleMax != DefaultSettleMax || got.Logger == nil {
		t.Errorf("BrowserConfig{}.withDefaults() = %+v, want every default filled in", got)
	}
}

func TestErrorKindOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want ErrorKind
	}{
		{"nil", nil, ""},
		{"page error", &PageError{Kind: KindHTTP, URL: "http://x/", Err: errors.New("HTTP 404")}, KindHTTP},
		{"wrapped page error", fmt.Errorf("attempt 2: %w", &PageError{Kind: KindNavigate, Err: errors.New("x")}), KindNavigate},
		{"deadline", fmt.Errorf("load: %w", context.DeadlineExceeded), KindTimeout},
		{"canceled", context.Canceled, KindCanceled},
		{"playwright timeout", fmt.Errorf("%w: %w: Timeout 30000ms exceeded.", playwright.ErrPlaywright, playwright.ErrTimeout), KindTimeout},
		{"target closed", fmt.Errorf("%w: Target page, context or browser has been closed", playwright.ErrTargetClosed), KindBrowser},
		{"crash", errors.New("Navigation failed because page crashed!"), KindBrowser},
		{"net error", errors.New("net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/"), KindNavigate},
		{"download", errors.New("Download is starting"), KindContentType},
		{"unknown", errors.New("something else"), KindCapture},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ErrorKindOf(tt.err); got != tt.want {
				t.Errorf("ErrorKindOf(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func TestPageError_Transient(t *testing.T) {
	tests := []struct {
		err  *PageError
		want bool
	}{
		{&PageError{Kind: KindTimeout}, true},
		{&PageError{Kind: KindNavigate}, true},
		{&PageError{Kind: KindBrowser}, true},
		{&PageError{Kind: KindHTTP, Err: &statusError{code: 503}}, true},
		{&PageError{Kind: KindHTTP, Err: &statusError{code: 404}}, false},
		{&PageError{Kind: KindContentType}, false},
		{&PageError{Kind: KindCapture}, false},
		{&PageError{Kind: KindInvalidURL}, false},
		{&PageError{Kind: KindCanceled}, false},
	}
	for _, tt := range tests {
		if got := tt.err.Transient(); got != tt.want {
			t.Errorf("%s (%v).Transient() = %v, want %v", tt.err.Kind, tt.err.Err, got, tt.want)
		}
	}
}

func TestPageError_Error(t *testing.T) {
	cause := context.DeadlineExceeded
	err := error(&PageError{Kind: KindNavigate, URL: "http://a.test/", Err: fmt.Errorf("navigate: %w", cause)})
	if got, want := err.Error(), "navigate http://a.test/: navigate: context deadline exceeded"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(%v, %v) = false, want true", err, cause)
	}
	long := pageError("http://a.test/", "navigate", KindNavigate,
		fmt.Errorf("%w: net::ERR_NAME_NOT_RESOLVED at http://a.test/\nCall log:\n  - navigating", playwright.ErrPlaywright))
	if got, want := long.Error(), "navigate http://a.test/: navigate: net::ERR_NAME_NOT_RESOLVED at http://a.test/"; got != want {
		t.Errorf("pageError(…).Error() = %q, want %q", got, want)
	}
	if !errors.Is(long, playwright.ErrPlaywright) {
		t.Errorf("pageError lost the cause chain")
	}
}

func TestIsHTML(t *testing.T) {
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

func TestLaunchChromium_Errors(t *testing.T) {
	tests := []struct {
		name string
		cfg  BrowserConfig
		want string
	}{
		{"invalid config", BrowserConfig{}, "capture script"},
		{"no such chromium", BrowserConfig{CaptureScript: "(a) => ''", ChromiumPath: "/nonexistent/chromium"}, "/nonexistent/chromium"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := LaunchChromium(context.Background(), tt.cfg)
			if err == nil {
				b.Close()
				t.Fatalf("LaunchChromium succeeded, want an error naming %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LaunchChromium error = %v, want it to name %q", err, tt.want)
			}
		})
	}
}

func TestLaunchChromium_NoDriver(t *testing.T) {
	t.Setenv("PLAYWRIGHT_DRIVER_PATH", t.TempDir())
	cfg := testBrowserConfig()
	cfg.ChromiumPath = "/bin/sh" // exists; never launched
	b, err := LaunchChromium(context.Background(), cfg)
	if err == nil {
		b.Close()
		t.Fatal("LaunchChromium succeeded without a driver")
	}
	if !strings.Contains(err.Error(), "make setup") {
		t.Errorf("LaunchChromium error = %v, want it to say to run make setup", err)
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
  let n = 0;
  const tick = () => {
    const li = document.createElement('li');
    li.textContent = 'item ' + (++n);
    document.getElementById('list').appendChild(li);
    if (n < 6) setTimeout(tick, 100);
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

func decodeTestCapture(tb testing.TB, ld *Load) testCapture {
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
		wantKind  ErrorKind
		wantCode  int
		wantTitle string // of a successful capture
	}{
		{"ok", site.URL + "/", 10 * time.Second, "", 200, "Home"},
		{"404", site.URL + "/missing", 10 * time.Second, KindHTTP, 404, ""},
		{"ok after 404", site.URL + "/", 10 * time.Second, "", 200, "Home"},
		{"404 without body", site.URL + "/missing-empty", 10 * time.Second, KindHTTP, 404, ""},
		{"503", site.URL + "/broken", 10 * time.Second, KindHTTP, 503, ""},
		{"json", site.URL + "/json", 10 * time.Second, KindContentType, 200, ""},
		{"download", site.URL + "/download", 10 * time.Second, KindContentType, 0, ""},
		{"dialogs", site.URL + "/dialogs", 10 * time.Second, "", 200, "Dialogs false null"},
		{"leaving a beforeunload page", site.URL + "/", 10 * time.Second, "", 200, "Home"},
		{"unreachable", unreachable, 10 * time.Second, KindNavigate, 0, ""},
		{"never answers", site.URL + "/slow", 1500 * time.Millisecond, KindTimeout, 0, ""},
		{"ok after timeout", site.URL + "/", 10 * time.Second, "", 200, "Home"},
		{"redirect", site.URL + "/redirect", 10 * time.Second, "", 200, "Home"},
		{"invalid URL", "no scheme here", 10 * time.Second, KindInvalidURL, 0, ""},
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
			if got := ErrorKindOf(err); got != tt.wantKind {
				t.Fatalf("Load(%s) error = %v (kind %q), want kind %q", tt.url, err, got, tt.wantKind)
			}
			if err != nil {
				var pe *PageError
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
			cfg.SettleQuiet = tt.quiet
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
			if ld.Settle < tt.minSettle || ld.Settle > DefaultSettleMax+time.Second {
				t.Errorf("Settle = %v, want between %v and the cap", ld.Settle, tt.minSettle)
			}
		})
	}
}

func TestChromium_LoadSettleCap(t *testing.T) {
	cfg := testBrowserConfig()
	cfg.SettleQuiet = 200 * time.Millisecond
	cfg.SettleMax = 250 * time.Millisecond
	b := mustLaunchChromium(t, cfg)
	site := newTestSite(t)
	page := mustNewPage(t, b)

	// /ticking mutates for 600ms, so its natural end is 800ms or more after
	// load; the cap ends the wait at 250ms (allowing for a loaded machine).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ld, err := page.Load(ctx, site.URL+"/ticking")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if ld.Settle < 200*time.Millisecond || ld.Settle > 700*time.Millisecond {
		t.Errorf("Settle = %v, want about the 250ms cap", ld.Settle)
	}
}

func TestChromium_LoadIsolatedWorld(t *testing.T) {
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
			cfg.CaptureScript = tt.script
			b := mustLaunchChromium(t, cfg)
			site := newTestSite(t)
			page := mustNewPage(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ld, err := page.Load(ctx, site.URL+"/")
			if got := ErrorKindOf(err); got != KindCapture {
				t.Fatalf("Load error = %v (kind %q), want kind %q", err, got, KindCapture)
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
// script; Load must still return near its deadline, and the page is then
// dead.
func TestChromium_LoadStuckRenderer(t *testing.T) {
	b := mustLaunchChromium(t, testBrowserConfig())
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
	if got := ErrorKindOf(err); got != KindTimeout {
		t.Fatalf("Load error = %v (kind %q), want %q", err, got, KindTimeout)
	}
	_, err = page.Load(context.Background(), site.URL+"/")
	if got := ErrorKindOf(err); got != KindBrowser {
		t.Errorf("Load after an abandoned load: error = %v (kind %q), want %q", err, got, KindBrowser)
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
	if got := ErrorKindOf(err); got != KindCanceled {
		t.Errorf("Load error = %v (kind %q), want %q", err, got, KindCanceled)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is(%v, context.Canceled) = false, want true", err)
	}
}

func TestChromium_LoadCrash(t *testing.T) {
	// A long settle keeps the renderer busy with this page when it crashes.
	cfg := testBrowserConfig()
	cfg.SettleQuiet, cfg.SettleMax = 3*time.Second, 3*time.Second
	b := mustLaunchChromium(t, cfg)
	site := newTestSite(t)
	page := mustNewPage(t, b)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	time.AfterFunc(500*time.Millisecond, func() {
		// Page.crash never answers: its target is gone.
		go page.(*pwPage).activeTab().cdp.Send("Page.crash", map[string]any{})
	})
	start := time.Now()
	_, err := page.Load(ctx, site.URL+"/")
	if got := ErrorKindOf(err); got != KindBrowser {
		t.Fatalf("Load during a crash: error = %v (kind %q), want %q", err, got, KindBrowser)
	}
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("Load took %v to notice the crash at 500ms", elapsed)
	}
	var pe *PageError
	if !errors.As(err, &pe) || !pe.Transient() {
		t.Errorf("a crash should be transient: %v", err)
	}
	_, err = page.Load(ctx, site.URL+"/")
	if got := ErrorKindOf(err); got != KindBrowser {
		t.Errorf("Load on a crashed page: error = %v (kind %q), want %q", err, got, KindBrowser)
	}
	fresh := mustNewPage(t, b)
	if _, err := fresh.Load(ctx, site.URL+"/"); err != nil {
		t.Errorf("Load on a new page after a crash: %v", err)
	}
}

func TestChromium_BrowserPages(t *testing.T) {
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
	if _, err := b.NewPage(canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("NewPage(canceled ctx) = %v, want context.Canceled", err)
	}
}

func TestChromium_Viewport(t *testing.T) {
	cfg := testBrowserConfig()
	cfg.ViewportWidth, cfg.ViewportHeight = 800, 600
	cfg.CaptureScript = `() => JSON.stringify({w: innerWidth, h: innerHeight})`
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
	b := mustLaunchChromium(t, DefaultBrowserConfig())
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
		if c.Page.URL != site.URL+path || c.Page.ViewportWidth != DefaultViewportWidth || len(c.Nodes) == 0 {
			t.Errorf("capture of %s: page %+v with %d nodes, want its URL, a %dpx viewport and nodes",
				path, c.Page, len(c.Nodes), DefaultViewportWidth)
		}
	}
}
