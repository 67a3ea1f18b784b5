package browser

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/mxschmitt/playwright-go"

	"actionspace/dataset"
	"actionspace/pipeline"
)

// The steps of a page (pipeline.PageConfig.Steps; docs/steps.md): after
// the first capture, each step acts on the page with real input (the
// mouse and the keyboard through Playwright, which sends them as CDP
// input events: the page sees trusted events), or scrolls it, and the
// state it leaves is captured as the first one was (captureState).
// Targets are found by stepTargetScript in an isolated world of the main
// frame, out of reach of the page's scripts.

const (
	// defaultStepTimeout bounds a step when the load has no deadline and
	// PageConfig.StepTimeout is 0.
	defaultStepTimeout = 10 * time.Second
	// stepReserve is the part of the URL's time limit the steps leave
	// unused, so that the load returns before its deadline with every
	// state it captured.
	stepReserve = 250 * time.Millisecond
	// minStepTime is the least a step may start with: below it the step
	// is recorded as timed out without acting.
	minStepTime = 200 * time.Millisecond
)

// stepTargetScript finds the target of an expand or type step in the main
// document: the first element in document order that the step's rule
// picks, is enabled, and shows a part of its box in the viewport whose
// centre is not covered by another element. It returns {found, x, y,
// target}: the point to click (viewport CSS pixels) and a description
// for the steps table (never an input's value), or {found: false, target}
// with why nothing was found.
const stepTargetScript = `(action) => {
  const W = innerWidth, H = innerHeight;
  const squash = (s, n) => {
    s = String(s || "").replace(/\s+/g, " ").trim();
    return s.length > n ? s.slice(0, n) + "…" : s;
  };
  const at = (el) => {
    if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true})) return null;
    for (const r of el.getClientRects()) {
      const l = Math.max(r.left, 0), t = Math.max(r.top, 0), rr = Math.min(r.right, W), b = Math.min(r.bottom, H);
      if (rr - l < 1 || b - t < 1) continue;
      const x = (l + rr) / 2, y = (t + b) / 2;
      const hit = document.elementFromPoint(x, y);
      if (hit && (hit === el || el.contains(hit))) return {x, y};
    }
    return null;
  };
  const disabled = (el) => el.matches(":disabled") || el.getAttribute("aria-disabled") === "true";
  const describe = (el, rule, text) => {
    const role = el.getAttribute("role");
    let d = el.localName;
    if (role) d += "[role=" + squash(role, 20) + "]";
    if (el.localName === "input") d += "[type=" + el.type + "]";
    const label = el.labels && el.labels.length ? el.labels[0].textContent : "";
    const name = squash(el.getAttribute("aria-label") || label || el.getAttribute("placeholder") ||
      el.getAttribute("title") || (text ? el.textContent : "") || el.getAttribute("name"), 80);
    if (name) d += " \"" + name + "\"";
    return d + " (" + rule + ")";
  };
  if (action === "expand") {
    const sel = '[aria-expanded="false"], details:not([open]) > summary, [aria-haspopup]';
    for (const el of document.querySelectorAll(sel)) {
      let rule = "";
      const expanded = el.getAttribute("aria-expanded");
      if (expanded === "false") {
        rule = "aria-expanded=false";
      } else if (el.localName === "summary" && el.parentElement && el.parentElement.localName === "details" &&
          !el.parentElement.open && el.parentElement.querySelector(":scope > summary") === el) {
        rule = "closed details";
      } else if (el.hasAttribute("aria-haspopup") && el.getAttribute("aria-haspopup") !== "false" && expanded !== "true") {
        rule = "aria-haspopup";
      }
      if (!rule || disabled(el)) continue;
      const p = at(el);
      if (p) return {found: true, x: p.x, y: p.y, target: describe(el, rule, true)};
    }
    return {found: false, target: "no visible collapsed control in the viewport"};
  }
  if (action === "type") {
    const types = new Set(["text", "search", "email", "url", "tel"]);
    for (const el of document.querySelectorAll("input, textarea")) {
      if (el.localName === "input" && !types.has(el.type)) continue;
      if (el.disabled || el.readOnly || el.value !== "") continue;
      const p = at(el);
      if (p) return {found: true, x: p.x, y: p.y, target: describe(el, "empty text input", false)};
    }
    return {found: false, target: "no visible empty text input in the viewport"};
  }
  throw new Error("unknown step " + action);
}`

