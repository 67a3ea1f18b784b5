package browser

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/axtree"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/internal/bounded"
	"actionspace/pipeline"
)

// cdpSender is the one method of a CDP session the snapshot code uses.
// playwright.CDPSession has it.
type cdpSender interface {
	Send(method string, params map[string]any) (any, error)
}

var _ cdpSender = playwright.CDPSession(nil)

// CaptureWorld is a world the capture script ran in: the accessibility
// nodes of the documents it walked are tied to its elements by DOM
// identity.
type CaptureWorld struct {
	// Session reaches the frame: the page's session, or an out-of-process
	// frame's own.
	Session cdpSender
	// FrameID is the frame whose document the capture started at.
	FrameID string
	// Context is the execution context id of the isolated world.
	Context float64
	// Base is the index, in the stored capture, of this capture's first
	// node: 0 for the page's own capture when nothing was stitched into
	// it; for a cross-origin frame's capture stitched in whole, one past
	// its iframe node. Index, when not nil, overrides it: Index[i] is the
	// stored index of this capture's node i (stitching a frame into a
	// capture moves the nodes after its iframe).
	Base  int
	Index []int
}

// AXTreeInput is what [TakeAXTree] needs.
type AXTreeInput struct {
	// Session is the page's CDP session (its main frame's).
	Session cdpSender
	// Worlds are the capture's worlds; none leaves every node's capture
	// index at -1.
	Worlds []CaptureWorld
	// FrameSession returns the session of an out-of-process frame by its
	// frame id; nil, or an error, leaves that frame's tree out (its
	// Frame.Missing says why).
	FrameSession func(frameID string) (cdpSender, error)
	// MaxNodes bounds the page's size: when the main document of the first
	// world holds more elements, the page's renderer process more live DOM
	// nodes (closed shadow roots and same-origin frames included: see
	// liveNodes), or the DOM snapshot of the page's process more nodes, no
	// tree is taken and TakeAXTree returns ErrTooLarge (see
	// pipeline.DefaultMaxAXNodes). 0 means pipeline.DefaultMaxAXNodes.
	MaxNodes int
	// MaxText bounds the page's text: when the main document of the first
	// world holds more characters in its text nodes (outside script, style
	// and noscript), no tree is taken and TakeAXTree returns ErrTooLarge
	// (see pipeline.DefaultMaxAXText). 0 means pipeline.DefaultMaxAXText.
	MaxText int
	// MaxFrames bounds the frames the record holds besides the main one
	// (the crawl's --max-frames); frames past it are left out (not
	// listed). 0 means MaxFrames.
	MaxFrames int
	// sized says that checkSize found the page within MaxNodes already
	// (takeExtras counts once for both records).
	sized bool
}

// ErrTooLarge is returned when a page has more DOM nodes than
// AXTreeInput.MaxNodes, or more text than AXTreeInput.MaxText: the
// record is not taken.
var ErrTooLarge = errors.New("accessibility tree: page too large")

// MaxFrames is the default of AXTreeInput.MaxFrames; frames past the
// bound are left out (Frame.Missing is not set for them: they are not
// listed at all).
const MaxFrames = 64

// TakeAXTree takes the accessibility tree of the page and every frame in
// it, with each node's DOM node, tag, tabindex and border box in page
// coordinates, and ties the nodes to the capture's elements by DOM
// identity. Call it right after the capture, before anything else touches
// the page. It costs, per renderer process, one DOM snapshot, one
// accessibility tree per frame, one script run per capture world and one
// box-model call per frame element.
func TakeAXTree(ctx context.Context, in AXTreeInput) (*axtree.Record, error) {
	b := &axBuilder{in: in, rec: &axtree.Record{Version: axtree.Version}}
	if err := b.build(ctx); err != nil {
		return nil, err
	}
	return b.rec, nil
}

// TakeAISnapshot takes Playwright's AI snapshot of page with boxes, and
// the main frame's scroll offsets through cdp (the page's session), which
// place its boxes in the page. timeout bounds the snapshot (0: none).
func TakeAISnapshot(page playwright.Page, cdp cdpSender, timeout time.Duration) (*axtree.Snapshot, error) {
	opts := playwright.PageAriaSnapshotOptions{
		Mode:  playwright.AriaSnapshotModeAi,
		Boxes: playwright.Bool(true),
	}
	if timeout > 0 {
		opts.Timeout = playwright.Float(float64(timeout.Milliseconds()))
	}
	text, err := page.AriaSnapshot(opts)
	if err != nil {
		return nil, fmt.Errorf("AI snapshot: %w", err)
	}
	res, err := cdp.Send("Page.getLayoutMetrics", map[string]any{})
	if err != nil {
		return nil, fmt.Errorf("AI snapshot: layout metrics: %w", err)
	}
	sx, _ := dig(res, "cssLayoutViewport", "pageX").(float64)
	sy, _ := dig(res, "cssLayoutViewport", "pageY").(float64)
	return &axtree.Snapshot{Version: axtree.Version, ScrollX: sx, ScrollY: sy, Text: text}, nil
}

