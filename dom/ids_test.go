package dom

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// keyed is one element of a hand-made capture for the ID policy tests:
// its key, tag (button or a), y and text.
type keyed struct {
	key  int
	tag  string
	y    float64
	text string
}

// keyedTree builds a capture of document doc holding els, in order.
func keyedTree(t *testing.T, doc string, els ...keyed) *Tree {
	t.Helper()
	b := newBuilder()
	b.c.Page.Doc = doc
	body := b.el(0, "body", 0, nil)
	b.c.Nodes[body].Block = 1
	for _, e := range els {
		var i int
		if e.tag == "a" {
			i = b.el(body, "a", e.y, tag, "href", "/"+e.text)
		} else {
			i = b.el(body, e.tag, e.y, tag)
		}
		b.c.Nodes[i].Key = e.key
		b.text(i, e.text, e.y)
	}
	return b.tree(t)
}

// ids returns the view's IDs by element text.
func ids(v *View) map[string]string {
	out := map[string]string{}
	for _, it := range v.Items {
		if it.IsAction() {
			out[it.Text] = it.ID
		}
	}
	return out
}

func btn(key int, y float64, text string) keyed { return keyed{key, "button", y, text} }

func TestTree_Follow_StableIDs(t *testing.T) {
	first := []keyed{btn(1, 10, "A"), btn(2, 40, "B"), btn(3, 70, "C")}
	tests := []struct {
		name string
		doc  string // of the second capture ("d1" is the first's)
		next []keyed
		// want are the stable IDs at the second step, and removed its
		// removed line's IDs; positional the positional IDs there.
		want, positional map[string]string
		removed          []string
	}{
		{"insert before", "d1", []keyed{btn(4, 10, "N"), btn(1, 40, "A"), btn(2, 70, "B"), btn(3, 100, "C")},
			map[string]string{"N": "B4", "A": "B1", "B": "B2", "C": "B3"},
			map[string]string{"N": "B1", "A": "B2", "B": "B3", "C": "B4"}, nil},
		{"remove from a list", "d1", []keyed{btn(1, 10, "A"), btn(3, 40, "C")},
			map[string]string{"A": "B1", "C": "B3"},
			map[string]string{"A": "B1", "C": "B2"}, []string{"B2"}},
		{"reorder", "d1", []keyed{btn(3, 10, "C"), btn(1, 40, "A"), btn(2, 70, "B")},
			map[string]string{"C": "B3", "A": "B1", "B": "B2"},
			map[string]string{"C": "B1", "A": "B2", "B": "B3"}, nil},
		{"rename", "d1", []keyed{btn(1, 10, "A"), btn(2, 40, "B2nd"), btn(3, 70, "C")},
			map[string]string{"A": "B1", "B2nd": "B2", "C": "B3"},
			map[string]string{"A": "B1", "B2nd": "B2", "C": "B3"}, nil},
		{"replace with a look-alike", "d1", []keyed{btn(1, 10, "A"), btn(9, 40, "B"), btn(3, 70, "C")},
			map[string]string{"A": "B1", "B": "B4", "C": "B3"},
			map[string]string{"A": "B1", "B": "B2", "C": "B3"}, []string{"B2"}},
		{"new document: counters go on", "d2", []keyed{btn(1, 10, "A"), btn(2, 40, "B")},
			map[string]string{"A": "B4", "B": "B5"},
			map[string]string{"A": "B1", "B": "B2"}, []string{"B1", "B2", "B3"}},
		{"letter change: a new ID", "d1", []keyed{btn(1, 10, "A"), {2, "a", 40, "B"}, btn(3, 70, "C")},
			map[string]string{"A": "B1", "B": "L1", "C": "B3"},
			map[string]string{"A": "B1", "B": "L1", "C": "B2"}, []string{"B2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := keyedTree(t, "d1", first...)
			t1 := keyedTree(t, tt.doc, tt.next...)
			if err := t1.Follow(t0); err != nil {
				t.Fatal(err)
			}
			if got, want := ids(t0.Select(Options{IDs: IDsStable})), map[string]string{"A": "B1", "B": "B2", "C": "B3"}; !reflect.DeepEqual(got, want) {
				t.Errorf("step 0 stable IDs = %v, want %v", got, want)
			}
			v := t1.Select(Options{IDs: IDsStable})
			if got := ids(v); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("stable IDs = %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(v.Removed, tt.removed) {
				t.Errorf("removed = %v, want %v", v.Removed, tt.removed)
			}
			if got := ids(t1.Select(Options{})); !reflect.DeepEqual(got, tt.positional) {
				t.Errorf("positional IDs = %v, want %v", got, tt.positional)
			}
		})
	}
}

