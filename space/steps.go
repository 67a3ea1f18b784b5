package space

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"actionspace/axtree"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/oracle"
	"actionspace/render"
)

// A page's life: an agent reads a page, acts, and reads it again. Each
// page state after a step is a Page linked to the state before it
// (SetPrevious); the sweep then measures, per fixed cell, how its
// handles fared since the same cell of the previous state and what a
// delta between the two texts costs (docs/handles.md).

// stepState is what a page keeps for its step metrics: the traces of its
// fixed cells (for the next step to compare with), and what its handles'
// nodes resolve to, made once on first need. It is safe for concurrent
// use.
type stepState struct {
	mu     sync.Mutex
	traces map[Setting]trace

	snapOnce    sync.Once
	snapRefs    []string // per AI snapshot line: its ref
	snapCapture []int    // per AI snapshot line: its capture element, -1 for none

}

// trace is what the step metrics need of one rendered cell.
type trace struct {
	// text is the text an agent reads (Rendered.ActionSpace); hasText is
	// false for a deep-mode dry run, or when it is unknown.
	text    string
	hasText bool
	// ids are actionspace's IDs (nil for the other formats, whose handles
	// come from their records), nodes the handles' nodes
	// (Rendered.HandleNodes).
	ids   []string
	nodes []int
}

// SetPrevious links p, the page state after an agent's step, to prev,
// the state before it (the same page's previous capture): p's stable IDs
// continue prev's (dom.Tree.Follow), and the sweep of p measures each
// fixed cell against the same cell of prev (the handles_* and delta_*
// columns). Call it once per step, in order, before p renders anything;
// prev should have been swept (its texts are then reused; otherwise they
// are rendered again, and a deep-mode cell of prev gives its IDs but no
// text). p keeps what it needs of prev, not prev's own previous state, so
// a long life does not hold every capture.
func (p *Page) SetPrevious(prev *Page) error {
	if prev == nil || prev.steps == nil || p.steps == nil {
		return errors.New("set previous step: pages not made by NewPage")
	}
	if err := p.Tree.Follow(prev.Tree); err != nil {
		return fmt.Errorf("set previous step: %w", err)
	}
	p.before = &Page{Tree: prev.Tree, AXTree: prev.AXTree, Snapshot: prev.Snapshot, Oracle: prev.Oracle, steps: prev.steps}
	return nil
}

// Previous returns the state before p (see SetPrevious), nil at a page's
// first step. It holds the records and what the sweep kept, not the HTML.
func (p *Page) Previous() *Page { return p.before }

// remember keeps what the step metrics need of a fixed cell's rendering.
func (p *Page) remember(s Setting, r Rendered) trace {
	t := trace{text: r.ActionSpace, hasText: !r.NoText, nodes: r.HandleNodes}
	if s.Format == FormatActionSpace {
		t.ids = make([]string, len(r.Actions))
		for i, a := range r.Actions {
			t.ids[i] = a.ID
		}
	}
	if p.steps == nil {
		return t
	}
	p.steps.mu.Lock()
	defer p.steps.mu.Unlock()
	if p.steps.traces == nil {
		p.steps.traces = map[Setting]trace{}
	}
	p.steps.traces[s] = t
	return t
}

// traceOf returns the trace of p in setting s: the one the sweep kept, or
// a fresh rendering (deep mode: its IDs through fast mode, without text).
func (p *Page) traceOf(ctx context.Context, s Setting, modes Renderers) (trace, error) {
	p.steps.mu.Lock()
	t, ok := p.steps.traces[s]
	p.steps.mu.Unlock()
	if ok {
		return t, nil
	}
	deep := s.Mode == ModeDeep
	if deep {
		s.Mode = ModeFast
		if modes[ModeFast] == nil {
			modes = Renderers{ModeFast: Fast{}}
		}
	}
	r, err := p.Render(ctx, s, modes)
	if err != nil {
		return trace{}, err
	}
	t = p.remember(s, r)
	if deep {
		t.text, t.hasText = "", false
	}
	return t, nil
}

// handleKeys returns the handles of a trace of format f and the identity
// of the element each names (ok false for a handle tied to no element):
// an ID's capture element, the capture element an AI snapshot ref's box
// ties to, an accessibility node id's DOM node (the id is the backend DOM
// node id, within the capture's document and the node's frame).
func (p *Page) handleKeys(f string, t trace) (handles []string, keys []dom.ElementKey, ok []bool) {
	handles = make([]string, len(t.nodes))
	keys = make([]dom.ElementKey, len(t.nodes))
	ok = make([]bool, len(t.nodes))
	for i, n := range t.nodes {
		elem := -1
		switch f {
		case FormatActionSpace:
			handles[i], elem = t.ids[i], n
		case FormatBrowserUse:
			// (its index is the element's index in the capture)
			handles[i], elem = strconv.Itoa(n), n
		case FormatPlaywrightAI:
			refs, capture := p.snapshotElements()
			if n >= 0 && n < len(refs) {
				handles[i], elem = refs[n], capture[n]
			}
		case FormatAXTree:
			// The node id is the backend DOM node id: DOM identity itself,
			// for the life of the node, in its frame's renderer.
			if n >= 0 && n < len(p.AXTree.Nodes) {
				an := &p.AXTree.Nodes[n]
				handles[i] = strconv.Itoa(an.Backend)
				if doc := p.Tree.Capture.Page.Doc; doc != "" && an.Backend != 0 && an.Frame >= 0 && an.Frame < len(p.AXTree.Frames) {
					keys[i], ok[i] = dom.ElementKey{Doc: doc + " " + p.AXTree.Frames[an.Frame].ID, Key: an.Backend}, true
				}
			}
			continue
		}
		if elem >= 0 && elem < len(p.Tree.Capture.Nodes) {
			keys[i], ok[i] = p.Tree.Identity(elem)
		}
	}
	return handles, keys, ok
}

