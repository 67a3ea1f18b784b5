package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"

	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/pipeline"
)

// storedStep is one step of a mutation page as steps.json records it: what
// the replay (package pipelinetest) gives back for the step. The state
// the step left is stored in the folder step-<Step>.
type storedStep struct {
	Step   int    `json:"step"`
	Action string `json:"action"`
	Target string `json:"target"`
	Status string `json:"status"`
}

// runSteps captures every mutation page with its steps
// (corpora.MutationTruthFor) into dir/<page>/: the first state as a
// corpus page is stored, each later state in step-<k>/, and the steps in
// steps.json.gz.
func runSteps(ctx context.Context, dir string, out io.Writer) error {
	srv, b, closeAll, err := start(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	for _, p := range corpora.MutationPaths() {
		truth, err := corpora.MutationTruthFor(p)
		if err != nil {
			return err
		}
		cfg := pipeline.DefaultPageConfig()
		cfg.Steps = truth.Steps
		lctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		states, steps, err := loadSteps(lctx, b, cfg, srv.URL+p)
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		name := strings.TrimSuffix(path.Base(p), path.Ext(p))
		ids := newRenumbering(name)
		for i, st := range states {
			sub := filepath.Join(dir, name)
			if i > 0 {
				sub = filepath.Join(sub, fmt.Sprintf("step-%d", i))
			}
			if err := store(sub, st, srv.URL, ids); err != nil {
				return fmt.Errorf("%s step %d: %w", p, i, err)
			}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(steps); err != nil {
			return err
		}
		data := bytes.ReplaceAll(buf.Bytes(), []byte(srv.URL), []byte(corpusOrigin))
		if err := write(filepath.Join(dir, name, "steps.json.gz"), data); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: %d states\n", name, len(states))
	}
	return nil
}

// loadSteps loads url with cfg's steps, and returns its states (the
// first, then one per step) and its steps. Every step must leave a state.
func loadSteps(ctx context.Context, b pipeline.Browser, cfg pipeline.PageConfig, url string) ([]*state, []storedStep, error) {
	page, err := b.NewPage(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	defer page.Close()
	ld, err := page.Load(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	first, err := newState(ld)
	if err != nil {
		return nil, nil, err
	}
	states := []*state{first}
	var steps []storedStep
	for _, s := range ld.Steps {
		if s.State == nil {
			return nil, nil, fmt.Errorf("step %d (%s): %s %s", s.Step, s.Action, s.Status, s.Error)
		}
		st, err := newState(s.State)
		if err != nil {
			return nil, nil, fmt.Errorf("step %d: %w", s.Step, err)
		}
		states = append(states, st)
		steps = append(steps, storedStep{Step: s.Step, Action: s.Action, Target: s.Target, Status: s.Status})
	}
	return states, steps, nil
}

// newState makes the state of a load, whose extras must both be there.
func newState(ld *pipeline.Load) (*state, error) {
	st := &state{axtree: ld.AXTree, snapshot: ld.AISnapshot, html: ld.HTML,
		captureTime: ld.CaptureTime, axtreeTime: ld.AXTreeTime, snapTime: ld.AISnapshotTime, content: ld.Content}
	var err error
	if st.capture, err = dom.Parse(ld.Capture); err != nil {
		return nil, err
	}
	if st.axtree == nil || st.snapshot == nil {
		return nil, fmt.Errorf("the accessibility tree or the AI snapshot was not stored (axtree_skipped %q, aisnapshot_skipped %q)",
			ld.AXTreeSkipped, ld.AISnapshotSkipped)
	}
	return st, nil
}
