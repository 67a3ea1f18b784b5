package bench

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/pipelinetest"
	"actionspace/space"
)

// TestSweep_Steps crawls every mutation page with the steps of its truth
// on the replay of the states the browser stored, then sweeps the
// datasets: every state after a step gets its rows, whose step columns
// are those the crawl computed for the same state and cell (the offline
// re-rendering is exact, stable IDs included), the summary's step figures
// add them up, the stable policy re-points no handle and the positional
// one does, and the report shows the section.
func TestSweep_Steps(t *testing.T) {
	t.Parallel()
	var all []StepSummary
	for _, path := range corpora.MutationPaths() {
		dir := t.TempDir()
		truth, spaces := pipelinetest.CrawlMutation(t, path, dir)
		crawl := map[string]dataset.SpaceRow{} // by step and bench cell key
		for _, s := range spaces {
			c := Cell{Format: s.Format, Mode: s.Mode, Expansion: int(s.ViewportExpansion), Text: dom.TextPolicy(s.TextPolicy)}
			if s.IDPolicy == string(dom.IDsStable) {
				c.IDs = dom.IDsStable
			}
			crawl[fmt.Sprint(s.Step, c.Key())] = s
		}

		bcfg := testConfig("steps")
		bcfg.Formats = []string{space.FormatActionSpace, space.FormatPlaywrightAI, space.FormatAXTree}
		bcfg.Expansions = []int{0, dom.WholePage}
		bcfg.Texts = []dom.TextPolicy{dom.TextViewport}
		bcfg.Encodings = []metrics.Encoding{metrics.CL100K}
		bcfg.IDs = []dom.IDPolicy{dom.IDsPositional, dom.IDsStable}
		bcfg.Cuts = false
		out := t.TempDir()
		res := mustSweep(t, bcfg, dir, out)
		_, rows := arrowTable(t, filepath.Join(out, CellsFile))
		stepRows := 0
		for _, r := range rows {
			step := r["step"].(int64)
			if step == 0 {
				continue
			}
			stepRows++
			key := r["cell"].(string)
			c, ok := crawl[fmt.Sprint(step, key)]
			if !ok {
				t.Errorf("%s step %d %s: no crawl row", path, step, key)
				continue
			}
			for col, want := range map[string]*int64{"handles_kept": c.HandlesKept, "handles_same": c.HandlesSame, "handles_wrong": c.HandlesWrong,
				"handles_new": c.HandlesNew, "handles_removed": c.HandlesRemoved, "delta_tokens_cl100k": c.DeltaTokensCL100K, "tokens_cl100k": c.TokensCL100K} {
				got, _ := r[col].(int64)
				if want == nil || r[col] == nil || got != *want {
					t.Errorf("%s step %d %s: %s = %v, the crawl's %s", path, step, key, col, r[col], fmtInt(want))
				}
			}
		}
		if want := len(truth.Steps) * len(bcfg.Cells()); stepRows != want {
			t.Errorf("%s: %d rows of states after steps, want %d", path, stepRows, want)
		}
		var report strings.Builder
		res.WriteReport(&report, nil, nil)
		if !strings.Contains(report.String(), "## Across steps") {
			t.Errorf("%s: the report has no steps section", path)
		}
		all = append(all, res.Summary.Steps...)
	}
	wrong := map[string]int64{}
	steps := map[string]int{}
	for _, s := range all {
		k := s.Format + "/" + s.IDPolicy
		wrong[k] += s.Wrong
		steps[k] += s.Measured
		if s.Kept > s.HandlesBefore || s.Same > s.Kept {
			t.Errorf("%s: kept %d of %d, same %d", s.Cell, s.Kept, s.HandlesBefore, s.Same)
		}
	}
	t.Logf("wrong-target handles (cell-steps measured): %v (%v)", wrong, steps)
	if n := wrong["actionspace/stable"]; n != 0 {
		t.Errorf("stable IDs re-pointed %d handles", n)
	}
	if wrong["actionspace/positional"] == 0 {
		t.Error("positional IDs re-pointed no handle")
	}
}