// takeExtras takes, after the capture, the screenshot and the HTML (which
// only read the page), the records of the page state cfg asks for into
// ld: the accessibility tree and the AI snapshot, both at once (unless
// cfg.Sequential), timing each. A page whose DOM holds more nodes than
// cfg.MaxAXNodes, or more text than cfg.MaxAXText, gets neither: both are
// built in one reply the browser cannot interrupt, so the nodes and the
// text are counted first (checkSize) and both are skipped as too_large.
// The two only read the page: the tree through CDP, the snapshot through
// Playwright's injected script, so one waits on the browser while the
// other does. A record that fails or that
// the page is too large for is left out and ld says why (AXTreeSkipped,
// AISnapshotSkipped); the load goes on. Each record may take at most half
// the time left to the load (the last one taken, on a second try, all but
// a tenth of it: see takeExtra) and is given up past it: a page of many
// frames must not spend the page's time limit on its extras and lose its
// capture. A record that fails for lack of time gets one more try within
// the load's time limit. Both records leave secrets' values out before
// they are checked and stored (see pageSecrets); the snapshot's need the
// tree, so both are in before either is checked. cfg.Raw takes them raw
// instead (rawRecords) and keeps neither.
func (p *pwPage) takeExtras(ctx context.Context, tab *pwTab, rawURL string, in AXTreeInput, cfg pipeline.ExtrasConfig, secrets *pageSecrets, ld *pipeline.Load) {
	var (
		rec          *axtree.Record
		snap         *axtree.Snapshot
		axErr, snErr error
		axLate       bool
		snLate       bool
		snNoTime     bool
	)
	if cfg.Raw {
		if err := p.rawRecords(ctx, tab, cfg, ld); err != nil {
			p.log.Warn("records taken raw failed", logURL, rawURL, logError, shortError{err})
		}
		return
	}
	in.MaxNodes, in.MaxText, in.MaxFrames = cfg.MaxAXNodes, cfg.MaxAXText, p.cfg.MaxFrames
	if cfg.AXTree || cfg.AISnapshot {
		p.stage.Store("page size")
		start := time.Now()
		answered, err := sizeWithin(ctx, in)
		if answered && err != nil {
			p.skipTooLarge(rawURL, cfg, time.Since(start), err, ld)
			return
		}
		in.sized = answered
	}
	takeTree := func(last bool) {
		start := time.Now()
		rec, axErr, axLate = takeExtra(ctx, "accessibility tree", last, func(actx context.Context, _ time.Duration) (*axtree.Record, error) {
			return TakeAXTree(actx, in)
		})
		ld.AXTreeTime = time.Since(start)
	}
	takeSnapshot := func() {
		if ctx.Err() != nil {
			snNoTime = true
			return
		}
		start := time.Now()
		// Playwright's own timeout does not always hold (frames that do
		// not answer): takeExtra also abandons the call at the limit.
		snap, snErr, snLate = takeExtra(ctx, "AI snapshot", true, func(_ context.Context, limit time.Duration) (*axtree.Snapshot, error) {
			return TakeAISnapshot(tab.page, in.Session, limit)
		})
		ld.AISnapshotTime = time.Since(start)
	}
	switch {
	case cfg.AXTree && cfg.AISnapshot && !cfg.Sequential:
		p.stage.Store("accessibility tree and AI snapshot")
		atOnce(func() { takeTree(true) }, takeSnapshot)
	default:
		if cfg.AXTree {
			p.stage.Store("accessibility tree")
			takeTree(!cfg.AISnapshot)
		}
		if cfg.AISnapshot {
			p.stage.Store("AI snapshot")
			takeSnapshot()
		}
	}
	if cfg.AXTree {
		p.keepAXTree(rawURL, rec, axErr, axLate, secrets, ld)
	}
	if !cfg.AISnapshot {
		return
	}
	if snNoTime {
		ld.AISnapshotSkipped = dataset.SkippedDeadline
		p.log.Warn("AI snapshot not taken: no time left", logURL, rawURL, logSkipped, ld.AISnapshotSkipped)
		return
	}
	p.keepSnapshot(ctx, rawURL, snap, snErr, snLate, cfg, secrets, ld)
}

// skipTooLarge records that the page is too large for either record
// (err, from checkSize): neither is taken, each one asked for is skipped
// as too_large and timed as the count that refused it.
func (p *pwPage) skipTooLarge(rawURL string, cfg pipeline.ExtrasConfig, took time.Duration, err error, ld *pipeline.Load) {
	if cfg.AXTree {
		ld.AXTreeTime, ld.AXTreeSkipped = took, dataset.SkippedTooLarge
	}
	if cfg.AISnapshot {
		ld.AISnapshotTime, ld.AISnapshotSkipped = took, dataset.SkippedTooLarge
	}
	p.log.Debug("accessibility tree and AI snapshot not taken", logURL, rawURL, logSkipped, dataset.SkippedTooLarge, logError, err)
}

// atOnce runs every f, each on a goroutine of its own, and returns once
// all have.
func atOnce(fs ...func()) {
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Go(f)
	}
	wg.Wait()
}

// keepAXTree stores the accessibility tree taken into ld, its secrets
// left out, or says why it is not there.
func (p *pwPage) keepAXTree(rawURL string, rec *axtree.Record, err error, late bool, secrets *pageSecrets, ld *pipeline.Load) {
	switch {
	case errors.Is(err, ErrTooLarge):
		ld.AXTreeSkipped = dataset.SkippedTooLarge
		p.log.Debug("accessibility tree not stored", logURL, rawURL, logSkipped, ld.AXTreeSkipped, logError, err)
	case err != nil:
		ld.AXTreeSkipped = dataset.SkippedFailed
		if late {
			ld.AXTreeSkipped = dataset.SkippedDeadline
		}
		p.log.Warn("accessibility tree not stored", logURL, rawURL, logSkipped, ld.AXTreeSkipped, logError, shortError{err})
	default:
		secrets.axTree(rec)
		ld.AXTree = rec
	}
}

