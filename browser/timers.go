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
	// timer set while the previous one's callback runs, none of them
	// changing the DOM: a render that goes through a timer or two counts,
	// a poller that sets its next timer forever stops counting after this
	// many.
	timerChain = 3
)

// timerScript wraps setTimeout, clearTimeout and clearInterval in the
// main world, in a closure whose state the page cannot reach, and defines
// window[timerKey](horizon): [the number of pending setTimeout timers
// with a function callback that count and are due within horizon ms, the
// time of the document's last DOM change (performance.now(), the
// document's start when none)]. The second lets settling count the DOM's
// quiet from the last change rather than from when it starts looking.
//
// A timer counts unless it ends a chain of more than timerChain timers,
// each set by the callback of the one before without changing the DOM (a
// poller): a callback that changes the DOM starts its timers' chains
// afresh, so a script that builds the page step by step is waited for as
// the quiet rule waits for it. setInterval is not wrapped: a poller never
// ends, and must not hold the capture.
//
// The wrappers keep what a page sees of its timers: the callback runs with
// the same this and arguments, setTimeout returns the browser's id,
// clearTimeout and clearInterval clear as before (either clears either
// kind), a string callback and a timeout that is an object go to the
// browser untouched and uncounted, an exception thrown by the callback is
// thrown as before. The built-ins the wrappers need are taken while the
// document starts, before a page script can patch them; the timers live
// in an object without a prototype; the DOM changes are seen by a
// MutationObserver of the script's own, which a page cannot reach. A
// window that runs the script twice (a reused initial document) keeps the
// first wrappers.
const timerScript = `(() => {
  const KEY = %q, CHAIN = %d;
  if (Object.getOwnPropertyDescriptor(window, KEY)) return;
  const apply = Reflect.apply, now = performance.now.bind(performance);
  const nativeSet = window.setTimeout, nativeClearTimeout = window.clearTimeout, nativeClearInterval = window.clearInterval;
  const takeRecords = MutationObserver.prototype.takeRecords;
  let changed = now();
  const observer = new MutationObserver(() => { changed = now(); });
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  const changes = () => {
    const n = apply(takeRecords, observer, []).length;
    if (n > 0) changed = now();
    return n;
  };
  const timers = Object.create(null); // id -> {due, gen}
  let depth = 0, born = null;
  const forget = (id) => {
    if (typeof id === 'number' || typeof id === 'string') delete timers[+id];
  };
  const wrappers = {
    setTimeout(handler) {
      const timeout = arguments[1];
      const kind = typeof timeout;
      if (typeof handler !== 'function' || (timeout !== null && (kind === 'object' || kind === 'function' || kind === 'symbol'))) {
        return apply(nativeSet, this, arguments);
      }
      const delay = +timeout > 0 ? +timeout : 0;
      let id = 0;
      const args = [function () {
        const t = timers[id];
        forget(id);
        const outer = depth, outerBorn = born;
        depth = t ? t.gen : CHAIN;
        born = [];
        changes();
        try {
          return apply(handler, this, arguments);
        } finally {
          const kids = born;
          depth = outer;
          born = outerBorn;
          if (changes() > 0) {
            for (let i = 0; i < kids.length; i++) if (timers[kids[i]]) timers[kids[i]].gen = 1;
          }
        }
      }];
      for (let i = 1; i < arguments.length; i++) args[i] = arguments[i];
      id = apply(nativeSet, this, args);
      if (typeof id === 'number') {
        timers[id] = {due: now() + delay, gen: depth + 1};
        if (born) born[born.length] = id;
      }
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
      changes();
      const until = now() + horizon;
      let n = 0;
      for (const id in timers) if (timers[id].gen <= CHAIN && timers[id].due <= until) n++;
      return [n, changed];
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

// pageTimers is what timerScript knows of the main frame's document.
type pageTimers struct {
	// pending is the number of timers due within the horizon asked for.
	pending int
	// changed is the time of the last DOM change, in the document's
	// performance.now(); -1 when unknown.
	changed float64
}

// pendingTimers reads, in the main world, the timers the main frame's
// document has pending (see timerScript) due within horizon, and when its
// DOM last changed; none pending and the change unknown when the document
// has no count (it was not loaded in a tab that tracks timers). A page
// cannot change what the reader returns, only call it.
func (t *pwTab) pendingTimers(horizon time.Duration) (pageTimers, error) {
	none := pageTimers{changed: -1}
	expr := fmt.Sprintf("(() => { const f = window[%q]; return typeof f === 'function' ? f(%d) : null; })()", timerKey, horizon.Milliseconds())
	res, err := t.cdp.Send("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	if err != nil {
		return none, fmt.Errorf("count the page's timers: %w", err)
	}
	v, _ := dig(res, "result", "value").([]any)
	if len(v) != 2 {
		return none, nil
	}
	n, _ := v[0].(float64)
	changed, ok := v[1].(float64)
	if !ok {
		changed = -1
	}
	return pageTimers{pending: int(n), changed: changed}, nil
}
