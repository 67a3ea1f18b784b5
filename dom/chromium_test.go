package dom

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/internal/browsertest"
)

// chromium is a page of the test binary's one Chromium, driven through
// playwright-go, for the tests that check the capture script and the
// locators in a live page. The browser adapter of the crawler does more
// (settling, frames, errors); these tests need only a page, an isolated
// world and evaluation in it.
type chromium struct {
	page playwright.Page
	cdp  playwright.CDPSession
}

// TestMain runs the package's tests and then closes the Chromium they
// shared, if one of them started it.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := shared.close(); err != nil {
		fmt.Fprintln(os.Stderr, "close the shared Chromium:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// shared is the one Chromium of this test binary: a launch costs seconds
// of CPU, and each test's page lives in a browser context of its own (its
// own storage and renderer), so the tests share nothing else.
var shared sharedChromium

// sharedChromium is a Chromium and its Playwright driver, launched on
// first use.
type sharedChromium struct {
	once    sync.Once
	pw      *playwright.Playwright
	browser playwright.Browser
	err     error
}

// get returns the shared browser, launching it on the first call.
func (s *sharedChromium) get() (playwright.Browser, error) {
	s.once.Do(func() {
		pw, err := playwright.Run(&playwright.RunOptions{})
		if err != nil {
			s.err = fmt.Errorf("start playwright driver: %w", err)
			return
		}
		root := os.Geteuid() == 0
		args := []string{"--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
			"--disable-component-update", "--disable-sync"}
		if root {
			args = append(args, "--no-sandbox")
		}
		br, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
			ExecutablePath:  playwright.String(browsertest.ChromiumPath),
			Headless:        playwright.Bool(true),
			ChromiumSandbox: playwright.Bool(!root),
			Args:            args,
		})
		if err != nil {
			_ = pw.Stop()
			s.err = fmt.Errorf("launch chromium: %w", err)
			return
		}
		s.pw, s.browser = pw, br
	})
	return s.browser, s.err
}

// close closes the browser and stops the driver, if get launched them.
func (s *sharedChromium) close() error {
	if s.browser == nil {
		return nil
	}
	return errors.Join(s.browser.Close(), s.pw.Stop())
}

// startChromium opens a page of 1280x720 in a new context of the shared
// Chromium, closed when the test ends, or skips the test (see
// browsertest.Require).
func startChromium(t *testing.T) *chromium {
	t.Helper()
	browsertest.Require(t)
	br, err := shared.get()
	if err != nil {
		t.Fatal(err)
	}
	bctx, err := br.NewContext(playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 1280, Height: 720},
	})
	if err != nil {
		t.Fatalf("new browser context: %v", err)
	}
	t.Cleanup(func() { _ = bctx.Close() })
	c := &chromium{}
	if c.page, err = bctx.NewPage(); err != nil {
		t.Fatalf("new page: %v", err)
	}
	if c.cdp, err = bctx.NewCDPSession(c.page); err != nil {
		t.Fatalf("new CDP session: %v", err)
	}
	return c
}

// load navigates to url, waits for the load event, then for the DOM to
// stay unchanged for 300 ms (at most 5 s): pages that render after load
// must not change between a capture and the checks that follow it.
func (c *chromium) load(t *testing.T, url string, timeout time.Duration) {
	t.Helper()
	if _, err := c.page.Goto(url, playwright.PageGotoOptions{
		WaitUntil: playwright.WaitUntilStateLoad,
		Timeout:   playwright.Float(float64(timeout.Milliseconds())),
	}); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	c.eval(t, c.world(t), `new Promise((resolve) => {
  let timer = 0;
  const obs = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(done, 300); });
  const done = () => { obs.disconnect(); resolve(true); };
  obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  timer = setTimeout(done, 300);
  setTimeout(done, 5000);
})`)
}

// world creates an isolated world in the main frame's document and
// returns its execution context id: the page's scripts cannot reach it.
func (c *chromium) world(t *testing.T) float64 {
	t.Helper()
	res, err := c.cdp.Send("Page.getFrameTree", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	frameID, _ := res.(map[string]any)["frameTree"].(map[string]any)["frame"].(map[string]any)["id"].(string)
	res, err = c.cdp.Send("Page.createIsolatedWorld", map[string]any{
		"frameId": frameID, "worldName": "actionspace-test", "grantUniveralAccess": true,
	})
	if err != nil {
		t.Fatal(err)
	}
	id, ok := res.(map[string]any)["executionContextId"].(float64)
	if !ok {
		t.Fatalf("Page.createIsolatedWorld: %v", res)
	}
	return id
}

// eval runs expr in world and returns its value.
func (c *chromium) eval(t *testing.T, world float64, expr string) any {
	t.Helper()
	res, err := c.cdp.Send("Runtime.evaluate", map[string]any{
		"expression": expr, "contextId": world, "returnByValue": true, "awaitPromise": true,
	})
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	m := res.(map[string]any)
	if d, ok := m["exceptionDetails"]; ok {
		t.Fatalf("script threw: %v", d)
	}
	r, _ := m["result"].(map[string]any)
	return r["value"]
}

// captureExpr is the expression that runs the capture script with opts.
func captureExpr(t *testing.T, opts ScriptOptions) string {
	t.Helper()
	arg, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	return "(" + Script() + "\n)(" + string(arg) + ")"
}

// capture runs the capture script in world and returns the record and its
// decoding.
func (c *chromium) capture(t *testing.T, world float64, opts ScriptOptions) ([]byte, *Capture) {
	t.Helper()
	s, ok := c.eval(t, world, captureExpr(t, opts)).(string)
	if !ok {
		t.Fatal("capture script returned no string")
	}
	capt, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s), capt
}

