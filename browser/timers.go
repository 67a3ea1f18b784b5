package browser

import (
	"fmt"
	"time"

	"github.com/mxschmitt/playwright-go"
)

// Timers under SettleEvidence: a page that renders from a timer (a
// single-page app filling in 300 ms after DOMContentLoaded) shows no
// other sign of being busy while the timer is pending: no request, no
// mutation, a stable layout. The quiet-DOM rule sees its change when the
// timer fires within the quiet window; evidence needs to know the timer
// is there. timerScript, run in the page's main world before any of the
// page's scripts (page timers live there, not in the capture's isolated
// world), counts the page's pending one-shot timers.
const (
	// timerKey names the main-world property that holds the count's
	// reader: non-enumerable (Object.keys and for-in do not list it),
	// non-writable and non-configurable, defined before any page script
	// runs, so a page can find and call it but not replace it.
	timerKey = "__actionspaceTimers"
	// timerChain is how many timers in a chain count, a chain being a
	// timer set while the previous one's callback runs: a render that
	// goes through a timer or two counts, a poller that sets its next
	// timer forever stops counting after this many.
	timerChain = 3
)

// timerScript wraps setTimeout, clearTimeout and clearInterval in the
// main world, in a closure whose state the page cannot reach, and defines
// window[timerKey](horizon): the number of pending setTimeout timers with
// a function callback, at most timerChain deep in a chain, due within
// horizon ms. setInterval is not wrapped: a poller never ends, and must
// not hold the capture. The wrappers keep what a page sees of its timers:
// the callback runs with the same this and arguments, setTimeout returns
// the browser's id, clearTimeout and clearInterval clear as before (either
// clears either kind), a string callback and a timeout that is an object
// go to the browser untouched and uncounted, an exception thrown by the
// callback is thrown as before. The built-ins the wrappers need are taken
// while the document starts, before a page script can patch them; the
// pending timers live in an object without a prototype. A page that runs
// the script twice in one window (a reused initial document) keeps the
// first wrappers.
const timerScript = `(() => {
  const KEY = %q, CHAIN = %d;
  if (Object.getOwnPropertyDescriptor(window, KEY)) return;
  const apply = Reflect.apply, now = performance.now.bind(performance);
  const nativeSet = window.setTimeout, nativeClearTimeout = window.clearTimeout, nativeClearInterval = window.clearInterval;
  const pending = Object.create(null);
  let depth = 0;
  const forget = (id) => {
    if (typeof id === 'number' || typeof id === 'string') delete pending[+id];
  };
  const wrappers = {
    setTimeout(handler) {
      const timeout = arguments[1];
      const kind = typeof timeout;
      if (typeof handler !== 'function' || (timeout !== null && (kind === 'object' || kind === 'function' || kind === 'symbol'))) {
        return apply(nativeSet, this, arguments);
      }
      const delay = +timeout > 0 ? +timeout : 0;
      const gen = depth + 1;
      let id = 0;
      const args = [function () {
        forget(id);
        const outer = depth;
        depth = gen;
        try {
          return apply(handler, this, arguments);
        } finally {
          depth = outer;
        }
      }];
      for (let i = 1; i < arguments.length; i++) args[i] = arguments[i];
      id = apply(nativeSet, this, args);
      if (gen <= CHAIN && typeof id === 'number') pending[id] = now() + delay;
      return id;
    },
    clearTimeout() {
      forget(arguments[0]);
      return apply(nativeClearTimeout, this, arguments);
    },
    clearInterval() {
      forget(arguments[0]);
      return apply(nativeClearInterval, this, arguments);
    },
  };
  window.setTimeout = wrappers.setTimeout;
  window.clearTimeout = wrappers.clearTimeout;
  window.clearInterval = wrappers.clearInterval;
  Object.defineProperty(window, KEY, {
    value: (horizon) => {
      const until = now() + horizon;
      let n = 0;
      for (const id in pending) if (pending[id] <= until) n++;
      return n;
    },
    enumerable: false, writable: false, configurable: false,
  });
})()`

// trackTimers adds timerScript to tab's page: every document loaded in it
// from now on counts its timers.
func trackTimers(tab *pwTab) error {
	script := fmt.Sprintf(timerScript, timerKey, timerChain)
	if err := tab.page.AddInitScript(playwright.Script{Content: &script}); err != nil {
		return fmt.Errorf("add the timer script: %w", err)
	}
	return nil
}

// pendingTimers is the number of timers the main frame's document has
// pending (see timerScript) due within horizon; 0 when the document has no
// count (it was not loaded in a tab that tracks timers). It reads the
// count in the main world, where a page cannot change what the reader
// returns, only call it.
func (t *pwTab) pendingTimers(horizon time.Duration) (int, error) {
	expr := fmt.Sprintf("(() => { const f = window[%q]; return typeof f === 'function' ? f(%d) : 0; })()", timerKey, horizon.Milliseconds())
	res, err := t.cdp.Send("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	if err != nil {
		return 0, fmt.Errorf("count the page's timers: %w", err)
	}
	n, _ := dig(res, "result", "value").(float64)
	return int(n), nil
}
