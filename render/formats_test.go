package render

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"actionspace/axtree"
	"actionspace/dom"
	"actionspace/oracle"
)

// stored is one corpus page state with every record the goldens tool
// keeps.
type stored struct {
	tree *dom.Tree
	rec  *axtree.Record
	snap *axtree.Snapshot
	html string
}

func loadStored(t testing.TB, dir string) stored {
	t.Helper()
	open := func(name string) io.Reader {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%v (run `make goldens`)", err)
		}
		t.Cleanup(func() { f.Close() })
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return zr
	}
	var s stored
	s.tree = loadTree(t, filepath.Join(dir, "capture.json.gz"))
	var err error
	if s.rec, err = axtree.Decode(open("axtree.json.gz")); err != nil {
		t.Fatal(err)
	}
	if s.snap, err = axtree.DecodeSnapshot(open("aisnapshot.json.gz")); err != nil {
		t.Fatal(err)
	}
	html, err := io.ReadAll(open("page.html.gz"))
	if err != nil {
		t.Fatal(err)
	}
	s.html = string(html)
	return s
}

// TestFormats_Golden renders every stored corpus page in the playwright-ai
// and axtree formats at each golden expansion and compares the text with
// the golden files beside it, and the figures (handles, handles standing
// for an oracle element, oracle elements in the window and handled) with
// formats.txt. Run `go test ./render -update` after an intended change.
func TestFormats_Golden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "axtree.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 14 {
		t.Fatalf("found %d stored accessibility trees in testdata, want one per corpus page (14); run `make goldens`", len(dirs))
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s := loadStored(t, dir)
			o := oracle.New(s.rec, s.tree)
			var figures strings.Builder
			for _, e := range goldenExpansions {
				win := s.tree.Select(dom.Options{Expansion: e}).Window
				ai, err := AISnapshot(s.snap, s.rec, o, win)
				if err != nil {
					t.Fatal(err)
				}
				ax := AXTree(s.rec, o, win)
				suffix := "_E" + strconv.Itoa(e) + ".txt"
				checkGolden(t, filepath.Join(dir, "playwright-ai"+suffix), ai.Text)
				checkGolden(t, filepath.Join(dir, "axtree"+suffix), ax.Text)
				for _, f := range []struct {
					name string
					sp   FormatSpace
				}{{"playwright-ai", ai}, {"axtree", ax}} {
					sc := f.sp.Score(o, win)
					fmt.Fprintf(&figures, "%s E=%d: %d handles, %d extra; %d of %d oracle elements handled\n",
						f.name, e, sc.Handles, sc.Extra, sc.Handled, sc.InWindow)
					if f.sp.Matched > f.sp.Handles || sc.Handled > sc.InWindow {
						t.Errorf("%s E=%d: %+v", f.name, e, sc)
					}
				}
			}
			checkGolden(t, filepath.Join(dir, "formats.txt"), figures.String())
			if h := HTML(s.html); h.Text != s.html || h.Handles != 0 || h.Handled != nil {
				t.Errorf("HTML: %d bytes, %d handles, want the page's %d bytes and none", len(h.Text), h.Handles, len(s.html))
			}
		})
	}
}

func TestAISnapshot_Window(t *testing.T) {
	snap := &axtree.Snapshot{Version: axtree.Version, ScrollY: 100, Text: strings.Join([]string{
		`- generic [ref=e1] [box=0,-100,1000,100]:`,
		`  - button "Top" [ref=e2] [box=10,-90,50,20]`,
		`  - generic [ref=e3] [box=0,-100,10,10]:`,
		`    - link "Floating" [ref=e4] [cursor=pointer] [box=10,500,50,20]:`,
		`      - /url: /x`,
		`      - text: hi`,
		`    - option "o" [box=0,0,0,0]`,
		`  - 'button "Below: far" [ref=e5] [box=10,2000,50,20]'`,
	}, "\n")}
	rec := &axtree.Record{Version: axtree.Version, Frames: []axtree.Frame{{Parent: -1, Owner: -1}}, Nodes: []axtree.Node{
		{Parent: -1, Role: "RootWebArea", Box: &dom.Rect{0, 0, 1000, 3000}, Capture: -1},
		{Parent: 0, Role: "button", Name: "Top", Box: &dom.Rect{10, 10, 50, 20}, Capture: -1},
		{Parent: 0, Role: "link", Name: "Floating", Box: &dom.Rect{10, 600, 50, 20}, Capture: -1},
		{Parent: 0, Role: "button", Name: "Below: far", Box: &dom.Rect{10, 2100, 50, 20}, Capture: -1},
	}}
	o := oracle.New(rec, nil)
	win := dom.Rect{0, 500, 1000, 500}
	sp, err := AISnapshot(snap, rec, o, win)
	if err != nil {
		t.Fatal(err)
	}
	want := `- generic [ref=e1]:
  - generic [ref=e3]:
    - link "Floating" [ref=e4] [cursor=pointer]:
      - /url: /x
      - text: hi
`
	if sp.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", sp.Text, want)
	}
	if sp.Handles != 3 || sp.Matched != 1 || fmt.Sprint(sp.Handled) != "[false true false]" {
		t.Errorf("handles %d, matched %d, handled %v; want 3, 1, [false true false]", sp.Handles, sp.Matched, sp.Handled)
	}
	whole, err := AISnapshot(snap, rec, o, dom.Rect{0, 0, 1000, 3000})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(whole.Text, "\n"); got != 7 || !strings.Contains(whole.Text, `- 'button "Below: far" [ref=e5]'`) {
		t.Errorf("whole page: %d lines (want all but the empty option):\n%s", got, whole.Text)
	}
	if whole.Handles != 5 || whole.Matched != 3 {
		t.Errorf("whole page: %d handles, %d matched, want 5 and 3", whole.Handles, whole.Matched)
	}
}