// keepSnapshot stores the AI snapshot taken into ld, its secrets left out
// (which needs ld's accessibility tree), or says why it is not there.
func (p *pwPage) keepSnapshot(ctx context.Context, rawURL string, snap *axtree.Snapshot, err error, late bool, cfg pipeline.ExtrasConfig, secrets *pageSecrets, ld *pipeline.Load) {
	switch {
	case err != nil && late:
		ld.AISnapshotSkipped = dataset.SkippedDeadline
	case err != nil:
		ld.AISnapshotSkipped = dataset.SkippedFailed
	case len(snap.Text) > cfg.MaxAISnapshotBytes:
		err = fmt.Errorf("AI snapshot of %d bytes: more than %d", len(snap.Text), cfg.MaxAISnapshotBytes)
		ld.AISnapshotSkipped = dataset.SkippedTooLarge
	default:
		secrets.snapshot(snap, ld.AXTree, ld.Capture)
		if _, err = axtree.ParseSnapshot(snap.Text); err != nil {
			ld.AISnapshotSkipped = dataset.SkippedMalformed
		}
	}
	if err != nil {
		level := slog.LevelWarn
		if ld.AISnapshotSkipped == dataset.SkippedTooLarge {
			level = slog.LevelDebug // the page decides; the row says so
		}
		p.log.Log(ctx, level, "AI snapshot not stored", logURL, rawURL, logSkipped, ld.AISnapshotSkipped, logError, shortError{err})
		return
	}
	ld.AISnapshot = snap
}

// takeExtra takes one extra record with take, given a context and a
// limit: half the time left to ctx (extrasLimit). When the record does
// not come within its limit (no answer, or a deadline or timeout error),
// and ctx has time left, it gets one more try: with half the time left
// again, or, when it is the last record the load takes (last), with all
// but a tenth of it. late reports that the last try failed for lack of
// time.
func takeExtra[T any](ctx context.Context, name string, last bool, take func(context.Context, time.Duration) (T, error)) (v T, err error, late bool) {
	for try := 1; ; try++ {
		limit := extrasLimit(ctx)
		if try > 1 && last {
			limit = lastLimit(ctx)
		}
		tctx, cancel := contextWithLimit(ctx, limit)
		var ok bool
		v, err, ok = bounded.Call(tctx, 0, func() (T, error) { return take(tctx, limit) }, nil)
		cancel()
		if !ok {
			err = fmt.Errorf("%s: no answer within %v: %w", name, limit.Round(time.Millisecond), context.DeadlineExceeded)
		}
		late = err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, playwright.ErrTimeout))
		if !late || try == 2 || ctx.Err() != nil {
			return v, err, late
		}
	}
}

// extrasLimit is how long one extra record may take: half the time left
// to ctx, so that the load ends within its limit whatever the browser
// does; no limit (0) when ctx has no deadline.
func extrasLimit(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return max(time.Millisecond, time.Until(dl)/2)
	}
	return 0
}

// lastLimit is how long the second try of the last extra record may
// take: all but a tenth of the time left to ctx; no limit (0) when ctx
// has no deadline.
func lastLimit(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return max(time.Millisecond, time.Until(dl)*9/10)
	}
	return 0
}

// contextWithLimit is ctx bounded by limit, or ctx itself for limit 0.
func contextWithLimit(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if limit <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, limit)
}

// axBuilder assembles one record.
type axBuilder struct {
	in    AXTreeInput
	rec   *axtree.Record
	procs []*process
	// frames[i] says where rec.Frames[i] lives.
	frames []frameRef
	// capture maps a DOM node, by process and backend id, to its capture
	// index.
	capture map[nodeKey]int
}

// process is one renderer process reached through a session, with its DOM
// snapshot.
type process struct {
	cdp  cdpSender
	docs []*snapDoc
}

type frameRef struct {
	proc, doc int
	// owner is the frame element's backend id in the parent's process (0
	// for the main frame).
	owner int
}

type nodeKey struct{ proc, backend int }

// snapDoc is one document of a DOM snapshot: the flat tree (shadow
// content in place of its host's children, slotted nodes under their
// slots), as parallel arrays by node index.
type snapDoc struct {
	frameID, url string
	scroll       [2]float64
	name         []string // lower-case node names
	typ          []int
	parent       []int
	backend      []int
	// hidden marks nodes scripts cannot reach: pseudo-elements, and the
	// content of closed and user-agent shadow roots.
	hidden   []bool
	pseudo   []bool
	tabindex map[int]string
	// password marks the password inputs: their accessibility nodes'
	// values (masked, but as long as the password) are not recorded.
	password   map[int]bool
	bounds     map[int]dom.Rect // border boxes in document coordinates
	contentDoc map[int]int      // frame element → document index
	byBackend  map[int]int
	ords       []int // element ordinals → node index, built on first need
}

