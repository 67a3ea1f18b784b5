package axtree

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"actionspace/dom"
)

func TestParseSnapshot(t *testing.T) {
	text := strings.Join([]string{
		`- generic [active] [ref=e1] [box=0,0,1280,900]:`,
		`  - link "Sign \"in\"" [ref=e2] [cursor=pointer] [box=10,20,30,40]:`,
		`    - /url: /login`,
		`  - 'heading "A: B" [level=2] [ref=e3] [box=0,60,100,20]'`,
		`  - 'button "Price: $5" [ref=e4] [box=1.5,2,3,4]': Buy`,
		`  - text: "- 3 left"`,
		`  - textbox "Note" [ref=e5]: "line\nnext \x01"`,
		`  - 'checkbox "It''s on: yes" [checked] [disabled] [ref=e6]'`,
		`  - iframe [ref=e7] [box=100,200,300,100]:`,
		`    - button "Inner" [ref=f1e1] [box=5,6,7,8]`,
		`  - /placeholder: Search`,
	}, "\n")
	got, err := ParseSnapshot(text)
	if err != nil {
		t.Fatal(err)
	}
	box := func(x, y, w, h float64) *dom.Rect { return &dom.Rect{x, y, w, h} }
	want := []SnapNode{
		{Kind: SnapElement, Depth: 0, Parent: -1, Role: "generic", Ref: "e1", Box: box(0, 0, 1280, 900), Attrs: []string{"active"}},
		{Kind: SnapElement, Depth: 1, Parent: 0, Role: "link", Name: `Sign "in"`, Ref: "e2", Box: box(10, 20, 30, 40), Attrs: []string{"cursor=pointer"}},
		{Kind: SnapProp, Depth: 2, Parent: 1, Role: "url", Text: "/login"},
		{Kind: SnapElement, Depth: 1, Parent: 0, Role: "heading", Name: "A: B", Ref: "e3", Box: box(0, 60, 100, 20), Attrs: []string{"level=2"}},
		{Kind: SnapElement, Depth: 1, Parent: 0, Role: "button", Name: "Price: $5", Ref: "e4", Box: box(1.5, 2, 3, 4), Text: "Buy"},
		{Kind: SnapText, Depth: 1, Parent: 0, Text: "- 3 left"},
		{Kind: SnapElement, Depth: 1, Parent: 0, Role: "textbox", Name: "Note", Ref: "e5", Text: "line\nnext \x01"},
		{Kind: SnapElement, Depth: 1, Parent: 0, Role: "checkbox", Name: "It's on: yes", Ref: "e6", Attrs: []string{"checked", "disabled"}},
		{Kind: SnapElement, Depth: 1, Parent: 0, Role: "iframe", Ref: "e7", Box: box(100, 200, 300, 100)},
		{Kind: SnapElement, Depth: 2, Parent: 8, Role: "button", Name: "Inner", Ref: "f1e1", Box: box(5, 6, 7, 8)},
		{Kind: SnapProp, Depth: 1, Parent: 0, Role: "placeholder", Text: "Search"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d nodes, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("line %d:\n got %+v\nwant %+v", i+1, got[i], want[i])
		}
	}

	// Page boxes: the main frame moves by the scroll, the iframe's content
	// by its frame's origin (found by the iframe's box), or without a
	// record by the iframe's corner.
	snap := &Snapshot{ScrollX: 0, ScrollY: 500}
	rec := &Record{Frames: []Frame{
		{Parent: -1, Origin: [2]float64{0, 500}},
		{Parent: 0, Box: &dom.Rect{100, 700, 300, 100}, Origin: [2]float64{102, 702}},
	}}
	boxes := PageBoxes(got, snap, rec)
	if b := boxes[1]; b == nil || *b != (dom.Rect{10, 520, 30, 40}) {
		t.Errorf("link page box %v, want [10 520 30 40]", b)
	}
	if b := boxes[9]; b == nil || *b != (dom.Rect{107, 708, 7, 8}) {
		t.Errorf("button in the frame: page box %v, want [107 708 7 8]", b)
	}
	if boxes[2] != nil || boxes[6] != nil {
		t.Errorf("lines without a box got one: %v %v", boxes[2], boxes[6])
	}
	if b := PageBoxes(got, snap, nil)[9]; b == nil || *b != (dom.Rect{105, 706, 7, 8}) {
		t.Errorf("button in the frame without a record: page box %v, want [105 706 7 8]", b)
	}
}

