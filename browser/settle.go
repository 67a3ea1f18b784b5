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
// checks in a row, and the DOM has gone quiet ms without a mutation; or
// {settled: false, mutations} after max ms. It checks every 20 ms with a
// timer, which runs in a page that draws no frames too.
const evidenceScript = `(quiet, max) => new Promise((resolve) => {
  let mutations = 0, last = performance.now(), fonts = false, size = '', same = 0, done = false;
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
})`

// requestWatch counts the requests of a tab's page that are pending,
// by URL, for SettleEvidence.
type requestWatch struct {
	mu      sync.Mutex
	pending map[playwright.Request]string
}

// watchRequests starts counting tab's pending requests when the page
// settles on evidence; tab.requests stays nil otherwise (no request
// events are asked for).
func (p *pwPage) watchRequests(tab *pwTab) {
	if p.cfg.Settle != pipeline.SettleEvidence {
		return
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

// settle waits, in the isolated world, until the page is quiet enough to
// capture by the page config's rule, or capAt has passed: the DOM quiet
// for quiet (SettleQuietRule), or every signal of SettleEvidence. It
// returns what the settle script returned ({settled, mutations}).
func (p *pwPage) settle(ctx context.Context, tab *pwTab, world float64, quiet, capAt time.Duration) (any, error) {
	if p.cfg.Settle != pipeline.SettleEvidence || tab.requests == nil {
		expr := fmt.Sprintf("(%s)(%d, %d)", settleScript, quiet.Milliseconds(), capAt.Milliseconds())
		return tab.evaluate(world, expr, 0)
	}
	deadline := time.Now().Add(capAt)
	quiet = min(quiet, pipeline.EvidenceQuiet)
	origin := originOf(tab.page.URL())
	for {
		left := time.Until(deadline)
		expr := fmt.Sprintf("(%s)(%d, %d)", evidenceScript, quiet.Milliseconds(), max(0, left.Milliseconds()))
		res, err := tab.evaluate(world, expr, 0)
		if err != nil {
			return nil, err
		}
		if settled, _ := dig(res, "settled").(bool); !settled || tab.requests.sameOrigin(origin) == 0 {
			return res, nil
		}
		// The page still waits on its own origin: wait for the requests,
		// then for quiet again.
		for tab.requests.sameOrigin(origin) > 0 {
			if time.Now().After(deadline) {
				return map[string]any{"settled": false, "pending": tab.requests.sameOrigin(origin)}, nil
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
}