func (b *axBuilder) build(ctx context.Context) error {
	if b.in.Session == nil {
		return errors.New("accessibility tree: no CDP session")
	}
	b.capture = map[nodeKey]int{}
	limit := nodeLimit(b.in)
	if !b.in.sized {
		if err := checkSize(b.in); err != nil {
			return err
		}
	}
	main, err := b.addProcess(b.in.Session)
	if err != nil {
		return err
	}
	if len(b.procs[main].docs) == 0 {
		return errors.New("accessibility tree: the DOM snapshot has no document")
	}
	total := 0
	for _, d := range b.procs[main].docs {
		total += len(d.name)
	}
	if total > limit {
		return fmt.Errorf("%w: %d DOM nodes, more than %d", ErrTooLarge, total, limit)
	}
	root := b.procs[main].docs[0]
	b.rec.Frames = append(b.rec.Frames, axtree.Frame{ID: root.frameID, Parent: -1, URL: root.url, Origin: root.scroll, Scroll: root.scroll, Owner: -1, Root: -1})
	b.frames = append(b.frames, frameRef{proc: main, doc: 0})
	if err := b.addFrames(ctx, 0); err != nil {
		return err
	}
	if err := b.matchWorlds(ctx); err != nil {
		return err
	}
	return b.addTrees(ctx)
}

// nodeLimit is in.MaxNodes, or its default.
func nodeLimit(in AXTreeInput) int {
	if in.MaxNodes <= 0 {
		return pipeline.DefaultMaxAXNodes
	}
	return in.MaxNodes
}

// checkSize returns an error wrapping ErrTooLarge when the page holds
// more DOM nodes than in.MaxNodes, or its main document more text than
// in.MaxText (see textWithin), before anything costly is taken: the
// accessibility tree and the AI snapshot are each built in one reply the
// browser cannot interrupt, and the DOM snapshot that counts every node
// costs about as much as the tree on a huge page. It asks the renderer
// for its count of live nodes, which it knows at once and which reaches
// what a script does not (closed shadow roots, the documents of
// same-origin frames). Only when the renderer cannot tell, it counts the
// main document's elements in the capture's world: every element is a
// live node. It returns nil when the page is within the limit, or when
// neither count could be had (TakeAXTree's DOM snapshot counts again).
func checkSize(in AXTreeInput) error {
	limit := nodeLimit(in)
	n, err := liveNodes(in.Session, limit)
	switch {
	case err == nil && n > limit:
		return fmt.Errorf("%w: %d live DOM nodes in the page's renderer (shadow roots and same-origin frames included), more than %d", ErrTooLarge, n, limit)
	case err != nil && len(in.Worlds) > 0:
		w := in.Worlds[0]
		if n, err := evaluateIn(w.Session, w.Context, "document.getElementsByTagName('*').length", 0); err == nil {
			if f, ok := n.(float64); ok && int(f) > limit {
				return fmt.Errorf("%w: %d elements, more than %d DOM nodes", ErrTooLarge, int(f), limit)
			}
		}
	}
	return textWithin(in)
}

// textScript counts the characters of the document's text nodes outside
// script, style and noscript (what no record shows), stopping once past
// its argument. It runs in the capture's world, which the page's own
// scripts do not reach, and no text leaves the page.
const textScript = `((limit) => {
  const walk = document.createTreeWalker(document, NodeFilter.SHOW_TEXT);
  let n = 0;
  while (n <= limit && walk.nextNode()) {
    const p = walk.currentNode.parentNode;
    const tag = p ? p.localName : "";
    if (tag !== "script" && tag !== "style" && tag !== "noscript") n += walk.currentNode.length;
  }
  return n;
})`

// textWithin returns an error wrapping ErrTooLarge when the main document
// of the first world holds more text than in.MaxText. The accessibility
// tree names its text nodes with their text, and the AI snapshot is made
// of it, so both are at least that long; the browser builds either in one
// reply, which is cut (the snapshot's, at its byte cap) only after it has
// been built and moved. Shadow roots and frames are not counted: the
// count is a floor of what the records would hold. Without a world, or
// when the count fails, it returns nil.
func textWithin(in AXTreeInput) error {
	if len(in.Worlds) == 0 {
		return nil
	}
	limit := in.MaxText
	if limit <= 0 {
		limit = pipeline.DefaultMaxAXText
	}
	w := in.Worlds[0]
	v, err := evaluateIn(w.Session, w.Context, fmt.Sprintf("%s(%d)", textScript, limit), 0)
	if f, ok := v.(float64); err == nil && ok && int(f) > limit {
		return fmt.Errorf("%w: more than %d characters of text in the main document", ErrTooLarge, limit)
	}
	return nil
}

// sizeWithin is checkSize bounded by ctx, like the records: answered is
// false when ctx ended first (a renderer that does not answer), which
// leaves the count to TakeAXTree and the records to their own limits.
func sizeWithin(ctx context.Context, in AXTreeInput) (answered bool, err error) {
	_, err, answered = bounded.Call(ctx, 0, func() (struct{}, error) { return struct{}{}, checkSize(in) }, nil)
	return answered, err
}

// liveNodes returns the number of DOM nodes alive in the renderer
// process of session cdp (Memory.getDOMCounters, one round trip with no
// domain to enable): every document of the process, same-origin frames
// included, open and closed shadow roots, and nodes the page dropped but
// the garbage collector has not yet freed. Above limit, it collects the
// garbage and counts again: the nodes a page dropped, and the whole
// document a tab showed before (a huge page's half a million nodes), must
// not refuse the page. The collection costs up to a second or two on a
// huge heap, and only on pages over the limit.
func liveNodes(cdp cdpSender, limit int) (int, error) {
	count := func() (int, error) {
		res, err := cdp.Send("Memory.getDOMCounters", map[string]any{})
		if err != nil {
			return 0, fmt.Errorf("count nodes: %w", err)
		}
		v, ok := dig(res, "nodes").(float64)
		if !ok {
			return 0, errors.New("count nodes: no node count")
		}
		return int(v), nil
	}
	n, err := count()
	if err != nil || n <= limit {
		return n, err
	}
	if _, err := cdp.Send("HeapProfiler.collectGarbage", map[string]any{}); err != nil {
		return n, nil
	}
	return count()
}

