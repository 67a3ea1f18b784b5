package browser

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/pipeline"
)

// evidenceScript resolves {settled: true, mutations} once the page shows
// quiet by every signal it gives from inside: its fonts are loaded
// (document.fonts.ready), its layout has kept the same size over three
// checks in a row, and the DOM has gone quiet ms without a mutation since
// the later of its own start and since (the page's last DOM change as
// the main world saw it, in performance.now(); -1 when unknown); or
// {settled: false, mutations} after max ms. It checks at once, then every
// 20 ms with a timer, which runs in a page that draws no frames too: the
// first check is the first of the three, so a page already quiet
// settles in about 40 ms.
const evidenceScript = `(quiet, max, since) => new Promise((resolve) => {
  let mutations = 0, last = since >= 0 ? Math.min(since, performance.now()) : performance.now(), fonts = false, size = '', same = 0, done = false;
  const observer = new MutationObserver((records) => { mutations += records.length; last = performance.now(); });
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  const finish = (settled) => {
    if (done) return;
    done = true;
    observer.disconnect();
    clearInterval(tick);
    clearTimeout(cap);
    resolve({settled, mutations});
  };
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(() => { fonts = true; }, () => { fonts = true; });
  else fonts = true;
  const check = () => {
    const el = document.documentElement;
    const s = el ? el.scrollWidth + 'x' + el.scrollHeight : '';
    same = s === size ? same + 1 : 0;
    size = s;
    if (fonts && same >= 2 && performance.now() - last >= quiet) finish(true);
  };
  const tick = setInterval(check, 20);
  const cap = setTimeout(() => finish(false), max);
  check();
})`

// requestWatch counts the requests of a tab's page that are pending,
// by URL, for SettleEvidence.
type requestWatch struct {
	mu      sync.Mutex
	pending map[playwright.Request]string
}

// watchEvidence readies tab for settling on evidence: it starts counting
// the page's pending requests and adds the timer script (see
// timerScript). A tab of a page that settles by another rule, or of a
// floor crawl, gets neither: tab.requests stays nil, no request events
// are asked for and no script is added.
func (p *pwPage) watchEvidence(tab *pwTab) error {
	if p.cfg.Settle != pipeline.SettleEvidence || p.cfg.Floor {
		return nil
	}
	if err := trackTimers(tab); err != nil {
		return err
	}
	w := &requestWatch{pending: map[playwright.Request]string{}}
	tab.requests = w
	tab.page.OnRequest(func(r playwright.Request) {
		w.mu.Lock()
		w.pending[r] = r.URL()
		w.mu.Unlock()
	})
	done := func(r playwright.Request) {
		w.mu.Lock()
		delete(w.pending, r)
		w.mu.Unlock()
	}
	tab.page.OnRequestFinished(done)
	tab.page.OnRequestFailed(done)
	return nil
}

// sameOrigin counts the pending requests of origin.
func (w *requestWatch) sameOrigin(origin string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, u := range w.pending {
		if originOf(u) == origin {
			n++
		}
	}
	return n
}

// originOf is the scheme and host (with port) of a URL; "" when it has
// none.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// settle waits until the page is quiet enough to capture by the page
// config's rule, or capAt has passed: the DOM quiet for quiet in the
// isolated world (SettleQuietRule), or every signal of SettleEvidence.
// Under evidence, a timer the page has pending counts when it is due
// within quiet: the quiet rule would have seen what it does. It returns
// what the settle script returned ({settled, mutations}), or
// {settled: false, pending} when requests or timers were still pending at
// capAt.
func (p *pwPage) settle(ctx context.Context, tab *pwTab, world float64, quiet, capAt time.Duration) (any, error) {
	if p.cfg.Settle != pipeline.SettleEvidence || tab.requests == nil {
		expr := fmt.Sprintf("(%s)(%d, %d)", settleScript, quiet.Milliseconds(), capAt.Milliseconds())
		return tab.evaluate(world, expr, 0)
	}
	deadline := time.Now().Add(capAt)
	horizon := quiet
	quiet = min(quiet, pipeline.EvidenceQuiet)
	origin := originOf(tab.page.URL())
	for {
		// The DOM's quiet counts from its last change, which the timer
		// script saw from the document's start.
		since := -1.0
		if pt, err := tab.pendingTimers(horizon); err == nil {
			since = pt.changed
		}
		left := time.Until(deadline)
		expr := fmt.Sprintf("(%s)(%d, %d, %f)", evidenceScript, quiet.Milliseconds(), max(0, left.Milliseconds()), since)
		res, err := tab.evaluate(world, expr, 0)
		if err != nil {
			return nil, err
		}
		if settled, _ := dig(res, "settled").(bool); !settled {
			return res, nil
		}
		// The page still waits on its own origin or on a timer: wait for
		// them, then for quiet again.
		waited := false
		for {
			n, err := tab.pendingWork(origin, horizon)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				break
			}
			if time.Now().After(deadline) {
				return map[string]any{"settled": false, "pending": n}, nil
			}
			waited = true
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
		if !waited {
			return res, nil
		}
	}
}

// pendingWork is the number of requests of origin and timers due within
// horizon the tab's page has pending.
func (t *pwTab) pendingWork(origin string, horizon time.Duration) (int, error) {
	timers, err := t.pendingTimers(horizon)
	if err != nil {
		return 0, err
	}
	return timers.pending + t.requests.sameOrigin(origin), nil
}
