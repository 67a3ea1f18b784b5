package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"actionspace/axtree"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/oracle"
	"actionspace/pipeline"
)

// ProbeInput is what [ProbeActionable] needs.
type ProbeInput struct {
	// Record is the accessibility tree of the page state, its nodes tied
	// to the capture by DOM identity (TakeAXTree): the oracle's elements
	// are the candidates.
	Record *axtree.Record
	// Worlds are the capture's worlds, where the capture's DOM nodes are
	// (dom.NodesGlobal).
	Worlds []CaptureWorld
	// Mode is axtree.ProbeViewport or axtree.ProbeAll.
	Mode string
	// Viewport is the main frame's viewport in page coordinates: under
	// ProbeViewport, the elements whose box meets it are the candidates.
	Viewport dom.Rect
	// Max bounds the candidates tested; Time the probe's time.
	Max  int
	Time time.Duration
}

// ProbeActionable asks the browser, for each oracle element of the
// record that is a candidate (see ProbeInput), whether a pointer event
// at the centre of the visible part of its box would reach it: the
// element at that point, found in the capture's isolated world with
// elementFromPoint (which skips pointer-events: none) and followed into
// open shadow roots, must be the element, a descendant of it (in the DOM
// or the flat tree), a label of it, or, for an option, its select; and,
// for an element in a same-origin frame, each enclosing frame element
// must be the element at the point in its own document. Under
// ProbeAll each element is scrolled into view first, which moves the
// page: call it after every other record was taken. An element is found
// by its capture element (axtree.Node.Capture); one without is not
// tested (axtree.HitNotCaptured).
func ProbeActionable(ctx context.Context, in ProbeInput) (*axtree.Probe, error) {
	if in.Mode != axtree.ProbeViewport && in.Mode != axtree.ProbeAll {
		return nil, fmt.Errorf("actionable probe: mode %q", in.Mode)
	}
	o := oracle.New(in.Record, nil)
	pr := &axtree.Probe{Mode: in.Mode}
	// where finds a stored capture index in a world: the world and the
	// index of its own list.
	type loc struct{ world, local int }
	where := map[int]loc{}
	for w := len(in.Worlds) - 1; w >= 0; w-- {
		for i, stored := range in.Worlds[w].Index {
			where[stored] = loc{w, i}
		}
	}
	find := func(stored int) (loc, bool) {
		if l, ok := where[stored]; ok {
			return l, true
		}
		if len(in.Worlds) > 0 && in.Worlds[0].Index == nil && stored >= in.Worlds[0].Base {
			return loc{0, stored - in.Worlds[0].Base}, true
		}
		return loc{}, false
	}
	// The candidates' hits, and per world the items its script tests.
	type item struct {
		hit   int // index in pr.Hits
		local int
		tag   string
	}
	perWorld := make([][]item, len(in.Worlds))
	for k := range o.Elements {
		e := &o.Elements[k]
		if in.Mode == axtree.ProbeViewport && !e.Box.Intersects(in.Viewport) {
			continue
		}
		pr.Candidates++
		h := axtree.Hit{Node: e.Node}
		n := &in.Record.Nodes[e.Node]
		l, ok := find(n.Capture)
		switch {
		case pr.Candidates > in.Max:
			pr.Capped, h.Why = true, axtree.HitCapped
		case n.Capture < 0 || !ok:
			h.Why = axtree.HitNotCaptured
		default:
			perWorld[l.world] = append(perWorld[l.world], item{hit: len(pr.Hits), local: l.local, tag: n.Tag})
		}
		pr.Hits = append(pr.Hits, h)
	}
	deadline := time.Now().Add(in.Time)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	var errs []error
	for w, items := range perWorld {
		if len(items) == 0 {
			continue
		}
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			for _, it := range items {
				pr.Hits[it.hit].Why = axtree.HitDeadline
			}
			pr.Late = true
			continue
		}
		args := probeArgs{All: in.Mode == axtree.ProbeAll, MS: float64(left.Milliseconds())}
		for _, it := range items {
			args.Items = append(args.Items, [2]any{it.local, it.tag})
		}
		arg, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("actionable probe: %w", err)
		}
		world := in.Worlds[w]
		res, err := evaluateIn(world.Session, world.Context, "("+probeScript+")("+string(arg)+")", float64(left.Milliseconds())+1000)
		var answers [][]any
		if err == nil {
			s, ok := res.(string)
			if !ok {
				err = errors.New("the capture left no element list")
			} else if err = json.Unmarshal([]byte(s), &answers); err == nil && len(answers) != len(items) {
				err = fmt.Errorf("%d answers for %d elements", len(answers), len(items))
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("frame %s: %w", world.FrameID, err))
			for _, it := range items {
				pr.Hits[it.hit].Why = axtree.HitGone
			}
			continue
		}
		for k, it := range items {
			if applyAnswer(&pr.Hits[it.hit], answers[k]) {
				pr.Late = true
			}
		}
	}
	if len(errs) > 0 && len(errs) == countWorlds(perWorld) {
		return nil, fmt.Errorf("actionable probe: %w", errors.Join(errs...))
	}
	return pr, nil
}

