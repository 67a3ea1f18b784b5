package browser

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"actionspace/pipeline"
)

// evidenceSite serves a static page, and a page whose content arrives from
// a request of its own origin that takes 2 s, during which its DOM is
// quiet. (At 900 ms, a loaded make test once took long enough between the
// load event and the quiet rule's start that the rule caught the content.)
func evidenceSite(tb testing.TB) *httptest.Server {
	tb.Helper()
	mux := http.NewServeMux()
	page := func(title, body string) http.HandlerFunc {
		return htmlHandler(fmt.Sprintf("<!doctype html><html><head><title>%s</title></head><body>%s</body></html>", title, body))
	}
	mux.HandleFunc("/static", page("Static", `<h1>Static</h1><a href="/a">A</a>`))
	mux.HandleFunc("/fetching", page("Fetching", `<main id="root">loading</main>
<script>
window.addEventListener('load', () => {
  fetch('/data').then((r) => r.text()).then((text) => {
    const p = document.createElement('p');
    p.id = 'late';
    p.textContent = text;
    document.body.appendChild(p);
  });
});
</script>`))
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
		io.WriteString(w, "arrived")
	})
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv
}

// TestChromium_LoadSettleEvidence: settling on evidence waits for a
// request of the page's own origin that the quiet-DOM rule does not see
// (the DOM is quiet while it is pending), and captures a page that is
// done sooner than the quiet rule's 500 ms of quiet.
func TestChromium_LoadSettleEvidence(t *testing.T) {
	site := evidenceSite(t)
	tests := []struct {
		settle    string
		url       string
		wantLate  bool
		maxSettle time.Duration // 0: no bound checked
		minSettle time.Duration
	}{
		{pipeline.SettleQuietRule, "/fetching", false, 0, 0},
		{pipeline.SettleEvidence, "/fetching", true, 0, 0},
		{pipeline.SettleQuietRule, "/static", false, 0, pipeline.DefaultSettleQuiet},
		// Well within the quiet rule's 500 ms window (about 90 ms here):
		// a rule that waited 500 ms of quiet from the document's last
		// change, not 100, settles at about 490 ms and is caught. One of
		// loadSettled's tries within the bound passes, so a loaded
		// machine's stall of one load does not fail it.
		{pipeline.SettleEvidence, "/static", false, pipeline.DefaultSettleQuiet / 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.settle+tt.url, func(t *testing.T) {
			ld, c := loadSettled(t, tt.settle, site.URL+tt.url, 3*time.Second, tt.minSettle, tt.maxSettle)
			if c.Late != tt.wantLate {
				t.Errorf("captured the content that came with the request: %v, want %v (settled in %v)", c.Late, tt.wantLate, ld.Settle)
			}
		})
	}
}

// loadSettled loads url on a page of the shared Chromium that settles by
// rule, at most settleMax, and checks that settling took at least
// minSettle and at most maxSettle (0: no bound). A load over maxSettle is
// tried again (fastestWithin), and one within it passes: a loaded machine
// can stall any one load, but a rule that waits longer than the bound (for
// the quiet rule's window, for a poller) is over it every time.
func loadSettled(t *testing.T, rule, url string, settleMax, minSettle, maxSettle time.Duration) (*pipeline.Load, testCapture) {
	t.Helper()
	cfg := testBrowserConfig()
	cfg.page.Settle = rule
	cfg.page.SettleMax = settleMax
	b := mustLaunchChromium(t, cfg)
	var ld *pipeline.Load
	fastest := fastestWithin(maxSettle, func() time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), settleMax+15*time.Second)
		defer cancel()
		var err error
		if ld, err = mustNewPage(t, b).Load(ctx, url); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s: settled in %v", rule, url, ld.Settle)
		return ld.Settle
	})
	if maxSettle > 0 && fastest > maxSettle {
		t.Errorf("settled in %v at the fastest of %d loads; want less than %v", fastest, boundTries, maxSettle)
	}
	if ld.Settle < minSettle {
		t.Errorf("settled in %v, want at least %v", ld.Settle, minSettle)
	}
	return ld, decodeTestCapture(t, ld)
}

