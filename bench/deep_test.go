package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"actionspace/dataset"
	"actionspace/metrics"
	"actionspace/render"
	"actionspace/space"
)

// describeAll is a chat client that describes every ID named in the
// prompt, reporting a fixed usage.
type describeAll struct{}

var promptID = regexp.MustCompile(`\b[LBIFOM][0-9]+\b`)

func (describeAll) Complete(_ context.Context, req render.ChatRequest) (render.ChatResponse, error) {
	type entry struct {
		ID          string `json:"id"`
		Description string `json:"description"`
		Category    string `json:"category"`
	}
	reply := struct {
		Summary string  `json:"summary"`
		Actions []entry `json:"actions"`
	}{Summary: "A test page."}
	seen := map[string]bool{}
	for _, m := range req.Messages {
		for _, id := range promptID.FindAllString(m.Content, -1) {
			if !seen[id] {
				seen[id] = true
				reply.Actions = append(reply.Actions, entry{ID: id, Description: "Do " + id, Category: "Test"})
			}
		}
	}
	b, err := json.Marshal(reply)
	if err != nil {
		return render.ChatResponse{}, err
	}
	return render.ChatResponse{Content: string(b), Structured: true, Usage: &render.Usage{PromptTokens: 1000, CompletionTokens: 100}}, nil
}

// TestSweep_Deep sweeps fast and deep mode: as a dry run (no LLM client)
// and with a client. Deep rows share the fast rows' IDs; a dry run records
// the prompt's tokens and leaves the text and completion figures null.
func TestSweep_Deep(t *testing.T) {
	dir := writeCaptureDataset(t, t.TempDir(), storedCaptures(t)[:4], datasetOptions{})
	counter, err := metrics.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		client render.ChatClient
	}{{"dry run", nil}, {"llm", describeAll{}}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig("deep")
			cfg.Modes = []string{space.ModeFast, space.ModeDeep}
			cfg.Deep = space.Deep{Renderer: &render.Deep{Client: tt.client, Model: "test-model", Counter: counter}}
			out := t.TempDir()
			res := mustSweep(t, cfg, dir, out)
			rows, err := dataset.ReadAll[CellRow](filepath.Join(out, CellsFile))
			if err != nil {
				t.Fatal(err)
			}
			fast := map[string]CellRow{}
			for _, r := range rows {
				if r.Mode == space.ModeFast {
					fast[r.URL+" "+strings.TrimPrefix(r.Cell, "fast")] = r
				}
			}
			ran := tt.client != nil
			for _, r := range rows {
				if r.Error != "" {
					t.Fatalf("%s %s: %s", r.URL, r.Cell, r.Error)
				}
				if r.Mode != space.ModeDeep {
					continue
				}
				f := fast[r.URL+" "+strings.TrimPrefix(r.Cell, "deep")]
				if r.ActionCount != f.ActionCount || r.IDsL != f.IDsL || r.IDsB != f.IDsB {
					t.Errorf("%s %s: %d IDs, fast mode %d", r.URL, r.Cell, r.ActionCount, f.ActionCount)
				}
				if r.LLMRan == nil || *r.LLMRan != ran || deref(r.PromptTokensLocal) <= 0 || deref(r.LLMModel) != "test-model" {
					t.Errorf("%s %s: llm_ran %v prompt_tokens_local %v model %v", r.URL, r.Cell, r.LLMRan, r.PromptTokensLocal, r.LLMModel)
				}
				if ran != (r.TokensCL100K != nil) || ran != (r.CompletionTokensAPI != nil) || ran != (r.Coverage != nil) {
					t.Errorf("%s %s (llm ran %v): tokens %v, completion %v, coverage %v", r.URL, r.Cell, ran, r.TokensCL100K, r.CompletionTokensAPI, r.Coverage)
				}
				if ran && (*r.Coverage != 1 || *r.CompletionTokensAPI != 100*deref(r.LLMCalls)) {
					t.Errorf("%s %s: coverage %v, completion %v for %v calls", r.URL, r.Cell, *r.Coverage, *r.CompletionTokensAPI, r.LLMCalls)
				}
			}
			for _, c := range res.Summary.Cells {
				if c.Mode != space.ModeDeep {
					continue
				}
				if c.LLMCalls == nil || deref(c.PromptTokensLocal) <= 0 || (c.CompletionTokensAPI != nil) != ran || len(c.Costs) == 0 || c.Costs[0].Partial == ran {
					t.Errorf("summary %s: calls %v prompt %v completion %v costs %+v", c.Cell, c.LLMCalls, c.PromptTokensLocal, c.CompletionTokensAPI, c.Costs)
				}
			}
			report, err := os.ReadFile(filepath.Join(out, ReportFile))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(report), "](deep_tokens.svg)") || !strings.Contains(string(report), "`deep/E-1/all`") {
				t.Errorf("report lacks the deep-mode section")
			}
		})
	}
}
