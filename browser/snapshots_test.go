package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/axtree"
	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/internal/soaktest"
	"actionspace/pipeline"
)

// snapBrowser is the shared Chromium as Playwright sees it, for this
// file's tests, which drive it directly; each load opens a browser context
// of its own.
type snapBrowser struct {
	br playwright.Browser
}

func newTestBrowser(t *testing.T) *snapBrowser {
	t.Helper()
	requireChromium(t)
	b, err := chromium.get()
	if err != nil {
		t.Fatal(err)
	}
	return &snapBrowser{br: b.browser}
}

// loaded is a page loaded and captured in an isolated world.
type loaded struct {
	page    playwright.Page
	cdp     playwright.CDPSession
	frameID string
	world   float64
	capture *dom.Capture
}

// load opens url in a fresh context, waits for it to settle and runs the
// capture script in an isolated world of the main frame.
func (b *snapBrowser) load(t *testing.T, url string) *loaded {
	t.Helper()
	bctx, err := b.br.NewContext(playwright.BrowserNewContextOptions{Viewport: &playwright.Size{Width: 1280, Height: 720}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bctx.Close() })
	page, err := bctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	cdp, err := bctx.NewCDPSession(page)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.Goto(url, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateLoad}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	res, err := cdp.Send("Page.getFrameTree", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	l := &loaded{page: page, cdp: cdp}
	l.frameID, _ = dig(res, "frameTree", "frame", "id").(string)
	res, err = cdp.Send("Page.createIsolatedWorld", map[string]any{"frameId": l.frameID, "worldName": "actionspace-test", "grantUniveralAccess": true})
	if err != nil {
		t.Fatal(err)
	}
	l.world, _ = dig(res, "executionContextId").(float64)
	arg, _ := json.Marshal(dom.DefaultScriptOptions())
	res, err = cdp.Send("Runtime.evaluate", map[string]any{
		"expression": "(" + dom.Script() + "\n)(" + string(arg) + ")", "contextId": l.world, "returnByValue": true,
	})
	if err != nil {
		t.Fatal(err)
	}
	record, _ := dig(res, "result", "value").(string)
	if l.capture, err = dom.Parse([]byte(record)); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *loaded) input(t *testing.T) AXTreeInput {
	sessions := newFrameSessions(l.page)
	t.Cleanup(sessions.close)
	return AXTreeInput{
		Session:      l.cdp,
		Worlds:       []CaptureWorld{{Session: l.cdp, FrameID: l.frameID, Context: l.world}},
		FrameSession: sessions.get,
	}
}

func nearRect(a, b dom.Rect) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1 {
			return false
		}
	}
	return true
}

// checkTreeResolves requires of rec, the accessibility tree of the page l
// holds, that every element the capture recorded resolves to its DOM
// node, and that every node tied to a capture element has that element's
// tag and box. TestGroundTruth runs it on every corpus page.
func checkTreeResolves(t *testing.T, url string, l *loaded, rec *axtree.Record) {
	t.Helper()
	if err := rec.Check(); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	elements := 0
	for _, n := range l.capture.Nodes {
		if n.Kind == dom.ElementNode {
			elements++
		}
	}
	if m := rec.Match; m.Method != "ordinal" || m.Elements != elements || m.Resolved != elements || m.Mismatched != 0 {
		t.Errorf("%s: match %+v, want all %d captured elements resolved", url, m, elements)
	}
	tied := 0
	for i, n := range rec.Nodes {
		if n.Capture < 0 {
			continue
		}
		tied++
		c := l.capture.Nodes[n.Capture]
		if c.Tag != n.Tag {
			t.Errorf("%s: node %d (%s %q) tied to a %s", url, i, n.Role, n.Name, c.Tag)
		}
		if n.Box != nil && c.Visible && !nearRect(*n.Box, c.Rect) {
			t.Errorf("%s: node %d (%s %q) box %v, capture rect %v", url, i, n.Role, n.Name, *n.Box, c.Rect)
		}
	}
	if tied < 10 {
		t.Errorf("%s: only %d nodes tied to the capture", url, tied)
	}
}

