package browser

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"actionspace/axtree"
	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/internal/browsertest"
	"actionspace/pipeline"
)

// TestChromiumPath: the tests launch the Chromium a crawl launches.
func TestChromiumPath(t *testing.T) {
	if browsertest.ChromiumPath != DefaultChromiumPath {
		t.Errorf("the tests launch %s, a crawl %s", browsertest.ChromiumPath, DefaultChromiumPath)
	}
}

// TestChromium_BuildsLoadAlike loads every corpus page in the headless
// build a crawl launches and in Debian's full browser (make setup-test
// installs it), the extras on: the captures, the AI snapshots and the
// accessibility trees must be the same in both, apart from what names one
// load (the document's token, the times, frame and backend node ids).
// DefaultChromiumPath's comment rests on it.
func TestChromium_BuildsLoadAlike(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	if _, err := os.Stat(FullChromiumPath); err != nil {
		browsertest.Missing(t, "the full browser: "+err.Error()+" (make setup-test installs it)")
	}
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := defaultTestConfig()
	cfg.page.Extras = pipeline.DefaultExtrasConfig()
	full := cfg
	full.launch.ChromiumPath = FullChromiumPath
	builds := []struct {
		name string
		page pipeline.Page
	}{
		{"headless", mustNewPage(t, mustLaunchChromium(t, cfg))},
		{"full", mustNewPage(t, mustLaunchOwnChromium(t, full))},
	}

	for _, u := range corpora.DefaultURLs(srv.URL) {
		loads := make([]*pipeline.Load, len(builds))
		for i, b := range builds {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			ld, err := b.page.Load(ctx, u)
			cancel()
			if err != nil {
				t.Fatalf("%s, %s build: %v", u, b.name, err)
			}
			if ld.AXTree == nil || ld.AISnapshot == nil {
				t.Fatalf("%s, %s build: tree %q, AI snapshot %q skipped", u, b.name, ld.AXTreeSkipped, ld.AISnapshotSkipped)
			}
			loads[i] = ld
		}
		head, other := loads[0], loads[1]
		var caps [2]dom.Capture
		for i, ld := range loads {
			c, err := dom.Parse(ld.Capture)
			if err != nil {
				t.Fatalf("%s, %s build: %v", u, builds[i].name, err)
			}
			caps[i] = withoutRunFields(c)
		}
		if d := diffCaptures(caps[0], caps[1]); d != "" {
			t.Errorf("%s: the captures differ, headless against full: %s", u, d)
		}
		if !reflect.DeepEqual(head.AISnapshot, other.AISnapshot) {
			t.Errorf("%s: the AI snapshots differ, headless against full:\n%+v\n%+v", u, head.AISnapshot, other.AISnapshot)
		}
		if d := diffTrees(withoutLoadIDs(head.AXTree), withoutLoadIDs(other.AXTree)); d != "" {
			t.Errorf("%s: the accessibility trees differ, headless against full: %s", u, d)
		}
	}
}

// withoutLoadIDs is a copy of r without the ids that name one load: the
// frames' and the DOM nodes' (backend) ids.
func withoutLoadIDs(r *axtree.Record) axtree.Record {
	c := *r
	c.Frames = append([]axtree.Frame(nil), r.Frames...)
	for i := range c.Frames {
		c.Frames[i].ID = ""
	}
	c.Nodes = append([]axtree.Node(nil), r.Nodes...)
	for i := range c.Nodes {
		c.Nodes[i].Backend = 0
	}
	return c
}

// diffTrees describes the first difference between two records, or "".
func diffTrees(a, b axtree.Record) string {
	switch {
	case len(a.Nodes) != len(b.Nodes):
		return fmt.Sprintf("%d nodes against %d", len(a.Nodes), len(b.Nodes))
	case !reflect.DeepEqual(a.Frames, b.Frames):
		return fmt.Sprintf("frames %+v\n against %+v", a.Frames, b.Frames)
	case !reflect.DeepEqual(a.Match, b.Match):
		return fmt.Sprintf("match %+v against %+v", a.Match, b.Match)
	case !reflect.DeepEqual(a.Probe, b.Probe):
		return fmt.Sprintf("probe %+v\n against %+v", a.Probe, b.Probe)
	}
	for i := range a.Nodes {
		if !reflect.DeepEqual(a.Nodes[i], b.Nodes[i]) {
			return fmt.Sprintf("node %d: %+v\n against %+v", i, a.Nodes[i], b.Nodes[i])
		}
	}
	if !reflect.DeepEqual(a, b) {
		return "the records differ outside frames, nodes, match and probe"
	}
	return ""
}