// TestTree_Select_StableWindowFree: at a page's first step the stable IDs
// are numbered over the whole page, so every window gives an element the
// same ID; positional IDs depend on the window.
func TestTree_Select_StableWindowFree(t *testing.T) {
	// The viewport is 500 px high: B below it (y 900) is outside E=0.
	tr := keyedTree(t, "d1", btn(1, 900, "Below"), btn(2, 10, "Top"))
	// (document order puts Below first)
	e0 := ids(tr.Select(Options{Expansion: 0, IDs: IDsStable}))
	whole := ids(tr.Select(Options{Expansion: WholePage, IDs: IDsStable}))
	if e0["Top"] != whole["Top"] || e0["Top"] != "B2" {
		t.Errorf("Top: E=0 %q, whole page %q, want B2 in both", e0["Top"], whole["Top"])
	}
	if _, ok := e0["Below"]; ok {
		t.Errorf("E=0 shows Below: %v", e0)
	}
	if got := ids(tr.Select(Options{Expansion: 0}))["Top"]; got != "B1" {
		t.Errorf("positional E=0 Top = %q, want B1", got)
	}
}

// TestTree_Follow_Life: across several steps an element that leaves and
// comes back keeps its ID, counters never go back, and captures without
// keys number every element anew (never reusing an ID).
func TestTree_Follow_Life(t *testing.T) {
	steps := [][]keyed{
		{btn(1, 10, "A"), btn(2, 40, "B")},
		{btn(1, 10, "A")},                                   // B leaves
		{btn(1, 10, "A"), btn(2, 40, "B"), btn(5, 70, "E")}, // B comes back
		{btn(0, 10, "A"), btn(0, 40, "B")},                  // no keys
	}
	want := []map[string]string{
		{"A": "B1", "B": "B2"},
		{"A": "B1"},
		{"A": "B1", "B": "B2", "E": "B3"},
		{"A": "B4", "B": "B5"},
	}
	var prev *Tree
	for k, els := range steps {
		tr := keyedTree(t, "d1", els...)
		if prev != nil {
			if err := tr.Follow(prev); err != nil {
				t.Fatal(err)
			}
		}
		if got := ids(tr.Select(Options{Expansion: WholePage, IDs: IDsStable})); !reflect.DeepEqual(got, want[k]) {
			t.Errorf("step %d: %v, want %v", k, got, want[k])
		}
		prev = tr
	}
	if err := prev.Follow(prev); !errors.Is(err, ErrNumbered) {
		t.Errorf("Follow on a numbered tree: %v, want ErrNumbered", err)
	}
}

func TestRemovedLine(t *testing.T) {
	if got := removedLine(nil); got != "" {
		t.Errorf("no IDs: %q", got)
	}
	if got, want := removedLine([]string{"L2", "B7"}), "Removed since the last step: L2 B7"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	many := make([]string, MaxRemovedListed+3)
	for i := range many {
		many[i] = "B1"
	}
	if got := removedLine(many); !strings.HasSuffix(got, " B1 (+3 more)") || strings.Count(got, "B1") != MaxRemovedListed {
		t.Errorf("capped line: %q", got)
	}
}

func TestParseIDPolicy(t *testing.T) {
	for _, s := range []string{"positional", "stable"} {
		if p, err := ParseIDPolicy(s); err != nil || string(p) != s {
			t.Errorf("%s: %v, %v", s, p, err)
		}
	}
	if _, err := ParseIDPolicy("sticky"); err == nil {
		t.Error("sticky accepted")
	}
	if err := (Options{IDs: "sticky"}).Validate(); err == nil {
		t.Error("Options.Validate accepted IDs sticky")
	}
}
