package render

import (
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"actionspace/dom"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenExpansions are the settings every stored capture is rendered with.
var goldenExpansions = []int{0, 500, dom.WholePage}

// goldenSalient are the salient text policy's settings every stored
// capture is also rendered with: the screen, and the whole page grouped
// (the setting of issue 22's goal, docs/strategies.md).
var goldenSalient = []struct {
	name string
	opts dom.Options
}{
	{"E0_salient", dom.Options{Expansion: 0, Text: dom.TextSalient}},
	{"E-1_salient_g2", dom.Options{Expansion: dom.WholePage, Text: dom.TextSalient, Strategy: dom.Strategy{Group: 2}}},
}

// TestFast_Golden renders every stored corpus capture
// (testdata/<page>/capture.json.gz, written by `make goldens`) and compares it with the golden renderings
// beside it. Run `go test ./render -update` after an intended change and
// review the diff.
func TestFast_Golden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "capture.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 12 {
		t.Fatalf("found %d stored captures in testdata, want one per corpus page (>= 12); regenerate with `make goldens`", len(dirs))
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			tree := loadTree(t, path)
			for _, e := range goldenExpansions {
				sp := Fast(tree.Select(dom.Options{Expansion: e}))
				checkGolden(t, filepath.Join(dir, "fast_E"+strconv.Itoa(e)+".txt"), sp.Perception)
			}
			for _, g := range goldenSalient {
				sp := Fast(tree.Select(g.opts))
				checkGolden(t, filepath.Join(dir, "fast_"+g.name+".txt"), sp.Perception)
			}
		})
	}
}

func loadTree(t testing.TB, path string) *dom.Tree {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	c, err := dom.Decode(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return dom.NewTree(c)
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if line, g, w, ok := firstDiff(got, string(want)); ok {
		t.Fatalf("%s differs at line %d:\n got %q\nwant %q\n(run with -update if intended)", path, line, g, w)
	}
}

// firstDiff returns the first line (1-based) where two texts differ, and
// that line of each; ok is false when they are equal.
func firstDiff(got, want string) (line int, g, w string, ok bool) {
	if got == want {
		return 0, "", "", false
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(gl), len(wl)) {
		g, w = "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			return i + 1, g, w, true
		}
	}
	return 0, "", "", false
}

