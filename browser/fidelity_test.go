package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/render"
)

// oracleExpansions are the settings the in-browser oracle and the offline
// filter are compared at.
var oracleExpansions = []int{0, 200, 1000, dom.WholePage}

// TestOfflineFilterMatchesBrowser captures every corpus page once and, in
// the same page state, runs dom/testdata/oracle.js: a second implementation
// of the ID rule that asks the live DOM. For every expansion, the offline
// filter over the capture must give the same IDs on the same elements.
func TestOfflineFilterMatchesBrowser(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	compareWithOracle(t, corpora.DefaultURLs(srv.URL), nil)
}

// compareWithOracle loads each URL with the capture script and the oracle
// evaluated one after the other in the same isolated world, and requires
// the offline filter and the oracle to agree at every oracleExpansions
// setting. check, when not nil, also sees each capture. In the same page
// state it runs the capture script once more with ExactOcclusion (every
// measurable element hit-tested) and requires the same record: skipping
// the hit tests that cannot find anything on top changes no answer (see
// TestOcclusionShortcutIsExact).
//
// The wrapped script returns {capture, oracle} rather than a capture
// record, so the browser adapter leaves cross-origin frames unstitched:
// the capture holds their iframes and none of their content, exactly as
// much as the oracle, which cannot read a cross-origin document, sees.
func compareWithOracle(t *testing.T, urls []string, check func(t *testing.T, url string, c *dom.Capture)) {
	t.Helper()
	oracle, err := os.ReadFile("../dom/testdata/oracle.js")
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultTestConfig()
	exact := dom.DefaultScriptOptions()
	exact.ExactOcclusion = true
	cfg.launch.script = "(arg) => { const capture = " + dom.Script() + "\n; return JSON.stringify({capture: capture(arg.capture), exact: capture(arg.exact), oracle: JSON.parse((" + string(oracle) + ")(arg.expansions))}); }"
	cfg.launch.scriptArg = map[string]any{"capture": dom.DefaultScriptOptions(), "exact": exact, "expansions": oracleExpansions}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	page := mustNewPage(t, mustLaunchChromium(t, cfg))

	for _, u := range urls {
		lctx, lcancel := context.WithTimeout(ctx, 30*time.Second)
		load, err := page.Load(lctx, u)
		lcancel()
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		var both struct {
			Capture string             `json:"capture"`
			Exact   string             `json:"exact"`
			Oracle  map[string][][]any `json:"oracle"`
		}
		if err := json.Unmarshal(load.Capture, &both); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		c, err := dom.Parse([]byte(both.Capture))
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		exact, err := dom.Parse([]byte(both.Exact))
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if d := diffCaptures(withoutRunFields(c), withoutRunFields(exact)); d != "" {
			t.Errorf("%s: capture with the occlusion shortcut differs from the exact one: %s", u, d)
		}
		if check != nil {
			check(t, u, c)
		}
		tree := dom.NewTree(c)
		for _, e := range oracleExpansions {
			sp := render.Fast(tree.Select(dom.Options{Expansion: e}))
			want := both.Oracle[strconv.Itoa(e)]
			if d := diffActions(sp.Actions, want); d != "" {
				t.Errorf("%s E=%d: offline filter and browser disagree: %s", u, e, d)
			}
		}
	}
}

// diffActions compares offline actions with the oracle's [id, tag, x, y, w,
// h] rows, allowing 1px for rounding; it returns "" when they agree.
func diffActions(got []render.Action, want [][]any) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			a := got[i]
			g = fmt.Sprintf("%s %s (%.0f,%.0f %.0fx%.0f)", a.ID, a.Tag, a.Rect[0], a.Rect[1], a.Rect[2], a.Rect[3])
		}
		if i < len(want) {
			r := want[i]
			w = fmt.Sprintf("%v %v (%v,%v %vx%v)", r[0], r[1], r[2], r[3], r[4], r[5])
		}
		if i >= len(got) || i >= len(want) || got[i].ID != want[i][0] || got[i].Tag != want[i][1] || !near(got[i].Rect, want[i][2:]) {
			return fmt.Sprintf("%d offline vs %d in browser; first difference at #%d: offline %q, browser %q", len(got), len(want), i+1, g, w)
		}
	}
	return ""
}

func near(r dom.Rect, want []any) bool {
	for k := 0; k < 4; k++ {
		f, ok := want[k].(float64)
		if !ok || math.Abs(r[k]-f) > 1 {
			return false
		}
	}
	return true
}
