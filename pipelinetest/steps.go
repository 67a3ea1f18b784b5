package pipelinetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"

	"actionspace/dataset"
	"actionspace/pipeline"
)

// stepsFile lists the steps of a page stored with steps, and stepDir
// names the folder of the state step k left (see tools/goldens -steps).
const stepsFile = "steps.json.gz"

func stepDir(k int) string { return fmt.Sprintf("step-%d", k) }

// storedStep is one stored step of a page: what the crawl's browser
// recorded for it, and the state it left.
type storedStep struct {
	Step   int    `json:"step"`
	Action string `json:"action"`
	Target string `json:"target"`
	Status string `json:"status"`
	state  *stored
}

// readSteps reads the steps stored with the page in folder dir, and the
// state of each; none when the page was stored without steps.
func readSteps(dir string) ([]storedStep, error) {
	data, err := readGzip(filepath.Join(dir, stepsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var steps []storedStep
	if err := json.Unmarshal(data, &steps); err != nil {
		return nil, fmt.Errorf("read stored steps in %s: %w", dir, err)
	}
	for i := range steps {
		s := &steps[i]
		if s.Step != i+1 {
			return nil, fmt.Errorf("stored steps in %s: step %d is numbered %d", dir, i+1, s.Step)
		}
		if s.Status != dataset.StepOK && s.Status != dataset.StepNavigated {
			return nil, fmt.Errorf("stored steps in %s: step %d is %q; only steps that left a state are stored", dir, s.Step, s.Status)
		}
		if s.state, err = readPage(filepath.Join(dir, stepDir(s.Step))); err != nil {
			return nil, err
		}
	}
	return steps, nil
}

// replaySteps replays the steps PageConfig.Steps asks for after the first
// state ld of page, loaded from u. Step k replays the stored step k when
// the page was stored with steps and the actions up to k are those
// stored: its status, target and state (records as for the first state,
// the page URL the state had). Any other step is skipped, its target
// saying the replay stores no state for it. A StepFail fault fails its
// step (pipeline.KindCapture) and ends the steps.
func (p *Page) replaySteps(ld *pipeline.Load, page *stored, u *url.URL, fault Fault, faulted bool) (*pipeline.Load, error) {
	origin := u.Scheme + "://" + u.Host
	matched := true
	for i, action := range p.cfg.Steps {
		n := i + 1
		st := pipeline.StepState{Step: n, Action: action, Duration: StageTime}
		if faulted && fault.Step == n {
			st.Status, st.ErrorKind = dataset.StepFailed, pipeline.KindCapture
			st.Error = fmt.Sprintf("step %d (%s): scripted step failure", n, action)
			ld.Steps = append(ld.Steps, st)
			break
		}
		matched = matched && i < len(page.steps) && page.steps[i].Action == action
		if !matched {
			st.Status, st.Target = dataset.StepSkipped, "the replay stores no state for this step"
			ld.Steps = append(ld.Steps, st)
			continue
		}
		s := page.steps[i]
		pageURL := strings.Replace(s.state.url, StoredOrigin, origin, 1)
		state := &pipeline.Load{FinalURL: pageURL, BrowserVersion: p.b.version, HTTPStatus: ld.HTTPStatus, ContentType: ld.ContentType}
		if _, err := p.replayState(state, s.state, u, pageURL); err != nil {
			return ld, err
		}
		st.Status, st.Target, st.State = s.Status, strings.ReplaceAll(s.Target, StoredOrigin, origin), state
		st.Duration = 6 * StageTime // settle, capture, extras, content
		ld.Steps = append(ld.Steps, st)
	}
	return ld, nil
}