// TestTakeAXTree_Frames: a same-origin, a cross-origin and a cross-site
// frame (its own process, with a frame nested in it), and shadow roots
// with slots. Each frame's tree hangs below its Iframe node, its origin is
// its element's content box, and nodes in frames get page boxes.
func TestTakeAXTree_Frames(t *testing.T) {
	t.Parallel()
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	l := b.load(t, srv.URL+"/fidelity/frames.html")
	rec, err := TakeAXTree(context.Background(), l.input(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	if got, want := len(rec.Frames), 5; got != want {
		t.Fatalf("%d frames, want %d: %+v", got, want, rec.Frames)
	}
	wantOrigin := map[string][2]float64{
		"/fidelity/frame/same.html":  {42, 262},
		"/fidelity/frame/cross.html": {482, 262},
		"/fidelity/frame/site.html":  {42, 462},
		"/fidelity/frame/leaf.html":  {273, 503},
	}
	for i, f := range rec.Frames[1:] {
		path := f.URL[strings.Index(f.URL, "/fidelity/"):]
		if got, want := f.Origin, wantOrigin[path]; got != want {
			t.Errorf("frame %s: origin %v, want %v", path, got, want)
		}
		if f.Missing != "" || f.Root < 0 || f.Owner < 0 || rec.Nodes[f.Owner].Role != "Iframe" || rec.Nodes[f.Root].Parent != f.Owner {
			t.Errorf("frame %d %s: %+v: want its tree below its Iframe node", i+1, path, f)
		}
		if got, want := f.OutOfProcess, path == "/fidelity/frame/site.html"; got != want {
			t.Errorf("frame %s: out of process %v, want %v", path, got, want)
		}
	}
	// Boxes, by the page's absolute layout: frame origin + position.
	want := map[string]dom.Rect{
		"Before frames":       {40, 70, 160, 30},
		"Outer shadow button": {40, 150, 180, 30},
		"Inner shadow button": {240, 150, 180, 30},
		"Slotted button":      {240, 190, 180, 30},
		"Same-origin button":  {52, 342, 150, 30},
		"Cross-site button":   {52, 542, 150, 30},
		"After frames":        {40, 660, 160, 30},
	}
	for _, n := range rec.Nodes {
		w, ok := want[n.Name]
		if !ok || n.Role != "button" {
			continue
		}
		delete(want, n.Name)
		if n.Box == nil || !nearRect(*n.Box, w) {
			t.Errorf("button %q: box %v, want %v", n.Name, n.Box, w)
		}
		// The capture walked the main document, its shadow roots and the
		// same-origin frame: those buttons are tied to it.
		tied := n.Name != "Cross-site button"
		if got := n.Capture >= 0; got != tied {
			t.Errorf("button %q: capture index %d, want tied %v", n.Name, n.Capture, tied)
		} else if tied && l.capture.Nodes[n.Capture].Tag != "button" {
			t.Errorf("button %q: tied to a %s", n.Name, l.capture.Nodes[n.Capture].Tag)
		}
	}
	if len(want) > 0 {
		t.Errorf("buttons not in the tree: %v", want)
	}
	if m := rec.Match; m.Mismatched != 0 || m.Resolved == 0 || m.Resolved != m.Elements {
		t.Errorf("match %+v: want every captured element resolved", m)
	}

	// A capture of the cross-site frame, in a world of its own process,
	// stored from index base on: its buttons, and the one in the frame
	// nested in it, are tied to that capture's elements.
	var site string
	for _, f := range rec.Frames {
		if strings.HasSuffix(f.URL, "/fidelity/frame/site.html") {
			site = f.ID
		}
	}
	in := l.input(t)
	s, err := in.FrameSession(site)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Send("Page.createIsolatedWorld", map[string]any{"frameId": site, "worldName": "actionspace-test", "grantUniveralAccess": true})
	if err != nil {
		t.Fatal(err)
	}
	world, _ := dig(res, "executionContextId").(float64)
	res, err = s.Send("Runtime.evaluate", map[string]any{"expression": "(" + dom.Script() + "\n)({})", "contextId": world, "returnByValue": true})
	if err != nil {
		t.Fatal(err)
	}
	record, _ := dig(res, "result", "value").(string)
	fc, err := dom.Parse([]byte(record))
	if err != nil {
		t.Fatal(err)
	}
	const base = 1000
	in.Worlds = append(in.Worlds, CaptureWorld{Session: s, FrameID: site, Context: world, Base: base})
	rec, err = TakeAXTree(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	tied := map[string]string{}
	for _, n := range rec.Nodes {
		if n.Role == "button" && n.Capture >= base {
			c := fc.Nodes[n.Capture-base]
			tied[n.Name] = c.Tag
		}
	}
	if got, want := fmt.Sprint(tied), "map[Cross-site button:button Nested:button]"; got != want {
		t.Errorf("buttons tied to the frame's capture: %s, want %s", got, want)
	}
	if m := rec.Match; m.Mismatched != 0 || m.Resolved != m.Elements {
		t.Errorf("match with two worlds %+v: want every captured element resolved", m)
	}
	// The same through an explicit index: the frame's nodes stored from
	// 2000 on, backwards.
	index := make([]int, len(fc.Nodes))
	for i := range index {
		index[i] = 2000 + len(fc.Nodes) - 1 - i
	}
	in.Worlds[1].Index = index
	if rec, err = TakeAXTree(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	tied = map[string]string{}
	for _, n := range rec.Nodes {
		if n.Role == "button" && n.Capture >= 2000 {
			tied[n.Name] = fc.Nodes[len(fc.Nodes)-1-(n.Capture-2000)].Tag
		}
	}
	if got, want := fmt.Sprint(tied), "map[Cross-site button:button Nested:button]"; got != want {
		t.Errorf("buttons tied through an index: %s, want %s", got, want)
	}
}

// TestTakeAXTree_TooLarge: a page with more DOM nodes than MaxNodes gets
// no tree.
func TestTakeAXTree_TooLarge(t *testing.T) {
	t.Parallel()
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	l := b.load(t, srv.URL+"/gen/table?rows=100")
	in := l.input(t)
	in.MaxNodes = 500
	// The renderer's count of live nodes refuses the page, with or
	// without the capture's world.
	if _, err := TakeAXTree(context.Background(), in); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "live DOM nodes") {
		t.Errorf("TakeAXTree of a 100-row table with MaxNodes 500: %v, want ErrTooLarge on the renderer's count of live nodes", err)
	}
	bare := in
	bare.Worlds = nil
	if _, err := TakeAXTree(context.Background(), bare); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "live DOM nodes") {
		t.Errorf("TakeAXTree without a world, MaxNodes 500: %v, want ErrTooLarge on the renderer's count of live nodes", err)
	}
	// When the renderer does not count, the capture's world counts the
	// main document's elements.
	noMetrics := in
	noMetrics.Session = refuseSender{in.Session, "Memory."}
	if _, err := TakeAXTree(context.Background(), noMetrics); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "elements") {
		t.Errorf("TakeAXTree with no Memory domain, MaxNodes 500: %v, want ErrTooLarge on the element count", err)
	}
	in.MaxNodes = 0
	if _, err := TakeAXTree(context.Background(), in); err != nil {
		t.Errorf("with the default limit: %v", err)
	}
}

// TestTakeAISnapshot_Scrolled: the snapshot's boxes are viewport-relative;
// with the scroll offsets it keeps they land on the page boxes of the
// accessibility tree.
func TestTakeAISnapshot_Scrolled(t *testing.T) {
	t.Parallel()
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	l := b.load(t, srv.URL+"/fidelity/viewport.html?scroll=1400")
	rec, err := TakeAXTree(context.Background(), l.input(t))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := TakeAISnapshot(l.page, l.cdp, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if snap.ScrollY != 1400 || rec.Frames[0].Origin != [2]float64{0, 1400} {
		t.Fatalf("scroll %v,%v and main origin %v, want 0,1400", snap.ScrollX, snap.ScrollY, rec.Frames[0].Origin)
	}
	nodes, err := axtree.ParseSnapshot(snap.Text)
	if err != nil {
		t.Fatal(err)
	}
	boxes := axtree.PageBoxes(nodes, snap, rec)
	axBox := map[string]dom.Rect{}
	for _, n := range rec.Nodes {
		if n.Box != nil && (n.Role == "button" || n.Role == "link") {
			axBox[n.Role+" "+n.Name] = *n.Box
		}
	}
	checked := 0
	for i, n := range nodes {
		w, ok := axBox[n.Role+" "+n.Name]
		if !ok {
			continue
		}
		checked++
		if boxes[i] == nil || !nearRect(*boxes[i], w) {
			t.Errorf("%s %q: snapshot page box %v, accessibility box %v", n.Role, n.Name, boxes[i], w)
		}
		if n.Ref == "" {
			t.Errorf("%s %q: no ref", n.Role, n.Name)
		}
	}
	if checked < 8 {
		t.Errorf("checked %d controls, want all 8", checked)
	}
}

// TestSoak_IdentityMethods compares, on the corpus, the identity
// resolution TakeAXTree uses (element ordinals: one DOM snapshot and one
// script run per world) with resolving each oracle-candidate node into the
// capture's world (DOM.resolveNode, one call per node, then one script
// call), and logs what each costs. Both must agree on every node they both
// resolve. It measures a design choice, and its thousands of calls take
// a minute; TestGroundTruth checks the ordinals on every run (checkTreeResolves).
func TestSoak_IdentityMethods(t *testing.T) {
	soaktest.Require(t, "the cost of the two ways to tie accessibility nodes to capture elements, on the corpus")
	t.Parallel()
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var ordinalMs, plainMs, resolveMs []float64
	for _, url := range corpora.DefaultURLs(srv.URL) {
		l := b.load(t, url)
		in := l.input(t)
		plain := in
		plain.Worlds = nil
		// The first call turns the renderer's accessibility on, which
		// costs the most: time the second of each.
		var rec *axtree.Record
		for round := range 2 {
			start := time.Now()
			if _, err := TakeAXTree(context.Background(), plain); err != nil {
				t.Fatal(err)
			}
			if round == 1 {
				plainMs = append(plainMs, msSince(start))
			}
			start = time.Now()
			if rec, err = TakeAXTree(context.Background(), in); err != nil {
				t.Fatal(err)
			}
			if round == 1 {
				ordinalMs = append(ordinalMs, msSince(start))
			}
		}
		// The other method, on the nodes an oracle would look up: those
		// with a widget role or focusable, and a box.
		var backends []int
		var want []int
		for _, n := range rec.Nodes {
			if n.Backend != 0 && n.Frame == 0 && n.Box != nil && (n.Is("focusable") || strings.Contains(" button link textbox searchbox combobox checkbox radio switch tab slider spinbutton option ", " "+n.Role+" ")) {
				backends = append(backends, n.Backend)
				want = append(want, n.Capture)
			}
		}
		start := time.Now()
		got, err := resolveIndices(l.cdp, l.world, backends)
		resolveMs = append(resolveMs, msSince(start))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: resolveNode gives %v, ordinals %v", url, got, want)
		}
	}
	t.Logf("median ms per corpus page: TakeAXTree with ordinals %.1f, without identity %.1f; resolveNode per candidate node %.1f",
		median(ordinalMs), median(plainMs), median(resolveMs))
}

// resolveIndices is the per-node method: each backend node resolved into
// the capture's world, then looked up in its node list.
func resolveIndices(cdp cdpSender, world float64, backends []int) ([]int, error) {
	const group = "actionspace-identity"
	defer func() { _, _ = cdp.Send("Runtime.releaseObjectGroup", map[string]any{"objectGroup": group}) }()
	args := make([]any, 0, len(backends))
	for _, be := range backends {
		res, err := cdp.Send("DOM.resolveNode", map[string]any{"backendNodeId": be, "executionContextId": world, "objectGroup": group})
		if err != nil {
			return nil, err
		}
		args = append(args, map[string]any{"objectId": dig(res, "object", "objectId")})
	}
	if len(args) == 0 {
		return nil, nil
	}
	first, _ := args[0].(map[string]any)
	res, err := cdp.Send("Runtime.callFunctionOn", map[string]any{
		"functionDeclaration": `function(...els) {
  const m = new Map(globalThis.` + dom.NodesGlobal + `.map((n, i) => [n, i]));
  return els.map((e) => m.has(e) ? m.get(e) : -1);
}`,
		"objectId":      first["objectId"],
		"arguments":     args,
		"returnByValue": true,
	})
	if err != nil {
		return nil, err
	}
	list, _ := dig(res, "result", "value").([]any)
	out := make([]int, len(list))
	for i, v := range list {
		f, _ := v.(float64)
		out[i] = int(f)
	}
	return out, nil
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// TestChromium_LoadExtras: a load takes the records its page config asks
// for, right after the capture and tied to it; a page larger than a
// record's cap gets no record and says so; records not asked for are not
// taken.
func TestChromium_LoadExtras(t *testing.T) {
	t.Parallel()
	cfg := defaultTestConfig()
	b := mustLaunchChromium(t, cfg)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	load := func(extras pipeline.ExtrasConfig) *pipeline.Load {
		t.Helper()
		b.page.Extras = extras
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		ld, err := mustNewPage(t, b).Load(ctx, srv.URL+"/login.html")
		if err != nil {
			t.Fatal(err)
		}
		return ld
	}
	ld := load(pipeline.DefaultExtrasConfig())
	full := ld
	c, err := dom.Parse(ld.Capture)
	if err != nil {
		t.Fatal(err)
	}
	if ld.AXTree == nil || ld.AISnapshot == nil || ld.AXTreeSkipped != "" || ld.AISnapshotSkipped != "" || ld.AXTreeTime <= 0 || ld.AISnapshotTime <= 0 {
		t.Fatalf("default extras: tree %v (%q, %v), snapshot %v (%q, %v)", ld.AXTree != nil, ld.AXTreeSkipped, ld.AXTreeTime,
			ld.AISnapshot != nil, ld.AISnapshotSkipped, ld.AISnapshotTime)
	}
	if m := ld.AXTree.Match; m.Elements != c.Page.Elements || m.Resolved != m.Elements {
		t.Errorf("the tree resolved %+v of the capture's %d elements, want all", m, c.Page.Elements)
	}
	if !strings.Contains(ld.AISnapshot.Text, `textbox "Work email"`) {
		t.Errorf("AI snapshot lacks the email box:\n%s", ld.AISnapshot.Text)
	}

	small := pipeline.DefaultExtrasConfig()
	small.MaxAXNodes, small.MaxAISnapshotBytes = 50, 100
	ld = load(small)
	if ld.AXTree != nil || ld.AXTreeSkipped != dataset.SkippedTooLarge || ld.AISnapshot != nil || ld.AISnapshotSkipped != dataset.SkippedTooLarge {
		t.Errorf("over the caps: tree %v (%q), snapshot %v (%q); want both skipped as too_large",
			ld.AXTree != nil, ld.AXTreeSkipped, ld.AISnapshot != nil, ld.AISnapshotSkipped)
	}
	if ld.HTML == "" || len(ld.Capture) == 0 {
		t.Errorf("over the caps: the load lost its capture or HTML")
	}
	// Over the node cap alone, the AI snapshot is not taken either, and
	// so when it is the only record asked for: the count comes first.
	for _, tree := range []bool{true, false} {
		nodes := pipeline.DefaultExtrasConfig()
		nodes.AXTree, nodes.MaxAXNodes = tree, 50
		ld = load(nodes)
		if ld.AXTree != nil || ld.AISnapshot != nil || ld.AISnapshotSkipped != dataset.SkippedTooLarge || ld.AISnapshotTime <= 0 ||
			(ld.AXTreeSkipped == dataset.SkippedTooLarge) != tree {
			t.Errorf("tree asked %v, over the node cap: tree %v (%q), snapshot %v (%q, %v); want the snapshot skipped as too_large, and the tree if asked",
				tree, ld.AXTree != nil, ld.AXTreeSkipped, ld.AISnapshot != nil, ld.AISnapshotSkipped, ld.AISnapshotTime)
		}
	}

	// Over the text cap alone (the page's text counted in the page),
	// neither record is taken.
	text := pipeline.DefaultExtrasConfig()
	text.MaxAXText = 20
	ld = load(text)
	if ld.AXTree != nil || ld.AISnapshot != nil || ld.AXTreeSkipped != dataset.SkippedTooLarge || ld.AISnapshotSkipped != dataset.SkippedTooLarge {
		t.Errorf("over the text cap: tree %v (%q), snapshot %v (%q); want both skipped as too_large",
			ld.AXTree != nil, ld.AXTreeSkipped, ld.AISnapshot != nil, ld.AISnapshotSkipped)
	}

	// One after the other, as before: the same records.
	seq := pipeline.DefaultExtrasConfig()
	seq.Sequential = true
	ldSeq := load(seq)
	if ldSeq.AXTree == nil || ldSeq.AISnapshot == nil || ldSeq.AISnapshot.Text != full.AISnapshot.Text || ldSeq.AXTree.Match != full.AXTree.Match {
		t.Errorf("one after the other: tree %v, snapshot %v; want the same records as taken at once", ldSeq.AXTree != nil, ldSeq.AISnapshot != nil)
	}

	// Raw: both taken and timed, neither kept, nothing said of them.
	raw := pipeline.DefaultExtrasConfig()
	raw.Raw = true
	ld = load(raw)
	if ld.AXTree != nil || ld.AISnapshot != nil || ld.AXTreeTime <= 0 || ld.AISnapshotTime <= 0 || ld.AXTreeSkipped != "" || ld.AISnapshotSkipped != "" || ld.Capture == nil {
		t.Errorf("raw: tree %v (%v, %q), snapshot %v (%v, %q), capture %d bytes; want both taken and dropped, the capture kept",
			ld.AXTree != nil, ld.AXTreeTime, ld.AXTreeSkipped, ld.AISnapshot != nil, ld.AISnapshotTime, ld.AISnapshotSkipped, len(ld.Capture))
	}

	ld = load(pipeline.ExtrasConfig{MaxAXNodes: 1, MaxAISnapshotBytes: 1})
	if ld.AXTree != nil || ld.AISnapshot != nil || ld.AXTreeTime != 0 || ld.AISnapshotTime != 0 || ld.AXTreeSkipped != "" || ld.AISnapshotSkipped != "" {
		t.Errorf("no extras asked for: %+v", ld)
	}
}

// TestChromium_LoadExtrasAfterHugePage: a page over the node cap gets
// neither extra, and the page loaded after it in the same tab gets both:
// the huge page's nodes, left in the renderer, are collected before the
// count and not held against the next page. The cap is lowered to
// hugeCap, so that a generated table of a few thousand rows is "huge":
// what is tested is the count and the collection, which do not depend on
// the cap's size, and a page over the default cap costs a minute of a
// loaded machine to load and capture.
func TestChromium_LoadExtrasAfterHugePage(t *testing.T) {
	t.Parallel()
	const (
		hugeCap  = 5000
		hugeRows = 2000 // several DOM nodes a row: far over hugeCap
	)
	b := mustLaunchChromium(t, defaultTestConfig())
	b.page.Extras = pipeline.DefaultExtrasConfig()
	b.page.Extras.MaxAXNodes = hugeCap
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	page := mustNewPage(t, b)
	for _, tt := range []struct {
		path     string
		tooLarge bool
	}{{fmt.Sprintf("/gen/table?rows=%d", hugeRows), true}, {"/login.html", false}} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		ld, err := page.Load(ctx, srv.URL+tt.path)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		skipped := ld.AXTreeSkipped == dataset.SkippedTooLarge && ld.AISnapshotSkipped == dataset.SkippedTooLarge
		taken := ld.AXTree != nil && ld.AISnapshot != nil
		if skipped != tt.tooLarge || taken == tt.tooLarge {
			t.Errorf("%s: tree %v (%q), snapshot %v (%q); want both skipped as too_large: %v",
				tt.path, ld.AXTree != nil, ld.AXTreeSkipped, ld.AISnapshot != nil, ld.AISnapshotSkipped, tt.tooLarge)
		}
	}
}

// TestTakeAXTree_ClosedShadowTooLarge: a closed shadow root of many nodes,
// which neither the page's scripts nor the capture see, is counted before
// anything costly is taken: the tree is refused as too large at once.
func TestTakeAXTree_ClosedShadowTooLarge(t *testing.T) {
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	l := b.load(t, srv.URL+"/attacks/closed-shadow")
	in := l.input(t)
	// No DOM snapshot may be asked for: the count refuses the page first.
	in.Session = refuseSender{in.Session, "DOMSnapshot."}
	start := time.Now()
	_, err = TakeAXTree(context.Background(), in)
	t.Logf("refused in %v: %v", time.Since(start), err)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "live DOM nodes") {
		t.Errorf("TakeAXTree of a closed shadow root of %d nodes: %v, want ErrTooLarge from the live-node count, before any DOM snapshot", corpora.AttackShadowNodes, err)
	}
	// A small page passes the count.
	small := b.load(t, srv.URL+corpora.DefaultPaths()[0])
	if _, err := TakeAXTree(context.Background(), small.input(t)); err != nil {
		t.Errorf("a corpus page: %v", err)
	}
}