// addProcess takes the DOM snapshot of a session's process.
func (b *axBuilder) addProcess(cdp cdpSender) (int, error) {
	res, err := cdp.Send("DOMSnapshot.captureSnapshot", map[string]any{"computedStyles": []any{}})
	if err != nil {
		return 0, fmt.Errorf("accessibility tree: DOM snapshot: %w", err)
	}
	docs, err := parseDOMSnapshot(res)
	if err != nil {
		return 0, fmt.Errorf("accessibility tree: DOM snapshot: %w", err)
	}
	b.procs = append(b.procs, &process{cdp: cdp, docs: docs})
	return len(b.procs) - 1, nil
}

// addFrames lists the child frames of frame f, depth first, with their
// geometry.
func (b *axBuilder) addFrames(ctx context.Context, f int) error {
	ref := b.frames[f]
	p := b.procs[ref.proc]
	d := p.docs[ref.doc]
	for node, name := range d.name {
		if (name != "iframe" && name != "frame") || d.typ[node] != 1 {
			continue
		}
		if len(b.rec.Frames) > cmp.Or(b.in.MaxFrames, MaxFrames) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("accessibility tree: %w", err)
		}
		child := axtree.Frame{Parent: f, Owner: -1, Root: -1}
		cref := frameRef{proc: ref.proc, doc: -1, owner: d.backend[node]}
		if cd, ok := d.contentDoc[node]; ok {
			cref.doc = cd
		} else {
			// Out of process, or nothing loaded: the element names its frame.
			res, err := p.cdp.Send("DOM.describeNode", map[string]any{"backendNodeId": d.backend[node]})
			id, _ := dig(res, "node", "frameId").(string)
			if err != nil || id == "" {
				continue
			}
			child.ID, child.OutOfProcess = id, true
			if b.in.FrameSession == nil {
				child.Missing = "out-of-process frame: no session"
			} else if s, err := b.in.FrameSession(id); err != nil {
				child.Missing = "out-of-process frame: " + err.Error()
			} else if pi, err := b.addProcess(s); err != nil {
				child.Missing = err.Error()
			} else if di := b.procs[pi].docByFrame(id); di < 0 {
				child.Missing = "out-of-process frame: not in its session's DOM snapshot"
			} else {
				cref.proc, cref.doc = pi, di
			}
		}
		if cref.doc >= 0 {
			cd := b.procs[cref.proc].docs[cref.doc]
			child.ID, child.URL, child.Scroll = cd.frameID, cd.url, cd.scroll
		}
		// The frame's viewport starts at its element's content box.
		if box, ok := d.bounds[node]; ok {
			pb := b.toPage(f, box)
			child.Box = &pb
			child.Origin = [2]float64{pb[0], pb[1]}
			if dx, dy, ok := contentOffset(p.cdp, d.backend[node]); ok {
				child.Origin = [2]float64{round2(pb[0] + dx), round2(pb[1] + dy)}
			}
		}
		b.rec.Frames = append(b.rec.Frames, child)
		b.frames = append(b.frames, cref)
		if cref.doc >= 0 {
			if err := b.addFrames(ctx, len(b.rec.Frames)-1); err != nil {
				return err
			}
		}
	}
	return nil
}

// contentOffset returns how far an element's content box lies from its
// border box's corner (its left and top border and padding).
func contentOffset(cdp cdpSender, backend int) (dx, dy float64, ok bool) {
	res, err := cdp.Send("DOM.getBoxModel", map[string]any{"backendNodeId": backend})
	if err != nil {
		return 0, 0, false
	}
	border, _ := dig(res, "model", "border").([]any)
	content, _ := dig(res, "model", "content").([]any)
	if len(border) < 2 || len(content) < 2 {
		return 0, 0, false
	}
	bx, _ := border[0].(float64)
	by, _ := border[1].(float64)
	cx, _ := content[0].(float64)
	cy, _ := content[1].(float64)
	return cx - bx, cy - by, true
}

// toPage moves a box of frame f's document into page coordinates.
func (b *axBuilder) toPage(f int, r dom.Rect) dom.Rect {
	fr := &b.rec.Frames[f]
	return dom.Rect{
		round2(r[0] + fr.Origin[0] - fr.Scroll[0]),
		round2(r[1] + fr.Origin[1] - fr.Scroll[1]),
		round2(r[2]), round2(r[3]),
	}
}

func (p *process) docByFrame(frameID string) int {
	for i, d := range p.docs {
		if d.frameID == frameID {
			return i
		}
	}
	return -1
}

