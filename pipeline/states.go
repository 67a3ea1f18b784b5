package pipeline

import (
	"context"
	"fmt"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/render"
	"actionspace/space"
)

// pageState is one captured state of a page: step 0 (after load) or the
// state a step left, decoded once, and the rows rendered from it.
type pageState struct {
	step    int
	load    *Load
	capture *dom.Capture
	tree    *dom.Tree
	// page is the state's space.Page: its records decoded once, with its
	// oracle. The pages of a page's states are in step order in the
	// slice processSteps returns, so that a measure across steps can
	// link each to the one before it.
	page    *space.Page
	blob    *dataset.BlobRow
	html    space.Tokens
	htmlErr error // why html is not counted

	spaces   []dataset.SpaceRow
	elements []dataset.ElementRow
	oracle   []dataset.OracleRow
}

// decode decodes the capture of one state of t (step 0 is the load
// itself, a later step one of its StepState.State), counts its HTML's
// tokens, and makes its blobs row and its space.Page.
func (p *processor) decode(t Target, step int, load *Load) (*pageState, error) {
	capture, err := dom.Parse(load.Capture)
	if err != nil {
		return nil, err
	}
	packed, err := dataset.CompressCapture(load.Capture)
	if err != nil {
		return nil, err
	}
	st := &pageState{step: step, load: load, capture: capture, tree: dom.NewTree(capture)}
	st.blob = &dataset.BlobRow{RunID: p.cfg.RunID, PageID: t.PageID, URL: t.URL, Step: int64(step), HTML: load.HTML,
		Capture: packed, CaptureEncoding: dataset.CaptureEncoding}
	st.html, st.htmlErr = p.meter.Count(load.HTML)
	p.extrasColumns(t, st.blob, load)
	st.page = space.NewPage(st.tree, load.AXTree, load.AISnapshot, load.HTML)
	return st, nil
}

// countHTML returns the state's HTML tokens, logging a count that failed.
func (p *processor) countHTML(t Target, st *pageState) space.Tokens {
	if st.htmlErr != nil {
		p.cfg.logger().Info("HTML tokens not counted", logPageID, t.PageID, logURL, t.URL, logStep, st.step, logSkipped, space.SkipReason(st.htmlErr), logError, st.htmlErr)
	}
	return st.html
}

// processSteps decodes the states the steps of load left and makes the
// page's steps rows. It returns every state of the page in step order,
// first (step 0) included. A step whose state does not decode gets no
// rows but its steps row, which says so (failed, kind capture).
func (p *processor) processSteps(t Target, first *pageState, load *Load) ([]*pageState, []dataset.StepRow) {
	states := []*pageState{first}
	var rows []dataset.StepRow
	for _, s := range load.Steps {
		row := dataset.StepRow{RunID: p.cfg.RunID, PageID: t.PageID, URL: t.URL, Step: int64(s.Step),
			Action: s.Action, Target: s.Target, Status: s.Status, ErrorKind: string(s.ErrorKind), ErrorMessage: s.Error,
			MS: space.MS(s.Duration)}
		if s.State != nil {
			row.FinalURL = RedactUserInfo(s.State.FinalURL)
			row.BlockedRequests = int64(s.State.BlockedRequests)
			st, err := p.decode(t, s.Step, s.State)
			if err != nil {
				row.Status, row.ErrorKind = dataset.StepFailed, string(KindCapture)
				row.ErrorMessage = fmt.Sprintf("decode the capture of step %d: %v", s.Step, err)
				row.FinalURL, row.BlockedRequests = "", 0
				p.cfg.logger().Warn("step state not decoded", logPageID, t.PageID, logURL, t.URL, logStep, s.Step, logError, err)
			} else {
				p.countHTML(t, st)
				states = append(states, st)
			}
		}
		rows = append(rows, row)
	}
	// The pages of states[i] and states[i-1] are the consecutive states a
	// measure across steps compares (stable IDs, handles kept).
	return states, rows
}

// render renders and measures one state in every cell and makes its
// spaces, elements and oracle rows, each with the state's step, and
// fills the screenshot columns of its blobs row.
func (p *processor) render(ctx, renderCtx context.Context, t Target, st *pageState) {
	st.spaces = make([]dataset.SpaceRow, 0, len(p.cells))
	for m := range p.sweeper.Sweep(ctx, renderCtx, st.page, p.cells, st.html) {
		if sr, ok := p.space(t, m); ok {
			sr.Step = int64(st.step)
			st.spaces = append(st.spaces, sr)
		}
	}
	st.elements, st.oracle = st.page.Tables(p.cfg.RunID, t.PageID, t.URL)
	for i := range st.elements {
		st.elements[i].Step = int64(st.step)
	}
	for i := range st.oracle {
		st.oracle[i].Step = int64(st.step)
	}
	var labels []render.Action // the first expansion's actions, for a labeled screenshot
	if p.cfg.Page.Screenshot.Mode == ScreenshotsLabeled && len(st.load.Screenshot) > 0 {
		labels = render.Fast(st.tree.Select(dom.Options{Expansion: p.cfg.Expansions[0], Text: p.cfg.Texts[0]})).Actions
	}
	p.screenshotColumns(st.blob, st.load, st.capture.Page, labels)
}
