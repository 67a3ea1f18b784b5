package bench

import (
	"fmt"
	"io"

	"actionspace/metrics"
)

// StepSummary is one cell's figures across a crawl's steps (crawl
// --steps): over every state after a step, of every page, what the cell
// cost and how its handles fared since the same cell of the state before
// (the cells rows' step columns; docs/handles.md).
type StepSummary struct {
	// Cell is the cell's key; Format and IDPolicy its format and, for
	// actionspace, ID policy.
	Cell     string `json:"cell"`
	Format   string `json:"format"`
	IDPolicy string `json:"id_policy,omitempty"`
	// Steps is the number of states after a step rendered in the cell
	// (page × step); Measured how many of them carry the handle columns
	// (captures with element keys).
	Steps    int `json:"steps"`
	Measured int `json:"measured"`
	// TokensMean is the mean full-text tokens per step in the headline
	// encoding, DeltaTokensMean the mean tokens of the delta from the
	// previous step's text (null when none was counted).
	TokensMean      *float64 `json:"tokens_mean"`
	DeltaTokensMean *float64 `json:"delta_tokens_mean"`
	// HandlesBefore is the number of handles of the previous states
	// (handles_kept + handles_removed, summed), Kept how many of them kept
	// their element's handle, KeptShare Kept / HandlesBefore (null with
	// none), Same how many of the kept kept the same handle.
	HandlesBefore int64    `json:"handles_before"`
	Kept          int64    `json:"handles_kept"`
	KeptShare     *float64 `json:"kept_share"`
	Same          int64    `json:"handles_same"`
	// Wrong is the number of handles that re-pointed to another element
	// (handles_wrong, summed), and WrongPer1000Steps Wrong per thousand
	// measured steps (null with none): what the gate holds.
	Wrong             int64    `json:"handles_wrong"`
	WrongPer1000Steps *float64 `json:"wrong_per_1000_steps"`
}

// stepAcc accumulates one cell's step rows.
type stepAcc struct {
	sum                StepSummary
	tokens, deltas     []float64
	encodingSlot       int
	kept, before, same int64
}

// addSteps folds the rows of the states after steps into the per-cell
// step figures.
func (a *aggregate) addSteps(rows []CellRow) {
	for k := range rows {
		r := &rows[k]
		if r.Error != "" || r.Step == 0 || (r.HandlesKept == nil && r.DeltaBytes == nil) {
			continue // (html rows have no step columns)
		}
		acc, ok := a.steps[r.Cell]
		if !ok {
			acc = &stepAcc{sum: StepSummary{Cell: r.Cell, Format: r.Format, IDPolicy: r.IDPolicy}, encodingSlot: slot(a.encoding)}
			a.steps[r.Cell] = acc
			a.stepOrder = append(a.stepOrder, r.Cell)
		}
		acc.sum.Steps++
		if t := [2]*int64{r.TokensCL100K, r.TokensO200K}[acc.encodingSlot]; t != nil {
			acc.tokens = append(acc.tokens, float64(*t))
		}
		if d := [2]*int64{r.DeltaTokensCL100K, r.DeltaTokensO200K}[acc.encodingSlot]; d != nil {
			acc.deltas = append(acc.deltas, float64(*d))
		}
		if r.HandlesKept == nil {
			continue
		}
		acc.sum.Measured++
		acc.sum.Kept += *r.HandlesKept
		acc.sum.HandlesBefore += *r.HandlesKept + *r.HandlesRemoved
		acc.sum.Same += *r.HandlesSame
		acc.sum.Wrong += *r.HandlesWrong
	}
}

// stepSummaries returns the step figures, in the order the cells first
// appeared.
func (a *aggregate) stepSummaries() []StepSummary {
	var out []StepSummary
	for _, key := range a.stepOrder {
		acc := a.steps[key]
		s := acc.sum
		s.TokensMean, s.DeltaTokensMean = num(metrics.Mean(acc.tokens)), num(metrics.Mean(acc.deltas))
		if s.HandlesBefore > 0 {
			s.KeptShare = ptr(float64(s.Kept) / float64(s.HandlesBefore))
		}
		if s.Measured > 0 {
			s.WrongPer1000Steps = ptr(float64(s.Wrong) * 1000 / float64(s.Measured))
		}
		out = append(out, s)
	}
	return out
}

// writeSteps writes the report's section on the states after steps; none
// when the crawl had no steps.
func (r *Result) writeSteps(w io.Writer) {
	s := &r.Summary
	if len(s.Steps) == 0 {
		return
	}
	fmt.Fprintf(w, "## Across steps\n\nThe states the crawl's steps left (crawl --steps), each rendered after the one before it: per cell, the mean tokens per step of the full text and of a delta from the previous step's text (%s), the share of the previous step's handles whose element kept a handle, and the handles that silently re-pointed to another element, per 1,000 steps. `stable` cells keep an element's ID for the life of its document; the others number positionally (see docs/handles.md).\n\n", s.headline())
	fmt.Fprint(w, "| cell | format | ID policy | steps | tokens/step (full) | tokens/step (delta) | delta/full | handles kept | same handle | wrong per 1,000 steps |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, st := range s.Steps {
		ratio := "–"
		if st.TokensMean != nil && st.DeltaTokensMean != nil && *st.TokensMean > 0 {
			ratio = fmt.Sprintf("%.2f", *st.DeltaTokensMean / *st.TokensMean)
		}
		share := "–"
		if st.KeptShare != nil {
			share = fmt.Sprintf("%.1f%%", *st.KeptShare*100)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %d | %s | %s | %s | %s | %d of %d | %s |\n", st.Cell, st.Format, orDash(st.IDPolicy), st.Steps,
			fmtOpt(st.TokensMean, 1), fmtOpt(st.DeltaTokensMean, 1), ratio, share, st.Same, st.Kept, fmtOpt(st.WrongPer1000Steps, 1))
	}
	fmt.Fprintln(w)
}
