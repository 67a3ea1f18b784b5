package bench

import (
	"context"

	"actionspace/dom"
	"actionspace/render"
)

// Renderer renders one view of a page in one mode. Workers share one
// Renderer, so it must be safe for concurrent use. A Renderer must be
// deterministic in its text: the same view gives the same space.
type Renderer interface {
	Render(ctx context.Context, v *dom.View) (Space, error)
}

// Space is a rendered action space and, for deep mode, the figures of the
// LLM calls that made it.
type Space struct {
	render.Space
	// Deep holds the LLM figures; nil for fast mode.
	Deep *DeepFigures
	// NoText is set when the renderer produced no action-space text to
	// measure (a deep-mode dry run): the row's text hashes and token
	// columns stay empty and null rather than describing an empty text.
	NoText bool
}

// DeepFigures are what a deep-mode render cost. Nullable figures are nil
// when they were not measured (the LLM did not run, or the API did not
// report usage); they are never estimated.
type DeepFigures struct {
	// Model is the model name sent to the endpoint.
	Model string
	// LLMRan is true when the endpoint was called or a cached reply was
	// used; false for a dry run that only built and counted the prompt.
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
	// LLMMS is the wall time spent in LLM calls, in milliseconds; not
	// recorded when the LLM did not run.
	LLMMS float64
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
func (Fast) Render(_ context.Context, v *dom.View) (Space, error) {
	return Space{Space: render.Fast(v)}, nil
}
