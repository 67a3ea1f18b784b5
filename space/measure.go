package space

import (
	"context"
	"errors"
	"fmt"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
)

// Tokens is a text's token count in each encoding that has a column; nil
// where the encoding was not counted.
type Tokens struct {
	CL100K, O200K *int64
}

// Of returns the count in enc; nil when it was not counted.
func (t Tokens) Of(enc metrics.Encoding) *int64 {
	switch enc {
	case metrics.CL100K:
		return t.CL100K
	case metrics.O200K:
		return t.O200K
	}
	return nil
}

func (t *Tokens) set(enc metrics.Encoding, n int64) {
	switch enc {
	case metrics.CL100K:
		t.CL100K = &n
	case metrics.O200K:
		t.O200K = &n
	}
}

// Meter measures rendered spaces in a fixed set of encodings. It is the
// one measurement of a space that crawl and bench share: sizes, ID
// counts, tokens, compression ratios, timings and the deep-mode figures.
// A Meter is safe for concurrent use.
type Meter struct {
	counter   *metrics.Counter
	encodings []metrics.Encoding
}

// NewMeter loads the tokenizers of encodings (at least one).
func NewMeter(encodings ...metrics.Encoding) (*Meter, error) {
	if len(encodings) == 0 {
		return nil, fmt.Errorf("encodings: empty list")
	}
	c, err := metrics.NewCounter(encodings...)
	if err != nil {
		return nil, fmt.Errorf("tokenizers: %w", err)
	}
	return &Meter{counter: c, encodings: encodings}, nil
}

// Encodings returns the encodings m counts, in the order given to NewMeter.
func (m *Meter) Encodings() []metrics.Encoding { return m.encodings }

// Count counts text's tokens in every encoding of m.
func (m *Meter) Count(text string) (Tokens, error) {
	var t Tokens
	for _, enc := range m.encodings {
		n, err := m.counter.Count(enc, text)
		if err != nil {
			return Tokens{}, err
		}
		t.set(enc, n)
	}
	return t, nil
}

// Measure measures a rendered space of any format against its page's
// HTML token counts: handle counts (per letter for actionspace), sizes,
// tokens of the text and, for actionspace, of the perception text, ratios,
// recall against the oracle, the tokenizing time and, for deep mode, the
// LLM figures. The render time is the caller's to set (RenderMS), as only
// it knows what it timed. A space without text (NoText) keeps sizes 0 and
// tokens null; a format without a perception wrapper keeps the perception
// columns 0 and null. Counting takes time linear in the text's length
// (a page's html format is as long as its HTML) and is not held to ctx.
// It fails only when counting fails; the metrics then hold everything but
// the tokens.
func (m *Meter) Measure(ctx context.Context, r Rendered, html Tokens) (dataset.SpaceMetrics, error) {
	sm := dataset.SpaceMetrics{
		ActionCount: int64(r.Handles),
		IDsL:        int64(r.Counts[dom.LetterLink]),
		IDsB:        int64(r.Counts[dom.LetterButton]),
		IDsI:        int64(r.Counts[dom.LetterInput]),
		IDsF:        int64(r.Counts[dom.LetterImage]),
		IDsO:        int64(r.Counts[dom.LetterOption]),
		IDsM:        int64(r.Counts[dom.LetterOther]),
	}
	if r.actionSpace() {
		sm.ActionCount = int64(len(r.Actions))
	}
	sm.RecallSkipped = dataset.SkippedNoOracle
	if s := r.Score; s != nil {
		sm.OracleInWindow, sm.ExtraHandles = ptr(int64(s.InWindow)), ptr(int64(s.Extra))
		rec, ok := s.Recall()
		switch {
		case r.Format == FormatHTML:
			sm.RecallSkipped = dataset.SkippedNotApplicable
		case !ok:
			sm.RecallSkipped = dataset.SkippedNoneInWindow
		default:
			sm.Recall, sm.RecallSkipped = ptr(rec), ""
		}
		if o := r.OnlyScore; o != nil {
			if rec, ok := o.Recall(); ok {
				sm.RecallFiltered = ptr(rec)
			}
		}
	}
	if d := r.Deep; d != nil {
		if d.Model != "" {
			sm.LLMModel = ptr(d.Model)
		}
		sm.LLMRan = ptr(d.LLMRan)
		sm.LLMCalls, sm.LLMRounds = ptr(d.Calls), ptr(d.Rounds)
		sm.PromptTokensAPI, sm.CompletionTokensAPI = d.PromptTokensAPI, d.CompletionTokensAPI
		sm.PromptTokensLocal = ptr(d.PromptTokensLocal)
		if d.LLMRan || d.Calls > 0 {
			sm.LLMMS = ptr(MS(d.LLMTime))
		}
		sm.Coverage, sm.HallucinatedIDs = d.Coverage, d.HallucinatedIDs
		sm.CacheHits = ptr(d.CacheHits)
	}
	sm.RatioSkipped = dataset.SkippedSpaceUncounted
	if r.NoText {
		sm.TokensSkipped = dataset.SkippedNoText
		return sm, nil
	}
	sm.SpaceBytes = int64(len(r.ActionSpace))
	start := time.Now()
	tok, err := html, error(nil)
	if r.Format != FormatHTML || !m.counted(html) {
		// (the html format's text is the page's HTML, counted once)
		tok, err = m.Count(r.ActionSpace)
	}
	if err != nil {
		sm.TokensSkipped = SkipReason(err)
		return sm, fmt.Errorf("count tokens: %w", err)
	}
	if r.actionSpace() {
		sm.PerceptionBytes = int64(len(r.Perception))
		ptok, err := m.Count(r.Perception)
		if err != nil {
			sm.TokensSkipped = SkipReason(err)
			return sm, fmt.Errorf("count tokens: %w", err)
		}
		sm.PerceptionTokensCL100K, sm.PerceptionTokensO200K = ptok.CL100K, ptok.O200K
	}
	sm.TokenizeMS = MS(time.Since(start))
	sm.TokensCL100K, sm.TokensO200K = tok.CL100K, tok.O200K
	sm.RatioCL100K, sm.RatioO200K = Ratio(html.CL100K, tok.CL100K), Ratio(html.O200K, tok.O200K)
	sm.RatioSkipped = ""
	switch {
	case !m.counted(html):
		sm.RatioSkipped = dataset.SkippedHTMLUncounted
	case sm.RatioCL100K == nil && sm.RatioO200K == nil:
		sm.RatioSkipped = dataset.SkippedZeroTokens
	}
	return sm, nil
}