// htmlHandler serves doc as an HTML page.
func htmlHandler(doc string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, doc)
	}
}

// timerSite serves pages whose timers settling on evidence must see, or
// must not wait for: a render 300 ms after DOMContentLoaded, a page built
// by a chain of six timers, pollers that never end, timers cleared before
// they fire, a page that sets a fresh timer forever, and a page that
// checks that its timers behave as the browser's own do.
func timerSite(tb testing.TB) *httptest.Server {
	tb.Helper()
	mux := http.NewServeMux()
	page := func(title, script string) http.HandlerFunc {
		return htmlHandler(fmt.Sprintf("<!doctype html><html><head><title>%s</title><script>%s</script></head><body><h1>%s</h1></body></html>", title, script, title))
	}
	const late = `const late = () => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'late'; document.body.appendChild(p); };`
	mux.HandleFunc("/timer", page("Timer", late+`
document.addEventListener('DOMContentLoaded', () => { setTimeout(late, 300); });`))
	mux.HandleFunc("/steps", page("Steps", late+`
document.addEventListener('DOMContentLoaded', () => {
  let n = 0;
  (function step() {
    document.body.appendChild(document.createElement('section'));
    if (++n < 6) setTimeout(step, 150); else late();
  })();
});`))
	mux.HandleFunc("/pollers", page("Pollers", `let polls = 0;
setInterval(() => { polls++; }, 50);
(function poll() { polls++; setTimeout(poll, 50); })();`))
	mux.HandleFunc("/cleared", page("Cleared", late+`
document.addEventListener('DOMContentLoaded', () => {
  clearTimeout(setTimeout(late, 400));
  clearInterval(setTimeout(late, 400));
});`))
	mux.HandleFunc("/forever", page("Forever", `setInterval(() => { setTimeout(() => {}, 100); }, 50);`))
	mux.HandleFunc("/behaviour", page("Behaviour", `
const failed = [];
const check = (name, ok) => { if (!ok) failed.push(name); };
check('name and length', setTimeout.name === 'setTimeout' && setTimeout.length === 1 && clearTimeout.length === 0 && clearInterval.length === 0);
check('not a constructor', !('prototype' in setTimeout));
const seen = {};
const id = setTimeout(function (a, b) { seen.args = this === window && a === 'x' && b === 2 && arguments.length === 2; }, 10, 'x', 2);
check('id', typeof id === 'number' && id > 0 && Number.isInteger(id));
check('ids differ', setTimeout(() => {}, 0) !== id);
clearTimeout(setTimeout(() => { seen.cleared = true; }, 20));
clearInterval(setTimeout(() => { seen.clearedAsInterval = true; }, 20));
setTimeout('window.fromString = true;', 10);
let ticks = 0, stopped = false;
const every = setInterval(() => {
  if (++ticks === 2) { clearTimeout(every); setTimeout(() => { stopped = true; }, 30); }
}, 10);
window.addEventListener('error', (e) => { seen.thrown = e.message; e.preventDefault(); });
setTimeout(() => { throw new Error('boom'); }, 10);
let conversions = 0;
setTimeout(() => { seen.objectTimeout = true; }, { valueOf() { conversions++; return 10; } });
let illegal = false;
try { setTimeout.call({}, () => {}, 0); } catch (e) { illegal = e instanceof TypeError; }
check('illegal invocation', illegal);
// The checks wait for the interval to have ticked twice, and then for
// the time of a third tick: each tick is due an interval after the last
// one ran, so on a loaded machine the second came after the checks' 200
// ms timer. Each wait is a one-shot timer, which settling waits for.
const finish = () => {
  if (!stopped) { setTimeout(finish, 50); return; }
  check('this and arguments', seen.args === true);
  check('clearTimeout', !seen.cleared);
  check('clearInterval clears a timeout', !seen.clearedAsInterval);
  check('string handler', window.fromString === true);
  check('setInterval', ticks === 2);
  check('exception', /boom/.test(seen.thrown || ''));
  check('timeout converted once', seen.objectTimeout === true && conversions === 1);
  check('not listed', !Object.keys(window).some((k) => k.includes('actionspace')));
  document.title = failed.length ? 'failed: ' + failed.join(', ') : 'ok';
};
setTimeout(finish, 200);`))
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv
}

