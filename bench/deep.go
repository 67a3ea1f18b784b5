package bench

import (
	"context"
	"errors"

	"actionspace/dom"
	"actionspace/render"
)

// Deep is the deep-mode Renderer: it adapts a render.Deep. Its IDs and
// structured actions are those of the fast rendering of the same view
// (which fixes the IDs); its action space is the model's description. A
// dry run (no LLM client) produces no description: the space's text is
// then marked missing and its token columns stay null, while the prompt's
// locally counted tokens are recorded.
type Deep struct {
	// Renderer is the configured deep renderer; required.
	Renderer *render.Deep
}

// Render renders v in deep mode. On an LLM failure it returns the error
// together with the figures of the calls made.
func (d Deep) Render(ctx context.Context, v *dom.View) (Space, error) {
	if d.Renderer == nil {
		return Space{}, errors.New("deep mode: no renderer configured")
	}
	ds, err := d.Renderer.Render(ctx, v)
	sp := Space{
		Space: render.Space{ActionSpace: ds.Text, Perception: ds.Perception, Actions: ds.Fast.Actions, Counts: ds.Fast.Counts},
		Deep: &DeepFigures{
			Model:               ds.Model,
			LLMRan:              ds.LLMRan,
			Calls:               int64(ds.Calls),
			Rounds:              int64(ds.Rounds),
			PromptTokensAPI:     ds.PromptTokensAPI,
			CompletionTokensAPI: ds.CompletionTokensAPI,
			PromptTokensLocal:   ds.PromptTokensLocal,
			LLMMS:               ms(ds.LLMTime),
			CacheHits:           int64(ds.CacheHits),
		},
		NoText: !ds.LLMRan,
	}
	if ds.LLMRan {
		sp.Deep.Coverage = ptr(ds.Coverage)
		sp.Deep.HallucinatedIDs = ptr(int64(ds.HallucinatedIDs))
	}
	return sp, err
}