// TestSizeWithin: the node count before the extras refuses a page over
// the limit, passes one within it, and gives up when ctx ends on a
// renderer that does not answer.
func TestSizeWithin(t *testing.T) {
	t.Parallel()
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	for _, tt := range []struct {
		name     string
		session  cdpSender
		answered bool
		tooLarge bool
	}{
		{"within", countSender{nodes: 40}, true, false},
		{"over", countSender{nodes: 60}, true, true},
		{"no answer", hangSender(hang), false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			done := make(chan struct{})
			var answered bool
			var err error
			go func() {
				answered, err = sizeWithin(ctx, AXTreeInput{Session: tt.session, MaxNodes: 50})
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("sizeWithin did not return 5 s after its context ended")
			}
			if answered != tt.answered || errors.Is(err, ErrTooLarge) != tt.tooLarge {
				t.Errorf("answered %v, err %v; want answered %v, too large %v", answered, err, tt.answered, tt.tooLarge)
			}
		})
	}
}

// countSender answers Memory.getDOMCounters with nodes, and every other
// method with an empty result.
type countSender struct{ nodes float64 }

func (c countSender) Send(method string, _ map[string]any) (any, error) {
	if method == "Memory.getDOMCounters" {
		return map[string]any{"nodes": c.nodes}, nil
	}
	return map[string]any{}, nil
}

