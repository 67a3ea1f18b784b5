package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/oracle"
)

// resolveScript finds the elements of ground-truth locators in the
// capture's world and returns, per locator, their capture indices (-1 for
// an element the capture did not record).
const resolveScript = `(locs, step) => {
  const idx = new Map();
  (globalThis.` + dom.NodesGlobal + ` || []).forEach((n, i) => idx.set(n, i));
  return JSON.stringify(locs.map((loc) => {
    const steps = loc.split(step);
    let roots = [document];
    steps.forEach((sel, s) => {
      const next = [];
      for (const r of roots) {
        if (s === steps.length - 1) {
          next.push(...r.querySelectorAll(sel));
          continue;
        }
        const el = r.querySelector(sel);
        const inner = el && (el.shadowRoot || el.contentDocument);
        if (inner) next.push(inner);
      }
      roots = next;
    });
    return roots.map((el) => idx.has(el) ? idx.get(el) : -1);
  }));
}`

// truthFigures are, per corpus page: the truth's size; the oracle's
// elements, how many of them are in the truth; the fast mode's handles at
// E=-1 on truth elements. The test fails when one moves.
var truthFigures = map[string]string{
	"/index.html":     "truth 49 | oracle 49, 49 in truth | fast 49",
	"/search.html":    "truth 85 | oracle 85, 85 in truth | fast 85",
	"/products.html":  "truth 162 | oracle 162, 162 in truth | fast 162",
	"/product.html":   "truth 64 | oracle 64, 64 in truth | fast 64",
	"/login.html":     "truth 13 | oracle 13, 13 in truth | fast 13",
	"/signup.html":    "truth 31 | oracle 31, 31 in truth | fast 31",
	"/dashboard.html": "truth 148 | oracle 148, 148 in truth | fast 148",
	"/settings.html":  "truth 24 | oracle 24, 24 in truth | fast 24",
	"/widgets.html":   "truth 29 | oracle 25, 22 in truth | fast 29",
	"/article.html":   "truth 55 | oracle 55, 55 in truth | fast 55",
	"/news.html":      "truth 129 | oracle 129, 129 in truth | fast 129",
	"/cookie.html":    "truth 5 | oracle 47, 5 in truth | fast 5",
	"/docs.html":      "truth 243 | oracle 243, 243 in truth | fast 140",
	"/dynamic.html":   "truth 33 | oracle 33, 33 in truth | fast 33",
}

// TestGroundTruth resolves each corpus page's hand-labeled ground truth
// (corpora.TruthFor) in Chromium and measures against it the oracle
// (recall and precision: its elements on the whole page) and the fast
// mode at E=-1 (recall: truth elements with an ID, or with a label that
// has one). It names every miss, logs the figures, and pins them
// (truthFigures). Each page's accessibility tree must also resolve every
// element of its capture (checkTreeResolves): one load of the corpus
// serves both checks.
func TestGroundTruth(t *testing.T) {
	t.Parallel()
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var sumT, sumO, sumTO, sumF int
	var table strings.Builder
	fmt.Fprintf(&table, "%-16s %6s %7s %7s %9s %7s\n", "page", "truth", "oracle", "recall", "precision", "fast")
	for _, p := range corpora.DefaultPaths() {
		truth, err := corpora.TruthFor(p)
		if err != nil {
			t.Fatal(err)
		}
		l := b.load(t, srv.URL+p)
		rec, err := TakeAXTree(context.Background(), l.input(t))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		checkTreeResolves(t, p, l, rec)
		tree := dom.NewTree(l.capture)

		// The truth, as capture elements.
		locs := make([]string, len(truth.Elements))
		for i, e := range truth.Elements {
			locs[i] = e.Locator
		}
		arg, _ := json.Marshal(locs)
		step, _ := json.Marshal(corpora.LocatorStep)
		res, err := l.cdp.Send("Runtime.evaluate", map[string]any{
			"expression": "(" + resolveScript + ")(" + string(arg) + ", " + string(step) + ")", "contextId": l.world, "returnByValue": true,
		})
		if err != nil {
			t.Fatal(err)
		}
		var found [][]int
		if s, _ := dig(res, "result", "value").(string); json.Unmarshal([]byte(s), &found) != nil || len(found) != len(locs) {
			t.Fatalf("%s: resolving the locators gave %v", p, res)
		}
		what := map[int]string{} // capture index → the truth entry
		for i, e := range truth.Elements {
			if len(found[i]) != e.Want() {
				t.Errorf("%s: locator %q finds %d elements, want %d", p, e.Locator, len(found[i]), e.Want())
			}
			for _, c := range found[i] {
				if c < 0 {
					t.Errorf("%s: locator %q finds an element the capture did not record", p, e.Locator)
					continue
				}
				if _, dup := what[c]; dup {
					t.Errorf("%s: locator %q finds an element listed before", p, e.Locator)
				}
				what[c] = e.What
			}
		}

		// The oracle on the whole page.
		o := oracle.New(rec, tree)
		inTruth := 0
		oracleHas := map[int]bool{}
		for _, e := range o.Elements {
			oracleHas[e.Capture] = true
			if _, ok := what[e.Capture]; ok && e.Capture >= 0 {
				inTruth++
				continue
			}
			t.Logf("%s: oracle extra: %s %q (capture %d, %s)", p, e.Role, e.Name, e.Capture, tree.Locator(max(e.Capture, 0)))
		}
		// The fast mode at E=-1.
		v := tree.Select(dom.Options{Expansion: dom.WholePage})
		handled := map[int]bool{}
		for _, it := range v.Items {
			if it.IsAction() {
				handled[it.Node] = true
				if nd := &l.capture.Nodes[it.Node]; nd.Tag == "label" && nd.LabelFor > 0 {
					handled[nd.LabelFor] = true
				}
			}
		}
		why := v.Why()
		fast := 0
		for _, c := range sortedKeys(what) {
			if !oracleHas[c] {
				t.Logf("%s: oracle miss: %s (%s)", p, what[c], tree.Locator(c))
			}
			if handled[c] {
				fast++
			} else {
				t.Logf("%s: fast miss at E=-1: %s (%s): %s", p, what[c], tree.Locator(c), why[c])
			}
		}
		got := fmt.Sprintf("truth %d | oracle %d, %d in truth | fast %d", len(what), len(o.Elements), inTruth, fast)
		if want := truthFigures[p]; got != want {
			t.Errorf("%s: figures\n got %s\nwant %s", p, got, want)
		}
		fmt.Fprintf(&table, "%-16s %6d %7d %7.3f %9.3f %7.3f\n", p, len(what), len(o.Elements),
			ratio(inTruth, len(what)), ratio(inTruth, len(o.Elements)), ratio(fast, len(what)))
		sumT += len(what)
		sumO += len(o.Elements)
		sumTO += inTruth
		sumF += fast
	}
	fmt.Fprintf(&table, "%-16s %6d %7d %7.3f %9.3f %7.3f\n", "all", sumT, sumO, ratio(sumTO, sumT), ratio(sumTO, sumO), ratio(sumF, sumT))
	t.Logf("ground truth on the corpus:\n%s", table.String())
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func sortedKeys(m map[int]string) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
