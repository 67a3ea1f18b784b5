package browser

import (
	"context"
	"testing"
	"time"

	"actionspace/axtree"
	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/oracle"
)

// probeWant is the hand label of one control of the probe test page
// (corpora/site/oracles/probe.html): the answer under each mode ("true",
// "false", or the reason it has none) and the covering element.
type probeWant struct {
	viewport, all string
	tag, role     string
}

// probeLabels are the page's controls by accessible name, as its
// data-actionable attributes label them.
var probeLabels = map[string]probeWant{
	"Plain link":           {"true", "true", "", ""},
	"Plain button":         {"true", "true", "", ""},
	"Plain input":          {"true", "true", "", ""},
	"No pointer events":    {"false", "false", "div", ""},
	"Icon inside":          {"true", "true", "", ""},
	"Styled checkbox":      {"true", "true", "", ""},
	"Shadow button":        {"true", "true", "", ""},
	"Frame button":         {"true", "true", "", ""},
	"Framed behind dialog": {"false", "false", "div", "dialog"},
	"Behind dialog":        {"false", "false", "div", "dialog"},
	"Under banner":         {"false", "true", "div", ""},
	"Far below":            {"not_candidate", "true", "", ""},
	"Close banner":         {"true", "true", "", ""},
	"Accept cookies":       {"true", "true", "", ""},
}

// probePage loads the probe test page in real Chromium, captures it and
// takes its accessibility tree.
func probePage(ctx context.Context, t *testing.T) (*axtree.Record, AXTreeInput) {
	t.Helper()
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	l := b.load(t, srv.URL+"/oracles/probe.html")
	in := l.input(t)
	rec, err := TakeAXTree(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	return rec, in
}

// TestProbeActionable_Page: on real Chromium, the probe finds the
// controls a pointer reaches (plain ones, one whose centre is its own
// child, a checkbox under its label's styled box, one in an open shadow
// root, one in a same-origin frame) and those it does not (behind a
// cookie dialog, in a frame behind it, under a sticky banner, with
// pointer-events: none), with the covering element; the viewport probe
// leaves the control far below untested, and the all probe, scrolling
// each control into view, reaches it and the one the banner covered.
func TestProbeActionable_Page(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec, in := probePage(ctx, t)
	for _, mode := range []string{axtree.ProbeViewport, axtree.ProbeAll} {
		pr, err := ProbeActionable(ctx, ProbeInput{Record: rec, Worlds: in.Worlds, Mode: mode,
			Viewport: dom.Rect{0, 0, 1280, 720}, Max: 100, Time: 10 * time.Second})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if pr.Capped || pr.Late {
			t.Errorf("%s: capped %v, late %v", mode, pr.Capped, pr.Late)
		}
		rec.Probe = pr
		o := oracle.New(rec, nil)
		seen := map[string]bool{}
		for _, e := range o.Elements {
			want, ok := probeLabels[e.Name]
			if !ok {
				t.Errorf("%s: oracle element %s %q is not labeled", mode, e.Role, e.Name)
				continue
			}
			seen[e.Name] = true
			got := "not_candidate"
			switch {
			case e.Actionable != nil && *e.Actionable:
				got = "true"
			case e.Actionable != nil:
				got = "false"
			case e.ProbeWhy != "":
				got = e.ProbeWhy
			}
			w := want.viewport
			if mode == axtree.ProbeAll {
				w = want.all
			}
			if got != w {
				t.Errorf("%s: %q is %s, want %s (covering %s %q)", mode, e.Name, got, w, e.CoverTag, e.CoverRole)
				continue
			}
			if got == "false" && (e.CoverTag != want.tag || e.CoverRole != want.role) {
				t.Errorf("%s: %q covered by %s %q, want %s %q", mode, e.Name, e.CoverTag, e.CoverRole, want.tag, want.role)
			}
		}
		for name := range probeLabels {
			if !seen[name] {
				t.Errorf("%s: labeled control %q is not an oracle element", mode, name)
			}
		}
	}
}

// TestProbeActionable_Cap: candidates past the cap are not tested and
// the probe says it was capped; a probe without time tests nothing.
func TestProbeActionable_Cap(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec, in := probePage(ctx, t)
	pr, err := ProbeActionable(ctx, ProbeInput{Record: rec, Worlds: in.Worlds, Mode: axtree.ProbeViewport,
		Viewport: dom.Rect{0, 0, 1280, 720}, Max: 3, Time: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tested, capped := 0, 0
	for _, h := range pr.Hits {
		switch {
		case h.Reached != nil:
			tested++
		case h.Why == axtree.HitCapped:
			capped++
		}
	}
	if !pr.Capped || tested != 3 || capped != pr.Candidates-3 || pr.Candidates != len(probeLabels)-1 {
		t.Errorf("capped %v: %d tested, %d capped of %d candidates; want 3 tested, the other %d capped", pr.Capped, tested, capped, pr.Candidates, len(probeLabels)-4)
	}
	late, err := ProbeActionable(ctx, ProbeInput{Record: rec, Worlds: in.Worlds, Mode: axtree.ProbeViewport,
		Viewport: dom.Rect{0, 0, 1280, 720}, Max: 100, Time: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range late.Hits {
		if h.Reached != nil {
			t.Errorf("a probe without time tested node %d", h.Node)
		}
	}
	if !late.Late {
		t.Error("a probe without time is not late")
	}
}
