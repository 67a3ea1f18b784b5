package browser

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/pipeline"
	"actionspace/render"
)

// The fidelity tests load the pages of corpora/site/fidelity in real
// Chromium and compare what the pipeline makes of them with expectations
// written by hand: the exact action-space lines, pixel markers, rects and
// flags each page must produce (issue 3). They are not regenerated: a
// change here is a change of behaviour, to be reviewed.

// fidelityPage is one loaded fidelity page.
type fidelityPage struct {
	url     string
	load    *pipeline.Load
	capture *dom.Capture
	tree    *dom.Tree
}

// view applies expansion e with the default text policy.
func (p *fidelityPage) view(e int) *dom.View {
	return p.tree.Select(dom.Options{Expansion: e})
}

// fidelityLoader loads fidelity pages in one Chromium page.
type fidelityLoader struct {
	srv  *corpora.Server
	page pipeline.Page
}

func newFidelityLoader(t *testing.T) *fidelityLoader {
	t.Helper()
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	b := mustLaunchChromium(t, defaultTestConfig())
	return &fidelityLoader{srv: srv, page: mustNewPage(t, b)}
}

// load loads path (relative to the corpus server) and decodes its capture.
func (l *fidelityLoader) load(t *testing.T, path string) *fidelityPage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u := l.srv.URL + path
	ld, err := l.page.Load(ctx, u)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	c, err := dom.Parse(ld.Capture)
	if err != nil {
		t.Fatalf("parse capture of %s: %v", path, err)
	}
	return &fidelityPage{url: u, load: ld, capture: c, tree: dom.NewTree(c)}
}

// spaceCase is the expected rendering of one expansion.
type spaceCase struct {
	e            int
	above, below int // pixels-above/below markers; 0 = no marker
	want         string
}

// checkSpaces renders each case and compares the action space line by
// line, and the pixel markers of the perception text.
func checkSpaces(t *testing.T, p *fidelityPage, cases []spaceCase) {
	t.Helper()
	for _, tc := range cases {
		v := p.view(tc.e)
		sp := render.Fast(v)
		if d := diffLines(sp.ActionSpace, strings.TrimPrefix(tc.want, "\n")); d != "" {
			t.Errorf("%s E=%d: action space differs:\n%s", p.url, tc.e, d)
		}
		for _, m := range []struct {
			n          int
			side, line string
		}{
			{tc.above, "above", "... %d pixels above - scroll up to see more ...\n"},
			{tc.below, "below", "... %d pixels below - scroll down to see more ...\n"},
		} {
			if got := strings.Contains(sp.Perception, " pixels "+m.side+" - scroll "); got != (m.n > 0) {
				t.Errorf("%s E=%d: perception has a pixels-%s marker = %v, want %v", p.url, tc.e, m.side, got, m.n > 0)
			}
			if m.n > 0 && !strings.Contains(sp.Perception, fmt.Sprintf(m.line, m.n)) {
				t.Errorf("%s E=%d: perception lacks %q", p.url, tc.e, fmt.Sprintf(m.line, m.n))
			}
		}
		if v.PixelsAbove != tc.above || v.PixelsBelow != tc.below {
			t.Errorf("%s E=%d: pixels above/below = %d/%d, want %d/%d", p.url, tc.e, v.PixelsAbove, v.PixelsBelow, tc.above, tc.below)
		}
	}
}

// diffLines reports the first differing line of two texts, "" when equal.
func diffLines(got, want string) string {
	if got == want {
		return ""
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			return fmt.Sprintf("line %d:\n  got  %q\n  want %q\ngot:\n%s", i+1, g, w, got)
		}
	}
	return "texts differ"
}

// nodeWithText returns the index of the element whose own first text node
// is text, failing the test when there is none.
func nodeWithText(t *testing.T, c *dom.Capture, text string) int {
	t.Helper()
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Kind == dom.TextNode && strings.TrimSpace(n.Text) == text {
			return n.Parent
		}
	}
	t.Fatalf("no element with text %q", text)
	return -1
}

// emitted returns the capture indices of the elements with IDs.
func emitted(v *dom.View) map[int]string {
	ids := make(map[int]string)
	for _, it := range v.Items {
		if it.IsAction() {
			ids[it.Node] = it.ID
		}
	}
	return ids
}

