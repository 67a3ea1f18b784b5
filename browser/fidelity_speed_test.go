package browser

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/internal/soaktest"
	"actionspace/pipeline"
	"actionspace/render"
)

// speedRows are the /gen/table sizes whose capture speed issue 3 asks for
// (each row a text, a number input and a button: 8 nodes).
var speedRows = []int{1000, 5000, 20000}

// speedBudget is issue 3's target for the 5k-row page: captured and
// filtered in under a second on a quiet 2-core machine.
const speedBudget = time.Second

// captureCost is what one page load's capture cost.
type captureCost struct {
	nodes int
	// capture is the capture's round trip (pipeline.Load.CaptureTime), script the
	// script's own run time in the page.
	capture, script time.Duration
	// parse is dom.Parse; filter is NewTree plus selecting and rendering
	// E=0 and the whole page.
	parse, filter time.Duration
	truncated     bool
}

func (c captureCost) total() time.Duration { return c.capture + c.parse + c.filter }

// measureCapture loads url in page and times its capture and the Go side.
func measureCapture(tb testing.TB, page pipeline.Page, url string) captureCost {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ld, err := page.Load(ctx, url)
	if err != nil {
		tb.Fatalf("%s: %v", url, err)
	}
	start := time.Now()
	c, err := dom.Parse(ld.Capture)
	if err != nil {
		tb.Fatalf("%s: %v", url, err)
	}
	parsed := time.Now()
	tree := dom.NewTree(c)
	for _, e := range []int{0, dom.WholePage} {
		render.Fast(tree.Select(dom.Options{Expansion: e}))
	}
	return captureCost{
		nodes:     len(c.Nodes),
		capture:   ld.CaptureTime,
		script:    time.Duration(c.Page.ScriptMs * float64(time.Millisecond)),
		parse:     parsed.Sub(start),
		filter:    time.Since(parsed),
		truncated: c.Page.Truncated,
	}
}

// millis converts d to milliseconds.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// loadAverage returns the first field of /proc/loadavg ("" elsewhere), so
// that logged timings say how busy the machine was.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// TestSoak_CaptureSpeed logs what capturing the generated tables costs: the
// capture's round trip and the script's own time (per page and per 1k
// nodes) and the Go side, best of three (two for the largest) after a
// warm-up. Timings depend on how busy the machine is, so by default only a
// hang fails the test; ACTIONSPACE_SPEED_STRICT=1 also holds the 5k-row
// page to speedBudget. It takes minutes (the 20,000-row page alone is
// 160,000 nodes): it runs only under make soak.
func TestSoak_CaptureSpeed(t *testing.T) {
	soaktest.Require(t, "capture timing of the 1,000 to 20,000-row tables")
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// The capture alone (defaultTestConfig takes no extras): the
	// accessibility tree and the AI snapshot are timed by the extras-cost
	// measurement (tools/extrascost).
	page := mustNewPage(t, mustLaunchChromium(t, defaultTestConfig()))
	t.Logf("load average %s", loadAverage())
	measureCapture(t, page, srv.URL+"/gen/table?rows=1000") // warm-up: fonts, code caches
	for _, rows := range speedRows {
		url := srv.URL + "/gen/table?rows=" + strconv.Itoa(rows)
		var best captureCost
		for i := range 3 - rows/20000 { // two runs of the largest page

			if c := measureCapture(t, page, url); i == 0 || c.total() < best.total() {
				best = c
			}
		}
		t.Logf("rows=%-6d nodes=%-7d capture %7.1f ms (script %7.1f ms, %4.1f ms per 1k nodes)  parse %6.1f ms  filter %5.1f ms  total %7.1f ms",
			rows, best.nodes, millis(best.capture), millis(best.script), millis(best.script)/float64(best.nodes)*1000,
			millis(best.parse), millis(best.filter), millis(best.total()))
		if best.total() > time.Minute {
			t.Errorf("rows=%d: capture and filter took %v", rows, best.total())
		}
		if rows == 5000 && os.Getenv("ACTIONSPACE_SPEED_STRICT") == "1" && best.total() > speedBudget {
			t.Errorf("rows=5000: capture and filter took %v, over the %v budget (load average %s)", best.total(), speedBudget, loadAverage())
		}
	}
	t.Logf("load average %s", loadAverage())
}

// TestSoak_CaptureSpeedCorpus logs the median capture time over the
// corpus. It only measures (TestCrawl_Corpus checks the corpus's
// captures), so it runs only under make soak.
func TestSoak_CaptureSpeedCorpus(t *testing.T) {
	soaktest.Require(t, "median capture timing over the corpus")
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	page := mustNewPage(t, mustLaunchChromium(t, defaultTestConfig()))
	var capture, script, total []float64
	for _, u := range corpora.DefaultURLs(srv.URL) {
		c := measureCapture(t, page, u)
		capture = append(capture, millis(c.capture))
		script = append(script, millis(c.script))
		total = append(total, millis(c.total()))
	}
	t.Logf("corpus (%d pages, load average %s): median capture %.1f ms, script %.1f ms, capture+parse+filter %.1f ms",
		len(capture), loadAverage(), median(capture), median(script), median(total))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkCapture loads, captures, parses and filters the generated
// tables; besides ns/op (which includes navigation) it reports the capture
// and the Go side per page and the script per 1k nodes.
func BenchmarkCapture(b *testing.B) {
	requireChromium(b)
	srv, err := corpora.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	page := mustNewPage(b, mustLaunchChromium(b, defaultTestConfig()))
	for _, rows := range speedRows {
		b.Run("rows="+strconv.Itoa(rows), func(b *testing.B) {
			url := srv.URL + "/gen/table?rows=" + strconv.Itoa(rows)
			var sum captureCost
			n := 0
			for b.Loop() {
				c := measureCapture(b, page, url)
				sum.capture += c.capture
				sum.script += c.script
				sum.parse += c.parse + c.filter
				sum.nodes += c.nodes
				n++
			}
			b.ReportMetric(millis(sum.capture)/float64(n), "capture-ms/op")
			b.ReportMetric(millis(sum.parse)/float64(n), "go-ms/op")
			b.ReportMetric(millis(sum.script)/float64(sum.nodes)*1000, "script-ms/1k-nodes")
		})
	}
}

// TestCaptureNodeBudget: a page over the node budget is captured up to it
// and flagged truncated, not failed and not hung; what was captured still
// renders.
func TestCaptureNodeBudget(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := defaultTestConfig()
	opts := dom.DefaultScriptOptions()
	opts.MaxNodes = 3000
	cfg.page.Script = opts
	page := mustNewPage(t, mustLaunchChromium(t, cfg))
	for _, tc := range []struct {
		path      string
		truncated bool
	}{
		{"/gen/table?rows=100", false},   // 817 nodes
		{"/gen/table?rows=1000", true},   // 8017 nodes
		{"/fidelity/frames.html", false}, // frames count against the budget too
	} {
		c := measureCapture(t, page, srv.URL+tc.path)
		if c.truncated != tc.truncated || c.nodes > opts.MaxNodes {
			t.Errorf("%s: %d nodes, truncated %v; want at most %d, truncated %v", tc.path, c.nodes, c.truncated, opts.MaxNodes, tc.truncated)
		}
	}
}
