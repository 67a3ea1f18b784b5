package pipeline_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/pipeline"
	"actionspace/pipelinetest"
)

// stepsCrawl is a crawl of the mutation pages on the replay with the
// steps expand, back: some steps replay a stored state (ok, navigated),
// others are skipped (the page's stored steps are others), and
// crossdoc's step 2 fails (a StepFail fault).
func stepsCrawl(t *testing.T) (pipeline.Config, []pipeline.Target, *pipelinetest.Browser) {
	t.Helper()
	replay := pipelinetest.New(t, pipelinetest.Options{Faults: map[string]pipelinetest.Fault{
		"/mutation/crossdoc.html": {Kind: pipelinetest.StepFail, Step: 2},
	}})
	cfg := pipeline.DefaultConfig()
	cfg.RunID = "steps"
	cfg.Workers = 2
	cfg.Timeout = 20 * time.Second
	cfg.Expansions = []int{0, -1}
	cfg.Budgets = []int64{300} // a budget row per state too
	cfg.Output.PartPages = 3
	cfg.Page.Steps = []string{pipeline.StepExpand, pipeline.StepBack}
	return cfg, pipeline.TargetsFromURLs(corpora.MutationURLs(pipelinetest.Origin)), replay
}

// wantSteps is what the steps table must say of each mutation page under
// stepsCrawl: the stored status while the actions match the page's
// truth, skipped after, failed for crossdoc's step 2.
func wantSteps(t *testing.T) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	for _, p := range corpora.MutationPaths() {
		truth, err := corpora.MutationTruthFor(p)
		if err != nil {
			t.Fatal(err)
		}
		id := pipeline.PageID(pipelinetest.Origin + p)
		matched := true
		for i, a := range []string{pipeline.StepExpand, pipeline.StepBack} {
			matched = matched && i < len(truth.Steps) && truth.Steps[i] == a
			status := dataset.StepSkipped
			if matched {
				status = truth.States[i+1].Status
			}
			if p == "/mutation/crossdoc.html" && i == 1 {
				status = dataset.StepFailed
			}
			want[id] = append(want[id], fmt.Sprintf("%d %s %s", i+1, a, status))
		}
	}
	return want
}

// checkStepRows checks the tables of a crawl of stepsCrawl: one pages row
// per URL; the steps rows wantSteps says; a blobs row per captured state
// keyed by (page_id, step), none twice; and spaces, elements and oracle
// rows for exactly the captured states, each state with as many spaces
// rows as step 0 (its budget rows included).
func checkStepRows(t *testing.T, dir string, urls int) {
	t.Helper()
	pages := readRows[dataset.PageRow](t, dir, dataset.PagesDir)
	if len(pages) != urls {
		t.Errorf("%d pages rows, want %d", len(pages), urls)
	}
	got := map[string][]string{}
	captured := map[string][]int64{}
	for _, r := range readRows[dataset.StepRow](t, dir, dataset.StepsDir) {
		got[r.PageID] = append(got[r.PageID], fmt.Sprintf("%d %s %s", r.Step, r.Action, r.Status))
		if (r.Status == dataset.StepOK || r.Status == dataset.StepNavigated) != (r.FinalURL != "") || r.RunID != "steps" || r.SchemaVersion != dataset.SchemaVersion {
			t.Errorf("steps row %+v", r)
		}
		if r.Status == dataset.StepOK || r.Status == dataset.StepNavigated {
			captured[r.PageID] = append(captured[r.PageID], r.Step)
		}
	}
	for id := range got {
		slices.Sort(got[id])
	}
	if want := wantSteps(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("steps rows %v\nwant %v", got, want)
	}
	states := map[string][]int64{}
	for _, b := range readRows[dataset.BlobRow](t, dir, dataset.BlobsDir) {
		if slices.Contains(states[b.PageID], b.Step) || len(b.Capture) == 0 || b.AXTree == nil || b.AISnapshot == nil {
			t.Errorf("blobs row %s step %d: twice, or records missing", b.PageID, b.Step)
		}
		states[b.PageID] = append(states[b.PageID], b.Step)
	}
	spaces := map[string]map[int64]int{}
	for _, s := range readRows[dataset.SpaceRow](t, dir, dataset.SpacesDir) {
		if spaces[s.PageID] == nil {
			spaces[s.PageID] = map[int64]int{}
		}
		spaces[s.PageID][s.Step]++
	}
	elements, oracle := map[string]map[int64]bool{}, map[string]map[int64]bool{}
	for _, e := range readRows[dataset.ElementRow](t, dir, dataset.ElementsDir) {
		if elements[e.PageID] == nil {
			elements[e.PageID] = map[int64]bool{}
		}
		elements[e.PageID][e.Step] = true
	}
	for _, o := range readRows[dataset.OracleRow](t, dir, dataset.OracleDir) {
		if oracle[o.PageID] == nil {
			oracle[o.PageID] = map[int64]bool{}
		}
		oracle[o.PageID][o.Step] = true
	}
	for _, p := range pages {
		want := append([]int64{0}, captured[p.PageID]...)
		got := states[p.PageID]
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: blobs of steps %v, want %v", p.URL, got, want)
		}
		for _, step := range want {
			if spaces[p.PageID][step] != spaces[p.PageID][0] || !elements[p.PageID][step] || !oracle[p.PageID][step] {
				t.Errorf("%s step %d: %d spaces rows (step 0: %d), elements %v, oracle %v", p.URL, step,
					spaces[p.PageID][step], spaces[p.PageID][0], elements[p.PageID][step], oracle[p.PageID][step])
			}
		}
		if n := len(spaces[p.PageID]); n != len(want) {
			t.Errorf("%s: spaces rows of %d steps, want %d", p.URL, n, len(want))
		}
	}
}

