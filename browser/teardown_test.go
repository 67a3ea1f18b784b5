package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/pipeline"
)

// hostilePages serves pages that keep their renderer busy after their load
// failed, each calling /beacon every 50 ms while its scripts run, and a
// plain page. Their loads never end: an image of theirs never comes.
type hostilePages struct {
	*httptest.Server
	beacons atomic.Int64
}

func newHostilePages(tb testing.TB) *hostilePages {
	h := &hostilePages{}
	mux := http.NewServeMux()
	page := func(script string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Hostile</title></head><body><script>
setInterval(() => fetch('/beacon').catch(() => {}), 50);
%s
</script><img src="/never"></body></html>`, script)
		}
	}
	mux.HandleFunc("/beacon", func(w http.ResponseWriter, r *http.Request) { h.beacons.Add(1) })
	mux.HandleFunc("/never", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	// The history flood of TestRun_UnlistedFaults, started at once.
	mux.HandleFunc("/history-flood", page(`let i = 0; setInterval(() => history.pushState({}, '', '?s=' + (i++)), 1);`))
	// Scripts that hold the main thread 200 ms of every 200 ms.
	mux.HandleFunc("/spin", page(`setInterval(() => { const end = Date.now() + 200; while (Date.now() < end); }, 0);`))
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Plain</title></head><body><button>Go</button></body></html>`)
	})
	h.Server = httptest.NewServer(mux)
	tb.Cleanup(h.Close)
	return h
}

// beaconsIn counts the beacons that arrive within d.
func (h *hostilePages) beaconsIn(d time.Duration) int64 {
	n := h.beacons.Load()
	time.Sleep(d)
	return h.beacons.Load() - n
}

// quietLate bounds how long after an unacknowledged quiet the page's
// scripts may go on: the renderer of a busy machine applies the commands
// late, but it applies them.
const quietLate = 10 * time.Second

// beaconsStop waits, at most within, for a second with no beacon. It
// returns how long after the call the beacons stopped, to the second, and
// whether they did.
func (h *hostilePages) beaconsStop(within time.Duration) (time.Duration, bool) {
	start := time.Now()
	last := start
	for time.Since(start) < within {
		if h.beaconsIn(time.Second) == 0 {
			return last.Sub(start), true
		}
		last = time.Now()
	}
	return within, false
}

// failedLoad loads path in a page of b and wants it to time out; it
// returns the page and the tab the page stays in, once the page's scripts
// are seen running. A load whose timeout the browser reports more than
// the adapter's grace late is abandoned, page and all, as it should be:
// on a machine loaded enough for that (the flood keeps the browser
// process busy), it tries again in a new page, up to three times.
func (h *hostilePages) failedLoad(t *testing.T, b *testBrowser, path string) (pipeline.Page, *pwTab) {
	t.Helper()
	const tries = 3
	for try := 1; ; try++ {
		page := mustNewPage(t, b)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := page.Load(ctx, h.URL+path)
		cancel()
		if pipeline.ErrorKindOf(err) != pipeline.KindTimeout {
			t.Fatalf("Load %s: error %v (kind %q), want a timeout", path, err, pipeline.ErrorKindOf(err))
		}
		if broken := page.(*pwPage).brokenErr(); broken != nil {
			if try < tries {
				// Closed now, so that no beacon of its scripts is counted
				// as the next page's.
				_ = page.Close()
				t.Logf("try %d: %v; again in a new page", try, broken)
				continue
			}
			t.Fatalf("Load %s: the page was abandoned %d times (%v); want it kept after its timeout", path, tries, broken)
		}
		tab := page.(*pwPage).activeTab()
		if tab == nil {
			t.Fatalf("Load %s: the page was abandoned; want it kept after its timeout", path)
		}
		if h.beaconsIn(time.Second) == 0 {
			t.Fatalf("%s sent no beacon after its load failed: its scripts do not run", path)
		}
		return page, tab
	}
}