// scrollScript scrolls the document down by one viewport height at once
// (no smooth scrolling) and returns {before, after}, the vertical offsets.
const scrollScript = `(() => {
  const before = scrollY;
  window.scrollBy({top: innerHeight, left: 0, behavior: "instant"});
  return {before, after: scrollY};
})()`

// stepTarget is what stepTargetScript returned.
type stepTarget struct {
	found  bool
	x, y   float64
	target string
}

// runSteps performs the page's steps after its first capture, in ld, and
// appends what each did to ld.Steps. A step that fails, or times out,
// ends the steps; every state captured before it is kept. Before each
// step it publishes a copy of ld whose last step is the one starting,
// marked as failed: should the load be abandoned in it (see Load), that
// copy is what the load returns.
func (p *pwPage) runSteps(ctx context.Context, tab *pwTab, rawURL string, ld *pipeline.Load) {
	startIndex, _ := historyIndex(tab)
	for i, action := range p.cfg.Steps {
		n := i + 1
		p.stage.Store(fmt.Sprintf("step %d (%s)", n, action))
		p.publishPartial(ld, pipeline.StepState{Step: n, Action: action, Status: dataset.StepFailed,
			ErrorKind: pipeline.KindBrowser, Error: fmt.Sprintf("step %d (%s): the page stopped answering", n, action)})
		start := time.Now()
		st := p.runStep(ctx, tab, rawURL, n, action, len(p.cfg.Steps)-i, startIndex)
		st.Duration = time.Since(start)
		ld.Steps = append(ld.Steps, st)
		p.log.Debug("step done", logURL, rawURL, "step", n, "action", action, "status", st.Status, "ms", st.Duration.Milliseconds(), logError, st.Error)
		if st.Status == dataset.StepFailed || st.Status == dataset.StepTimeout {
			p.mu.Lock()
			p.stale = true // a fresh tab for the next URL
			p.mu.Unlock()
			break
		}
	}
	p.partial.Store(nil)
}

// publishPartial stores a copy of ld with pending as its last step, for
// Load to return if it abandons the load during that step.
func (p *pwPage) publishPartial(ld *pipeline.Load, pending pipeline.StepState) {
	cp := *ld
	cp.Steps = append(append([]pipeline.StepState(nil), ld.Steps...), pending)
	p.partial.Store(&cp)
}

// abandonedSteps returns the load whose steps were being performed when
// Load gave up on it, with its last step marked as failed by cause (a
// timeout when ctx ran out), and clears it; nil when the load was not in
// its steps.
func (p *pwPage) abandonedSteps(ctx context.Context, cause error) *pipeline.Load {
	ld := p.partial.Swap(nil)
	if ld == nil {
		return nil
	}
	last := &ld.Steps[len(ld.Steps)-1]
	if ctx.Err() != nil {
		last.Status, last.ErrorKind = dataset.StepTimeout, kindOf(ctx.Err(), pipeline.KindCanceled)
	}
	if cause != nil {
		last.Error = fmt.Sprintf("step %d (%s): %v", last.Step, last.Action, cause)
	}
	return ld
}