// identityScript runs in a capture's world. For every element the capture
// recorded (dom.NodesGlobal) it returns the element's document, as the
// path of frame-element ordinals from the world's document, and its
// ordinal: its position among the elements of its document's flat tree in
// pre-order (an open shadow root's content in place of its host's
// children, a slot's assigned nodes in place of its own), which is the
// order of the browser's DOM snapshot. It returns null when the capture
// left no list.
const identityScript = `(() => {
  const nodes = globalThis.` + dom.NodesGlobal + `;
  if (!Array.isArray(nodes)) return null;
  const docs = new Map(), keys = [];
  const ordinals = (doc) => {
    const m = new Map();
    const stack = [doc.documentElement];
    let k = 0;
    while (stack.length) {
      const n = stack.pop();
      if (!n || n.nodeType !== 1) continue;
      m.set(n, k++);
      let kids = n.shadowRoot ? n.shadowRoot.childNodes : n.childNodes;
      if (!n.shadowRoot && n.localName === "slot" && typeof n.assignedNodes === "function") {
        const a = n.assignedNodes();
        if (a.length) kids = a;
      }
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
    return m;
  };
  const info = (doc) => {
    let d = docs.get(doc);
    if (d !== undefined) return d;
    let key = [];
    if (doc !== document) {
      let fe = null;
      try { fe = doc.defaultView && doc.defaultView.frameElement; } catch (e) { fe = null; }
      const p = fe ? info(fe.ownerDocument) : null;
      const o = p ? p.ords.get(fe) : undefined;
      if (o === undefined) { docs.set(doc, null); return null; }
      key = p.key.concat([o]);
    }
    d = {ords: ordinals(doc), key, idx: keys.length};
    docs.set(doc, d);
    keys.push(key);
    return d;
  };
  const at = [], tags = [];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    let di = -1, o = -1, tag = "";
    if (n && n.nodeType === 1) {
      const d = info(n.ownerDocument);
      const v = d ? d.ords.get(n) : undefined;
      if (v !== undefined) { di = d.idx; o = v; tag = n.localName; }
    }
    at.push(di, o);
    tags.push(tag);
  }
  return JSON.stringify({docs: keys, at, tags});
})()`

// identity is what identityScript returns.
type identity struct {
	Docs [][]int  `json:"docs"`
	At   []int    `json:"at"`
	Tags []string `json:"tags"`
}

// matchWorlds ties the capture's elements to DOM nodes, world by world.
func (b *axBuilder) matchWorlds(ctx context.Context) error {
	for _, w := range b.in.Worlds {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("accessibility tree: %w", err)
		}
		pi, di := -1, -1
		for i, p := range b.procs {
			if di = p.docByFrame(w.FrameID); di >= 0 {
				pi = i
				break
			}
		}
		if pi < 0 {
			continue // a frame the snapshot did not reach
		}
		res, err := evaluateIn(w.Session, w.Context, identityScript, 0)
		if err != nil {
			return fmt.Errorf("accessibility tree: match the capture: %w", err)
		}
		s, ok := res.(string)
		if !ok {
			continue // no element list in that world
		}
		var id identity
		if err := json.Unmarshal([]byte(s), &id); err != nil {
			return fmt.Errorf("accessibility tree: match the capture: %w", err)
		}
		b.rec.Match.Method = "ordinal"
		b.applyIdentity(pi, di, w, &id)
	}
	return nil
}

// applyIdentity maps the capture elements of id, whose world w's document
// is document di of process pi, to backend ids.
func (b *axBuilder) applyIdentity(pi, di int, w CaptureWorld, id *identity) {
	p := b.procs[pi]
	// The snapshot's documents by their key: the path of frame-element
	// ordinals from di.
	byKey := map[string]int{"": di}
	keyOf := func(path []int) string {
		var sb strings.Builder
		for _, o := range path {
			sb.WriteString(strconv.Itoa(o))
			sb.WriteByte('/')
		}
		return sb.String()
	}
	var walk func(doc int, path []int)
	walk = func(doc int, path []int) {
		d := p.docs[doc]
		for node, cd := range d.contentDoc {
			o := d.ordinalOf(node)
			if o < 0 {
				continue
			}
			sub := append(append([]int(nil), path...), o)
			byKey[keyOf(sub)] = cd
			walk(cd, sub)
		}
	}
	walk(di, nil)
	docs := make([]int, len(id.Docs))
	for i, k := range id.Docs {
		docs[i] = -1
		if d, ok := byKey[keyOf(k)]; ok {
			docs[i] = d
		}
	}
	for i := 0; 2*i+1 < len(id.At) && i < len(id.Tags); i++ {
		dk, o := id.At[2*i], id.At[2*i+1]
		if dk < 0 || o < 0 {
			continue
		}
		b.rec.Match.Elements++
		if dk >= len(docs) || docs[dk] < 0 {
			continue
		}
		d := p.docs[docs[dk]]
		ords := d.ordinals()
		if o >= len(ords) {
			continue
		}
		node := ords[o]
		if d.name[node] != strings.ToLower(id.Tags[i]) {
			b.rec.Match.Mismatched++
			continue
		}
		stored := w.Base + i
		if w.Index != nil {
			if i >= len(w.Index) {
				continue
			}
			stored = w.Index[i]
		}
		b.rec.Match.Resolved++
		b.capture[nodeKey{pi, d.backend[node]}] = stored
	}
}

// ordinals returns the document's elements in flat-tree pre-order, as
// node indices, leaving out what scripts cannot reach.
func (d *snapDoc) ordinals() []int {
	if d.ords != nil {
		return d.ords
	}
	kids := make([][]int, len(d.name))
	for i, p := range d.parent {
		if p >= 0 && p < len(kids) {
			kids[p] = append(kids[p], i)
		}
	}
	ords := make([]int, 0, len(d.name)/2)
	stack := []int{0}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.pseudo[n] {
			continue
		}
		if d.typ[n] == 1 && !d.hidden[n] {
			ords = append(ords, n)
		}
		for i := len(kids[n]) - 1; i >= 0; i-- {
			stack = append(stack, kids[n][i])
		}
	}
	d.ords = ords
	return ords
}

