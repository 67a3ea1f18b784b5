package pipelinetest

import (
	"fmt"
	"testing"

	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/pipeline"
	"actionspace/space"
)

// truthViews numbers the stored states of a mutation page (the first,
// then one per step) as the crawl does (dom.Tree.Follow) and returns,
// per state, the truth name of each handle of the actionspace view with
// opts.
func truthViews(t *testing.T, states []*pipeline.Load, opts dom.Options) []map[string]string {
	t.Helper()
	var prev *dom.Tree
	var out []map[string]string
	for _, s := range states {
		c, err := dom.Parse(s.Capture)
		if err != nil {
			t.Fatal(err)
		}
		tr := dom.NewTree(c)
		if prev != nil {
			if err := tr.Follow(prev); err != nil {
				t.Fatal(err)
			}
		}
		names := map[string]string{}
		for _, it := range tr.Select(opts).Items {
			if it.IsAction() {
				name, ok := c.Nodes[it.Node].Attr(corpora.TruthAttr)
				if !ok {
					name = fmt.Sprintf("(untruthed node %d)", it.Node)
				}
				names[it.ID] = name
			}
		}
		out = append(out, names)
		prev = tr
	}
	return out
}

// TestCrawl_mutationHandles crawls every mutation page with the steps of
// its truth, every format, two windows and both ID policies, on the
// replay of the states the browser stored, and checks the spaces rows'
// step columns against a direct count on the stored captures by truth
// name: the stable policy re-points no handle and keeps every handle the
// truth says must be kept, the positional policy re-points some (the
// hazard), and the counts of handles_wrong, handles_kept and handles_same
// of actionspace are those of the truth names.
func TestCrawl_mutationHandles(t *testing.T) {
	t.Parallel()
	b := New(t, Options{})
	wrong := map[string]int64{} // by format and ID policy, over every step
	steps := 0
	for _, path := range corpora.MutationPaths() {
		truth, rows := CrawlMutation(t, path, t.TempDir())
		pc := pipeline.DefaultPageConfig()
		pc.Steps = truth.Steps
		ld, err := load(t, b, pc, site+path)
		if err != nil {
			t.Fatal(err)
		}
		states := []*pipeline.Load{ld}
		for _, s := range ld.Steps {
			states = append(states, s.State)
		}
		steps += len(states) - 1
		views := map[string][]map[string]string{}
		for _, r := range rows {
			if r.Step == 0 || r.Format == space.FormatHTML {
				if r.HandlesKept != nil || r.DeltaBytes != nil {
					t.Errorf("%s step %d %s: step columns set", path, r.Step, r.Format)
				}
				continue
			}
			if r.HandlesWrong == nil || r.DeltaTokensCL100K == nil {
				t.Errorf("%s step %d %s E%d %s: step columns null", path, r.Step, r.Format, r.ViewportExpansion, r.IDPolicy)
				continue
			}
			wrong[r.Format+"/"+r.IDPolicy] += *r.HandlesWrong
			if r.Format != space.FormatActionSpace {
				continue
			}
			key := fmt.Sprint(r.ViewportExpansion, r.IDPolicy)
			if views[key] == nil {
				views[key] = truthViews(t, states, dom.Options{Expansion: int(r.ViewportExpansion), IDs: dom.IDPolicy(r.IDPolicy)})
			}
			prev, cur := views[key][r.Step-1], views[key][r.Step]
			var kept, same, wrongNames int64
			prevByName := map[string]string{}
			for id, name := range prev {
				prevByName[name] = id
			}
			for id, name := range cur {
				if pid, ok := prevByName[name]; ok {
					kept++
					if pid == id {
						same++
					}
				}
				if pname, ok := prev[id]; ok && pname != name {
					wrongNames++
				}
			}
			if *r.HandlesWrong != wrongNames || *r.HandlesKept != kept || *r.HandlesSame != same {
				t.Errorf("%s step %d E%d %s: kept %d same %d wrong %d; by truth names %d %d %d (%v then %v)", path, r.Step, r.ViewportExpansion, r.IDPolicy,
					*r.HandlesKept, *r.HandlesSame, *r.HandlesWrong, kept, same, wrongNames, prev, cur)
			}
		}
		// The truth's keep lists, at the whole page: stable keeps them.
		for _, policy := range []dom.IDPolicy{dom.IDsStable, dom.IDsPositional} {
			v := truthViews(t, states, dom.Options{Expansion: dom.WholePage, IDs: policy})
			last := map[string]string{} // truth name → its last handle
			broken := 0
			for k, st := range truth.States {
				byName := map[string]string{}
				for id, name := range v[k] {
					byName[name] = id
				}
				for _, name := range st.Keep {
					if byName[name] != last[name] {
						broken++
						if policy == dom.IDsStable {
							t.Errorf("%s state %d: stable %s is %q, was %q", path, k, name, byName[name], last[name])
						}
					}
				}
				for name, id := range byName {
					last[name] = id
				}
			}
			t.Logf("%s: %s breaks %d of the truth's kept handles", path, policy, broken)
		}
	}
	t.Logf("wrong-target handles over %d steps of the mutation corpus (two windows): %v", steps, wrong)
	if n := wrong[space.FormatActionSpace+"/"+string(dom.IDsStable)]; n != 0 {
		t.Errorf("stable IDs re-pointed %d handles", n)
	}
	if wrong[space.FormatActionSpace+"/"+string(dom.IDsPositional)] == 0 {
		t.Error("positional IDs re-pointed no handle on the mutation corpus")
	}
}
