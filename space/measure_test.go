package space

import (
	"context"
	"testing"
	"time"

	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
)

func ptrTo[T any](v T) *T { return &v }

// TestMeter_Measure: one measurement for crawl and bench alike: counts,
// sizes, exact tokens in the configured encodings only, ratios against
// the HTML, and the deep figures; a space without text keeps sizes 0 and
// tokens null.
func TestMeter_Measure(t *testing.T) {
	m, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	fast := Rendered{Space: render.Space{
		ActionSpace: "B1[:]<button>Sign in</button>\n",
		Perception:  "[Start of page]\nB1[:]<button>Sign in</button>\n[End of page]\n",
		Actions:     []render.Action{{ID: "B1"}},
		Counts:      map[byte]int{dom.LetterButton: 1},
	}}
	wantTok, err := m.Count(fast.ActionSpace)
	if err != nil {
		t.Fatal(err)
	}
	html := Tokens{CL100K: ptrTo(int64(900)), O200K: ptrTo(int64(800))}

	got, err := m.Measure(context.Background(), fast, html)
	if err != nil {
		t.Fatal(err)
	}
	if got.ActionCount != 1 || got.IDsB != 1 || got.SpaceBytes != int64(len(fast.ActionSpace)) || got.PerceptionBytes != int64(len(fast.Perception)) {
		t.Errorf("counts and sizes = %+v", got)
	}
	if got.TokensCL100K == nil || *got.TokensCL100K != *wantTok.CL100K || got.TokensO200K != nil {
		t.Errorf("tokens cl100k %v o200k %v, want %d and null (not configured)", got.TokensCL100K, got.TokensO200K, *wantTok.CL100K)
	}
	if got.RatioCL100K == nil || *got.RatioCL100K != 900/float64(*wantTok.CL100K) || got.RatioO200K != nil {
		t.Errorf("ratios %v %v", got.RatioCL100K, got.RatioO200K)
	}
	if got.LLMRan != nil || got.LLMMS != nil {
		t.Errorf("a fast space has deep columns: %+v", got)
	}

	dry := Rendered{Space: render.Space{Actions: fast.Actions, Counts: fast.Counts}, NoText: true,
		Deep: &DeepFigures{Model: "", PromptTokensLocal: 321}}
	got, err = m.Measure(context.Background(), dry, html)
	if err != nil {
		t.Fatal(err)
	}
	if got.ActionCount != 1 || got.SpaceBytes != 0 || got.TokensCL100K != nil || got.RatioCL100K != nil {
		t.Errorf("dry run: %+v, want the IDs counted and no text measured", got)
	}
	if got.LLMModel != nil || got.LLMRan == nil || *got.LLMRan || got.LLMMS != nil || *got.PromptTokensLocal != 321 || got.Coverage != nil {
		t.Errorf("dry run deep columns: model %v ran %v ms %v prompt %v coverage %v", got.LLMModel, got.LLMRan, got.LLMMS, got.PromptTokensLocal, got.Coverage)
	}

	ran := fast
	ran.Deep = &DeepFigures{Model: "m", LLMRan: true, Calls: 2, LLMTime: 1500 * time.Microsecond, Coverage: ptrTo(0.5), HallucinatedIDs: ptrTo(int64(1))}
	got, err = m.Measure(context.Background(), ran, html)
	if err != nil {
		t.Fatal(err)
	}
	if *got.LLMModel != "m" || *got.LLMCalls != 2 || *got.LLMMS != 1.5 || *got.Coverage != 0.5 || got.TokensCL100K == nil {
		t.Errorf("deep run: %+v", got)
	}
}

func TestMS(t *testing.T) {
	if got := MS(1234567 * time.Nanosecond); got != 1.234567 {
		t.Errorf("MS = %v, want 1.234567 (nanosecond precision)", got)
	}
}

func TestParseModes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		err  bool
	}{{"fast", 1, false}, {"fast,deep", 2, false}, {" deep , fast ", 2, false}, {"fast,fast", 0, true}, {"slow", 0, true}, {"", 0, true}} {
		got, err := ParseModes(tt.in)
		if (err != nil) != tt.err || len(got) != tt.want {
			t.Errorf("ParseModes(%q) = %v, %v", tt.in, got, err)
		}
	}
}