// ordinalOf returns node's ordinal, or -1.
func (d *snapDoc) ordinalOf(node int) int {
	for o, n := range d.ordinals() {
		if n == node {
			return o
		}
	}
	return -1
}

// addTrees takes every frame's accessibility tree and joins them into the
// record, each frame's below its frame element's node.
func (b *axBuilder) addTrees(ctx context.Context) error {
	trees := make([]map[string]map[string]any, len(b.rec.Frames))
	roots := make([]string, len(b.rec.Frames))
	for f, ref := range b.frames {
		if ref.doc < 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("accessibility tree: %w", err)
		}
		res, err := b.procs[ref.proc].cdp.Send("Accessibility.getFullAXTree", map[string]any{"frameId": b.rec.Frames[f].ID})
		if err != nil {
			if f == 0 {
				return fmt.Errorf("accessibility tree: %w", err)
			}
			b.rec.Frames[f].Missing = "accessibility tree: " + err.Error()
			continue
		}
		list, _ := dig(res, "nodes").([]any)
		byID := make(map[string]map[string]any, len(list))
		for _, v := range list {
			m, _ := v.(map[string]any)
			id, _ := m["nodeId"].(string)
			if id == "" {
				continue
			}
			byID[id] = m
			if _, has := m["parentId"]; !has && roots[f] == "" {
				roots[f] = id
			}
		}
		trees[f] = byID
	}
	if trees[0] == nil || roots[0] == "" {
		return errors.New("accessibility tree: the main frame's tree is empty")
	}
	// Child frames by their element, per parent frame.
	owned := make([]map[int][]int, len(b.rec.Frames))
	for f := 1; f < len(b.rec.Frames); f++ {
		p := b.rec.Frames[f].Parent
		if owned[p] == nil {
			owned[p] = map[int][]int{}
		}
		owned[p][b.frames[f].owner] = append(owned[p][b.frames[f].owner], f)
	}
	var addFrame func(f, parent int)
	addFrame = func(f, parent int) {
		if trees[f] == nil || roots[f] == "" {
			return
		}
		placed := map[int]bool{}
		// secret marks the record's nodes in a password input's subtree:
		// their values and texts (Chromium's mask, as long as the
		// password) are not recorded.
		secret := map[int]bool{}
		var add func(id string, parent int)
		add = func(id string, parent int) {
			m := trees[f][id]
			if m == nil {
				return
			}
			role := axValue(m["role"])
			if role == "InlineTextBox" {
				return // the text of its StaticText parent, split into lines
			}
			i := len(b.rec.Nodes)
			b.rec.Nodes = append(b.rec.Nodes, b.node(f, m, role, parent))
			if secret[parent] || b.isPassword(f, b.rec.Nodes[i].Backend) {
				nd := &b.rec.Nodes[i]
				nd.Value = ""
				if secret[parent] {
					nd.Name = "" // the input itself keeps its name (its label)
				} else {
					nd.Password = true
				}
				secret[i] = true
			}
			if parent < 0 || b.rec.Nodes[parent].Frame != f {
				b.rec.Frames[f].Root = i
			}
			kids, _ := m["childIds"].([]any)
			for _, k := range kids {
				if ks, ok := k.(string); ok {
					add(ks, i)
				}
			}
			if be := b.rec.Nodes[i].Backend; be != 0 {
				for _, cf := range owned[f][be] {
					placed[cf] = true
					b.rec.Frames[cf].Owner = i
					addFrame(cf, i)
				}
			}
		}
		add(roots[f], parent)
		// Frames whose element has no node hang below the frame's root.
		for _, cfs := range owned[f] {
			for _, cf := range cfs {
				if !placed[cf] {
					addFrame(cf, b.rec.Frames[f].Root)
				}
			}
		}
	}
	addFrame(0, -1)
	return nil
}

// node converts one CDP accessibility node of frame f.
func (b *axBuilder) node(f int, m map[string]any, role string, parent int) axtree.Node {
	n := axtree.Node{
		Parent:  parent,
		Role:    role,
		Name:    axValue(m["name"]),
		Value:   axValue(m["value"]),
		Frame:   f,
		Capture: -1,
	}
	n.Ignored, _ = m["ignored"].(bool)
	if reasons, ok := m["ignoredReasons"].([]any); ok {
		for _, r := range reasons {
			if name, _ := dig(r, "name").(string); name != "" {
				n.IgnoredWhy = append(n.IgnoredWhy, name)
			}
		}
	}
	if props, ok := m["properties"].([]any); ok {
		for _, p := range props {
			name, _ := dig(p, "name").(string)
			v, ok := scalar(dig(p, "value", "value"))
			if name != "" && ok {
				n.Props = append(n.Props, [2]string{name, v})
			}
		}
	}
	be, _ := m["backendDOMNodeId"].(float64)
	n.Backend = int(be)
	if n.Backend == 0 {
		return n
	}
	ref := b.frames[f]
	d := b.procs[ref.proc].docs[ref.doc]
	node, ok := d.byBackend[n.Backend]
	if !ok {
		return n
	}
	n.Tag = d.name[node]
	if ti, ok := d.tabindex[node]; ok {
		n.TabIndex = &ti
	}
	if box, ok := d.bounds[node]; ok {
		pb := b.toPage(f, box)
		n.Box = &pb
	}
	if c, ok := b.capture[nodeKey{ref.proc, n.Backend}]; ok {
		n.Capture = c
	}
	return n
}

