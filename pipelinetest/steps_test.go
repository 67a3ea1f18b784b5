package pipelinetest

import (
	"slices"
	"strings"
	"testing"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/internal/truthtest"
	"actionspace/pipeline"
)

// TestReplay_mutationSteps replays every mutation page with the steps of
// its truth: each state the stored steps left comes back with the
// status of the truth, the page URL it had at the replay's origin, its
// extras, and handles on the truth's names, as the browser captured them.
func TestReplay_mutationSteps(t *testing.T) {
	t.Parallel()
	b := New(t, Options{})
	for _, path := range corpora.MutationPaths() {
		truth, err := corpora.MutationTruthFor(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg := pipeline.DefaultPageConfig()
		cfg.Steps = truth.Steps
		ld, err := load(t, b, cfg, site+path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(ld.Steps) != len(truth.Steps) {
			t.Fatalf("%s: %d steps, want %d", path, len(ld.Steps), len(truth.Steps))
		}
		states := []*pipeline.Load{ld}
		for i, s := range ld.Steps {
			if s.Step != i+1 || s.Action != truth.Steps[i] || s.Status != truth.States[i+1].Status || s.State == nil || (s.Target == "") != (s.Action == pipeline.StepWait) {
				t.Fatalf("%s step %d: %+v, want %s %s with a state and a target (but for wait)", path, i+1, s, truth.Steps[i], truth.States[i+1].Status)
			}
			states = append(states, s.State)
		}
		for i, s := range states {
			c, err := dom.Parse(s.Capture)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(c.Page.URL, site+"/mutation/") || c.Page.URL != s.FinalURL || strings.Contains(string(s.Capture)+s.HTML, StoredOrigin) {
				t.Errorf("%s state %d: page URL %q, final URL %q (or the stored origin is left)", path, i, c.Page.URL, s.FinalURL)
			}
			if s.AXTree == nil || s.AISnapshot == nil {
				t.Errorf("%s state %d: extras missing", path, i)
			}
			if got, want := truthtest.HandleNames(t, s.Capture, s.AXTree, s.AISnapshot, s.HTML), truth.States[i].Present; !slices.Equal(got, want) {
				t.Errorf("%s state %d: handles on %v\nwant %v", path, i, got, want)
			}
		}
	}
}

// TestReplay_stepsNotStored: steps the replay has no state for are
// skipped, those after a mismatch too; a StepFail fault fails its step and
// ends the steps, keeping the states before it.
func TestReplay_stepsNotStored(t *testing.T) {
	t.Parallel()
	b := New(t, Options{Faults: map[string]Fault{"/mutation/infinite.html": {Kind: StepFail, Step: 2}}})
	statuses := func(ld *pipeline.Load) []string {
		var out []string
		for _, s := range ld.Steps {
			out = append(out, s.Action+":"+s.Status)
		}
		return out
	}
	for _, c := range []struct {
		path  string
		steps []string
		want  []string
	}{
		{"/login.html", []string{"scroll", "wait"}, []string{"scroll:skipped", "wait:skipped"}},
		{"/mutation/pushstate.html", []string{"wait", "back"}, []string{"wait:skipped", "back:skipped"}},
		{"/mutation/pushstate.html", []string{"expand", "expand", "back"}, []string{"expand:ok", "expand:skipped", "back:skipped"}},
		{"/mutation/infinite.html", []string{"scroll", "scroll", "wait"}, []string{"scroll:ok", "scroll:failed"}},
	} {
		cfg := pipeline.DefaultPageConfig()
		cfg.Steps = c.steps
		ld, err := load(t, b, cfg, site+c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := statuses(ld); !slices.Equal(got, c.want) {
			t.Errorf("%s %v: %v, want %v", c.path, c.steps, got, c.want)
		}
		for _, s := range ld.Steps {
			if (s.State != nil) != (s.Status == dataset.StepOK) {
				t.Errorf("%s step %d %s: state %v", c.path, s.Step, s.Status, s.State != nil)
			}
		}
	}
	if err := (Fault{Kind: StepFail}).Validate(); err == nil {
		t.Error("a step fault without a step validates")
	}
}
