package space

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"actionspace/axtree"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
)

// keyed gives every element of p's capture a key (its index + 1) in
// document doc, as the capture script would at a document's first
// capture. The stored corpus captures predate keys.
func keyed(p *Page, doc string) *Page {
	c := p.Tree.Capture
	c.Page.Doc = doc
	for i := range c.Nodes {
		if c.Nodes[i].Kind == dom.ElementNode {
			c.Nodes[i].Key = i + 1
		}
	}
	return p
}

// scrolled is the state after the "scroll" step: the same document and
// elements, the window one viewport lower (the records keep their page
// coordinates).
func scrolled(t *testing.T, s stored) *Page {
	p := keyed(decodeStored(t, s), "doc")
	pg := &p.Tree.Capture.Page
	pg.ScrollY = max(0, min(pg.ScrollY+pg.ViewportHeight, pg.DocHeight-pg.ViewportHeight))
	return p
}

// inserted is the state after a script inserted a button before the
// page's first button-like element (a tiny one in the top left corner,
// which no other record ties to): every later capture index moves by one,
// in the accessibility tree's links too. It returns false when the page
// has no such element.
func inserted(t *testing.T, s stored) (*Page, bool) {
	p := keyed(decodeStored(t, s), "doc")
	tr := p.Tree
	at := -1
	for i := range tr.Capture.Nodes {
		if tr.Interactive(i) && !tr.Nested(i) && dom.LetterOf(tr.Role(i)) == dom.LetterButton {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, false
	}
	old := tr.Capture.Nodes
	shift := func(k int) int {
		if k >= at {
			return k + 1
		}
		return k
	}
	nodes := make([]dom.Node, 0, len(old)+1)
	nodes = append(nodes, old[:at]...)
	nodes = append(nodes, dom.Node{Kind: dom.ElementNode, Parent: old[at].Parent, Tag: "button", Rect: dom.Rect{0, 0, 2, 2},
		Visible: true, Signals: []string{"tag"}, Key: len(old) + 1})
	nodes = append(nodes, old[at:]...)
	for k := at + 1; k < len(nodes); k++ {
		n := &nodes[k]
		if n.Parent >= 0 {
			n.Parent = shift(n.Parent)
		}
		if n.LabelFor > 0 {
			n.LabelFor = shift(n.LabelFor)
		}
		if n.LightParent > 0 {
			n.LightParent = shift(n.LightParent)
		}
	}
	for k := range at {
		if n := &nodes[k]; n.LabelFor >= at {
			n.LabelFor++
		}
	}
	c := *tr.Capture
	c.Nodes = nodes
	var rec *axtree.Record
	if p.AXTree != nil {
		r := *p.AXTree
		r.Nodes = slices.Clone(r.Nodes)
		for i := range r.Nodes {
			if r.Nodes[i].Capture >= 0 {
				r.Nodes[i].Capture = shift(r.Nodes[i].Capture)
			}
		}
		rec = &r
	}
	return NewPage(dom.NewTree(&c), rec, p.Snapshot, p.HTML), true
}

// stepMatrix is every format in two windows, both ID policies.
func stepMatrix(meter *Meter) Matrix {
	return Matrix{Formats: Formats(), Modes: []string{ModeFast}, Expansions: []int{0, dom.WholePage},
		Texts: []dom.TextPolicy{dom.TextViewport}, IDs: []dom.IDPolicy{dom.IDsPositional, dom.IDsStable}, Encodings: meter.Encodings()}
}

// direct counts, from two views of an actionspace cell, what the handle
// columns say: by the IDs and the elements' keys of each view.
func direct(prev, cur *dom.View) HandleChange {
	byID := func(v *dom.View) (map[string]dom.ElementKey, map[dom.ElementKey]string) {
		ids, keys := map[string]dom.ElementKey{}, map[dom.ElementKey]string{}
		for _, it := range v.Items {
			if it.IsAction() {
				k, _ := v.Tree.Identity(it.Node)
				ids[it.ID], keys[k] = k, it.ID
			}
		}
		return ids, keys
	}
	pIDs, pKeys := byID(prev)
	cIDs, cKeys := byID(cur)
	var c HandleChange
	for k, id := range pKeys {
		if cid, ok := cKeys[k]; ok {
			c.Kept++
			if cid == id {
				c.Same++
			}
		}
	}
	for id, k := range cIDs {
		if pk, ok := pIDs[id]; ok && pk != k {
			c.Wrong++
		}
	}
	c.New, c.Removed = len(cIDs)-c.Kept, len(pIDs)-c.Kept
	return c
}

func change(sm dataset.SpaceMetrics) HandleChange {
	return HandleChange{Kept: int(*sm.HandlesKept), Same: int(*sm.HandlesSame), Wrong: int(*sm.HandlesWrong),
		New: int(*sm.HandlesNew), Removed: int(*sm.HandlesRemoved)}
}

// TestSweep_Steps sweeps every stored corpus page through two steps
// (scroll, and a button inserted before the first one) in every format
// and both ID policies: step 0 has no step columns; at step 1 the
// actionspace columns equal a direct count on the two captures' views,
// the stable policy never re-points a handle while the positional one
// does after the insert, the peer formats (whose records the insert does
// not touch) keep every handle, the counts add up to each step's handles,
// and the delta's tokens are those of the delta that round-trips.
func TestSweep_Steps(t *testing.T) {
	t.Parallel()
	meter, err := NewMeter(metrics.CL100K, metrics.O200K)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cells := stepMatrix(meter).Cells()
	sw := Sweeper{Renderers: Renderers{ModeFast: Fast{}}, Meter: meter}
	wrong := map[string]int{}                             // by step kind and ID policy, actionspace
	untied, handles := map[string]int{}, map[string]int{} // peer formats' handles tied to no element
	for _, s := range storedPages(t) {
		ins, ok := inserted(t, s)
		steps := map[string]*Page{"scroll": scrolled(t, s)}
		if ok {
			steps["insert"] = ins
		}
		for kind, next := range steps {
			first := keyed(decodeStored(t, s), "doc")
			html, _ := meter.Count(first.HTML)
			prevRows := map[Setting]Measured{}
			for m := range sw.Sweep(ctx, ctx, first, cells, html) {
				if m.Metrics.HandlesKept != nil || m.Metrics.DeltaBytes != nil {
					t.Errorf("%s step 0 %v: step columns set", s.name, m.Cell)
				}
				prevRows[m.Cell.Setting] = m
			}
			if err := next.SetPrevious(first); err != nil {
				t.Fatal(err)
			}
			for m := range sw.Sweep(ctx, ctx, next, cells, html) {
				c := m.Cell
				if m.NoRecord || c.Format == FormatHTML {
					if m.Metrics.HandlesKept != nil {
						t.Errorf("%s %s %v: step columns on a cell without handles", s.name, kind, c)
					}
					continue
				}
				if m.RenderErr != nil || m.MeasureErr != nil {
					t.Fatalf("%s %s %v: %v %v", s.name, kind, c, m.RenderErr, m.MeasureErr)
				}
				prev := prevRows[c.Setting]
				got := change(m.Metrics)
				if got.Kept+got.Removed != prev.Rendered.Handles || got.Kept+got.New != m.Rendered.Handles || got.Same > got.Kept {
					t.Errorf("%s %s %v: %+v does not add up to %d then %d handles", s.name, kind, c, got, prev.Rendered.Handles, m.Rendered.Handles)
				}
				switch c.Format {
				case FormatActionSpace:
					want := direct(first.Tree.Select(c.Options), next.Tree.Select(c.Options))
					if got != want {
						t.Errorf("%s %s %v: %+v, direct count %+v", s.name, kind, c, got, want)
					}
					wrong[kind+"/"+string(c.IDPolicy())] += got.Wrong
					if c.IDPolicy() == dom.IDsStable && got.Same != got.Kept {
						t.Errorf("%s %s %v: stable IDs changed: %+v", s.name, kind, c, got)
					}
				case FormatBrowserUse:
					// Its indexes are capture indexes: positional.
					wrong[kind+"/"+c.Format] += got.Wrong
				default:
					if got.Wrong != 0 {
						t.Errorf("%s %s %v: %d handles re-pointed", s.name, kind, c, got.Wrong)
					}
					// Every handle tied to an element stays as it was: the
					// records did not change.
					_, keys, known := next.handleKeys(c.Format, trace{nodes: m.Rendered.HandleNodes})
					tied := map[dom.ElementKey]bool{}
					for i, k := range keys {
						if known[i] {
							tied[k] = true
						}
					}
					untied[c.Format] += m.Rendered.Handles - len(tied)
					handles[c.Format] += m.Rendered.Handles
					if kind == "insert" && (got.Kept != len(tied) || got.Same != got.Kept) {
						t.Errorf("%s insert %v: %+v, want each of the %d handles tied to an element kept as it was", s.name, c, got, len(tied))
					}
				}
				d := render.Delta(prev.Rendered.ActionSpace, m.Rendered.ActionSpace, lineHandle(c.Format))
				if back, err := render.ApplyDelta(prev.Rendered.ActionSpace, d); err != nil || back != m.Rendered.ActionSpace {
					t.Errorf("%s %s %v: the delta does not round-trip (%v)", s.name, kind, c, err)
				}
				tok, _ := meter.Count(d)
				if *m.Metrics.DeltaBytes != int64(len(d)) || *m.Metrics.DeltaTokensCL100K != *tok.CL100K || *m.Metrics.DeltaTokensO200K != *tok.O200K {
					t.Errorf("%s %s %v: delta %d bytes %d/%d tokens, want %d, %d/%d", s.name, kind, c,
						*m.Metrics.DeltaBytes, *m.Metrics.DeltaTokensCL100K, *m.Metrics.DeltaTokensO200K, len(d), *tok.CL100K, *tok.O200K)
				}
			}
		}
	}
	t.Logf("actionspace wrong-target handles: %v; peer handles tied to no element: %v of %v", wrong, untied, handles)
	for _, kind := range []string{"scroll", "insert"} {
		if n := wrong[kind+"/stable"]; n != 0 {
			t.Errorf("%s: stable IDs re-pointed %d handles", kind, n)
		}
	}
	if wrong["insert/positional"] == 0 {
		t.Error("insert: positional IDs re-pointed no handle; the inserted button should shift them")
	}
}

// withoutKeys returns s as a capture made before keys existed would
// store it: no document token, no element keys.
func withoutKeys(t *testing.T, s stored) stored {
	t.Helper()
	raw := gunzip(t, filepath.Join(storedDir, s.name, "capture.json.gz"))
	var c dom.Capture
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	if c.Page.Doc == "" {
		t.Fatalf("%s: the stored capture has no document token; run make goldens", s.name)
	}
	c.Page.Doc = ""
	for i := range c.Nodes {
		c.Nodes[i].Key, c.Nodes[i].KeyDoc = 0, ""
	}
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if s.capture, err = dataset.CompressCapture(raw); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPage_SetPrevious_WithoutKeys: captures made before keys existed
// give no handle columns, only the delta.
func TestPage_SetPrevious_WithoutKeys(t *testing.T) {
	t.Parallel()
	meter, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	s := withoutKeys(t, storedPages(t)[0])
	first, next := decodeStored(t, s), decodeStored(t, s)
	if err := next.SetPrevious(first); err != nil {
		t.Fatal(err)
	}
	if err := next.SetPrevious(first); err == nil {
		t.Error("a second SetPrevious was accepted")
	}
	sw := Sweeper{Renderers: Renderers{ModeFast: Fast{}}, Meter: meter}
	cells := (Matrix{Formats: []string{FormatActionSpace}, Modes: []string{ModeFast}, Expansions: []int{0}, Texts: []dom.TextPolicy{dom.TextViewport}}).Cells()
	for m := range sw.Sweep(context.Background(), context.Background(), next, cells, Tokens{}) {
		if m.Metrics.HandlesKept != nil {
			t.Errorf("%v: handle columns without keys", m.Cell)
		}
		if m.Metrics.DeltaBytes == nil || *m.Metrics.DeltaBytes != 0 {
			t.Errorf("%v: delta of an unchanged page: %v bytes, want 0", m.Cell, m.Metrics.DeltaBytes)
		}
	}
}

func TestCompareHandles(t *testing.T) {
	k := func(n int) dom.ElementKey { return dom.ElementKey{Doc: "d", Key: n} }
	tests := []struct {
		name                string
		prev, cur           []string
		prevKeys, curKeys   []int // 0: tied to no element
		kept, same, wrong   int
		wantNew, wantRemove int
	}{
		{"unchanged", []string{"B1", "B2"}, []string{"B1", "B2"}, []int{1, 2}, []int{1, 2}, 2, 2, 0, 0, 0},
		{"insert before, positional", []string{"B1", "B2"}, []string{"B1", "B2", "B3"}, []int{1, 2}, []int{9, 1, 2}, 2, 0, 2, 1, 0},
		{"insert before, stable", []string{"B1", "B2"}, []string{"B3", "B1", "B2"}, []int{1, 2}, []int{9, 1, 2}, 2, 2, 0, 1, 0},
		{"removed", []string{"B1", "B2"}, []string{"B1"}, []int{1, 2}, []int{1}, 1, 1, 0, 0, 1},
		{"untied handles are new and removed", []string{"e1", "e2"}, []string{"e1", "e2"}, []int{0, 2}, []int{1, 0}, 0, 0, 0, 2, 2},
		{"an element named twice counts once", []string{"e1"}, []string{"e1", "e2"}, []int{1}, []int{1, 1}, 1, 1, 0, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keys := func(ns []int) ([]dom.ElementKey, []bool) {
				var ks []dom.ElementKey
				var ok []bool
				for _, n := range ns {
					ks, ok = append(ks, k(n)), append(ok, n != 0)
				}
				return ks, ok
			}
			pk, pok := keys(tt.prevKeys)
			ck, cok := keys(tt.curKeys)
			got := CompareHandles(tt.prev, pk, pok, tt.cur, ck, cok)
			want := HandleChange{Kept: tt.kept, Same: tt.same, Wrong: tt.wrong, New: tt.wantNew, Removed: tt.wantRemove}
			if got != want {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
}

// TestPage_SetPrevious_RecordMissingBefore: a format whose record the
// state before lacks (an AI snapshot skipped at step 0) gets no step
// columns, and no error, at the next step.
func TestPage_SetPrevious_RecordMissingBefore(t *testing.T) {
	t.Parallel()
	meter, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	s := storedPages(t)[0]
	without := s
	without.aiSnapshot = nil
	first, next := keyed(decodeStored(t, without), "doc"), keyed(decodeStored(t, s), "doc")
	if err := next.SetPrevious(first); err != nil {
		t.Fatal(err)
	}
	sw := Sweeper{Renderers: Renderers{ModeFast: Fast{}}, Meter: meter}
	cells := (Matrix{Formats: []string{FormatPlaywrightAI, FormatAXTree}, Expansions: []int{0}}).Cells()
	for m := range sw.Sweep(context.Background(), context.Background(), next, cells, Tokens{}) {
		if m.MeasureErr != nil || m.RenderErr != nil {
			t.Errorf("%v: %v %v", m.Cell, m.RenderErr, m.MeasureErr)
		}
		if got := m.Metrics.HandlesKept != nil; got != (m.Cell.Format == FormatAXTree) {
			t.Errorf("%v: step columns %v", m.Cell, got)
		}
	}
}
