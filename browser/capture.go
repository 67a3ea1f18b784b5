package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"actionspace/pipeline"
)

// settleScript resolves once the document has gone quiet ms without a
// mutation, or after max ms, with {settled, mutations}.
const settleScript = `(quiet, max) => new Promise((resolve) => {
  let mutations = 0, timer = 0, cap = 0;
  const finish = (settled) => {
    observer.disconnect();
    clearTimeout(timer);
    clearTimeout(cap);
    resolve({settled, mutations});
  };
  const observer = new MutationObserver((records) => {
    mutations += records.length;
    clearTimeout(timer);
    timer = setTimeout(() => finish(true), quiet);
  });
  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  timer = setTimeout(() => finish(true), quiet);
  cap = setTimeout(() => finish(false), max);
})`

// settleAndCapture waits for a quiet DOM and runs the capture script, both
// in the isolated world of the main frame's document, and stitches in the
// cross-origin frames (through sessions where they render in a process of
// their own). It returns the worlds the captures ran in (see
// stitchFrames).
func (p *pwPage) settleAndCapture(ctx context.Context, tab *pwTab, rawURL string, ld *pipeline.Load, sessions *frameSessions) ([]CaptureWorld, error) {
	p.stage.Store("capture")
	frameID, world, err := tab.isolatedWorld()
	if err != nil {
		return nil, p.fail(ctx, rawURL, "capture", pipeline.KindCapture, fmt.Errorf("create isolated world: %w", err))
	}

	p.stage.Store("settle")
	quiet, capAt := p.cfg.SettleQuiet, p.cfg.SettleMax
	if dl, ok := ctx.Deadline(); ok {
		// Leave at least half of what remains for the capture.
		capAt = min(capAt, time.Until(dl)/2)
		quiet = min(quiet, capAt)
	}
	start := time.Now()
	res, err := p.settle(ctx, tab, world, quiet, capAt)
	ld.Settle += time.Since(start)
	if err != nil {
		return nil, p.fail(ctx, rawURL, "settle", pipeline.KindCapture, err)
	}
	if m, ok := res.(map[string]any); ok {
		p.log.Debug("settled", logURL, rawURL, logSettled, m["settled"], logMutations, m["mutations"], logSettleTime, time.Since(start))
	}

	p.stage.Store("capture")
	start = time.Now()
	// The newline keeps a trailing // comment in the script from eating
	// the closing parenthesis.
	expr := "(" + p.script + "\n)(" + p.arg + ")"
	res, err = tab.evaluate(world, expr, timeoutMS(ctx))
	ld.CaptureTime += time.Since(start)
	ld.CapturedAt = time.Now().UTC()
	if err != nil {
		return nil, p.fail(ctx, rawURL, "capture", pipeline.KindCapture, err)
	}
	s, ok := res.(string)
	if !ok {
		return nil, &pipeline.PageError{Kind: pipeline.KindCapture, URL: rawURL, Err: fmt.Errorf("capture: script returned %T, want a JSON string", res)}
	}
	// Cross-origin frames: captured through their own frames, stitched in.
	start = time.Now()
	main := CaptureWorld{Session: tab.cdp, FrameID: frameID, Context: world}
	var worlds []CaptureWorld
	ld.Capture, worlds = p.stitchFrames(ctx, tab, main, sessions, rawURL, []byte(s))
	ld.CaptureTime += time.Since(start)
	return worlds, nil
}

// isolatedWorld returns the main frame's id and the execution context id
// of the isolated world named isolatedWorld in its current document.
// Chromium makes the world on the first request of a CDP session for a
// document and gives the same world back at every later one, so every
// capture of one document (the states an agent's steps leave in it) runs
// in one world and finds the element keys it gave before (dom.Node.Key);
// a new document gets a new world. The page's scripts cannot reach its
// globals, so patched built-ins (JSON, Array.prototype) do not affect
// what runs there; the DOM is shared.
func (t *pwTab) isolatedWorld() (string, float64, error) {
	res, err := t.cdp.Send("Page.getFrameTree", map[string]any{})
	if err != nil {
		return "", 0, err
	}
	frameID, ok := dig(res, "frameTree", "frame", "id").(string)
	if !ok {
		return "", 0, errors.New("Page.getFrameTree: no main frame id")
	}
	world, err := createIsolatedWorld(t.cdp, frameID)
	return frameID, world, err
}

// evaluate runs expr in the execution context world, awaits a returned
// promise and returns its value. timeoutMS > 0 bounds the script's run.
func (t *pwTab) evaluate(world float64, expr string, timeoutMS float64) (any, error) {
	return evaluateIn(t.cdp, world, expr, timeoutMS)
}

// evaluateIn is evaluate through any CDP session, such as a frame's.
func evaluateIn(cdp cdpSender, world float64, expr string, timeoutMS float64) (any, error) {
	params := map[string]any{
		"expression":    expr,
		"contextId":     world,
		"returnByValue": true,
		"awaitPromise":  true,
	}
	if timeoutMS > 0 {
		params["timeout"] = timeoutMS
	}
	res, err := cdp.Send("Runtime.evaluate", params)
	if err != nil {
		return nil, err
	}
	if details, ok := dig(res, "exceptionDetails").(map[string]any); ok {
		msg, _ := dig(details, "exception", "description").(string)
		if msg == "" {
			msg, _ = details["text"].(string)
		}
		msg, _, _ = strings.Cut(msg, "\n")
		return nil, fmt.Errorf("script threw: %s", msg)
	}
	return dig(res, "result", "value"), nil
}