// TestChromium_SettleEvidenceTimers: settling on evidence waits for a
// timer that renders 300 ms after DOMContentLoaded (the quiet rule's
// window sees it too) and for a chain of timers that builds the page a
// step every 150 ms, but not for pollers (setInterval, or a chain of
// timers each set by the last), nor for timers cleared before they fire;
// a page that sets a fresh timer forever holds the capture only up to
// --settle-max. The page's timers behave as the browser's own do, under
// either rule.
func TestChromium_SettleEvidenceTimers(t *testing.T) {
	site := timerSite(t)
	const settleMax = 3 * time.Second
	tests := []struct {
		settle    string
		url       string
		wantLate  bool
		wantTitle string        // "" not checked
		maxSettle time.Duration // 0: no bound checked
		minSettle time.Duration
	}{
		{pipeline.SettleQuietRule, "/timer", true, "", 0, 0},
		{pipeline.SettleEvidence, "/timer", true, "", 0, 0},
		{pipeline.SettleQuietRule, "/steps", true, "", 0, 0},
		{pipeline.SettleEvidence, "/steps", true, "", 0, 0},
		{pipeline.SettleEvidence, "/pollers", false, "", settleMax / 2, 0},
		{pipeline.SettleEvidence, "/cleared", false, "", settleMax / 2, 0},
		{pipeline.SettleEvidence, "/forever", false, "", settleMax + time.Second, settleMax * 9 / 10},
		{pipeline.SettleQuietRule, "/behaviour", false, "ok", 0, 0},
		{pipeline.SettleEvidence, "/behaviour", false, "ok", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.settle+tt.url, func(t *testing.T) {
			ld, c := loadSettled(t, tt.settle, site.URL+tt.url, settleMax, tt.minSettle, tt.maxSettle)
			if c.Late != tt.wantLate {
				t.Errorf("captured what the timer rendered: %v, want %v (settled in %v)", c.Late, tt.wantLate, ld.Settle)
			}
			if tt.wantTitle != "" && c.Title != tt.wantTitle {
				t.Errorf("title %q, want %q", c.Title, tt.wantTitle)
			}
		})
	}
}

// TestChromium_PageTimers reads what the timer script knows of a page
// that tries to replace the script's reader: the reader still counts the
// page's pending timer (within a horizon past its due time, not within
// one before it), and gives the time of the page's last DOM change, which
// the page noted.
func TestChromium_PageTimers(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", htmlHandler(`<!doctype html><html><head><title>Timers</title><script>
try { window.`+timerKey+` = () => [0, 0]; } catch (e) {}
try { Object.defineProperty(window, '`+timerKey+`', {value: () => [0, 0]}); } catch (e) {}
try { delete window.`+timerKey+`; } catch (e) {}
document.addEventListener('DOMContentLoaded', () => {
  setTimeout(() => { document.body.appendChild(document.createElement('p')); }, 20000);
  document.body.appendChild(document.createElement('div'));
  window.lastChange = performance.now();
});
</script></head><body><h1>Timers</h1></body></html>`))
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	cfg := testBrowserConfig()
	cfg.page.Settle = pipeline.SettleEvidence
	b := mustLaunchChromium(t, cfg)
	page := mustNewPage(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := page.Load(ctx, site.URL+"/"); err != nil {
		t.Fatal(err)
	}
	tab := page.(*pwPage).activeTab()
	far, err := tab.pendingTimers(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	near, err := tab.pendingTimers(100 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if far.pending != 1 || near.pending != 0 {
		t.Errorf("pending timers within a minute: %d, within 100 ms: %d; want 1 and 0", far.pending, near.pending)
	}
	res, err := tab.cdp.Send("Runtime.evaluate", map[string]any{"expression": "window.lastChange", "returnByValue": true})
	if err != nil {
		t.Fatal(err)
	}
	noted, _ := dig(res, "result", "value").(float64)
	if noted <= 0 || far.changed < noted || far.changed-noted > 50 {
		t.Errorf("last DOM change at %.1f ms, want just after the %.1f ms the page noted", far.changed, noted)
	}
}