// stepContext bounds a step: PageConfig.StepTimeout, or an equal share
// (of left steps) of what remains of ctx's deadline, always ending
// stepReserve before that deadline.
func (p *pwPage) stepContext(ctx context.Context, left int) (context.Context, context.CancelFunc, bool) {
	limit := p.cfg.StepTimeout
	dl, ok := ctx.Deadline()
	if !ok {
		if limit == 0 {
			limit = defaultStepTimeout
		}
		c, cancel := context.WithTimeout(ctx, limit)
		return c, cancel, true
	}
	end := dl.Add(-stepReserve)
	remain := time.Until(end)
	if limit == 0 {
		limit = remain / time.Duration(left)
	}
	limit = min(limit, remain)
	c, cancel := context.WithTimeout(ctx, limit)
	return c, cancel, limit >= minStepTime
}

// runStep performs step n and captures the state it leaves.
func (p *pwPage) runStep(ctx context.Context, tab *pwTab, rawURL string, n int, action string, left, startIndex int) pipeline.StepState {
	st := pipeline.StepState{Step: n, Action: action}
	sctx, cancel, enough := p.stepContext(ctx, left)
	defer cancel()
	fail := func(kind pipeline.ErrorKind, err error) pipeline.StepState {
		if sctx.Err() != nil && kind != pipeline.KindBrowser {
			kind = kindOf(sctx.Err(), pipeline.KindCanceled)
		}
		st.Status, st.ErrorKind, st.Error = dataset.StepFailed, kind, fmt.Sprintf("step %d (%s): %v", n, action, err)
		if kind == pipeline.KindTimeout {
			st.Status = dataset.StepTimeout
		}
		return st
	}
	if !enough {
		return fail(pipeline.KindTimeout, fmt.Errorf("too little of the URL's time limit left: %w", context.DeadlineExceeded))
	}

	loaderBefore, err := loaderID(tab)
	if err != nil {
		return fail(kindOf(err, pipeline.KindCapture), fmt.Errorf("read the main frame: %w", err))
	}
	refusedBefore := 0
	if tab.egress != nil {
		refusedBefore = tab.egress.Refused()
	}
	p.takeMainNav()

	target, acted, err := p.act(sctx, tab, action, startIndex)
	st.Target = cut(target, pipeline.MaxStepTarget)
	if err != nil {
		return fail(kindOf(err, pipeline.KindCapture), err)
	}
	if !acted {
		st.Status = dataset.StepSkipped
		return st
	}

	state := &pipeline.Load{BrowserVersion: p.browser.Version()}
	err = p.captureState(sctx, tab, rawURL, state)
	// A navigation the network policy refused leaves Chromium's error
	// page, whatever the capture made of it.
	if why, _ := p.refusedMain(tab); why != "" {
		return fail(pipeline.KindBlocked, errors.New(why))
	}
	if err != nil {
		return fail(pipeline.ErrorKindOf(err), err)
	}
	if tab.egress != nil {
		state.BlockedRequests = max(0, tab.egress.Refused()-refusedBefore)
	}
	st.Status = dataset.StepOK
	if loaderAfter, err := loaderID(tab); err == nil && loaderAfter != loaderBefore {
		st.Status = dataset.StepNavigated
		if nav := p.takeMainNav(); nav != nil {
			state.HTTPStatus, state.ContentType = nav.status, nav.contentType
			switch {
			case nav.status >= 400:
				return fail(pipeline.KindHTTP, &pipeline.StatusError{Code: nav.status, Text: nav.statusText})
			case !isHTML(nav.contentType):
				return fail(pipeline.KindContentType, fmt.Errorf("content type %q is not HTML", nav.contentType))
			}
		}
	}
	st.State = state
	return st
}

