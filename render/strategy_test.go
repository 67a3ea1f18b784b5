package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actionspace/dom"
	"actionspace/internal/deeptest"
	"actionspace/metrics"
)

// productList builds the capture of a page holding a heading and a list
// of n products, each a <li> with a link to the product, its price and
// an "Add to cart" button, laid out in a grid of four columns.
func productList(n int) *dom.Tree {
	c := &dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{URL: "http://shop.test/tents", Title: "Tents",
		ViewportWidth: 1280, ViewportHeight: 720, DocWidth: 1280, DocHeight: 200 + float64(n/4+1)*300}}
	add := func(nd dom.Node) int {
		nd.Visible = true
		c.Nodes = append(c.Nodes, nd)
		return len(c.Nodes) - 1
	}
	el := func(parent int, tag string, r dom.Rect, attrs ...string) int {
		nd := dom.Node{Kind: dom.ElementNode, Parent: parent, Tag: tag, Rect: r, Block: 1}
		for i := 0; i+1 < len(attrs); i += 2 {
			nd.Attrs = append(nd.Attrs, [2]string{attrs[i], attrs[i+1]})
		}
		if tag == "a" || tag == "button" {
			nd.Signals, nd.Block = []string{"tag"}, 0
		}
		return add(nd)
	}
	text := func(parent int, s string, r dom.Rect) {
		add(dom.Node{Kind: dom.TextNode, Parent: parent, Text: s, Rect: r})
	}
	html := el(-1, "html", dom.Rect{0, 0, 1280, c.Page.DocHeight})
	body := el(html, "body", dom.Rect{0, 0, 1280, c.Page.DocHeight})
	h1 := el(body, "h1", dom.Rect{40, 40, 600, 40})
	text(h1, "Tents", dom.Rect{40, 40, 100, 40})
	ul := el(body, "ul", dom.Rect{40, 120, 1200, float64(n/4+1) * 300})
	for i := 0; i < n; i++ {
		x, y := 40+float64(i%4)*300, 120+float64(i/4)*300
		li := el(ul, "li", dom.Rect{x, y, 280, 280})
		a := el(li, "a", dom.Rect{x, y + 200, 280, 20}, "href", fmt.Sprintf("/p/%d", 101+i))
		text(a, fmt.Sprintf("Trail tent model %d", 101+i), dom.Rect{x, y + 200, 200, 20})
		span := el(li, "span", dom.Rect{x, y + 225, 80, 20})
		text(span, fmt.Sprintf("$%d.00", 120+7*i), dom.Rect{x, y + 225, 60, 20})
		b := el(li, "button", dom.Rect{x, y + 250, 120, 24}, "type", "button")
		text(b, "Add to cart", dom.Rect{x, y + 250, 100, 24})
	}
	return dom.NewTree(c)
}

// TestGroup_KeepsIDsAndTexts checks that grouping keeps every ID and
// every distinguishing text of the items, costs fewer characters, and
// changes neither the actions nor their IDs.
func TestGroup_KeepsIDsAndTexts(t *testing.T) {
	t.Parallel()
	tree := productList(20)
	plain := Fast(tree.Select(dom.Options{Expansion: dom.WholePage}))
	for _, min := range []int{2, 3, 20} {
		grouped := Fast(tree.Select(dom.Options{Expansion: dom.WholePage, Strategy: dom.Strategy{Group: min}}))
		if len(grouped.ActionSpace) >= len(plain.ActionSpace) {
			t.Errorf("group %d: %d characters, plain %d: want fewer", min, len(grouped.ActionSpace), len(plain.ActionSpace))
		}
		if fmt.Sprint(grouped.Actions) != fmt.Sprint(plain.Actions) {
			t.Errorf("group %d: actions differ from the plain rendering's", min)
		}
		lines := strings.Split(grouped.ActionSpace, "\n")
		if !strings.HasPrefix(lines[1], "=[:]20 × <li>:") {
			t.Errorf("group %d: header %q", min, lines[1])
		}
		for i := 0; i < 20; i++ {
			item := lines[2+i]
			for _, want := range []string{fmt.Sprintf("L%d ", i+1), fmt.Sprintf("/p/%d", 101+i), fmt.Sprintf("Trail tent model %d", 101+i), fmt.Sprintf("$%d.00", 120+7*i), fmt.Sprintf("B%d", i+1)} {
				if !strings.Contains(item, want) {
					t.Errorf("group %d: item %d %q lacks %q", min, i, item, want)
				}
			}
		}
	}
	// A run shorter than the least run stays plain.
	if got := Fast(tree.Select(dom.Options{Expansion: dom.WholePage, Strategy: dom.Strategy{Group: 21}})); got.ActionSpace != plain.ActionSpace {
		t.Errorf("group 21 of 20 items changed the text:\n%s", got.ActionSpace)
	}
}