// counted reports whether t holds a count in every encoding of m.
func (m *Meter) counted(t Tokens) bool {
	for _, enc := range m.encodings {
		if t.Of(enc) == nil {
			return false
		}
	}
	return true
}

// SkipReason is why a count or measure that failed with err is missing,
// as the *_skipped columns say it: dataset.SkippedDeadline when its time
// limit ran out, dataset.SkippedFailed otherwise.
func SkipReason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return dataset.SkippedDeadline
	}
	return dataset.SkippedFailed
}

// Ratio is the compression ratio html / space (see metrics.Ratio); nil
// when either count is missing or the space has no tokens.
func Ratio(html, space *int64) *float64 {
	if html == nil || space == nil {
		return nil
	}
	r, ok := metrics.Ratio(*html, *space)
	if !ok {
		return nil
	}
	return &r
}

// MS converts a duration to the milliseconds every *_ms column holds, with
// nanosecond precision.
func MS(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Actions converts a space's actions to the dataset's structured list.
func Actions(actions []render.Action) []dataset.Action {
	out := make([]dataset.Action, len(actions))
	for i, a := range actions {
		out[i] = dataset.Action{ID: a.ID, Role: a.Role, Tag: a.Tag, Kind: a.Kind, Name: a.Name,
			Locator: a.Locator, X: a.Rect[0], Y: a.Rect[1], Width: a.Rect[2], Height: a.Rect[3]}
	}
	return out
}

// MaxRowBytes bounds the variable-length values of one spaces row (its
// texts, actions and error) so that a row group of a few rows stays small
// whatever the page: the html format's text, as large as the page's HTML,
// is stored once in the blobs table instead (see StoreText).
const MaxRowBytes = 2 << 20

// StoreText puts a rendered space's texts into row, or says in
// row.TextSkipped why it does not: the html format's text is the blobs
// table's html (dataset.SkippedInBlobs); a space without text has none
// (dataset.SkippedNoText); texts that would make the row larger than
// MaxRowBytes are left out, and then the actions too if the row is still
// larger (dataset.SkippedTooLarge). The measures describe the text either
// way.
func StoreText(row *dataset.SpaceRow, r Rendered) {
	switch {
	case r.NoText:
		row.TextSkipped = dataset.SkippedNoText
		return
	case r.Format == FormatHTML:
		row.TextSkipped = dataset.SkippedInBlobs
		return
	}
	row.ActionSpace, row.PerceptionText = r.ActionSpace, r.Perception
	LimitRow(row)
}

// LimitRow enforces MaxRowBytes on row: when its variable-length values
// add up to more, it empties the texts and, if that is not enough, the
// actions list, and sets row.TextSkipped to dataset.SkippedTooLarge; an
// LLM error message that still breaks the bound is cut to 4 KiB.
func LimitRow(row *dataset.SpaceRow) {
	if RowBytes(row) <= MaxRowBytes {
		return
	}
	row.ActionSpace, row.PerceptionText = "", ""
	row.TextSkipped = dataset.SkippedTooLarge
	if RowBytes(row) > MaxRowBytes {
		row.Actions = []dataset.Action{}
	}
	if e := row.LLMError; e != nil && RowBytes(row) > MaxRowBytes {
		cut, _ := dom.CutHTML(*e, maxErrorBytes) // a cut between characters
		row.LLMError = &cut
	}
}

// maxErrorBytes is how much of an error message LimitRow keeps when the
// message alone would break MaxRowBytes.
const maxErrorBytes = 4 << 10

// RowBytes is the size of row's variable-length values as written
// (strings and the actions list; 64 bytes for each action's numbers):
// what MaxRowBytes bounds.
func RowBytes(row *dataset.SpaceRow) int {
	n := len(row.URL) + len(row.ActionSpace) + len(row.PerceptionText)
	for _, a := range row.Actions {
		n += 64 + len(a.ID) + len(a.Role) + len(a.Tag) + len(a.Kind) + len(a.Name) + len(a.Locator)
	}
	if row.LLMError != nil {
		n += len(*row.LLMError)
	}
	return n
}
