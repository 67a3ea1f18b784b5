package render

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"actionspace/dom"
	"actionspace/oracle"
)

// TestBrowserUse_Golden renders every stored corpus page in the
// browser-use format at each golden expansion and compares the text, and
// its figures, with the golden files beside it (browser-use_E*.txt,
// browser-use.txt). Run `go test ./render -run BrowserUse -update` after
// an intended change.
func TestBrowserUse_Golden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "axtree.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 14 {
		t.Fatalf("found %d stored pages in testdata, want one per corpus page (14); run `make goldens`", len(dirs))
	}
	for _, path := range dirs {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			s := loadStored(t, dir)
			o := oracle.New(s.rec, s.tree)
			var figures strings.Builder
			for _, e := range goldenExpansions {
				bu := BrowserUse(s.tree, o, BrowserUseOptions{Expansion: e})
				checkGolden(t, filepath.Join(dir, "browser-use_E"+strconv.Itoa(e)+".txt"), BrowserUseWrap(s.tree, e, bu.Text))
				sc := bu.Score(o, s.tree.Window(e))
				fmt.Fprintf(&figures, "browser-use E=%d: %d handles, %d extra; %d of %d oracle elements handled\n",
					e, sc.Handles, sc.Extra, sc.Handled, sc.InWindow)
				if bu.Matched > bu.Handles || sc.Handled > sc.InWindow || len(bu.HandleLines) != bu.Handles {
					t.Errorf("E=%d: %+v, %d handle lines", e, sc, len(bu.HandleLines))
				}
			}
			checkGolden(t, filepath.Join(dir, "browser-use.txt"), figures.String())
		})
	}
}

// TestBrowserUse_Cut checks the 40,000-character cut: the text is cut
// there, and only the handles whose index survived count.
func TestBrowserUse_Cut(t *testing.T) {
	t.Parallel()
	tree := productList(600)
	whole := BrowserUse(tree, nil, BrowserUseOptions{Expansion: dom.WholePage, MaxChars: -1})
	if len(whole.Text) <= BrowserUseMaxChars {
		t.Fatalf("the uncut text has %d characters; the test needs more than %d", len(whole.Text), BrowserUseMaxChars)
	}
	cut := BrowserUse(tree, nil, BrowserUseOptions{Expansion: dom.WholePage})
	if len(cut.Text) != BrowserUseMaxChars || !strings.HasPrefix(whole.Text, cut.Text) {
		t.Errorf("cut text: %d characters, a prefix: %v", len(cut.Text), strings.HasPrefix(whole.Text, cut.Text))
	}
	if want := strings.Count(cut.Text, "]<"); cut.Handles != want || cut.Handles >= whole.Handles {
		t.Errorf("cut: %d handles, %d complete indices in the text, %d uncut", cut.Handles, want, whole.Handles)
	}
}

const (
	browserUseDoc   = "../docs/browser-use.md"
	buExampleBegin  = "<!-- browser-use-example:begin -->"
	buExampleEnd    = "<!-- browser-use-example:end -->"
	buExampleIntro  = "```\n"
	buExampleFooter = "```"
)

// formPage builds the small form page of the browser-use example: two nav
// links, a heading, a text input, a password input, a checkbox with its
// label and a submit button. backend holds the indices browser-use gave
// its elements (their backend DOM node ids), by capture node.
func formPage() (tree *dom.Tree, backend map[int]int) {
	c := &dom.Capture{Version: dom.CaptureVersion, Page: dom.PageInfo{URL: "http://form.test/", Title: "Order",
		ViewportWidth: 1280, ViewportHeight: 720, DocWidth: 1280, DocHeight: 720}}
	backend = map[int]int{}
	y := 0.0
	el := func(parent int, tag string, attrs ...string) int {
		nd := dom.Node{Kind: dom.ElementNode, Parent: parent, Tag: tag, Visible: true, Rect: dom.Rect{10, y, 200, 30}}
		for i := 0; i+1 < len(attrs); i += 2 {
			nd.Attrs = append(nd.Attrs, [2]string{attrs[i], attrs[i+1]})
		}
		c.Nodes = append(c.Nodes, nd)
		y += 40
		return len(c.Nodes) - 1
	}
	text := func(parent int, s string) {
		r := c.Nodes[parent].Rect
		c.Nodes = append(c.Nodes, dom.Node{Kind: dom.TextNode, Parent: parent, Text: s, Visible: true, Rect: dom.Rect{r[0] + 2, r[1] + 2, 100, 20}})
	}
	html := el(-1, "html")
	c.Nodes[html].Rect = dom.Rect{0, 0, 1280, 720}
	body := el(html, "body")
	c.Nodes[body].Rect = dom.Rect{0, 0, 1280, 720}
	nav := el(body, "nav")
	home := el(nav, "a", "href", "/")
	text(home, " Home ")
	about := el(nav, "a", "href", "/about", "title", "About us")
	text(about, "About")
	h1 := el(body, "h1", "class", "title")
	text(h1, "Order form")
	form := el(body, "form", "action", "/order")
	name := el(form, "input", "type", "text", "name", "name", "placeholder", "Your name", "required", "")
	pw := el(form, "input", "type", "password", "name", "pw", "aria-label", "Password")
	tos := el(form, "input", "type", "checkbox", "id", "tos", "class", "box")
	unchecked := 0
	c.Nodes[tos].Checked = &unchecked
	c.Nodes[tos].Rect = dom.Rect{10, c.Nodes[tos].Rect[1], 16, 16}
	label := el(form, "label", "for", "tos")
	text(label, "Accept terms")
	send := el(form, "button", "type", "submit")
	text(send, "Send")
	text(body, "©") // one character: dropped
	for i, k := range map[int]int{home: 27, about: 30, name: 3, pw: 4, tos: 7, send: 9} {
		backend[i] = k
	}
	return dom.NewTree(c), backend
}

// TestBrowserUseDoc_Example checks the example of docs/browser-use.md
// (observed from browser-use on a small form page) against the renderer
// on that page; -update rewrites it.
func TestBrowserUseDoc_Example(t *testing.T) {
	tree, backend := formPage()
	bu := BrowserUse(tree, nil, BrowserUseOptions{Expansion: 0, Index: func(i int) int { return backend[i] }})
	checkDocBlock(t, browserUseDoc, buExampleBegin, buExampleEnd, buExampleIntro+bu.Text+buExampleFooter)
}