// act performs the action of a step. It returns the target's description
// and whether it acted; false, with why in the description, when the
// step has nothing to act on.
func (p *pwPage) act(ctx context.Context, tab *pwTab, action string, startIndex int) (string, bool, error) {
	switch action {
	case pipeline.StepWait:
		pause := p.cfg.SettleMax
		if dl, ok := ctx.Deadline(); ok {
			pause = min(pause, time.Until(dl)/2)
		}
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
		return "", true, nil
	case pipeline.StepScroll:
		res, err := p.evalStep(tab, scrollScript)
		if err != nil {
			return "", false, fmt.Errorf("scroll: %w", err)
		}
		m, _ := res.(map[string]any)
		before, _ := m["before"].(float64)
		after, _ := m["after"].(float64)
		if after == before {
			return fmt.Sprintf("document at y=%.0f scrolls no further", before), false, nil
		}
		return fmt.Sprintf("document from y=%.0f to y=%.0f", before, after), true, nil
	case pipeline.StepBack:
		return p.back(ctx, tab, startIndex)
	case pipeline.StepExpand, pipeline.StepType:
		res, err := p.evalStep(tab, fmt.Sprintf("(%s)(%q)", stepTargetScript, action))
		if err != nil {
			return "", false, fmt.Errorf("find the target: %w", err)
		}
		t := parseTarget(res)
		if !t.found {
			return t.target, false, nil
		}
		if err := tab.page.Mouse().Click(t.x, t.y); err != nil {
			return t.target, false, fmt.Errorf("click %s: %w", t.target, err)
		}
		if action == pipeline.StepType {
			if err := tab.page.Keyboard().Type(pipeline.StepTypeText); err != nil {
				return t.target, false, fmt.Errorf("type into %s: %w", t.target, err)
			}
		}
		return t.target, true, nil
	}
	return "", false, fmt.Errorf("unknown step %q", action)
}

// back goes back one entry in the page's history when a step before it
// added one (the history's index is past startIndex, the first state's).
func (p *pwPage) back(ctx context.Context, tab *pwTab, startIndex int) (string, bool, error) {
	index, entries := historyIndex(tab)
	if index <= startIndex || index < 1 || index-1 >= len(entries) {
		return "no step before it added a history entry", false, nil
	}
	target := "back to " + pipeline.RedactUserInfo(entries[index-1])
	_, err := tab.page.GoBack(playwright.PageGoBackOptions{
		WaitUntil: playwright.WaitUntilStateLoad,
		Timeout:   playwright.Float(timeoutMS(ctx)),
	})
	if err != nil {
		return target, false, fmt.Errorf("go back: %w", err)
	}
	return target, true, nil
}

// evalStep runs expr in a fresh isolated world of the main frame.
func (p *pwPage) evalStep(tab *pwTab, expr string) (any, error) {
	_, world, err := tab.isolatedWorld()
	if err != nil {
		return nil, fmt.Errorf("create isolated world: %w", err)
	}
	return tab.evaluate(world, expr, 0)
}

// parseTarget reads what stepTargetScript returned.
func parseTarget(res any) stepTarget {
	m, _ := res.(map[string]any)
	var t stepTarget
	t.found, _ = m["found"].(bool)
	t.x, _ = m["x"].(float64)
	t.y, _ = m["y"].(float64)
	t.target, _ = m["target"].(string)
	return t
}

// loaderID returns the loader of the main frame's current document: a
// navigation to another document changes it, a same-document one
// (pushState, a fragment) does not.
func loaderID(tab *pwTab) (string, error) {
	res, err := tab.cdp.Send("Page.getFrameTree", map[string]any{})
	if err != nil {
		return "", err
	}
	id, ok := dig(res, "frameTree", "frame", "loaderId").(string)
	if !ok {
		return "", errors.New("Page.getFrameTree: no loader id")
	}
	return id, nil
}

// historyIndex returns the index of the page's current history entry and
// the URLs of the entries; -1 when the browser does not say.
func historyIndex(tab *pwTab) (int, []string) {
	res, err := tab.cdp.Send("Page.getNavigationHistory", map[string]any{})
	if err != nil {
		return -1, nil
	}
	index, ok := dig(res, "currentIndex").(float64)
	if !ok {
		return -1, nil
	}
	list, _ := dig(res, "entries").([]any)
	urls := make([]string, len(list))
	for i, e := range list {
		urls[i], _ = dig(e, "url").(string)
	}
	return int(index), urls
}

// cut shortens s to at most n bytes, between characters.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