// TestCrawl_stepsReplay crawls the mutation pages with steps on the replay
// and checks every table (checkStepRows): a page whose step 2 failed keeps
// steps 0 and 1.
func TestCrawl_stepsReplay(t *testing.T) {
	t.Parallel()
	cfg, targets, replay := stepsCrawl(t)
	dir := t.TempDir()
	stats, err := pipeline.Crawl(context.Background(), cfg, targets, dir, replay.Opener(), nil)
	if err != nil || stats.OK != len(targets) {
		t.Fatalf("crawl: %+v, %v", stats, err)
	}
	checkStepRows(t, dir, len(targets))
}

// TestCrawl_stepsResume interrupts a crawl with steps and resumes it: the
// dataset ends with every table as an uninterrupted crawl's, no page or
// state twice. A resume with other steps is refused.
func TestCrawl_stepsResume(t *testing.T) {
	t.Parallel()
	cfg, targets, replay := stepsCrawl(t)
	cfg.Workers = 1
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	first, err := pipeline.Crawl(ctx, cfg, targets, dir, replay.Opener(), func(pipeline.Result) {
		if n++; n == 4 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || first.OK == len(targets) {
		t.Fatalf("first crawl: %+v, %v; want it interrupted", first, err)
	}
	cfg.Resume = true
	_, _, replay = stepsCrawl(t) // the crawl closed the first
	stats, err := pipeline.Crawl(context.Background(), cfg, targets, dir, replay.Opener(), nil)
	if err != nil || stats.Skipped != first.OK || stats.OK != len(targets)-first.OK {
		t.Fatalf("resume: %+v, %v (first %+v)", stats, err, first)
	}
	checkStepRows(t, dir, len(targets))

	cfg.Page.Steps = []string{pipeline.StepScroll}
	_, _, replay = stepsCrawl(t)
	if _, err := pipeline.Crawl(context.Background(), cfg, targets, dir, replay.Opener(), nil); err == nil || !strings.Contains(err.Error(), "steps is") {
		t.Errorf("a resume with other steps: %v, want it refused for its steps", err)
	}
}

// readRows reads every row of table in the dataset at dir.
func readRows[T any](t *testing.T, dir, table string) []T {
	t.Helper()
	rows, err := parts.ReadTable[T](dir, table)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
