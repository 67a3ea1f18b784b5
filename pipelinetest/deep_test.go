package pipelinetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/internal/deeptest"
	"actionspace/llm"
	"actionspace/metrics"
	"actionspace/pipeline"
	"actionspace/render"
	"actionspace/space"
)

// chatServer is a local OpenAI-compatible chat-completions server that
// describes every ID a request asks for (deeptest.Describe) and keeps its
// own log of calls and token usage, to check the crawl's accounting
// against.
type chatServer struct {
	mu         sync.Mutex
	calls      int
	prompt     int64
	completion int64
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	msgs, ok := deeptest.ReadChat(w, r)
	if !ok {
		return
	}
	content := deeptest.Describe(msgs[len(msgs)-1], nil)
	promptBytes := 0
	for _, m := range msgs {
		promptBytes += len(m)
	}
	prompt, completion := deeptest.Usage(promptBytes, content)
	s.mu.Lock()
	s.calls++
	s.prompt += prompt
	s.completion += completion
	s.mu.Unlock()
	deeptest.WriteReply(w, content, prompt, completion)
}

// categoryListing is a category of a deep action space with its first
// action under it.
var categoryListing = regexp.MustCompile(`(?m)^# \S[^\n]*\n\* `)

// TestCrawl_DeepMode crawls the corpus with --mode fast,deep against a local
// chat server, reads the deep rows back, checks them against the server's
// own log, then reruns with the cache and requires zero calls and the same
// deep text.
func TestCrawl_DeepMode(t *testing.T) {
	t.Parallel()
	chat := &chatServer{}
	chatSrv := httptest.NewServer(chat)
	defer chatSrv.Close()
	cacheDir := t.TempDir()

	crawl := func() []dataset.SpaceRow {
		b := New(t, Options{}) // a crawl closes its browser
		counter, err := metrics.NewCounter(render.LocalEncoding)
		if err != nil {
			t.Fatal(err)
		}
		cache, err := render.OpenCache(cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		lc := llm.DefaultConfig()
		lc.BaseURL, lc.Model = chatSrv.URL+"/v1", "test-model"
		client, err := llm.NewClient(lc)
		if err != nil {
			t.Fatal(err)
		}
		cfg := pipeline.DefaultConfig()
		cfg.UseFormats([]string{space.FormatActionSpace}) // the other formats are tested apart
		cfg.RunID, cfg.Workers, cfg.Timeout = "deep-test", 2, 30*time.Second
		cfg.Modes = []string{space.ModeFast, space.ModeDeep}
		cfg.Expansions = []int{0}
		cfg.Deep = space.Deep{Renderer: &render.Deep{Client: client, Model: "test-model", Cache: cache, Counter: counter}}
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if _, err := pipeline.Crawl(ctx, cfg, pipeline.TargetsFromURLs(corpora.DefaultURLs(site)), out, b.Opener(), nil); err != nil {
			t.Fatal(err)
		}
		spaceFiles, err := parts.Files(out, dataset.SpacesDir)
		if err != nil {
			t.Fatal(err)
		}
		var rows []dataset.SpaceRow
		for _, f := range spaceFiles {
			part, err := dataset.ReadAll[dataset.SpaceRow](f)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, part...)
		}
		return rows
	}

	first := crawl()
	pages := len(corpora.DefaultPaths())
	if len(first) != 2*pages {
		t.Fatalf("spaces rows = %d, want %d (fast and deep per page)", len(first), 2*pages)
	}
	var calls, prompt, completion int64
	deepText := map[string]string{}
	for _, r := range first {
		if r.Mode != space.ModeDeep {
			if r.LLMRan != nil {
				t.Errorf("%s: fast row has llm_ran", r.URL)
			}
			continue
		}
		if r.LLMRan == nil || !*r.LLMRan || r.Coverage == nil || *r.Coverage < 0.95 || r.LLMError != nil {
			t.Errorf("%s: deep row ran=%v coverage=%v err=%v", r.URL, r.LLMRan, r.Coverage, r.LLMError)
			continue
		}
		if *r.HallucinatedIDs != 0 || *r.LLMModel != "test-model" || *r.PromptTokensLocal <= 0 {
			t.Errorf("%s: hallucinated=%d model=%s local=%d", r.URL, *r.HallucinatedIDs, *r.LLMModel, *r.PromptTokensLocal)
		}
		if r.ActionCount > 0 && !categoryListing.MatchString(r.ActionSpace) {
			t.Errorf("%s: deep action space lacks the category listing:\n%s", r.URL, r.ActionSpace)
		}
		calls += *r.LLMCalls
		prompt += *r.PromptTokensAPI
		completion += *r.CompletionTokensAPI
		deepText[r.URL] = r.ActionSpace
	}
	if calls != int64(chat.calls) || prompt != chat.prompt || completion != chat.completion {
		t.Errorf("rows say %d calls, %d prompt and %d completion tokens; the server saw %d, %d, %d",
			calls, prompt, completion, chat.calls, chat.prompt, chat.completion)
	}

	before := chat.calls
	second := crawl()
	if chat.calls != before {
		t.Errorf("cached rerun made %d HTTP calls, want 0", chat.calls-before)
	}
	for _, r := range second {
		if r.Mode != space.ModeDeep {
			continue
		}
		if r.ActionSpace != deepText[r.URL] || *r.LLMCalls != 0 || *r.CacheHits == 0 {
			t.Errorf("%s: cached rerun calls=%d hits=%d, same text=%v", r.URL, *r.LLMCalls, *r.CacheHits, r.ActionSpace == deepText[r.URL])
		}
	}
}

// TestCrawl_DeepDryRun: without an endpoint, deep rows say the LLM did not
// run, carry the exact prompt's token count, and leave completion null.
func TestCrawl_DeepDryRun(t *testing.T) {
	t.Parallel()
	b := New(t, Options{})
	counter, err := metrics.NewCounter(render.LocalEncoding)
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.DefaultConfig()
	cfg.UseFormats([]string{space.FormatActionSpace}) // the other formats are tested apart
	cfg.RunID, cfg.Workers = "dry", 2
	cfg.Modes = []string{space.ModeDeep}
	cfg.Expansions = []int{0, -1}
	cfg.Deep = space.Deep{Renderer: &render.Deep{Counter: counter}}
	out := t.TempDir()
	urls := corpora.DefaultURLs(site)[:3]
	if _, err := pipeline.Crawl(context.Background(), cfg, pipeline.TargetsFromURLs(urls), out, b.Opener(), nil); err != nil {
		t.Fatal(err)
	}
	files, err := parts.Files(out, dataset.SpacesDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		rows, err := dataset.ReadAll[dataset.SpaceRow](f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			n++
			if r.Mode != space.ModeDeep || r.LLMRan == nil || *r.LLMRan || *r.LLMCalls != 0 || r.PromptTokensLocal == nil || *r.PromptTokensLocal <= 0 ||
				r.CompletionTokensAPI != nil || r.PromptTokensAPI != nil || r.Coverage != nil || r.LLMModel != nil || r.ActionCount == 0 {
				t.Errorf("%s E=%d: dry-run row %+v", r.URL, r.ViewportExpansion, r)
			}
		}
	}
	if n != 2*len(urls) {
		t.Errorf("rows = %d, want %d", n, 2*len(urls))
	}
}