func TestAXTree_Window(t *testing.T) {
	ti := "0"
	rec := &axtree.Record{Version: axtree.Version, Frames: []axtree.Frame{{Parent: -1, Owner: -1}}, Nodes: []axtree.Node{
		{Parent: -1, Role: "RootWebArea", Name: "Doc", Tag: "#document", Backend: 1, Box: &dom.Rect{0, 0, 1000, 3000}, Props: [][2]string{{"focusable", "true"}}},
		{Parent: 0, Role: "generic", Tag: "div", Backend: 2, Box: &dom.Rect{0, 0, 1000, 50}},
		{Parent: 1, Role: "heading", Name: "Title", Tag: "h1", Backend: 3, Box: &dom.Rect{0, 0, 500, 40}, Props: [][2]string{{"level", "1"}}},
		{Parent: 1, Role: "link", Name: "It's \"here\"", Tag: "a", Backend: 4, Box: &dom.Rect{0, 600, 100, 20}, Props: [][2]string{{"focusable", "true"}, {"url", "http://x.test/a"}}},
		{Parent: 3, Role: "StaticText", Name: "here", Tag: "#text", Backend: 5, Box: &dom.Rect{0, 600, 50, 20}},
		{Parent: 0, Role: "button", Name: "Menu", Tag: "div", TabIndex: &ti, Backend: 6, Box: &dom.Rect{0, 700, 100, 20},
			Props: [][2]string{{"focused", "true"}, {"required", "false"}, {"expanded", "false"}, {"checked", "mixed"}, {"valuemin", "0"}}},
		{Parent: 5, Role: "StaticText", Name: "Open\tnow", Tag: "#text", Backend: 7},
		{Parent: 0, Role: "textbox", Name: "Ignored", Ignored: true, Tag: "input", Backend: 8, Box: &dom.Rect{0, 720, 100, 20}},
		{Parent: 7, Role: "StaticText", Name: "inside ignored", Tag: "#text", Backend: 9, Box: &dom.Rect{0, 720, 100, 20}},
		{Parent: 0, Role: "textbox", Name: "Far", Value: "v", Tag: "input", Backend: 10, Box: &dom.Rect{0, 2000, 100, 20}},
	}}
	for i := range rec.Nodes {
		rec.Nodes[i].Capture = -1
	}
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	o := oracle.New(rec, nil)
	sp := AXTree(rec, o, dom.Rect{0, 500, 1000, 500})
	want := "RootWebArea 'Doc'\n" +
		"\t[4] link 'It\\'s \"here\"', url='http://x.test/a'\n" +
		"\t[6] button 'Menu', focused, expanded=False, checked='mixed', valuemin=0\n" +
		"\t\tStaticText 'Open\\tnow'\n" +
		"\tStaticText 'inside ignored'\n"
	if sp.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", sp.Text, want)
	}
	// Oracle elements: link, button, textbox Far (the ignored one is not).
	if sp.Handles != 2 || sp.Matched != 2 || fmt.Sprint(sp.Handled) != "[true true false]" {
		t.Errorf("handles %d, matched %d, handled %v; want 2, 2, [true true false]", sp.Handles, sp.Matched, sp.Handled)
	}
	whole := AXTree(rec, o, dom.Rect{0, 0, 1000, 3000})
	for _, line := range []string{"\t[3] heading 'Title'\n", "\t[10] textbox 'Far', value='v'\n"} {
		if !strings.Contains(whole.Text, line) {
			t.Errorf("whole page lacks %q:\n%s", line, whole.Text)
		}
	}
	if whole.Handles != 4 || whole.Matched != 3 {
		t.Errorf("whole page: %d handles, %d matched, want 4 and 3", whole.Handles, whole.Matched)
	}
}
