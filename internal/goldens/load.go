package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/browser"
	"actionspace/dom"
)

// settleTime is how long a page is left alone after its load event before
// the capture: the corpus's script-built pages render within 300 ms.
const settleTime = time.Second

// chromium is the browser the corpus is captured with.
type chromium struct {
	pw      *playwright.Playwright
	browser playwright.Browser
}

func launch() (*chromium, error) {
	pw, err := playwright.Run(&playwright.RunOptions{})
	if err != nil {
		return nil, fmt.Errorf("start playwright driver: %w (run `make setup`)", err)
	}
	root := os.Geteuid() == 0
	args := []string{"--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync"}
	if root {
		args = append(args, "--no-sandbox")
	}
	br, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath:  playwright.String("/usr/bin/chromium"),
		Headless:        playwright.Bool(true),
		ChromiumSandbox: playwright.Bool(!root),
		Args:            args,
	})
	if err != nil {
		_ = pw.Stop()
		return nil, fmt.Errorf("launch chromium: %w", err)
	}
	return &chromium{pw: pw, browser: br}, nil
}

func (c *chromium) close() {
	_ = c.browser.Close()
	_ = c.pw.Stop()
}

// tab is one page in its own browser context, with its CDP session.
type tab struct {
	context playwright.BrowserContext
	page    playwright.Page
	cdp     playwright.CDPSession
}

func (c *chromium) newTab() (*tab, error) {
	bctx, err := c.browser.NewContext(playwright.BrowserNewContextOptions{
		Viewport: &playwright.Size{Width: 1280, Height: 720},
	})
	if err != nil {
		return nil, err
	}
	page, err := bctx.NewPage()
	if err != nil {
		_ = bctx.Close()
		return nil, err
	}
	cdp, err := bctx.NewCDPSession(page)
	if err != nil {
		_ = bctx.Close()
		return nil, err
	}
	return &tab{context: bctx, page: page, cdp: cdp}, nil
}

func (t *tab) close() { _ = t.context.Close() }

// state is one captured page state.
type state struct {
	capture     *dom.Capture
	captureTime time.Duration
	extras      *browser.Extras
	html        string
	contentTime time.Duration
}

// load navigates, settles, captures and takes the extras and the HTML.
func (t *tab) load(ctx context.Context, url string) (*state, error) {
	if _, err := t.page.Goto(url, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateLoad}); err != nil {
		return nil, err
	}
	time.Sleep(settleTime)
	var tree struct {
		FrameTree struct{ Frame struct{ ID string } }
	}
	if err := t.send("Page.getFrameTree", map[string]any{}, &tree); err != nil {
		return nil, err
	}
	frameID := tree.FrameTree.Frame.ID
	var world struct{ ExecutionContextID float64 }
	if err := t.send("Page.createIsolatedWorld", map[string]any{"frameId": frameID, "worldName": "actionspace", "grantUniveralAccess": true}, &world); err != nil {
		return nil, err
	}
	arg, err := json.Marshal(dom.DefaultScriptOptions())
	if err != nil {
		return nil, err
	}
	st := &state{}
	start := time.Now()
	var res struct{ Result struct{ Value string } }
	err = t.send("Runtime.evaluate", map[string]any{
		"expression":    "(" + dom.Script() + "\n)(" + string(arg) + ")",
		"contextId":     world.ExecutionContextID,
		"returnByValue": true,
	}, &res)
	st.captureTime = time.Since(start)
	if err != nil {
		return nil, err
	}
	record := res.Result.Value
	if record == "" {
		return nil, errors.New("the capture script returned no record")
	}
	if st.capture, err = dom.Parse([]byte(record)); err != nil {
		return nil, err
	}
	if st.capture.Page.CrossOriginFrames > 0 {
		return nil, errors.New("cross-origin frames: the corpus has none, and this tool does not stitch them")
	}
	sessions, detach := browser.PageFrameSessions(t.page)
	defer detach()
	in := browser.AXTreeInput{
		Session:      t.cdp,
		Worlds:       []browser.CaptureWorld{{Session: t.cdp, FrameID: frameID, Context: world.ExecutionContextID}},
		FrameSession: sessions,
	}
	if st.extras, err = browser.TakeExtras(ctx, t.page, in, true, true, 30*time.Second); err != nil {
		return nil, err
	}
	start = time.Now()
	st.html, err = t.page.Content()
	st.contentTime = time.Since(start)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// send calls a CDP method and decodes its result into out.
func (t *tab) send(method string, params map[string]any, out any) error {
	res, err := t.cdp.Send(method, params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}
