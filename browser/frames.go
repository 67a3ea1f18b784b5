package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mxschmitt/playwright-go"

	"actionspace/dom"
)

// maxFrameDepth bounds how deep cross-origin frames inside cross-origin
// frames are followed.
const maxFrameDepth = 4

// crossOriginMark appears in a capture record only when the script met a
// cross-origin frame (as the key of Node.CrossOrigin): a cheap test that
// spares the other pages a second decode.
var crossOriginMark = []byte(`"fx":`)

// stitchFrames captures the cross-origin frames the main capture met, each
// in an isolated world of its own document, and stitches them into the
// record (dom.Stitch), which it returns re-encoded. Frames that cannot be
// captured are left out and logged at debug level; the record's
// page.frames and page.stitched tell how many there were and how many made
// it. A record that is not a capture (a test's wrapped script) is returned
// as it is.
func (p *pwPage) stitchFrames(ctx context.Context, tab *pwTab, world float64, rawURL string, record []byte) []byte {
	if !bytes.Contains(record, crossOriginMark) {
		return record
	}
	c, err := dom.Parse(record)
	if err != nil {
		return record
	}
	fc := &frameCapturer{p: p, tab: tab, url: rawURL, sessions: map[string]playwright.CDPSession{},
		nodes: len(c.Nodes), chars: c.Page.Chars}
	defer fc.close()
	capped := len(c.Page.Capped)
	fc.captureFrames(ctx, tab.cdp, world, c, 1)
	if c.Page.FramesStitched == 0 && len(c.Page.Capped) == capped {
		return record
	}
	// As the script writes it: no HTML escaping of <, > and &.
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		p.log.Debug("cross-origin frames not stitched", logURL, rawURL, logError, err)
		return record
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

// frameCapturer captures the cross-origin frames of one page load.
type frameCapturer struct {
	p   *pwPage
	tab *pwTab
	url string
	// sessions holds the CDP sessions of out-of-process frames by frame
	// id, opened on first need (nil until then) and detached by close.
	sessions map[string]playwright.CDPSession
	listed   bool
	// nodes and chars count what the page's captures hold so far, the
	// top document's and every frame's: the capture's node and character
	// budgets cover them all.
	nodes, chars int
	// frames counts the frames whose capture was tried, nested ones
	// included: at most the page config's MaxFrames.
	frames int
}

// budgetSpent is why a frame is left out when the page's captures already
// hold the capture's budget of nodes or characters: the cap it names
// (dom.CapNodes, dom.CapChars).
type budgetSpent string

func (b budgetSpent) Error() string { return "capture budget spent: " + string(b) }

// captureFrames captures the rendered cross-origin frames of c, whose
// script ran in world of session cdp, and stitches them into c.
func (fc *frameCapturer) captureFrames(ctx context.Context, cdp playwright.CDPSession, world float64, c *dom.Capture, depth int) {
	frames := make(map[int]*dom.Capture)
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.CrossOrigin == 0 || n.FrameBox == nil || n.FrameClip == nil || n.FrameClip[2] <= 0 || n.FrameClip[3] <= 0 {
			continue // not rendered, or nothing of it shows
		}
		if ctx.Err() != nil {
			return
		}
		if fc.frames >= fc.p.cfg.MaxFrames {
			c.Page.Cap(dom.CapFrames)
			break
		}
		fc.frames++
		f, err := fc.captureFrame(ctx, cdp, world, n.CrossOrigin, depth)
		var spent budgetSpent
		if errors.As(err, &spent) {
			c.Page.Cap(string(spent)) // and truncated: the page holds more than the capture
			break
		}
		if err != nil {
			fc.p.log.Debug("cross-origin frame not captured", logURL, fc.url, logFrame, n.CrossOrigin, logError, err)
			continue
		}
		frames[n.CrossOrigin] = f
	}
	if err := dom.Stitch(c, frames); err != nil {
		fc.p.log.Debug("cross-origin frames not stitched", logURL, fc.url, logError, err)
	}
}