func TestFast_LineFormat(t *testing.T) {
	checked, unchecked := 1, 0
	c := &dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{
		URL: "http://shop.test/login", Title: "Log in", ViewportWidth: 1280, ViewportHeight: 720,
		DocWidth: 1280, DocHeight: 2000, ScrollY: 100, Time: 1764547200000}}
	add := func(n dom.Node) int {
		n.Visible = true
		if n.Rect == (dom.Rect{}) {
			n.Rect = dom.Rect{10, 200, 100, 20}
		}
		c.Nodes = append(c.Nodes, n)
		return len(c.Nodes) - 1
	}
	html := add(dom.Node{Kind: dom.ElementNode, Parent: -1, Tag: "html", Block: 1})
	body := add(dom.Node{Kind: dom.ElementNode, Parent: html, Tag: "body", Block: 1})
	btn := add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "button", Signals: []string{"tag"}, Attrs: [][2]string{{"type", "submit"}, {"class", "x"}}})
	add(dom.Node{Kind: dom.TextNode, Parent: btn, Text: "\n  Submit\n  "})
	add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "input", Signals: []string{"tag"}, Value: "ann@example.com",
		Attrs: [][2]string{{"placeholder", "Email"}, {"name", "email"}, {"type", "email"}, {"data-x", "1"}}})
	add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "input", Signals: []string{"tag"},
		Attrs: [][2]string{{"type", "password"}, {"name", "pw"}, {"value", "hunter2"}}})
	add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "input", Signals: []string{"tag"}, Checked: &checked,
		Attrs: [][2]string{{"type", "checkbox"}, {"name", "remember"}}})
	add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "input", Signals: []string{"tag"}, Checked: &unchecked,
		Attrs: [][2]string{{"type", "radio"}, {"name", "r"}, {"checked", ""}}})
	a := add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "a", Signals: []string{"tag"},
		Attrs: [][2]string{{"href", "/signup?" + strings.Repeat("x", 80)}, {"title", `say "hi"`}}})
	add(dom.Node{Kind: dom.TextNode, Parent: a, Text: "Sign"})
	add(dom.Node{Kind: dom.TextNode, Parent: a, Text: "up"})
	add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "button", Signals: []string{"tag"}, Attrs: [][2]string{{"aria-label", "Close"}}})
	add(dom.Node{Kind: dom.ElementNode, Parent: body, Tag: "select", Signals: []string{"tag"}, Attrs: [][2]string{{"name", "c"}},
		OptionCount: 12, Options: []string{"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L"}, Selected: []int{1}})
	add(dom.Node{Kind: dom.TextNode, Parent: body, Text: "Forgot your password?"})

	sp := Fast(dom.NewTree(c).Select(dom.Options{Expansion: 0}))
	want := `B1[:]<button type="submit">Submit</button>
I1[:]<input type="email" name="email" placeholder="Email" value="ann@example.com"></input>
I2[:]<input type="password" name="pw"></input>
B2[:]<input type="checkbox" name="remember" checked></input>
B3[:]<input type="radio" name="r"></input>
L1[:]<a title="say &quot;hi&quot;" href="/signup?` + strings.Repeat("x", 52) + `...">Sign up</a>
B4[:]<button aria-label="Close"></button>
I3[:]<select name="c" value="B">A | B | C | D | E | F | G | H | I | J | … (12 options)</select>
_[:]Forgot your password?
`
	if sp.ActionSpace != want {
		t.Errorf("action space:\n%s\nwant:\n%s", sp.ActionSpace, want)
	}
	if strings.Contains(sp.Perception, "hunter2") {
		t.Error("password value leaked into the perception text")
	}
	wantPerception := "[Start of page]\nURL: http://shop.test/login\nTitle: Log in\nCaptured: 2025-12-01T00:00:00Z\n" +
		"Viewport: 1280x720, expansion 0, text viewport\n... 100 pixels above - scroll up to see more ...\n" +
		want + "... 1180 pixels below - scroll down to see more ...\n[End of page]\n"
	if sp.Perception != wantPerception {
		t.Errorf("perception:\n%s\nwant:\n%s", sp.Perception, wantPerception)
	}
	kinds := map[string]string{}
	for _, a := range sp.Actions {
		kinds[a.ID] = a.Kind + ":" + a.Name
	}
	for id, want := range map[string]string{"B1": "click:Submit", "I1": "fill:Email", "I3": "select:c", "B4": "click:Close", "L1": "click:Sign up"} {
		if kinds[id] != want {
			t.Errorf("action %s = %q, want %q", id, kinds[id], want)
		}
	}
}

func BenchmarkFast(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "*", "capture.json.gz"))
	if len(paths) == 0 {
		b.Skip("no stored captures")
	}
	var trees []*dom.Tree
	for _, p := range paths {
		trees = append(trees, loadTree(b, p))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, tr := range trees {
			Fast(tr.Select(dom.Options{Expansion: dom.WholePage}))
		}
	}
	b.ReportMetric(float64(b.N*len(trees))/b.Elapsed().Seconds(), "renders/s")
}

// TestKeptAttributes_CoverRendering: every attribute a renderer shows is
// one the capture records even past its attribute cap.
func TestKeptAttributes_CoverRendering(t *testing.T) {
	kept := dom.KeptAttributes()
	for _, list := range [][]string{keptAttrs, treeAttrs, {"aria-label", "action"}} {
		for _, name := range list {
			if !slices.Contains(kept, name) {
				t.Errorf("the renderers show %q, which dom.KeptAttributes() lacks", name)
			}
		}
	}
}