func TestParseSnapshot_Malformed(t *testing.T) {
	for _, text := range []string{
		"button",                           // no "- "
		"- a\n     - b",                    // odd indentation
		"- a\n    - b",                     // nested two levels at once
		`- button "open`,                   // unterminated name
		`- button "x" [ref=e1`,             // unterminated attribute
		`- button "x" junk`,                // junk after the name
		`- button [box=1,2,3]`,             // short box
		`- button [box=1,2,x,4]`,           // bad box
		`- 'button "x"`,                    // unterminated quoted key
		`- textbox: "abc`,                  // unterminated value
		`- textbox: "a\q"`,                 // unknown escape
		`- textbox "x" [ref=e1]:junk here`, // junk after the key
	} {
		if _, err := ParseSnapshot(text); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseSnapshot(%q) = %v, want ErrMalformed", text, err)
		}
	}
}

// TestParseSnapshot_Stored: every stored snapshot parses, one node per
// line, with unique refs, and its record decodes.
func TestParseSnapshot_Stored(t *testing.T) {
	for name, data := range stored(t, "aisnapshot.json.gz") {
		s, err := ParseSnapshotRecord(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		nodes, err := ParseSnapshot(s.Text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, want := len(nodes), strings.Count(s.Text, "\n")+1; got != want {
			t.Errorf("%s: %d nodes for %d lines", name, got, want)
		}
		refs, boxed := map[string]bool{}, 0
		for _, n := range nodes {
			if n.Ref != "" {
				if refs[n.Ref] {
					t.Errorf("%s: ref %s twice", name, n.Ref)
				}
				refs[n.Ref] = true
			}
			if n.Box != nil {
				boxed++
			}
		}
		if len(refs) < 20 || boxed < len(refs) {
			t.Errorf("%s: %d refs, %d boxes: want every ref boxed", name, len(refs), boxed)
		}
	}
	if _, err := ParseSnapshotRecord([]byte(`{"version":7,"text":""}`)); !errors.Is(err, ErrMalformed) {
		t.Errorf("a snapshot of version 7: %v, want ErrMalformed", err)
	}
}

func TestDropValues(t *testing.T) {
	text := "- generic [ref=e2] [box=8,8,100,20]:\n" +
		"  - textbox \"User\" [ref=e3] [box=8,8,50,20]: ada\n" +
		"  - textbox \"Password\" [ref=e4] [box=60,8,50,20]: hunter2: with colon\n" +
		"  - textbox \"Notes\" [ref=e5]:\n" +
		"    - text: secret note\n" +
		"  - 'textbox \"a: b\" [ref=e6]': \"quoted: value\"\n"
	nodes, err := ParseSnapshot(text)
	if err != nil {
		t.Fatal(err)
	}
	drop := []bool{false, false, true, true, false, true}
	got, n := DropValues(text, nodes, drop)
	want := "- generic [ref=e2] [box=8,8,100,20]:\n" +
		"  - textbox \"User\" [ref=e3] [box=8,8,50,20]: ada\n" +
		"  - textbox \"Password\" [ref=e4] [box=60,8,50,20]\n" +
		"  - textbox \"Notes\" [ref=e5]\n" +
		"  - 'textbox \"a: b\" [ref=e6]'\n"
	if got != want || n != 3 {
		t.Errorf("DropValues =\n%s(%d)\nwant\n%s(3)", got, n, want)
	}
	if _, err := ParseSnapshot(got); err != nil {
		t.Errorf("the result does not parse: %v", err)
	}
	if got, _ := DropValues(strings.TrimSuffix(text, "\n"), nodes, drop); got != strings.TrimSuffix(want, "\n") {
		t.Errorf("without a final newline: %q", got)
	}
}