// captureFrame captures cross-origin frame number num of the capture that
// ran in world, and, below maxFrameDepth, the cross-origin frames inside
// it, with what is left of the budgets; a budgetSpent error when nothing
// is.
func (fc *frameCapturer) captureFrame(ctx context.Context, cdp playwright.CDPSession, world float64, num, depth int) (*dom.Capture, error) {
	frameID, err := frameIDOf(cdp, world, num)
	if err != nil {
		return nil, err
	}
	// A frame of another site renders in a process of its own and is
	// reached through its own session; the others through their parent's.
	fcdp := cdp
	fworld, err := createIsolatedWorld(cdp, frameID)
	if err != nil {
		if fcdp, err = fc.session(frameID); err != nil {
			return nil, err
		}
		if fworld, err = createIsolatedWorld(fcdp, frameID); err != nil {
			return nil, err
		}
	}
	arg := fc.p.arg
	if opts, ok := fc.p.scriptArg.(dom.ScriptOptions); ok {
		opts.MaxNodes -= fc.nodes
		opts.MaxChars -= fc.chars
		if opts.MaxNodes <= 0 {
			return nil, budgetSpent(dom.CapNodes)
		}
		if opts.MaxChars <= 0 {
			return nil, budgetSpent(dom.CapChars)
		}
		b, err := json.Marshal(opts)
		if err != nil {
			return nil, err
		}
		arg = string(b)
	}
	res, err := evaluateIn(fcdp, fworld, "("+fc.p.script+"\n)("+arg+")", timeoutMS(ctx))
	if err != nil {
		return nil, err
	}
	s, ok := res.(string)
	if !ok {
		return nil, fmt.Errorf("capture: script returned %T, want a JSON string", res)
	}
	f, err := dom.Parse([]byte(s))
	if err != nil {
		return nil, err
	}
	fc.nodes += len(f.Nodes)
	fc.chars += f.Page.Chars
	if f.Page.CrossOriginFrames > 0 {
		if depth < maxFrameDepth {
			fc.captureFrames(ctx, fcdp, fworld, f, depth+1)
		} else {
			f.Page.Cap(dom.CapFrames)
		}
	}
	return f, nil
}

// frameIDOf returns the CDP frame id of cross-origin frame number num: the
// capture script left the frame elements in a global of its world.
func frameIDOf(cdp playwright.CDPSession, world float64, num int) (string, error) {
	const group = "actionspace-frames"
	res, err := cdp.Send("Runtime.evaluate", map[string]any{
		"expression":  "globalThis." + dom.FramesGlobal + "[" + strconv.Itoa(num-1) + "]",
		"contextId":   world,
		"objectGroup": group,
	})
	if err != nil {
		return "", fmt.Errorf("find frame element: %w", err)
	}
	defer func() { _, _ = cdp.Send("Runtime.releaseObjectGroup", map[string]any{"objectGroup": group}) }()
	objectID, ok := dig(res, "result", "objectId").(string)
	if !ok {
		return "", errors.New("find frame element: not in the capture's list")
	}
	res, err = cdp.Send("DOM.describeNode", map[string]any{"objectId": objectID})
	if err != nil {
		return "", fmt.Errorf("describe frame element: %w", err)
	}
	frameID, ok := dig(res, "node", "frameId").(string)
	if !ok || frameID == "" {
		return "", errors.New("describe frame element: no frame id")
	}
	return frameID, nil
}

// session returns the CDP session of the out-of-process frame frameID.
// Playwright opens sessions on such frames only (the others share their
// parent's); each tells its frame id through its frame tree.
func (fc *frameCapturer) session(frameID string) (playwright.CDPSession, error) {
	if !fc.listed {
		fc.listed = true
		for _, f := range fc.tab.page.Frames() {
			if f == fc.tab.mainFrame {
				continue
			}
			s, err := fc.tab.context.NewCDPSession(f)
			if err != nil {
				continue // renders in its parent's process
			}
			res, err := s.Send("Page.getFrameTree", map[string]any{})
			id, _ := dig(res, "frameTree", "frame", "id").(string)
			if err != nil || id == "" {
				_ = s.Detach()
				continue
			}
			fc.sessions[id] = s
		}
	}
	if s, ok := fc.sessions[frameID]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no CDP session for frame %s", frameID)
}

// close detaches the sessions opened on out-of-process frames.
func (fc *frameCapturer) close() {
	for _, s := range fc.sessions {
		_ = s.Detach()
	}
}

// createIsolatedWorld creates an isolated world in the current document of
// frame frameID, which session cdp must reach, and returns its execution
// context id.
func createIsolatedWorld(cdp playwright.CDPSession, frameID string) (float64, error) {
	res, err := cdp.Send("Page.createIsolatedWorld", map[string]any{
		"frameId":             frameID,
		"worldName":           isolatedWorld,
		"grantUniveralAccess": true, // sic: the protocol's spelling
	})
	if err != nil {
		return 0, err
	}
	id, ok := dig(res, "executionContextId").(float64)
	if !ok {
		return 0, errors.New("Page.createIsolatedWorld: no execution context id")
	}
	return id, nil
}
