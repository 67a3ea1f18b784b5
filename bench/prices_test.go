package bench

import (
	"math"
	"strings"
	"testing"

	"actionspace/dataset"
	"actionspace/metrics"
	"actionspace/space"
)

func TestDefaultPrices(t *testing.T) {
	p, err := ParsePrices(defaultPrices)
	if err != nil {
		t.Fatalf("embedded prices.json: %v", err)
	}
	if len(p.Models) == 0 || p.AsOf == "" {
		t.Errorf("embedded prices.json: %+v", p)
	}
	encs := map[metrics.Encoding]bool{}
	for _, m := range p.Models {
		encs[m.Encoding] = true
	}
	if !encs[metrics.CL100K] || !encs[metrics.O200K] {
		t.Errorf("embedded prices.json prices %v, want a model per encoding", encs)
	}
}

func TestParsePrices(t *testing.T) {
	tests := []struct {
		json, wantErr string
	}{
		{`{"models":[{"model":"m","encoding":"o200k_base","input_per_1m":1,"output_per_1m":2}]}`, ""},
		{`{"models":[]}`, ""},
		{`{"models":[{"model":"","encoding":"o200k_base"}]}`, "empty model"},
		{`{"models":[{"model":"m","encoding":"gpt2"}]}`, "unknown encoding"},
		{`{"models":[{"model":"m","encoding":"o200k_base","input_per_1m":-1}]}`, "negative"},
		{`{"models":[{"model":"m","encoding":"o200k_base"},{"model":"m","encoding":"o200k_base"}]}`, "twice"},
		{`{"models":[{"model":"m","encoding":"o200k_base","price":1}]}`, "unknown field"},
		{`[`, "decode"},
	}
	for _, tt := range tests {
		_, err := ParsePrices([]byte(tt.json))
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("ParsePrices(%s) = %v", tt.json, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ParsePrices(%s) = %v, want an error containing %q", tt.json, err, tt.wantErr)
		}
	}
}

func TestPrice_cost(t *testing.T) {
	m := Price{Model: "m", Encoding: metrics.O200K, InputPer1M: 2.5, OutputPer1M: 10}
	got := m.cost(4, 2_000_000, 100_000, true)
	if want := 2*2.5 + 0.1*10; math.Abs(got.USD-want) > 1e-9 || math.Abs(got.USDPer1KPages-want/4*1000) > 1e-9 || !got.Partial {
		t.Errorf("cost = %+v, want USD %v", got, want)
	}
	if got := m.cost(0, 0, 0, false); got.USD != 0 || got.USDPer1KPages != 0 {
		t.Errorf("cost of nothing = %+v", got)
	}
}

// TestCellAcc_deep folds deep-mode rows into a cell: sums stay null until
// a value arrives, completion tokens are never estimated, and a dry run
// makes the cost partial.
func TestCellAcc_deep(t *testing.T) {
	a := &cellAcc{cell: Cell{Mode: space.ModeDeep, Expansion: 0, Text: "viewport"}}
	tok := func(n int64) *int64 { return &n }
	a.add(&CellRow{SpaceMetrics: dataset.SpaceMetrics{TokensO200K: tok(100), PerceptionTokensO200K: tok(120), LLMRan: ptr(false), LLMCalls: tok(0), PromptTokensLocal: tok(900), CacheHits: tok(0)}})
	a.add(&CellRow{SpaceMetrics: dataset.SpaceMetrics{TokensO200K: tok(50), PerceptionTokensO200K: tok(60), LLMRan: ptr(true), LLMCalls: tok(2), PromptTokensLocal: tok(1000),
		PromptTokensAPI: tok(1100), CompletionTokensAPI: tok(300), Coverage: ptr(1.0), HallucinatedIDs: tok(1), LLMMS: ptr(800.0), CacheHits: tok(0)}})
	a.add(&CellRow{Error: "render deep/E0/viewport: timeout"})
	s := a.summary([]metrics.Encoding{metrics.O200K}, Prices{Models: []Price{{Model: "m", Encoding: metrics.O200K, InputPer1M: 1e6, OutputPer1M: 2e6}}})
	if s.Pages != 3 || s.Errors != 1 || *s.LLMRanPages != 1 || *s.LLMCalls != 2 || *s.PromptTokensLocal != 1900 ||
		*s.PromptTokensAPI != 1100 || *s.CompletionTokensAPI != 300 || *s.HallucinatedIDs != 1 || *s.CoverageMean != 1 {
		t.Errorf("summary = %+v", s)
	}
	if s.TokensCL100KMean != nil || *s.TokensO200KMean != 75 || *s.TokensO200KSum != 150 {
		t.Errorf("tokens: cl100k %v, o200k mean %v sum %v", s.TokensCL100KMean, *s.TokensO200KMean, *s.TokensO200KSum)
	}
	// input: perception 180 + prompts (900 local for the dry run, 1100
	// API-reported) at $1 a token; output: 300 at $2.
	want := Cost{Model: "m", Encoding: "o200k_base", InputTokens: 180 + 900 + 1100, OutputTokens: 300,
		USD: 2180 + 600, USDPer1KPages: (2180 + 600) / 2.0 * 1000, Partial: true}
	if len(s.Costs) != 1 || s.Costs[0] != want {
		t.Errorf("costs = %+v, want %+v", s.Costs, want)
	}
}