// TestChromium_QuietStopsScripts: stopping a failed tab's scripts stops
// them, with the tab still open, whether its scripts flood the history or
// hold the main thread: no beacon comes from the page after it; the
// renderer does not crash, and it takes at most quietWait.
func TestChromium_QuietStopsScripts(t *testing.T) {
	cfg := defaultTestConfig()
	cfg.page.Network.AllowPrivate = true // one tab for the whole test
	b := mustLaunchChromium(t, cfg)
	for _, path := range []string{"/history-flood", "/spin"} {
		t.Run(path[1:], func(t *testing.T) {
			h := newHostilePages(t)
			page, tab := h.failedLoad(t, b, path)
			var crashed, closed atomic.Int64
			tab.page.OnCrash(func(playwright.Page) { crashed.Add(1) })
			tab.page.OnClose(func(playwright.Page) { closed.Add(1) })

			start := time.Now()
			err := tab.quiet()
			took := time.Since(start)
			if took > quietWait+500*time.Millisecond {
				t.Errorf("quiet took %v, want at most %v", took, quietWait)
			}
			if err != nil {
				// The commands went, unacknowledged: a renderer starved by
				// a busy machine applies them late. They must still land.
				t.Logf("quiet: %v", err)
				if stopped, ok := h.beaconsStop(quietLate); !ok {
					t.Errorf("beacons still come %v after an unacknowledged quiet: the page's scripts still run", quietLate)
				} else {
					t.Logf("the page's scripts stopped %v after quiet returned", stopped.Round(time.Millisecond))
				}
			} else {
				time.Sleep(200 * time.Millisecond) // beacons already on their way
				if n := h.beaconsIn(time.Second); n != 0 {
					t.Errorf("%d beacons in the second after quiet: the page's scripts still run", n)
				}
			}
			if crashed.Load() != 0 || closed.Load() != 0 || page.(*pwPage).brokenErr() != nil {
				t.Errorf("quiet crashed or closed the page (crash %d, close %d, broken %v)", crashed.Load(), closed.Load(), page.(*pwPage).brokenErr())
			}
			t.Logf("%s: quiet took %v", path, took.Round(time.Millisecond))
		})
	}
}

// TestChromium_CloseFailedPage: closing a page whose load failed on a
// history flood returns before the pool would abandon it
// (pipeline.CloseWait) and leaves no script of it
// running, and a page that replaces a failed tab for its next load loads
// it: the stopped scripts are the failed tab's only.
func TestChromium_CloseFailedPage(t *testing.T) {
	cfg := defaultTestConfig()
	cfg.page.Network.AllowPrivate = true
	b := mustLaunchChromium(t, cfg)
	h := newHostilePages(t)

	page, _ := h.failedLoad(t, b, "/history-flood")
	start := time.Now()
	if err := page.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if took, bound := time.Since(start), pipeline.CloseWait; took > bound {
		t.Errorf("Close took %v, want at most %v", took, bound)
	} else {
		t.Logf("Close took %v", took.Round(time.Millisecond))
	}
	time.Sleep(200 * time.Millisecond)
	if n := h.beaconsIn(time.Second); n != 0 {
		t.Errorf("%d beacons in the second after Close", n)
	}

	// The tab of a failed load is stopped and replaced at the next load,
	// which goes on in a fresh tab.
	page, failed := h.failedLoad(t, b, "/spin")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ld, err := page.Load(ctx, h.URL+"/plain")
	if err != nil {
		t.Fatalf("Load after a failed load: %v", err)
	}
	if !strings.Contains(ld.HTML, "<title>Plain</title>") {
		t.Errorf("HTML %.200q, want the plain page", ld.HTML)
	}
	if page.(*pwPage).activeTab() == failed {
		t.Error("the failed tab was reused")
	}
	if n := h.beaconsIn(time.Second); n != 0 {
		t.Errorf("%d beacons from the replaced tab", n)
	}
	if err := page.(*pwPage).brokenErr(); err != nil {
		t.Errorf("the page is broken after a good load: %v", err)
	}
}
