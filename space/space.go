package space

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"actionspace/dom"
	"actionspace/oracle"
	"actionspace/render"
)

// Mode names, as the mode column of the spaces and cells tables holds
// them.
const (
	// ModeFast is the pure-code renderer, render.Fast.
	ModeFast = "fast"
	// ModeDeep is the LLM-tagging renderer, render.Deep.
	ModeDeep = "deep"
)

// Format names, as the format column of the spaces and cells tables holds
// them: what an agent is given to read.
const (
	// FormatActionSpace is this project's action space, in fast or deep
	// mode.
	FormatActionSpace = "actionspace"
	// FormatPlaywrightAI is Playwright's AI snapshot (what Playwright MCP
	// agents read).
	FormatPlaywrightAI = "playwright-ai"
	// FormatAXTree is Chromium's accessibility tree, flattened as WebArena
	// and BrowserGym print it.
	FormatAXTree = "axtree"
	// FormatHTML is the page's HTML, whole page only.
	FormatHTML = "html"
	// FormatBrowserUse is the text browser-use's DOM serializer gives its
	// agent, rendered from the capture (render.BrowserUse), cut at its
	// own 40,000 characters.
	FormatBrowserUse = "browser-use"
)

// ParseModes reads a comma list of modes: each known, none twice, at
// least one.
func ParseModes(list string) ([]string, error) {
	var modes []string
	for _, m := range strings.Split(list, ",") {
		m = strings.TrimSpace(m)
		if m != ModeFast && m != ModeDeep {
			return nil, fmt.Errorf("unknown mode %q (want fast, deep)", m)
		}
		for _, seen := range modes {
			if seen == m {
				return nil, fmt.Errorf("mode %s listed twice", m)
			}
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// Renderer renders one view of a page in one mode. Crawl workers and bench
// workers share one Renderer, so it must be safe for concurrent use, and
// deterministic in its text: the same view gives the same space.
type Renderer interface {
	Render(ctx context.Context, v *dom.View) (Rendered, error)
}

// Rendered is a rendered space of any format, what its handles cover and,
// for deep mode, what the LLM calls that made it cost.
type Rendered struct {
	// Space holds the text (ActionSpace). Only actionspace has the
	// perception wrapper, the structured actions and the letter counts;
	// the other formats leave them empty.
	render.Space
	// Deep holds the LLM figures; nil for fast mode and other formats.
	Deep *DeepFigures
	// NoText is set when the renderer produced no text to measure (a
	// deep-mode dry run): the sizes stay 0 and the token columns null
	// rather than describing an empty text.
	NoText bool
	// Format is the format rendered; "" means FormatActionSpace.
	Format string
	// Handles is the number of handles in the text (IDs, refs, node ids;
	// none in html). For actionspace it is len(Actions).
	Handles int
	// Score is the space's recall against the page's oracle, in its
	// window; nil when the page has no oracle (no accessibility tree).
	Score *oracle.Score
	// Handled tells, per oracle element (Oracle.Elements), whether it got
	// a handle in the space; nil without an oracle, and for html.
	Handled []bool
	// HandleNodes are, per handle in the order of the text, the node it
	// is: for actionspace the capture element of each action (Actions),
	// for playwright-ai the AI snapshot's line, for axtree the
	// accessibility tree's node. Page.Render sets them; the step metrics
	// read them (see Page.SetPrevious).
	HandleNodes []int
	// OnlyScore is an actionspace space's recall against the oracle
	// elements its element filter (dom.Options.Only) keeps; nil without
	// a filter or an oracle.
	OnlyScore *oracle.Score
}

// actionSpace reports whether r is an actionspace rendering, the one
// format with a perception wrapper, structured actions and letters.
func (r *Rendered) actionSpace() bool { return r.Format == "" || r.Format == FormatActionSpace }

// DeepFigures are what a deep-mode render cost. Nullable figures are nil
// when they were not measured (the LLM did not run, or the API did not
// report usage); they are never estimated.
type DeepFigures struct {
	// Model is the model name sent to the endpoint.
	Model string
	// LLMRan is true when a model reply was used, fresh or from the cache;
	// false for a dry run that only built and counted the prompt.
	LLMRan bool
	// Calls is the number of chat-completion requests sent, retries
	// included.
	Calls int64
	// Rounds is the number of tagging rounds.
	Rounds int64
	// PromptTokensAPI and CompletionTokensAPI are the usage the API
	// reported, summed over the calls.
	PromptTokensAPI, CompletionTokensAPI *int64
	// PromptTokensLocal is the prompts' token count, counted locally;
	// set on a dry run too.
	PromptTokensLocal int64
	// LLMTime is the wall time spent in LLM calls.
	LLMTime time.Duration
	// Coverage is the fraction of IDs described; nil when the LLM did not
	// run.
	Coverage *float64
	// HallucinatedIDs counts reply IDs the page does not have; nil when
	// the LLM did not run.
	HallucinatedIDs *int64
	// CacheHits counts replies served from the cache.
	CacheHits int64
}

// Fast is the fast-mode Renderer: render.Fast, pure code. Its zero value
// is ready to use.
type Fast struct{}

// Render renders v with render.Fast; it never fails.
func (Fast) Render(_ context.Context, v *dom.View) (Rendered, error) {
	sp := render.Fast(v)
	return Rendered{Space: sp, Handles: len(sp.Actions)}, nil
}

// Deep is the deep-mode Renderer: it adapts a render.Deep. Its IDs and
// structured actions are those of the fast rendering of the same view
// (which fixes the IDs); its action space is the model's description. A
// dry run (no LLM client) produces no description: NoText is then set,
// while the prompt's locally counted tokens are recorded.
type Deep struct {
	// Renderer is the configured deep renderer; required.
	Renderer *render.Deep
}

// Render renders v in deep mode. On an LLM failure it returns the error
// together with the figures of the calls made and what was described.
func (d Deep) Render(ctx context.Context, v *dom.View) (Rendered, error) {
	if d.Renderer == nil {
		return Rendered{}, errors.New("deep mode: no renderer configured")
	}
	ds, err := d.Renderer.Render(ctx, v)
	r := Rendered{
		Space: render.Space{ActionSpace: ds.Text, Perception: ds.Perception, Actions: ds.Fast.Actions, Counts: ds.Fast.Counts},
		Deep: &DeepFigures{
			Model:               ds.Model,
			LLMRan:              ds.LLMRan,
			Calls:               int64(ds.Calls),
			Rounds:              int64(ds.Rounds),
			PromptTokensAPI:     ds.PromptTokensAPI,
			CompletionTokensAPI: ds.CompletionTokensAPI,
			PromptTokensLocal:   ds.PromptTokensLocal,
			LLMTime:             ds.LLMTime,
			CacheHits:           int64(ds.CacheHits),
		},
		NoText:  !ds.LLMRan,
		Handles: len(ds.Fast.Actions),
	}
	if ds.LLMRan {
		r.Deep.Coverage = ptr(ds.Coverage)
		r.Deep.HallucinatedIDs = ptr(int64(ds.HallucinatedIDs))
	}
	return r, err
}

// Validate reports whether the deep renderer is usable.
func (d Deep) Validate() error {
	if d.Renderer == nil {
		return errors.New("deep mode: no renderer configured")
	}
	return d.Renderer.Validate()
}

func ptr[T any](v T) *T { return &v }

// shiftLines moves the handle lines of fs down by n lines (a wrapper line
// added before its text).
func shiftLines(fs *render.FormatSpace, n int) {
	for k := range fs.HandleLines {
		fs.HandleLines[k] += n
	}
	for k, l := range fs.HandledLine {
		if l >= 0 {
			fs.HandledLine[k] = l + n
		}
	}
}