// countWorlds is the number of worlds with something to test.
func countWorlds[T any](perWorld [][]T) int {
	n := 0
	for _, items := range perWorld {
		if len(items) > 0 {
			n++
		}
	}
	return n
}

// applyAnswer sets h from one answer of probeScript: [1] reached,
// [0, tag, attrs] covered, [why] untested. It reports whether the answer
// is the script's deadline.
func applyAnswer(h *axtree.Hit, a []any) bool {
	if len(a) == 0 {
		h.Why = axtree.HitGone
		return false
	}
	switch v := a[0].(type) {
	case float64:
		reached := v == 1
		h.Reached = &reached
		if !reached && len(a) >= 3 {
			cover := dom.Node{Kind: dom.ElementNode}
			cover.Tag, _ = a[1].(string)
			if attrs, ok := a[2].([]any); ok {
				for _, x := range attrs {
					if kv, ok := x.([]any); ok && len(kv) == 2 {
						k, _ := kv[0].(string)
						val, _ := kv[1].(string)
						cover.Attrs = append(cover.Attrs, [2]string{k, val})
					}
				}
			}
			h.Tag, h.Role = cover.Tag, cover.Role()
		}
	case string:
		h.Why = v
		return v == axtree.HitDeadline
	default:
		h.Why = axtree.HitGone
	}
	return false
}

// probeArgs is probeScript's argument: the elements to test, by their
// index in the world's dom.NodesGlobal list and their tag, whether to
// scroll each into view, and the time the script may take.
type probeArgs struct {
	Items [][2]any `json:"items"`
	All   bool     `json:"all"`
	MS    float64  `json:"ms"`
}

