package space

import (
	"context"
	"strings"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/oracle"
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

// TestMeter_MeasureReasons: every measure Measure leaves null comes with
// its reason, and a measured one with none.
func TestMeter_MeasureReasons(t *testing.T) {
	m, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	text := "B1[:]<button>Sign in</button>\n"
	fast := func(score *oracle.Score) Rendered {
		return Rendered{Format: FormatActionSpace, Space: render.Space{ActionSpace: text, Perception: "[Start]\n" + text, Actions: []render.Action{{ID: "B1"}}}, Score: score}
	}
	counted := Tokens{CL100K: ptrTo(int64(900))}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	tests := []struct {
		name                  string
		ctx                   context.Context
		r                     Rendered
		html                  Tokens
		tokens, ratio, recall string
		wantErr               bool
	}{
		{"all measured", context.Background(), fast(&oracle.Score{InWindow: 2, Handled: 1}), counted, "", "", "", false},
		{"no oracle", context.Background(), fast(nil), counted, "", "", dataset.SkippedNoOracle, false},
		{"none in window", context.Background(), fast(&oracle.Score{}), counted, "", "", dataset.SkippedNoneInWindow, false},
		{"html has no recall", context.Background(), Rendered{Format: FormatHTML, Space: render.Space{ActionSpace: "<p>x</p>"}, Score: &oracle.Score{InWindow: 3}}, counted, "", "", dataset.SkippedNotApplicable, false},
		{"html uncounted", context.Background(), fast(nil), Tokens{}, "", dataset.SkippedHTMLUncounted, dataset.SkippedNoOracle, false},
		{"empty text", context.Background(), Rendered{Format: FormatPlaywrightAI, Space: render.Space{ActionSpace: ""}}, counted, "", dataset.SkippedZeroTokens, dataset.SkippedNoOracle, false},
		{"dry run", context.Background(), Rendered{Format: FormatActionSpace, NoText: true, Deep: &DeepFigures{}}, counted, dataset.SkippedNoText, dataset.SkippedSpaceUncounted, dataset.SkippedNoOracle, false},
		// Counting takes linear time: it is not held to ctx, and no text is
		// too long for it.
		{"past the deadline", expired, fast(nil), counted, "", "", dataset.SkippedNoOracle, false},
		{"long white-space run", context.Background(), Rendered{Format: FormatAXTree, Space: render.Space{ActionSpace: strings.Repeat(" \n", 64<<10)}}, counted, "", "", dataset.SkippedNoOracle, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := m.Measure(tt.ctx, tt.r, tt.html)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Measure error %v, want error %v", err, tt.wantErr)
			}
			if got.TokensSkipped != tt.tokens || got.RatioSkipped != tt.ratio || got.RecallSkipped != tt.recall {
				t.Errorf("tokens_skipped %q, ratio_skipped %q, recall_skipped %q; want %q, %q, %q",
					got.TokensSkipped, got.RatioSkipped, got.RecallSkipped, tt.tokens, tt.ratio, tt.recall)
			}
			// A null measure has a reason; a reason, a null measure.
			if (got.TokensCL100K == nil) != (got.TokensSkipped != "") {
				t.Errorf("tokens %s with tokens_skipped %q", ptrString(got.TokensCL100K), got.TokensSkipped)
			}
			if (got.RatioCL100K == nil) != (got.RatioSkipped != "") {
				t.Errorf("ratio %s with ratio_skipped %q", ptrString(got.RatioCL100K), got.RatioSkipped)
			}
			if (got.Recall == nil) != (got.RecallSkipped != "") {
				t.Errorf("recall %s with recall_skipped %q", ptrString(got.Recall), got.RecallSkipped)
			}
		})
	}
}

// TestMeter_MeasureHTMLCountedOnce: the html format's tokens are the
// page's HTML tokens, not counted a second time: they need no time left.
func TestMeter_MeasureHTMLCountedOnce(t *testing.T) {
	m, err := NewMeter(metrics.CL100K)
	if err != nil {
		t.Fatal(err)
	}
	page := "<p>" + strings.Repeat("word ", 1000) + "</p>"
	html, err := m.Count(page)
	if err != nil {
		t.Fatal(err)
	}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	got, err := m.Measure(expired, Rendered{Format: FormatHTML, Space: render.Space{ActionSpace: page}}, html)
	if err != nil {
		t.Fatal(err)
	}
	if got.TokensCL100K == nil || *got.TokensCL100K != *html.CL100K || got.SpaceBytes != int64(len(page)) || got.RatioCL100K == nil || *got.RatioCL100K != 1 {
		t.Errorf("html row: tokens %s bytes %d ratio %s; want %d, %d, 1", ptrString(got.TokensCL100K), got.SpaceBytes, ptrString(got.RatioCL100K), *html.CL100K, len(page))
	}
}

// TestStoreText: the html format's text is not stored in the spaces row,
// and no spaces row is larger than MaxRowBytes, whatever the page.
func TestStoreText(t *testing.T) {
	big := strings.Repeat("x", MaxRowBytes)
	many := make([]render.Action, MaxRowBytes/200)
	for i := range many {
		many[i] = render.Action{ID: "B1", Name: strings.Repeat("n", 150)}
	}
	tests := []struct {
		name        string
		r           Rendered
		wantSkipped string
		wantText    bool
	}{
		{"small actionspace", Rendered{Format: FormatActionSpace, Space: render.Space{ActionSpace: "B1 x", Perception: "[Start]B1 x"}}, "", true},
		{"html", Rendered{Format: FormatHTML, Space: render.Space{ActionSpace: "<p>x</p>"}}, dataset.SkippedInBlobs, false},
		{"dry run", Rendered{Format: FormatActionSpace, NoText: true}, dataset.SkippedNoText, false},
		{"huge text", Rendered{Format: FormatActionSpace, Space: render.Space{ActionSpace: big, Perception: big}}, dataset.SkippedTooLarge, false},
		{"huge axtree", Rendered{Format: FormatAXTree, Space: render.Space{ActionSpace: big + big}}, dataset.SkippedTooLarge, false},
		{"huge actions", Rendered{Format: FormatActionSpace, Space: render.Space{ActionSpace: "x", Actions: append(many, many...)}}, dataset.SkippedTooLarge, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := dataset.SpaceRow{URL: "http://x.test/", Format: tt.r.Format, Actions: Actions(tt.r.Actions)}
			StoreText(&row, tt.r)
			if row.TextSkipped != tt.wantSkipped || (row.ActionSpace != "") != tt.wantText {
				t.Errorf("text_skipped %q, action_space of %d bytes; want %q and text %v", row.TextSkipped, len(row.ActionSpace), tt.wantSkipped, tt.wantText)
			}
			if n := RowBytes(&row); n > MaxRowBytes {
				t.Errorf("row of %d bytes, more than %d", n, MaxRowBytes)
			}
		})
	}
}