// withoutRunFields returns the capture with what differs between two runs
// of the same page (URL, title, clock, script time) zeroed.
func withoutRunFields(c *dom.Capture) dom.Capture {
	cc := *c
	cc.Page.URL, cc.Page.Title, cc.Page.Time, cc.Page.ScriptMs = "", "", 0, 0
	cc.Page.Doc = "" // a random token per document
	return cc
}

// diffCaptures describes the first difference between two captures.
func diffCaptures(a, b dom.Capture) string {
	if !reflect.DeepEqual(a.Page, b.Page) {
		return fmt.Sprintf("page %+v\n vs %+v", a.Page, b.Page)
	}
	if len(a.Nodes) != len(b.Nodes) {
		return fmt.Sprintf("%d nodes vs %d", len(a.Nodes), len(b.Nodes))
	}
	for i := range a.Nodes {
		if !reflect.DeepEqual(a.Nodes[i], b.Nodes[i]) {
			return fmt.Sprintf("node %d: %+v\n vs %+v", i, a.Nodes[i], b.Nodes[i])
		}
	}
	return ""
}

func TestFidelity(t *testing.T) {
	t.Parallel()
	l := newFidelityLoader(t)

	// Issue 3 §2: a positive E adds exactly the elements it reaches; -1 is
	// the whole page; text follows the window; the markers count the
	// pixels outside it.
	t.Run("viewport", func(t *testing.T) {
		p := l.load(t, "/fidelity/viewport.html")
		screen := `
_[:]On screen at 100 pixels
B1[:]<button>Screen button</button>
L1[:]<a href="#screen">Screen link</a>
`
		near := `_[:]150 pixels below the fold
B2[:]<button>Near button</button>
I1[:]<input name="near" placeholder="Near input"></input>
`
		far := `_[:]800 pixels below the fold
B3[:]<button>Far button</button>
L2[:]<a href="#far">Far link</a>
`
		checkSpaces(t, p, []spaceCase{
			{0, 0, 3280, screen},
			{200, 0, 3080, screen + near},
			{1000, 0, 2280, screen + near + far},
			{dom.WholePage, 0, 0, screen + near + far + `_[:]Middle of the page
B4[:]<button>Middle button</button>
_[:]3000 pixels below the fold
B5[:]<button>Bottom button</button>
L3[:]<a href="#bottom">Bottom link</a>
`},
		})
	})

	t.Run("viewport scrolled", func(t *testing.T) {
		p := l.load(t, "/fidelity/viewport.html?scroll=1700")
		if got := p.capture.Page.ScrollY; got != 1700 {
			t.Fatalf("scrollY = %v, want 1700", got)
		}
		checkSpaces(t, p, []spaceCase{
			{0, 1700, 1580, `
_[:]Middle of the page
B1[:]<button>Middle button</button>
`},
			{200, 1500, 1380, `
_[:]800 pixels below the fold
B1[:]<button>Far button</button>
L1[:]<a href="#far">Far link</a>
_[:]Middle of the page
B2[:]<button>Middle button</button>
`},
			{1000, 700, 580, `
_[:]150 pixels below the fold
B1[:]<button>Near button</button>
I1[:]<input name="near" placeholder="Near input"></input>
_[:]800 pixels below the fold
B2[:]<button>Far button</button>
L1[:]<a href="#far">Far link</a>
_[:]Middle of the page
B3[:]<button>Middle button</button>
`},
		})
		// Context text follows the window; --text all and none do not.
		v := p.tree.Select(dom.Options{Expansion: 0, Text: dom.TextAll})
		if got := render.Fast(v).ActionSpace; !strings.Contains(got, "_[:]On screen at 100 pixels\n") || !strings.Contains(got, "_[:]3000 pixels below the fold\n") {
			t.Errorf("text=all at E=0 lacks off-screen text:\n%s", got)
		}
		v = p.tree.Select(dom.Options{Expansion: 0, Text: dom.TextNone})
		if got, want := render.Fast(v).ActionSpace, "B1[:]<button>Middle button</button>\n"; got != want {
			t.Errorf("text=none at E=0:\n%s\nwant\n%s", got, want)
		}
	})

	// Issue 3 §2: a page without a DOCTYPE gets the same geometry.
	t.Run("quirks", func(t *testing.T) {
		q := l.load(t, "/fidelity/quirks.html")
		s := l.load(t, "/fidelity/quirks-doctype.html")
		if !q.capture.Page.Quirks || s.capture.Page.Quirks {
			t.Fatalf("quirks flags = %v (no DOCTYPE), %v (DOCTYPE); want true, false", q.capture.Page.Quirks, s.capture.Page.Quirks)
		}
		qc, sc := withoutRunFields(q.capture), withoutRunFields(s.capture)
		qc.Page.Quirks = false
		if d := diffCaptures(qc, sc); d != "" {
			t.Errorf("quirks capture differs from its DOCTYPE twin: %s", d)
		}
		for _, e := range oracleExpansions {
			if a, b := render.Fast(q.view(e)).ActionSpace, render.Fast(s.view(e)).ActionSpace; a != b {
				t.Errorf("E=%d: quirks action space differs from the DOCTYPE twin's:\n%s", e, diffLines(a, b))
			}
		}
		checkSpaces(t, q, []spaceCase{{0, 300, 1040, `
_[:]Section two
_[:]Text of section two, after the first screen when scrolled.
L1[:]<a href="#two">Read section two</a>
B1[:]<button type="button">Save two</button>
_[:]Section three
_[:]Text of section three.
I1[:]<input type="email" name="email" placeholder="Email"></input>
B2[:]<button type="button">Subscribe</button>
`}})
	})

	// Issue 3 §3: shadow roots (nested, slotted), a same-origin frame, a
	// cross-origin frame in this renderer and a cross-site one in another
	// (with a frame of its own inside): IDs in document order, rects in
	// page coordinates.
	t.Run("frames", func(t *testing.T) {
		p := l.load(t, "/fidelity/frames.html")
		if pg := p.capture.Page; pg.CrossOriginFrames != 2 || pg.FramesStitched != 2 {
			t.Errorf("cross-origin frames = %d, stitched %d; want 2, 2", pg.CrossOriginFrames, pg.FramesStitched)
		}
		all := `
_[:]Frames and shadow DOM
B1[:]<button>Before frames</button>
_[:]Outer shadow text
B2[:]<button>Outer shadow button</button>
B3[:]<button>Inner shadow button</button>
B4[:]<button>Slotted button</button>
L1[:]<a href="#slotted">Slotted link</a>
_[:]Same-origin frame text
L2[:]<a href="#same">Same-origin link</a>
B5[:]<button>Same-origin button</button>
_[:]Cross-origin frame text
I1[:]<input name="q" aria-label="Cross search"></input>
B6[:]<button>Cross-origin button</button>
_[:]Cross-site frame text
I2[:]<input name="site-q" aria-label="Site search"></input>
B7[:]<button>Cross-site button</button>
B8[:]<button>Nested</button>
B9[:]<button>After frames</button>
`
		checkSpaces(t, p, []spaceCase{{0, 0, 80, all}, {dom.WholePage, 0, 0, all}})

		type where struct {
			rect          dom.Rect
			frame, shadow int
		}
		want := map[string]where{
			"B1": {dom.Rect{40, 70, 160, 30}, 0, 0},
			"B2": {dom.Rect{40, 150, 180, 30}, 0, 1},
			"B3": {dom.Rect{240, 150, 180, 30}, 0, 1},
			"B4": {dom.Rect{240, 190, 180, 30}, 0, 1},
			"L1": {dom.Rect{40, 200, 120, 20}, 0, 1},
			// iframes at (40,260), (480,260), (40,460) with 2px borders
			"L2": {dom.Rect{52, 302, 150, 24}, 1, 0},
			"B5": {dom.Rect{52, 342, 150, 30}, 1, 0},
			"I1": {dom.Rect{492, 302, 200, 24}, 1, 0},
			"B6": {dom.Rect{492, 342, 150, 30}, 1, 0},
			"I2": {dom.Rect{52, 502, 200, 24}, 1, 0},
			"B7": {dom.Rect{52, 542, 150, 30}, 1, 0},
			// inside the cross-site frame, an iframe at (230,40), 1px border
			"B8": {dom.Rect{278, 508, 100, 30}, 2, 0},
			"B9": {dom.Rect{40, 660, 160, 30}, 0, 0},
		}
		for i, id := range emitted(p.view(0)) {
			n := &p.capture.Nodes[i]
			w, ok := want[id]
			if !ok {
				t.Errorf("unexpected %s", id)
				continue
			}
			if got := (where{n.Rect, n.Frame, n.Shadow}); got != w {
				t.Errorf("%s: rect, frame, shadow = %v, want %v", id, got, w)
			}
		}
	})

	// Issue 3 §4: what something else covers gets no ID where occlusion can
	// be measured (inside the viewport); off screen it cannot be, and the
	// element is kept.
	t.Run("occlusion", func(t *testing.T) {
		p := l.load(t, "/fidelity/occlusion.html")
		top := `
L1[:]<a href="#home">Home</a>
L2[:]<a href="#account">Account</a>
`
		onScreen := `_[:]Under the sticky header
L3[:]<a href="#edge">Half under the header</a>
B1[:]<button>Visible button</button>
L4[:]<a href="#card">Card title</a>
_[:]Under the card link
_[:]Under the cookie banner
_[:]Button under the banner
`
		banner := `_[:]We use cookies to keep you signed in.
B2[:]<button type="button">Accept all</button>
B3[:]<button type="button">Reject</button>
`
		checkSpaces(t, p, []spaceCase{
			{0, 400, 880, top + onScreen + banner},
			{200, 200, 680, top + onScreen + `L5[:]<a href="#below">Below the screen</a>
` + banner},
		})
		for _, tc := range []struct {
			text string
			want string // topmost: "covered", "top" or "unmeasured"
		}{
			{"Under the sticky header", "covered"},
			{"Half under the header", "top"},
			{"Under the cookie banner", "covered"},
			{"Button under the banner", "covered"},
			{"Accept all", "top"},
			{"Card title", "top"},
			{"Under the card link", "covered"}, // by the link's ::after box
			{"Below the screen", "unmeasured"},
			{"Above the screen", "unmeasured"},
		} {
			n := &p.capture.Nodes[nodeWithText(t, p.capture, tc.text)]
			got := "unmeasured"
			if n.Topmost != nil {
				got = map[int]string{0: "covered", 1: "top"}[*n.Topmost]
			}
			if got != tc.want {
				t.Errorf("%q: %s, want %s", tc.text, got, tc.want)
			}
		}
	})

	t.Run("overlay", func(t *testing.T) {
		p := l.load(t, "/fidelity/overlay.html")
		page := `
_[:]Today's deals
_[:]Buy now
_[:]More deals
`
		checkSpaces(t, p, []spaceCase{
			{0, 0, 780, page + `_[:]Subscribe to our newsletter
I1[:]<input type="email" name="email" placeholder="Email"></input>
B1[:]<button type="button">Subscribe</button>
B2[:]<button type="button" aria-label="Close">×</button>
`},
			// Off screen, occlusion is not measured: kept.
			{200, 0, 580, page + `B1[:]<button>Below the fold</button>
_[:]Subscribe to our newsletter
I1[:]<input type="email" name="email" placeholder="Email"></input>
B2[:]<button type="button">Subscribe</button>
B3[:]<button type="button" aria-label="Close">×</button>
`},
		})
	})

	// Issue 3 §5: a visible modal holding IDs restricts text and actions
	// to itself, at every expansion.
	t.Run("modal", func(t *testing.T) {
		for _, tc := range []struct {
			path, want string
			below      int
		}{
			{"/fidelity/modal.html", `
_[:]Delete Report.pdf?
_[:]This cannot be undone.
_[:]Reason
I1[:]<input name="reason"></input>
B1[:]<button value="cancel">Cancel</button>
B2[:]<button value="delete">Delete</button>
`, 1055},
			{"/fidelity/modal-aria.html", `
_[:]Session expiring
_[:]You will be signed out in 60 seconds.
B1[:]<button type="button">Stay signed in</button>
B2[:]<button type="button">Sign out now</button>
`, 979},
		} {
			p := l.load(t, tc.path)
			var cases []spaceCase
			for _, e := range oracleExpansions {
				below := 0
				if e != dom.WholePage {
					below = max(0, tc.below-e)
				}
				cases = append(cases, spaceCase{e, 0, below, tc.want})
				if v := p.view(e); !v.Modal {
					t.Errorf("%s E=%d: view not marked modal", tc.path, e)
				}
			}
			checkSpaces(t, p, cases)
		}
	})

	// Issue 3 §6: the interactivity rules of docs/perception.md.
	t.Run("rules", func(t *testing.T) {
		p := l.load(t, "/fidelity/rules.html")
		all := `
_[:]Interactivity rules
M1[:]<div>Card with a handler</div>
B1[:]<button type="button">Inner button</button>
L1[:]<a href="#outer">Outer link focusable span pointer span</a>
_[:]Aria-hidden button
_[:]Inert button Inert link
_[:]Disabled button Aria-disabled button
_[:]Disabled fieldset
_[:]Not-allowed cursor
_[:]Focusable by script only
B2[:]<div role="switch button" aria-checked="false">Wi-Fi</div>
L2[:]<span role="foo link">Unknown token first</span>
_[:]Known non-interactive token first
B3[:]<input type="checkbox" name="terms"></input>
_[:]I agree to the terms
_[:]Email
I1[:]<input type="email" name="email"></input>
M2[:]<label>Dark mode</label>
B4[:]<button type="button" aria-label="Close"></button>
B5[:]<button type="button" title="Settings"></button>
B6[:]<input type="image" alt="Search" src="/assets/img/map.svg"></input>
B7[:]<button type="button">Map</button>
L3[:]<a href="#home">Home</a>
I2[:]<div>Editable note</div>
M3[:]<div>Pointer only</div>
M4[:]<div>Menu trigger</div>
B8[:]<summary>More options</summary>
`
		checkSpaces(t, p, []spaceCase{{0, 0, 0, all}, {dom.WholePage, 0, 0, all}})
		// Icon-only controls get a name for the structured actions too.
		names := map[string]string{}
		for _, a := range render.Fast(p.view(0)).Actions {
			names[a.ID] = a.Name
		}
		for id, want := range map[string]string{"B4": "Close", "B5": "Settings", "B6": "Search", "B7": "Map", "L3": "Home"} {
			if names[id] != want {
				t.Errorf("%s name = %q, want %q", id, names[id], want)
			}
		}
		// The nested-control rule does not depend on any option: the same
		// capture gives the same IDs under every text policy.
		base := emitted(p.view(0))
		for _, tp := range []dom.TextPolicy{dom.TextAll, dom.TextNone} {
			if got := emitted(p.tree.Select(dom.Options{Expansion: 0, Text: tp})); !reflect.DeepEqual(got, base) {
				t.Errorf("text=%s changes the IDs: %v, want %v", tp, got, base)
			}
		}
	})

	// Issue 3 §7: form state, and no password value anywhere.
	t.Run("forms", func(t *testing.T) {
		p := l.load(t, "/fidelity/forms.html")
		all := `
_[:]Form state
_[:]User
I1[:]<input name="user" value="ada"></input>
_[:]Password
I2[:]<input type="password" name="pw1"></input>
_[:]Typed password
I3[:]<input type="password" name="pw2"></input>
_[:]Attribute password
I4[:]<input type="password" name="pw3"></input>
_[:]Note
I5[:]<input name="note" value="typed by script"></input>
I6[:]<textarea name="bio" value="Bio set by script"></textarea>
B1[:]<input type="checkbox" name="news" checked></input>
_[:]Newsletter
B2[:]<input type="checkbox" name="sms" checked></input>
_[:]SMS
B3[:]<input type="checkbox" name="ads"></input>
_[:]Ads
B4[:]<input type="radio" name="plan" value="free"></input>
_[:]Free
B5[:]<input type="radio" name="plan" value="pro"></input>
_[:]Pro
B6[:]<input type="radio" name="plan" value="team" checked></input>
_[:]Team
B7[:]<button type="button" aria-expanded="false">Menu</button>
B8[:]<button type="button" aria-expanded="true">Filters</button>
B9[:]<button type="button" role="tab" aria-selected="true">Overview</button>
B10[:]<button type="button" role="tab" aria-selected="false">Details</button>
I7[:]<select name="country" value="Country 17" aria-label="Country">Country 1 | Country 2 | Country 3 | Country 4 | Country 5 | Country 6 | Country 7 | Country 8 | Country 9 | Country 10 | … (30 options)</select>
I8[:]<select name="size" value="Large" aria-label="Size">Small | Medium | Large</select>
`
		checkSpaces(t, p, []spaceCase{{0, 0, 0, all}, {dom.WholePage, 0, 0, all}})

		secrets := []string{"hunter2-in-source", "typed-over-source-9", "typed-secret-42", "attr-secret-77"}
		outputs := map[string]string{"stored capture": string(p.load.Capture)}
		for _, e := range oracleExpansions {
			sp := render.Fast(p.view(e))
			outputs[fmt.Sprintf("action space E=%d", e)] = sp.ActionSpace
			outputs[fmt.Sprintf("perception E=%d", e)] = sp.Perception
			outputs[fmt.Sprintf("actions E=%d", e)] = fmt.Sprint(sp.Actions)
		}
		for where, text := range outputs {
			for _, s := range secrets {
				if strings.Contains(text, s) {
					t.Errorf("password value %q in the %s", s, where)
				}
			}
		}
		// The HTML column is page.Content(), the serialized DOM, with the
		// value attributes of password and hidden inputs taken out
		// (dom.RedactSecrets): a typed value is a property and never in
		// it, and one written in the source or set by script is removed.
		for _, secret := range secrets {
			if strings.Contains(p.load.HTML, secret) {
				t.Errorf("password value %q in the stored HTML", secret)
			}
		}
	})

	// Issue 3 §8: overriding built-ins does not reach the capture.
	t.Run("hostile", func(t *testing.T) {
		h := l.load(t, "/fidelity/hostile.html")
		c := l.load(t, "/fidelity/clean.html")
		if d := diffCaptures(withoutRunFields(h.capture), withoutRunFields(c.capture)); d != "" {
			t.Errorf("hostile capture differs from its clean twin: %s", d)
		}
		if got := len(emitted(h.view(0))); got != 17 {
			t.Errorf("hostile page has %d IDs at E=0, want 17", got)
		}
	})

	// Every page: IDs only grow with the window.
	t.Run("monotone", func(t *testing.T) {
		for _, path := range corpora.FidelityPaths() {
			p := l.load(t, path)
			prev := map[int]string{}
			for _, e := range []int{0, 200, 1000, dom.WholePage} {
				cur := emitted(p.view(e))
				for i := range prev {
					if _, ok := cur[i]; !ok {
						t.Errorf("%s: node %d has an ID at a smaller expansion but none at E=%d", path, i, e)
					}
				}
				prev = cur
			}
		}
	})
}

