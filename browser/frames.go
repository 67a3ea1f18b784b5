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
// record (dom.Stitch), which it returns re-encoded, with the worlds the
// captures ran in (main, the page's, first), each mapping its capture's
// nodes to the stored record's: what ties the browser's DOM nodes to the
// record's elements (TakeAXTree). Frames that cannot be captured are left
// out and logged at debug level; the record's page.frames and
// page.stitched tell how many there were and how many made it. A record
// that is not a capture (a test's wrapped script) is returned as it is.
func (p *pwPage) stitchFrames(ctx context.Context, tab *pwTab, main CaptureWorld, sessions *frameSessions, rawURL string, record []byte) ([]byte, []CaptureWorld) {
	worlds := []CaptureWorld{main}
	if !bytes.Contains(record, crossOriginMark) {
		return record, worlds
	}
	c, err := dom.Parse(record)
	if err != nil {
		return record, worlds
	}
	fc := &frameCapturer{p: p, tab: tab, url: rawURL, sessions: sessions,
		nodes: len(c.Nodes), chars: c.Page.Chars}
	capped := len(c.Page.Capped)
	own, frames := fc.captureFrames(ctx, main.Session, main.Context, c, 1)
	if c.Page.FramesStitched == 0 && len(c.Page.Capped) == capped {
		return record, worlds
	}
	// As the script writes it: no HTML escaping of <, > and &.
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		p.log.Debug("cross-origin frames not stitched", logURL, rawURL, logError, err)
		return record, worlds
	}
	worlds[0].Index = own
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), append(worlds, frames...)
}

// frameCapturer captures the cross-origin frames of one page load.
type frameCapturer struct {
	p        *pwPage
	tab      *pwTab
	url      string
	sessions *frameSessions
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
// script ran in world of session cdp, and stitches them into c. It
// returns where c's own nodes went (nil: nowhere) and the worlds of the
// frames' captures, their indices into c as stitched.
func (fc *frameCapturer) captureFrames(ctx context.Context, cdp cdpSender, world float64, c *dom.Capture, depth int) ([]int, []CaptureWorld) {
	frames := make(map[int]*dom.Capture)
	worlds := make(map[int][]CaptureWorld)
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.CrossOrigin == 0 || n.FrameBox == nil || n.FrameClip == nil || n.FrameClip[2] <= 0 || n.FrameClip[3] <= 0 {
			continue // not rendered, or nothing of it shows
		}
		if ctx.Err() != nil {
			return nil, nil
		}
		if fc.frames >= fc.p.cfg.MaxFrames {
			c.Page.Cap(dom.CapFrames)
			break
		}
		fc.frames++
		f, fw, err := fc.captureFrame(ctx, cdp, world, n.CrossOrigin, depth)
		var spent budgetSpent
		if errors.As(err, &spent) {
			c.Page.Cap(string(spent)) // and truncated: the page holds more than the capture
			break
		}
		if err != nil {
			fc.p.log.Debug("cross-origin frame not captured", logURL, fc.url, logFrame, n.CrossOrigin, logError, err)
			continue
		}
		frames[n.CrossOrigin], worlds[n.CrossOrigin] = f, fw
	}
	st, err := dom.Stitch(c, frames)
	if err != nil {
		fc.p.log.Debug("cross-origin frames not stitched", logURL, fc.url, logError, err)
		return nil, nil
	}
	var out []CaptureWorld
	for num, start := range st.Frames {
		for _, w := range worlds[num] {
			for k := range w.Index {
				w.Index[k] += start
			}
			out = append(out, w)
		}
	}
	return st.Index, out
}