// isPassword reports whether the DOM node backend of frame f is a
// password input.
func (b *axBuilder) isPassword(f, backend int) bool {
	ref := b.frames[f]
	if backend == 0 || ref.doc < 0 {
		return false
	}
	d := b.procs[ref.proc].docs[ref.doc]
	node, ok := d.byBackend[backend]
	return ok && d.password[node]
}

// axValue returns the value of a CDP AXValue ({type, value}) as a string.
func axValue(v any) string {
	s, _ := scalar(dig(v, "value"))
	return s
}

// scalar formats a JSON scalar; ok is false for anything else.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	}
	return "", false
}

// parseDOMSnapshot reads DOMSnapshot.captureSnapshot's result.
func parseDOMSnapshot(res any) ([]*snapDoc, error) {
	strs, _ := dig(res, "strings").([]any)
	str := func(v any) string {
		i, ok := v.(float64)
		if !ok || i < 0 || int(i) >= len(strs) {
			return ""
		}
		s, _ := strs[int(i)].(string)
		return s
	}
	list, _ := dig(res, "documents").([]any)
	docs := make([]*snapDoc, 0, len(list))
	for _, dv := range list {
		nodes := dig(dv, "nodes")
		names, _ := dig(nodes, "nodeName").([]any)
		n := len(names)
		d := &snapDoc{
			frameID:    str(dig(dv, "frameId")),
			url:        str(dig(dv, "documentURL")),
			name:       make([]string, n),
			typ:        ints(dig(nodes, "nodeType"), n),
			parent:     ints(dig(nodes, "parentIndex"), n),
			backend:    ints(dig(nodes, "backendNodeId"), n),
			hidden:     make([]bool, n),
			pseudo:     make([]bool, n),
			tabindex:   map[int]string{},
			password:   map[int]bool{},
			bounds:     map[int]dom.Rect{},
			contentDoc: map[int]int{},
			byBackend:  make(map[int]int, n),
		}
		if n == 0 {
			return nil, errors.New("a document without nodes")
		}
		d.scroll[0], _ = dig(dv, "scrollOffsetX").(float64)
		d.scroll[1], _ = dig(dv, "scrollOffsetY").(float64)
		for i, v := range names {
			d.name[i] = strings.ToLower(str(v))
			d.byBackend[d.backend[i]] = i
		}
		if attrs, ok := dig(nodes, "attributes").([]any); ok {
			for i, a := range attrs {
				pairs, _ := a.([]any)
				for k := 0; k+1 < len(pairs); k += 2 {
					switch str(pairs[k]) {
					case "tabindex":
						d.tabindex[i] = str(pairs[k+1])
					case "type":
						if i < n && d.name[i] == "input" && strings.EqualFold(str(pairs[k+1]), "password") {
							d.password[i] = true
						}
					}
				}
			}
		}
		rareInts(dig(nodes, "contentDocumentIndex"), func(i int, v any) {
			if f, ok := v.(float64); ok {
				d.contentDoc[i] = int(f)
			}
		})
		rareInts(dig(nodes, "shadowRootType"), func(i int, v any) {
			if t := str(v); t == "closed" || t == "user-agent" {
				d.hidden[i] = true
			}
		})
		rareInts(dig(nodes, "pseudoType"), func(i int, _ any) { d.pseudo[i] = true })
		layout := dig(dv, "layout")
		idx, _ := dig(layout, "nodeIndex").([]any)
		bounds, _ := dig(layout, "bounds").([]any)
		for k := 0; k < len(idx) && k < len(bounds); k++ {
			i, ok := idx[k].(float64)
			bv, _ := bounds[k].([]any)
			if !ok || len(bv) != 4 {
				continue
			}
			var r dom.Rect
			for j := range r {
				r[j], _ = bv[j].(float64)
			}
			if old, ok := d.bounds[int(i)]; ok {
				r = union(old, r)
			}
			d.bounds[int(i)] = r
		}
		docs = append(docs, d)
	}
	for _, d := range docs {
		for node, cd := range d.contentDoc {
			if cd < 0 || cd >= len(docs) {
				delete(d.contentDoc, node)
			}
		}
	}
	return docs, nil
}

// ints reads a JSON array of numbers, padded or cut to n.
func ints(v any, n int) []int {
	list, _ := v.([]any)
	out := make([]int, n)
	for i := range out {
		out[i] = -1
		if i < len(list) {
			if f, ok := list[i].(float64); ok {
				out[i] = int(f)
			}
		}
	}
	return out
}

// rareInts walks a CDP "rare data" object: {index: [...], value: [...]}
// (value absent for booleans).
func rareInts(v any, each func(i int, value any)) {
	idx, _ := dig(v, "index").([]any)
	vals, _ := dig(v, "value").([]any)
	for k, iv := range idx {
		i, ok := iv.(float64)
		if !ok {
			continue
		}
		var val any
		if k < len(vals) {
			val = vals[k]
		}
		each(int(i), val)
	}
}

func union(a, b dom.Rect) dom.Rect {
	l, t := math.Min(a[0], b[0]), math.Min(a[1], b[1])
	r, bt := math.Max(a[0]+a[2], b[0]+b[2]), math.Max(a[1]+a[3], b[1]+b[3])
	return dom.Rect{l, t, r - l, bt - t}
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