// TestOfflineFilterMatchesBrowser_Fidelity runs the oracle comparison of
// TestOfflineFilterMatchesBrowser on the fidelity pages. On frames.html the
// cross-origin frames stay out of both sides (see compareWithOracle); the
// check makes sure that is what happened.
func TestOfflineFilterMatchesBrowser_Fidelity(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	urls := append(corpora.FidelityURLs(srv.URL), srv.URL+"/fidelity/viewport.html?scroll=1700")
	compareWithOracle(t, urls, func(t *testing.T, u string, c *dom.Capture) {
		if !strings.HasSuffix(u, "/fidelity/frames.html") {
			return
		}
		if c.Page.CrossOriginFrames != 2 || c.Page.FramesStitched != 0 {
			t.Errorf("%s: cross-origin frames %d, stitched %d; want 2 left unstitched for the oracle", u, c.Page.CrossOriginFrames, c.Page.FramesStitched)
		}
	})
}

// TestOcclusionShortcutIsExact runs compareWithOracle, whose loads also
// capture each page with ExactOcclusion (every measurable element
// hit-tested) and require the same record, on a generated table of 1,000
// rows: many elements, none on top of another. The oracle tests make the
// same check on the corpus and the fidelity pages.
func TestOcclusionShortcutIsExact(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	compareWithOracle(t, []string{srv.URL + "/gen/table?rows=1000"}, nil)
}