// captureFrame captures cross-origin frame number num of the capture that
// ran in world, and, below maxFrameDepth, the cross-origin frames inside
// it, with what is left of the budgets; a budgetSpent error when nothing
// is. It returns the frame's capture and the worlds of its captures (its
// own first), their indices into it.
func (fc *frameCapturer) captureFrame(ctx context.Context, cdp cdpSender, world float64, num, depth int) (*dom.Capture, []CaptureWorld, error) {
	frameID, err := frameIDOf(cdp, world, num)
	if err != nil {
		return nil, nil, err
	}
	// A frame of another site renders in a process of its own and is
	// reached through its own session; the others through their parent's.
	fcdp := cdp
	fworld, err := createIsolatedWorld(cdp, frameID)
	if err != nil {
		if fcdp, err = fc.sessions.get(frameID); err != nil {
			return nil, nil, err
		}
		if fworld, err = createIsolatedWorld(fcdp, frameID); err != nil {
			return nil, nil, err
		}
	}
	arg := fc.p.arg
	if opts, ok := fc.p.scriptArg.(dom.ScriptOptions); ok {
		opts.MaxNodes -= fc.nodes
		opts.MaxChars -= fc.chars
		if opts.MaxNodes <= 0 {
			return nil, nil, budgetSpent(dom.CapNodes)
		}
		if opts.MaxChars <= 0 {
			return nil, nil, budgetSpent(dom.CapChars)
		}
		b, err := json.Marshal(opts)
		if err != nil {
			return nil, nil, err
		}
		arg = string(b)
	}
	res, err := evaluateIn(fcdp, fworld, "("+fc.p.script+"\n)("+arg+")", timeoutMS(ctx))
	if err != nil {
		return nil, nil, err
	}
	s, ok := res.(string)
	if !ok {
		return nil, nil, fmt.Errorf("capture: script returned %T, want a JSON string", res)
	}
	f, err := dom.Parse([]byte(s))
	if err != nil {
		return nil, nil, err
	}
	fc.nodes += len(f.Nodes)
	fc.chars += f.Page.Chars
	own := CaptureWorld{Session: fcdp, FrameID: frameID, Context: fworld, Index: make([]int, len(f.Nodes))}
	for i := range own.Index {
		own.Index[i] = i
	}
	worlds := []CaptureWorld{own}
	if f.Page.CrossOriginFrames > 0 {
		if depth < maxFrameDepth {
			moved, inner := fc.captureFrames(ctx, fcdp, fworld, f, depth+1)
			if moved != nil {
				for i, k := range own.Index {
					own.Index[i] = moved[k]
				}
			}
			worlds = append(worlds, inner...)
		} else {
			f.Page.Cap(dom.CapFrames)
		}
	}
	return f, worlds, nil
}

// frameIDOf returns the CDP frame id of cross-origin frame number num: the
// capture script left the frame elements in a global of its world.
func frameIDOf(cdp cdpSender, world float64, num int) (string, error) {
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

// frameSessions holds the CDP sessions of one page's out-of-process
// frames, by frame id. Playwright opens sessions on such frames only (the
// others share their parent's); each tells its frame id through its frame
// tree. The sessions are opened on first need, for every frame at once,
// shared by the frame captures and the accessibility tree of a load, and
// detached by close.
type frameSessions struct {
	page     playwright.Page
	sessions map[string]playwright.CDPSession // nil until listed
}

func newFrameSessions(page playwright.Page) *frameSessions { return &frameSessions{page: page} }

// get returns the session of the out-of-process frame frameID.
func (fs *frameSessions) get(frameID string) (cdpSender, error) {
	if fs.sessions == nil {
		fs.sessions = map[string]playwright.CDPSession{}
		main := fs.page.MainFrame()
		for _, f := range fs.page.Frames() {
			if f == main {
				continue
			}
			s, err := fs.page.Context().NewCDPSession(f)
			if err != nil {
				continue // renders in its parent's process
			}
			res, err := s.Send("Page.getFrameTree", map[string]any{})
			id, _ := dig(res, "frameTree", "frame", "id").(string)
			if err != nil || id == "" {
				_ = s.Detach()
				continue
			}
			fs.sessions[id] = s
		}
	}
	if s, ok := fs.sessions[frameID]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no CDP session for frame %s", frameID)
}

// close detaches the sessions opened.
func (fs *frameSessions) close() {
	for _, s := range fs.sessions {
		_ = s.Detach()
	}
	fs.sessions = nil
}

// createIsolatedWorld creates an isolated world in the current document of
// frame frameID, which session cdp must reach, and returns its execution
// context id.
func createIsolatedWorld(cdp cdpSender, frameID string) (float64, error) {
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