// TestLayout_Coarse checks that each ID's line ends with its box centre
// in hundreds of pixels, and that context lines carry none.
func TestLayout_Coarse(t *testing.T) {
	t.Parallel()
	sp := Fast(productList(5).Select(dom.Options{Expansion: dom.WholePage, Strategy: dom.Strategy{Layout: dom.LayoutCoarse}}))
	lines := strings.Split(strings.TrimSuffix(sp.ActionSpace, "\n"), "\n")
	for _, want := range []string{
		`L1[:]<a href="/p/101">Trail tent model 101</a> @2,3`,
		`B5[:]<button type="button">Add to cart</button> @1,7`,
		`_[:]$148.00`,
	} {
		found := false
		for _, l := range lines {
			found = found || l == want
		}
		if !found {
			t.Errorf("no line %q in\n%s", want, sp.ActionSpace)
		}
	}
	if !strings.Contains(sp.Perception, ", layout coarse\n") {
		t.Errorf("the perception wrapper does not say the layout:\n%s", sp.Perception)
	}
}

const (
	strategiesDoc = "../docs/strategies.md"
	groupBegin    = "<!-- group-example:begin -->"
	groupEnd      = "<!-- group-example:end -->"
)

// groupExample renders the doc's example of grouping: a list of 20
// products, plain and with --group 3, with their token counts.
func groupExample(t *testing.T) string {
	t.Helper()
	c := deeptest.Counter(t)
	tree := productList(20)
	plain := Fast(tree.Select(dom.Options{Expansion: dom.WholePage}))
	grouped := Fast(tree.Select(dom.Options{Expansion: dom.WholePage, Strategy: dom.Strategy{Group: 3}}))
	count := func(s string) int64 {
		n, err := c.Count(metrics.CL100K, s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A page listing 20 products (a link, a price and an \"Add to cart\" button each) renders plain in %s cl100k_base tokens (%d lines; the first seven shown):\n\n```\n%s⋮\n```\n\n",
		thousands(count(plain.ActionSpace)), strings.Count(plain.ActionSpace, "\n"), strings.Join(strings.SplitAfter(plain.ActionSpace, "\n")[:7], ""))
	fmt.Fprintf(&b, "With `--group 3` it renders in %s tokens, every ID and every name and price kept:\n\n```\n%s```", thousands(count(grouped.ActionSpace)), grouped.ActionSpace)
	return b.String()
}

// TestStrategiesDoc_GroupExample checks the grouping example of
// docs/strategies.md against the renderer; -update rewrites it.
func TestStrategiesDoc_GroupExample(t *testing.T) {
	checkDocBlock(t, strategiesDoc, groupBegin, groupEnd, groupExample(t))
}

// checkDocBlock compares the block of doc between begin and end with
// want, and with -update rewrites it.
func checkDocBlock(t *testing.T, doc, begin, end, want string) {
	t.Helper()
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no %s … %s block", doc, begin, end)
	}
	got := strings.TrimSpace(text[i+len(begin) : j])
	if got == want {
		return
	}
	if *update {
		text = text[:i+len(begin)] + "\n" + want + "\n" + text[j:]
		if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if k, g, w, ok := firstDiff(got, want); ok {
		t.Fatalf("%s: the example differs from the renderer at its line %d:\n got %q\nwant %q\n(run go test ./render -run Doc -update)", doc, k, g, w)
	}
}

// TestGroup_Corpus: on every corpus page, grouping keeps each ID (once)
// and each action name the plain rendering shows, and never costs more
// characters than the plain rendering; on the products page, the second
// link of a card, which repeats the first's href and text, is written
// "^" and its item keeps only its ID.
func TestGroup_Corpus(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "capture.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range dirs {
		tree := loadTree(t, path)
		for _, text := range []dom.TextPolicy{dom.TextViewport, dom.TextSalient} {
			plain := Fast(tree.Select(dom.Options{Expansion: dom.WholePage, Text: text}))
			for _, min := range []int{2, 3} {
				g := Fast(tree.Select(dom.Options{Expansion: dom.WholePage, Text: text, Strategy: dom.Strategy{Group: min}}))
				where := fmt.Sprintf("%s text %s group %d", filepath.Base(filepath.Dir(path)), text, min)
				if len(g.ActionSpace) > len(plain.ActionSpace) {
					t.Errorf("%s: %d characters, plain %d", where, len(g.ActionSpace), len(plain.ActionSpace))
				}
				words := map[string]int{}
				for _, w := range strings.FieldsFunc(g.ActionSpace, func(r rune) bool { return r == ' ' || r == '\n' || r == '[' || r == '|' }) {
					words[w]++
				}
				for _, a := range g.Actions {
					if words[a.ID] == 0 && !strings.Contains(g.ActionSpace, "\n"+a.ID+"[:]") && !strings.HasPrefix(g.ActionSpace, a.ID+"[:]") {
						t.Errorf("%s: no ID %s", where, a.ID)
					}
					if strings.Contains(plain.ActionSpace, a.Name) && !strings.Contains(g.ActionSpace, a.Name) {
						t.Errorf("%s: %s's name %q is lost", where, a.ID, a.Name)
					}
				}
				if filepath.Base(filepath.Dir(path)) == "products" && min == 2 && text == dom.TextSalient &&
					(!strings.Contains(g.ActionSpace, `| <a href="^">^</a> |`) || !strings.Contains(g.ActionSpace, "\nL19 product.html?id=NW-1007 Ridgeline 2 Backpacking Tent | L20 | $329 | B3\n")) {
					t.Errorf("%s: the repeated link is not written ^:\n%s", where, g.ActionSpace)
				}
			}
		}
	}
}

// TestGroup_FoldsOnlyWhenShorter: a run of two short links would cost
// more folded (the header line) than plain, so it stays plain.
func TestGroup_FoldsOnlyWhenShorter(t *testing.T) {
	t.Parallel()
	c := &dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{ViewportWidth: 800, ViewportHeight: 600, DocWidth: 800, DocHeight: 600}}
	c.Nodes = []dom.Node{{Kind: dom.ElementNode, Parent: -1, Tag: "ul", Block: 1, Visible: true, Rect: dom.Rect{0, 0, 800, 600}}}
	for i, name := range []string{"a", "b"} {
		li := len(c.Nodes)
		c.Nodes = append(c.Nodes,
			dom.Node{Kind: dom.ElementNode, Parent: 0, Tag: "li", Block: 1, Visible: true, Rect: dom.Rect{0, float64(30 * i), 100, 20}},
			dom.Node{Kind: dom.ElementNode, Parent: li, Tag: "a", Signals: []string{"tag"}, Attrs: [][2]string{{"href", "/" + name}}, Visible: true, Rect: dom.Rect{0, float64(30 * i), 100, 20}},
			dom.Node{Kind: dom.TextNode, Parent: li + 1, Text: strings.ToUpper(name), Visible: true, Rect: dom.Rect{0, float64(30 * i), 10, 20}})
	}
	tree := dom.NewTree(c)
	plain := Fast(tree.Select(dom.Options{}))
	if g := Fast(tree.Select(dom.Options{Strategy: dom.Strategy{Group: 2}})); g.ActionSpace != plain.ActionSpace {
		t.Errorf("folded though longer:\n%s", g.ActionSpace)
	}
	if len(tree.Select(dom.Options{}).Groups(2, func(dom.Item) string { return "" })) != 1 {
		t.Error("the two items are not a group")
	}
}