// probeScript tests, in a capture's world, whether a pointer event at
// each element's centre reaches it (see ProbeActionable). It answers, per
// item, [1] (reached), [0, tag, [[name, value]…]] (covered, with the
// covering element's tag and the attributes its role depends on), or
// ["offscreen"], ["gone"], ["deadline"].
const probeScript = `(args) => {
  const nodes = globalThis.` + dom.NodesGlobal + `;
  if (!Array.isArray(nodes)) return null;
  const t0 = performance.now();
  const ROLE_ATTRS = ["role", "type", "href", "multiple", "size", "list", "contenteditable"];
  const size = (doc) => {
    const de = doc.documentElement, win = doc.defaultView;
    const w = de && de.clientWidth ? Math.min(de.clientWidth, win.innerWidth) : win.innerWidth;
    const h = de && de.clientHeight ? Math.min(de.clientHeight, win.innerHeight) : win.innerHeight;
    return [w, h];
  };
  const deepest = (doc, x, y) => {
    let h = doc.elementFromPoint(x, y);
    for (let k = 0; h && h.shadowRoot && k < 64; k++) {
      const d = h.shadowRoot.elementFromPoint(x, y);
      if (!d || d === h) break;
      h = d;
    }
    return h;
  };
  const within = (hit, el) => {
    for (const flat of [false, true]) {
      let n = hit;
      for (let k = 0; n && k < 100000; k++) {
        if (n === el) return true;
        const next = flat && n.assignedSlot ? n.assignedSlot : n.parentNode;
        n = next && next.nodeType === 11 ? next.host : next;
      }
    }
    return false;
  };
  const reaches = (hit, el) => {
    if (!hit) return false;
    if (within(hit, el)) return true;
    const lab = hit.closest ? hit.closest("label") : null;
    if (lab && lab.control === el) return true;
    if (el.localName === "option" && hit.localName === "select" && el.closest("select") === hit) return true;
    return false;
  };
  const cover = (hit) => {
    if (!hit) return [0, "", []];
    const attrs = [];
    for (const a of ROLE_ATTRS) {
      const v = hit.getAttribute(a);
      if (v !== null) attrs.push([a, v.slice(0, 200)]);
    }
    return [0, hit.localName || "", attrs];
  };
  const point = (el) => {
    const [w, h] = size(el.ownerDocument);
    for (const r of el.getClientRects()) {
      const x0 = Math.max(r.left, 0), y0 = Math.max(r.top, 0);
      const x1 = Math.min(r.right, w), y1 = Math.min(r.bottom, h);
      if (x1 - x0 >= 1 && y1 - y0 >= 1) return [(x0 + x1) / 2, (y0 + y1) / 2];
    }
    return null;
  };
  const out = [];
  for (const [i, tag] of args.items) {
    if (performance.now() - t0 > args.ms) { out.push(["deadline"]); continue; }
    const el = nodes[i];
    if (!el || el.nodeType !== 1 || !el.isConnected || el.localName !== tag) { out.push(["gone"]); continue; }
    if (args.all) {
      try { el.scrollIntoView({block: "center", inline: "center", behavior: "instant"}); } catch (e) {}
    }
    const p = point(el);
    if (!p) { out.push(["offscreen"]); continue; }
    let [x, y] = p;
    const hit = deepest(el.ownerDocument, x, y);
    if (!reaches(hit, el)) { out.push(cover(hit)); continue; }
    // Up through same-origin frames: each frame element must be what
    // its document has at the point.
    let win = el.ownerDocument.defaultView, answer = [1];
    for (let k = 0; win && win !== window && k < 16; k++) {
      let fe = null;
      try { fe = win.frameElement; } catch (e) { fe = null; }
      if (!fe) break;
      const r = fe.getBoundingClientRect(), cs = fe.ownerDocument.defaultView.getComputedStyle(fe);
      x += r.left + fe.clientLeft + (parseFloat(cs.paddingLeft) || 0);
      y += r.top + fe.clientTop + (parseFloat(cs.paddingTop) || 0);
      const [w, h] = size(fe.ownerDocument);
      if (x < 0 || y < 0 || x >= w || y >= h) { answer = ["offscreen"]; break; }
      const up = deepest(fe.ownerDocument, x, y);
      if (up !== fe) { answer = cover(up); break; }
      win = fe.ownerDocument.defaultView;
    }
    out.push(answer);
  }
  return JSON.stringify(out);
}`

// probeActionable takes the actionable-now probe of ld's accessibility
// tree, after every other record, into ld.AXTree.Probe, as cfg asks; a
// probe that fails is left out and ld says why (ActionableProbeSkipped).
func (p *pwPage) probeActionable(ctx context.Context, rawURL string, worlds []CaptureWorld, ld *pipeline.Load) {
	cfg := p.cfg.Extras
	if cfg.ActionableProbe == "" || cfg.ActionableProbe == axtree.ProbeNone {
		return
	}
	if ld.AXTree == nil || len(ld.AXTree.Frames) == 0 {
		ld.ActionableProbeSkipped = dataset.SkippedNoOracle
		return
	}
	p.stage.Store("actionable probe")
	origin := ld.AXTree.Frames[0].Origin
	in := ProbeInput{Record: ld.AXTree, Worlds: worlds, Mode: cfg.ActionableProbe, Max: cfg.MaxActionableProbe, Time: cfg.ActionableProbeTime,
		Viewport: dom.Rect{origin[0], origin[1], float64(p.cfg.ViewportWidth), float64(p.cfg.ViewportHeight)}}
	start := time.Now()
	pr, err := ProbeActionable(ctx, in)
	ld.ActionableProbeTime = time.Since(start)
	switch {
	case err != nil && ctx.Err() != nil:
		ld.ActionableProbeSkipped = dataset.SkippedDeadline
	case err != nil:
		ld.ActionableProbeSkipped = dataset.SkippedFailed
	case pr.Late:
		ld.ActionableProbeSkipped = dataset.SkippedDeadline
	}
	if err != nil {
		p.log.Warn("actionable probe not stored", logURL, rawURL, logSkipped, ld.ActionableProbeSkipped, logError, shortError{err})
		return
	}
	ld.AXTree.Probe = pr
}