// badLocators resolves the locator of every element of tree that has one
// with LocateScript, in the world (or frame) where the capture ran with
// the capture, and returns a line for each that does not match exactly
// its element. Elements with signals must have a locator. limit > 0
// resolves that many locators only, spread evenly over the elements, for
// pages where each resolution costs the size of the page.
func badLocators(t *testing.T, tree *Tree, limit int, eval func(expr string) any) []string {
	t.Helper()
	nodes := tree.Capture.Nodes
	var pairs [][2]any
	var bad []string
	for i := range nodes {
		if nodes[i].Kind != ElementNode {
			continue
		}
		loc := tree.Locator(i)
		if loc == "" {
			if len(nodes[i].Signals) > 0 {
				bad = append(bad, fmt.Sprintf("node %d <%s>: no locator", i, nodes[i].Tag))
			}
			continue
		}
		if len(loc) > DefaultMaxLocator {
			bad = append(bad, fmt.Sprintf("node %d: locator of %d bytes", i, len(loc)))
		}
		pairs = append(pairs, [2]any{i, loc})
	}
	if limit > 0 && len(pairs) > limit {
		sample := make([][2]any, 0, limit)
		for k := range limit {
			sample = append(sample, pairs[k*(len(pairs)-1)/(limit-1)])
		}
		pairs = sample
	}
	list, err := json.Marshal(pairs)
	if err != nil {
		t.Fatal(err)
	}
	expr := `((locate, pairs) => {
  const els = globalThis.` + NodesGlobal + `;
  const bad = [];
  for (const [i, loc] of pairs) {
    let m;
    try { m = locate(loc); } catch (e) { bad.push([i, loc, String(e)]); continue; }
    if (m.length !== 1 || m[0] !== els[i]) bad.push([i, loc, m.length + " matches" + (m.length === 1 ? ", another element: " + m[0].outerHTML.slice(0, 80) : "")]);
  }
  return JSON.stringify(bad);
})(` + LocateScript() + `, ` + string(list) + `)`
	s, _ := eval(expr).(string)
	var wrong [][3]any
	if err := json.Unmarshal([]byte(s), &wrong); err != nil {
		t.Fatalf("resolver answered %q: %v", s, err)
	}
	for _, w := range wrong {
		bad = append(bad, fmt.Sprintf("node %v: %v resolves to %v", w[0], w[1], w[2]))
	}
	return bad
}

// frameCaptures captures each frame of the page but the main one in its
// own document, in the page's main world (the frames of the test pages do
// not patch built-ins), with the elements kept for badLocators.
func (c *chromium) frameCaptures(t *testing.T, opts ScriptOptions) map[playwright.Frame]*Capture {
	t.Helper()
	out := map[playwright.Frame]*Capture{}
	for _, f := range c.page.Frames() {
		if f == c.page.MainFrame() {
			continue
		}
		v, err := f.Evaluate(captureExpr(t, opts))
		if err != nil {
			t.Fatalf("capture frame %s: %v", f.URL(), err)
		}
		s, _ := v.(string)
		capt, err := Parse([]byte(s))
		if err != nil {
			t.Fatalf("frame %s: %v", f.URL(), err)
		}
		out[f] = capt
	}
	return out
}

// evalIn returns an evaluator of expressions in frame f's main world.
func evalIn(t *testing.T, f playwright.Frame) func(string) any {
	return func(expr string) any {
		v, err := f.Evaluate(expr)
		if err != nil {
			t.Fatalf("evaluate in frame %s: %v", f.URL(), err)
		}
		return v
	}
}

// shortURL is url without its origin, for messages.
func shortURL(url string) string {
	if i := strings.Index(url, "//"); i >= 0 {
		if j := strings.IndexByte(url[i+2:], '/'); j >= 0 {
			return url[i+2+j:]
		}
	}
	return url
}
