package oracle

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"actionspace/axtree"
	"actionspace/dom"
)

// page is one stored corpus page state.
type page struct {
	name string
	tree *dom.Tree
	rec  *axtree.Record
}

// corpus reads the stored corpus page states (../render/testdata/<page>/).
func corpus(tb testing.TB) []page {
	tb.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "render", "testdata", "*", "axtree.json.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(dirs) < 14 {
		tb.Fatalf("found %d stored accessibility trees, want one per corpus page (14); run `make goldens`", len(dirs))
	}
	var out []page
	for _, p := range dirs {
		dir := filepath.Dir(p)
		c, err := dom.Decode(gunzip(tb, filepath.Join(dir, "capture.json.gz")))
		if err != nil {
			tb.Fatal(err)
		}
		rec, err := axtree.Decode(gunzip(tb, p))
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, page{name: filepath.Base(dir), tree: dom.NewTree(c), rec: rec})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func gunzip(tb testing.TB, path string) io.Reader {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return zr
}

// corpusFigures are the oracle's figures on each stored corpus page:
// elements; how many were tied by identity, and for how many of those
// geometry picks the same element; and, at E=0 and E=-1, the elements in
// the window, those with an ID, the IDs, and the extra IDs.
var corpusFigures = map[string]string{
	"article":   "55 id 55 geo 55 | E0 18/18 ids 18 extra 0 | E-1 55/55 ids 55 extra 0",
	"cookie":    "47 id 47 geo 47 | E0 26/5 ids 5 extra 0 | E-1 47/5 ids 5 extra 0",
	"dashboard": "148 id 148 geo 148 | E0 48/48 ids 48 extra 0 | E-1 148/148 ids 148 extra 0",
	"docs":      "243 id 243 geo 243 | E0 41/41 ids 41 extra 0 | E-1 140/140 ids 140 extra 0",
	"dynamic":   "33 id 33 geo 33 | E0 30/30 ids 30 extra 0 | E-1 33/33 ids 33 extra 0",
	"index":     "49 id 49 geo 49 | E0 12/12 ids 12 extra 0 | E-1 49/49 ids 49 extra 0",
	"login":     "13 id 13 geo 13 | E0 13/13 ids 13 extra 0 | E-1 13/13 ids 13 extra 0",
	"news":      "129 id 129 geo 129 | E0 30/30 ids 30 extra 0 | E-1 129/129 ids 129 extra 0",
	"product":   "64 id 64 geo 64 | E0 35/35 ids 35 extra 0 | E-1 64/64 ids 64 extra 0",
	"products":  "162 id 162 geo 162 | E0 38/38 ids 38 extra 0 | E-1 162/162 ids 162 extra 0",
	"search":    "85 id 85 geo 85 | E0 35/35 ids 35 extra 0 | E-1 85/85 ids 85 extra 0",
	"settings":  "24 id 24 geo 24 | E0 20/20 ids 20 extra 0 | E-1 24/24 ids 24 extra 0",
	"signup":    "31 id 31 geo 31 | E0 13/13 ids 13 extra 0 | E-1 31/31 ids 31 extra 0",
	"widgets":   "25 id 25 geo 25 | E0 11/11 ids 13 extra 2 | E-1 24/22 ids 29 extra 7",
}

// TestOracle_Corpus pins the oracle's figures on the stored corpus (see
// corpusFigures): a change to the definition, the matching or the scoring
// that moves one fails here. It also checks that every miss and extra
// handle carries a reason.
func TestOracle_Corpus(t *testing.T) {
	pages := corpus(t)
	if len(pages) != len(corpusFigures) {
		t.Errorf("%d stored pages, %d pinned", len(pages), len(corpusFigures))
	}
	for _, p := range pages {
		o := New(p.rec, p.tree)
		id, agree := 0, 0
		for _, e := range o.Elements {
			if e.MatchedBy == ByIdentity {
				id++
				if e.Geometry == e.Capture {
					agree++
				}
			}
		}
		got := fmt.Sprintf("%d id %d geo %d", len(o.Elements), id, agree)
		for _, e := range []int{0, dom.WholePage} {
			r := o.View(p.tree.Select(dom.Options{Expansion: e}))
			s := r.Score
			got += fmt.Sprintf(" | E%d %d/%d ids %d extra %d", e, s.InWindow, s.Handled, s.Handles, s.Extra)
			if len(r.Misses) != s.InWindow-s.Handled || len(r.Extras) != s.Extra {
				t.Errorf("%s E=%d: %d misses, %d extras for %+v", p.name, e, len(r.Misses), len(r.Extras), s)
			}
			for _, m := range r.Misses {
				if m.Reason == "" {
					t.Errorf("%s E=%d: miss without a reason: %+v", p.name, e, m)
				}
			}
			for _, x := range r.Extras {
				if x.Reason == "" {
					t.Errorf("%s E=%d: extra handle without a reason: %+v", p.name, e, x)
				}
			}
		}
		if want := corpusFigures[p.name]; got != want {
			t.Errorf("%s: figures\n got %s\nwant %s", p.name, got, want)
		}
	}
}

// TestOracle_GeometryAlone: with the record's identity links removed, the
// geometry matching ties every corpus element to the element identity
// ties it to.
func TestOracle_GeometryAlone(t *testing.T) {
	total, agree := 0, 0
	for _, p := range corpus(t) {
		want := New(p.rec, p.tree)
		bare := *p.rec
		bare.Nodes = append([]axtree.Node(nil), p.rec.Nodes...)
		for i := range bare.Nodes {
			bare.Nodes[i].Capture = -1
		}
		got := New(&bare, p.tree)
		for k, e := range got.Elements {
			if e.MatchedBy != ByGeometry && e.Capture >= 0 {
				t.Errorf("%s: element %d matched by %q without identity", p.name, k, e.MatchedBy)
			}
			if w := want.Elements[k]; w.MatchedBy == ByIdentity {
				total++
				if e.Capture == w.Capture {
					agree++
				} else {
					t.Errorf("%s: %s %q: geometry %d, identity %d", p.name, e.Role, e.Name, e.Capture, w.Capture)
				}
			}
		}
	}
	t.Logf("geometry agrees with identity on %d of %d corpus elements", agree, total)
	if total < 1000 {
		t.Errorf("only %d elements tied by identity", total)
	}
}

// TestOracle_MissReasons lists, on the corpus at E=-1, the misses and
// extra handles by reason, pinned.
func TestOracle_MissReasons(t *testing.T) {
	misses, extras := map[string]int{}, map[string]int{}
	for _, p := range corpus(t) {
		r := New(p.rec, p.tree).View(p.tree.Select(dom.Options{Expansion: dom.WholePage}))
		for _, m := range r.Misses {
			misses[m.Reason]++
		}
		for _, x := range r.Extras {
			extras[x.Reason]++
		}
	}
	if got, want := fmt.Sprint(misses), "map[disabled:1 hidden:1 modal_backdrop:21 occluded:21]"; got != want {
		t.Errorf("misses by reason %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(extras), "map[cursor:1 handler:6]"; got != want {
		t.Errorf("extra handles by reason %s, want %s", got, want)
	}
}
