package axtree

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"actionspace/dom"
)

// stored reads one kind of stored record of every corpus page
// (../render/testdata/<page>/<file>), by page name.
func stored(tb testing.TB, file string) map[string][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "render", "testdata", "*", file))
	if err != nil {
		tb.Fatal(err)
	}
	if len(paths) < 14 {
		tb.Fatalf("found %d stored %s, want one per corpus page (14); run `make goldens`", len(paths), file)
	}
	out := map[string][]byte{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			tb.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		data, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		out[filepath.Base(filepath.Dir(p))] = data
	}
	return out
}

// TestParse_Stored: every stored record decodes, checks, and survives an
// encode and decode unchanged.
func TestParse_Stored(t *testing.T) {
	for name, data := range stored(t, "axtree.json.gz") {
		r, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(r.Nodes) < 50 || r.Nodes[0].Role != "RootWebArea" || r.Frames[0].Root != 0 {
			t.Errorf("%s: %d nodes, first %q, main root %d: want a page's tree", name, len(r.Nodes), r.Nodes[0].Role, r.Frames[0].Root)
		}
		var buf bytes.Buffer
		if err := r.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, r) {
			t.Errorf("%s: the record changed through Encode and Decode", name)
		}
	}
}

func TestCheck_Malformed(t *testing.T) {
	good := func() *Record {
		return &Record{
			Version: Version,
			Frames: []Frame{
				{ID: "F0", Parent: -1, Owner: -1, Root: 0},
				{ID: "F1", Parent: 0, Owner: 1, Root: 2},
			},
			Nodes: []Node{
				{Parent: -1, Role: "RootWebArea", Capture: -1},
				{Parent: 0, Role: "Iframe", Capture: 3},
				{Parent: 1, Role: "RootWebArea", Frame: 1, Capture: -1},
			},
		}
	}
	if err := good().Check(); err != nil {
		t.Fatalf("a good record: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(r *Record)
	}{
		{"version", func(r *Record) { r.Version = 2 }},
		{"parent after child", func(r *Record) { r.Nodes[1].Parent = 2 }},
		{"second root", func(r *Record) { r.Nodes[2].Parent = -1 }},
		{"frame out of range", func(r *Record) { r.Nodes[2].Frame = 2 }},
		{"capture index", func(r *Record) { r.Nodes[1].Capture = -2 }},
		{"frame parent", func(r *Record) { r.Frames[1].Parent = 1 }},
		{"main frame with a parent", func(r *Record) { r.Frames[0].Parent = 0 }},
		{"root in another frame", func(r *Record) { r.Frames[1].Root = 1 }},
		{"owner in another frame", func(r *Record) { r.Frames[1].Owner = 2 }},
		{"owner out of range", func(r *Record) { r.Frames[1].Owner = 3 }},
		{"nodes without frames", func(r *Record) { r.Frames = nil }},
	}
	for _, tt := range tests {
		r := good()
		tt.mutate(r)
		if err := r.Check(); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Check() = %v, want ErrMalformed", tt.name, err)
		}
	}
	if _, err := Parse([]byte(`{"version":1,"frames":[],"nodes":[{"p":3}]}`)); !errors.Is(err, ErrMalformed) {
		t.Errorf("Parse of a bad tree: %v, want ErrMalformed", err)
	}
	if _, err := Parse([]byte(`{"version":`)); err == nil || errors.Is(err, ErrMalformed) {
		t.Errorf("Parse of bad JSON: %v, want a decode error", err)
	}
}

func TestNode_Props(t *testing.T) {
	ti := func(s string) *string { return &s }
	n := Node{Props: [][2]string{{"focusable", "true"}, {"disabled", "false"}, {"level", "2"}}}
	if !n.Is("focusable") || n.Is("disabled") || n.Is("hidden") {
		t.Errorf("Is: focusable %v disabled %v hidden %v, want true false false", n.Is("focusable"), n.Is("disabled"), n.Is("hidden"))
	}
	if v, ok := n.Prop("level"); !ok || v != "2" {
		t.Errorf(`Prop("level") = %q, %v`, v, ok)
	}
	tests := []struct {
		attr *string
		want int
		ok   bool
	}{
		{nil, 0, false}, {ti("0"), 0, true}, {ti("-1"), -1, true}, {ti(" 3"), 3, true},
		{ti("+2"), 2, true}, {ti("4px"), 4, true}, {ti(""), 0, false}, {ti("x"), 0, false}, {ti("-"), 0, false},
	}
	for _, tt := range tests {
		n.TabIndex = tt.attr
		got, ok := n.TabIndexValue()
		if got != tt.want || ok != tt.ok {
			a := "nil"
			if tt.attr != nil {
				a = *tt.attr
			}
			t.Errorf("tabindex %q: %d, %v, want %d, %v", a, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRecord_Children(t *testing.T) {
	r := &Record{Nodes: []Node{{Parent: -1}, {Parent: 0}, {Parent: 1}, {Parent: 0}}}
	got := r.Children()
	want := [][]int{{1, 3}, {2}, nil, nil}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Children() = %v, want %v", got, want)
	}
}

// TestRecord_BoxesInPage: a stored record's boxes are in page
// coordinates: the corpus pages' main nodes lie inside the document.
func TestRecord_BoxesInPage(t *testing.T) {
	for name, data := range stored(t, "axtree.json.gz") {
		r, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		root := r.Nodes[0].Box
		if root == nil || root[0] != 0 || root[1] != 0 || root[2] < 1000 {
			t.Errorf("%s: root box %v, want the document at 0,0", name, root)
		}
		buttons := 0
		for _, n := range r.Nodes {
			if n.Role == "button" && n.Box != nil && strings.TrimSpace(n.Name) != "" {
				buttons++
				if !n.Box.Intersects(dom.Rect{-1e6, -1e6, 2e6, 2e6}) {
					t.Errorf("%s: button %q at %v", name, n.Name, *n.Box)
				}
			}
		}
		if buttons == 0 {
			t.Errorf("%s: no named button with a box", name)
		}
	}
}