// hangSender answers no method until its channel is closed.
type hangSender chan struct{}

func (h hangSender) Send(method string, _ map[string]any) (any, error) {
	<-h
	return nil, fmt.Errorf("%s: no answer", method)
}

// refuseSender refuses the CDP methods that start with prefix and sends
// the others on.
type refuseSender struct {
	cdpSender
	prefix string
}

func (r refuseSender) Send(method string, params map[string]any) (any, error) {
	if strings.HasPrefix(method, r.prefix) {
		return nil, fmt.Errorf("%s refused by the test", method)
	}
	return r.cdpSender.Send(method, params)
}

// TestTextWithin: the text count before the extras counts the document's
// text nodes, not what script, style and noscript hold, and refuses a
// page past the limit with ErrTooLarge.
func TestTextWithin(t *testing.T) {
	b := newTestBrowser(t)
	page := "<!DOCTYPE html><title>T</title><style>" + strings.Repeat("p{}", 300) + "</style>" +
		"<p>0123456789</p><script>//" + strings.Repeat("x", 1000) + "</script><noscript>" + strings.Repeat("n", 1000) + "</noscript>"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	}))
	defer srv.Close()
	in := b.load(t, srv.URL).input(t)
	// The title's and the paragraph's characters: 1 + 10.
	for _, tt := range []struct {
		limit    int
		tooLarge bool
	}{{11, false}, {10, true}, {1000, false}} {
		in.MaxText = tt.limit
		if err := textWithin(in); errors.Is(err, ErrTooLarge) != tt.tooLarge {
			t.Errorf("limit %d: %v, want too large: %v", tt.limit, err, tt.tooLarge)
		}
	}
}