// snapshotElements returns, per AI snapshot line, its ref and the capture
// element its box ties to (oracle.TieCapture), -1 for none.
func (p *Page) snapshotElements() ([]string, []int) {
	st := p.steps
	st.snapOnce.Do(func() {
		nodes, err := axtree.ParseSnapshot(p.Snapshot.Text)
		if err != nil {
			return // (the format failed to render too)
		}
		boxes := axtree.PageBoxes(nodes, p.Snapshot, p.AXTree)
		depth := axtree.SnapDepths(nodes)
		st.snapRefs = make([]string, len(nodes))
		st.snapCapture = make([]int, len(nodes))
		var cands []oracle.Candidate
		var at []int
		for i := range nodes {
			st.snapRefs[i], st.snapCapture[i] = nodes[i].Ref, -1
			if nodes[i].Ref != "" && boxes[i] != nil {
				cands = append(cands, oracle.Candidate{Box: *boxes[i], Role: nodes[i].Role, Depth: depth[i]})
				at = append(at, i)
			}
		}
		for k, c := range oracle.TieCapture(p.Tree, cands) {
			st.snapCapture[at[k]] = c
		}
	})
	return st.snapRefs, st.snapCapture
}

// HandleChange counts how the handles of one cell fared across a step
// (the spaces table's handles_* columns).
type HandleChange struct {
	// Kept: handles of the previous text whose element still has one;
	// Same: of those, how many kept the same handle.
	Kept, Same int
	// Wrong: handles of this text that the previous one held for another
	// element.
	Wrong int
	// New: handles whose element had none before; Removed: handles of the
	// previous text whose element has none now.
	New, Removed int
}

// CompareHandles counts how handles fared from a previous text to this
// one, given each text's handles in order and the identity of the element
// each names (known false for a handle tied to no element). An element
// named by several handles of one text counts with the first; the others,
// like a handle tied to no element, count as new (or removed) only, never
// as kept or wrong.
func CompareHandles(prev []string, prevKeys []dom.ElementKey, prevKnown []bool, cur []string, curKeys []dom.ElementKey, curKnown []bool) HandleChange {
	type named struct {
		key   dom.ElementKey
		known bool
	}
	prevByKey := map[dom.ElementKey]string{}
	prevByHandle := map[string]named{}
	for i, h := range prev {
		if _, seen := prevByHandle[h]; !seen {
			prevByHandle[h] = named{prevKeys[i], prevKnown[i]}
		}
		if _, seen := prevByKey[prevKeys[i]]; prevKnown[i] && !seen {
			prevByKey[prevKeys[i]] = h
		}
	}
	var c HandleChange
	curSeen := map[dom.ElementKey]bool{}
	for i, h := range cur {
		if curKnown[i] && !curSeen[curKeys[i]] {
			curSeen[curKeys[i]] = true
			if ph, ok := prevByKey[curKeys[i]]; ok {
				c.Kept++
				if ph == h {
					c.Same++
				}
			}
		}
		if p, ok := prevByHandle[h]; ok && p.known && curKnown[i] && p.key != curKeys[i] {
			c.Wrong++
		}
	}
	c.New = len(cur) - c.Kept
	c.Removed = len(prev) - c.Kept
	return c
}

// lineHandle returns the function that reads the handle of a line of
// format f's text, for the delta's removals.
func lineHandle(f string) func(string) string {
	switch f {
	case FormatActionSpace:
		return render.ActionSpaceHandle
	case FormatBrowserUse:
		return render.BrowserUseHandle
	case FormatPlaywrightAI:
		return render.AISnapshotHandle
	case FormatAXTree:
		return render.AXTreeHandle
	}
	return nil
}

// measureStep fills the step columns of sm: the handles of cur against
// those of the same cell of the previous state, and the delta from its
// text. It fails only when counting the delta's tokens fails.
func (m *Meter) measureStep(p *Page, s Setting, cur, prev trace, sm *dataset.SpaceMetrics) error {
	b := p.before
	if p.Tree.Capture.Page.Doc != "" && b.Tree.Capture.Page.Doc != "" {
		ph, pk, pok := b.handleKeys(s.Format, prev)
		ch, ck, cok := p.handleKeys(s.Format, cur)
		c := CompareHandles(ph, pk, pok, ch, ck, cok)
		sm.HandlesKept, sm.HandlesSame, sm.HandlesWrong = ptr(int64(c.Kept)), ptr(int64(c.Same)), ptr(int64(c.Wrong))
		sm.HandlesNew, sm.HandlesRemoved = ptr(int64(c.New)), ptr(int64(c.Removed))
	}
	if !cur.hasText || !prev.hasText {
		return nil
	}
	d := render.Delta(prev.text, cur.text, lineHandle(s.Format))
	sm.DeltaBytes = ptr(int64(len(d)))
	tok, err := m.Count(d)
	if err != nil {
		return fmt.Errorf("count delta tokens: %w", err)
	}
	sm.DeltaTokensCL100K, sm.DeltaTokensO200K = tok.CL100K, tok.O200K
	return nil
}
