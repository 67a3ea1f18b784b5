package pipeline

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
	"actionspace/space"
)

// TestCrawlWith_Resume resumes with a fake browser: only the URLs missing
// from the dataset are loaded, and together the parts hold every URL once.
func TestCrawlWith_Resume(t *testing.T) {
	dir := t.TempDir()
	var loaded []string
	// The first crawl is interrupted as its sixth load starts, so that
	// URLs are left whatever the machine's load: interrupted on its sixth
	// result instead, a crawl on a loaded machine had loaded all ten by
	// then (a page loads its next URL while the last one is processed).
	ctx, cancel := context.WithCancel(context.Background())
	interruptAt := 6
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) {
		loaded = append(loaded, url)
		if len(loaded) == interruptAt {
			cancel()
		}
		return okLoad(url), nil
	}}
	cfg := fakeConfig(t)
	cfg.Workers = 1
	cfg.RunID = "first"
	cfg.Output.PartPages = 4
	targets := fakeTargets(10)
	first, err := Crawl(ctx, cfg, targets, dir, opened(b), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first crawl: %v, want context.Canceled", err)
	}

	loaded, interruptAt = nil, 0
	cfg.RunID = ""
	cfg.Resume = true
	stats, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.OK < 6 || first.OK == 10 || stats.Skipped != first.OK || stats.OK != 10-first.OK || stats.Targets != 10 || stats.RunID != "first" {
		t.Errorf("first run %+v, resume %+v; want the resume to skip what the first did and do the rest", first, stats)
	}
	if len(loaded) != 10-first.OK {
		t.Errorf("resume loaded %v, want the %d missing URLs", loaded, 10-first.OK)
	}
	pages, err := parts.Files(dir, dataset.PagesDir)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, p := range pages {
		rows, err := dataset.ReadAll[dataset.PageRow](p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			count[r.URL]++
			if r.RunID != "first" {
				t.Errorf("%s: run_id %q, want first", r.URL, r.RunID)
			}
		}
	}
	for _, tg := range targets {
		if count[tg.URL] != 1 {
			t.Errorf("%s: %d rows, want 1", tg.URL, count[tg.URL])
		}
	}

	// Nothing left: a second resume loads nothing.
	loaded = nil
	if stats, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil); err != nil || stats.Skipped != 10 || len(loaded) != 0 {
		t.Errorf("second resume: %+v, %v, loaded %v; want all skipped", stats, err, loaded)
	}

	// Other row-shaping settings are refused.
	cfg.Expansions = []int{0, 500}
	if _, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil); err == nil || !strings.Contains(err.Error(), "viewport_expansions") {
		t.Errorf("resume with other expansions: %v, want it refused", err)
	}
	cfg.Expansions = []int{0}
	cfg.RunID = "other"
	if _, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil); err == nil || !strings.Contains(err.Error(), "first") {
		t.Errorf("resume as another run: %v, want it refused", err)
	}
}

// TestCrawlWith_Partitions: two crawls (shards) write partitions of one
// dataset directory; each refuses only its own used partition, a resume
// cleans up only its own partition and skips what any partition holds, and
// DatasetFiles lists every part.
func TestCrawlWith_Partitions(t *testing.T) {
	dir := t.TempDir()
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) { return okLoad(url), nil }}
	targets := fakeTargets(12)
	cfg := fakeConfig(t)
	cfg.Output.PartPages = 2
	for i, part := range []string{"shard=0000", "shard=0001"} {
		cfg.Output.Partition = part
		if _, err := Crawl(context.Background(), cfg, targets[i*6:(i+1)*6], dir, opened(b), nil); err != nil {
			t.Fatalf("%s: %v", part, err)
		}
	}
	cfg.Output.Partition = "shard=0000"
	if _, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil); err == nil {
		t.Error("a new crawl into a used partition succeeded, want it refused")
	}
	// shard=0001 is "still running": its open part must survive a resume
	// of another partition.
	open := filepath.Join(dir, dataset.SpacesDir, "shard=0001", "part-00009.parquet"+store.TempSuffix)
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Output.Partition = ""
	cfg.Resume = true
	stats, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil)
	if err != nil || stats.Skipped != 12 {
		t.Errorf("resume of the whole list: %+v, %v; want all 12 skipped", stats, err)
	}
	if _, err := os.Stat(open); err != nil {
		t.Errorf("another partition's open part was touched: %v", err)
	}
	pages, err := parts.Files(dir, dataset.PagesDir)
	var spaces []string
	if err == nil {
		spaces, err = parts.Files(dir, dataset.SpacesDir)
	}
	if err != nil || len(pages) != 6 || len(spaces) != 6 {
		t.Errorf("DatasetFiles: %d pages and %d spaces parts, %v; want 6 and 6", len(pages), len(spaces), err)
	}
	for _, bad := range []string{"../x", "a/b", ".hidden", ".."} {
		cfg.Output.Partition = bad
		if err := cfg.Validate(); err == nil {
			t.Errorf("partition %q accepted", bad)
		}
	}
}

// TestCrawlWith_ResumeRecrawlsTransient: a resume crawls again exactly the
// pages whose rows failed transiently (timeout, navigate, browser, 5xx),
// first, and supersedes their old rows; a 404 and a capture failure stay.
// With ResumeKeepFailed it crawls none of them.
func TestCrawlWith_ResumeRecrawlsTransient(t *testing.T) {
	targets := fakeTargets(12)
	fail := map[string]error{
		targets[1].URL:  &PageError{Kind: KindTimeout, Err: errors.New("timeout 2000ms exceeded")},
		targets[4].URL:  &PageError{Kind: KindHTTP, Err: &StatusError{Code: 503}},
		targets[5].URL:  &PageError{Kind: KindHTTP, Err: &StatusError{Code: 404}},
		targets[7].URL:  &PageError{Kind: KindNavigate, Err: errors.New("net::ERR_CONNECTION_RESET")},
		targets[8].URL:  &PageError{Kind: KindCapture, Err: errors.New("capture script threw")},
		targets[10].URL: &PageError{Kind: KindBrowser, Err: errors.New("page crashed")},
	}
	transient := []string{targets[1].URL, targets[4].URL, targets[7].URL, targets[10].URL}
	var mu sync.Mutex
	var loaded []string
	healed := false
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) {
		mu.Lock()
		defer mu.Unlock()
		loaded = append(loaded, url)
		if err := fail[url]; err != nil && !healed {
			l := okLoad(url)
			var pe *PageError
			if errors.As(err, &pe) {
				var se *StatusError
				if errors.As(pe.Err, &se) {
					l.HTTPStatus = se.Code
				}
			}
			return l, err
		}
		return okLoad(url), nil
	}}
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep-failed=%v", keep), func(t *testing.T) {
			dir := t.TempDir()
			cfg := fakeConfig(t)
			cfg.Workers, cfg.Retries, cfg.Output.PartPages = 1, 0, 3
			healed, loaded = false, nil
			if _, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil); err != nil {
				t.Fatal(err)
			}
			healed, loaded = true, nil
			cfg.Resume, cfg.ResumeKeepFailed = true, keep
			stats, err := Crawl(context.Background(), cfg, targets, dir, opened(b), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := transient
			if keep {
				want = nil
			}
			if !slices.Equal(loaded, want) {
				t.Errorf("resume loaded %v, want %v", loaded, want)
			}
			if stats.Recrawled != len(want) || stats.Superseded != len(want) || stats.Skipped != len(targets)-len(want) {
				t.Errorf("stats %+v, want %d crawled again and superseded, the rest skipped", stats, len(want))
			}
			rows := map[string][]dataset.PageRow{}
			pages, err := parts.Files(dir, dataset.PagesDir)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pages {
				got, err := dataset.ReadAll[dataset.PageRow](p)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range got {
					rows[r.URL] = append(rows[r.URL], r)
				}
			}
			for _, tg := range targets {
				rs := rows[tg.URL]
				if len(rs) != 1 {
					t.Errorf("%s: %d pages rows, want 1", tg.URL, len(rs))
					continue
				}
				wantOK := fail[tg.URL] == nil || (!keep && slices.Contains(transient, tg.URL))
				if got := rs[0].Status == dataset.StatusOK; got != wantOK {
					t.Errorf("%s: status %s (%s), want ok=%v", tg.URL, rs[0].Status, rs[0].ErrorKind, wantOK)
				}
			}
		})
	}
}

// TestCrawlWith_LockHeld: a crawl into a partition another writer holds
// is refused, naming the holder; another partition is free.
func TestCrawlWith_LockHeld(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	holder, err := parts.OpenOutput(context.Background(), st, "the other crawl", parts.Config{Partition: "shard=0001"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(context.Background())
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) { return okLoad(url), nil }}
	cfg := fakeConfig(t)
	cfg.Output.Partition = "shard=0001"
	_, err = Crawl(context.Background(), cfg, fakeTargets(2), dir, opened(b), nil)
	var held *parts.HeldError
	if !errors.As(err, &held) || !strings.Contains(err.Error(), "the other crawl") {
		t.Errorf("crawl into a held partition: %v, want it refused naming the holder", err)
	}
	cfg.Output.Partition = "shard=0002"
	if _, err := Crawl(context.Background(), cfg, fakeTargets(2), dir, opened(b), nil); err != nil {
		t.Errorf("crawl into another partition: %v", err)
	}
}

// TestCheckResumable: a resume with another row-shaping setting is refused
// with a message naming it; other settings may change.
func TestCheckResumable(t *testing.T) {
	base := fakeConfig(t)
	deep := func(model string) space.Renderer { return space.Deep{Renderer: &render.Deep{Model: model}} }
	tests := []struct {
		name   string
		change func(c *Config)
		want   string // "" for accepted
	}{
		{"workers", func(c *Config) { c.Workers = 9 }, ""},
		{"in_flight", func(c *Config) { c.InFlight = 7 }, ""},
		{"timeout", func(c *Config) { c.Timeout = time.Minute }, ""},
		{"part pages", func(c *Config) { c.Output.PartPages = 7 }, ""},
		{"part interval", func(c *Config) { c.Output.PartInterval = time.Hour }, ""},
		{"lock", func(c *Config) { c.Output.LockTTL, c.Output.LockWait = time.Hour, time.Minute }, ""},
		{"log", func(c *Config) { c.Logger = nil }, ""},
		{"partition", func(c *Config) { c.Output.Partition = "shard=0001" }, ""},
		{"endpoints", func(c *Config) { c.BrowserEndpoints = []string{"ws://b:3000/"} }, ""},
		{"retries", func(c *Config) { c.Retries = 7 }, "retries"},
		{"settle", func(c *Config) { c.Page.SettleMax = time.Minute }, "settle_max_ms"},
		{"budgets", func(c *Config) { c.Budgets = []int64{400} }, "token_budgets"},
		{"html cap", func(c *Config) { c.Page.MaxHTMLBytes = 1 }, "max_html_bytes"},
		{"frames", func(c *Config) { c.Page.MaxFrames = 0 }, "max_frames"},
		{"script cap", func(c *Config) { c.Page.Script.MaxNodes = 5 }, "capture_script_options"},
		{"ax nodes", func(c *Config) { c.Page.Extras.MaxAXNodes = 5 }, "max_ax_nodes"},
		{"ax text", func(c *Config) { c.Page.Extras.MaxAXText = 5 }, "max_ax_text"},
		{"network", func(c *Config) { c.Page.Network.AllowPrivate = true }, "network_allow_private"},
		{"network ranges", func(c *Config) { c.Page.Network.Blocked = []netip.Prefix{netip.MustParsePrefix("100.64.0.0/10")} }, "network_blocked"},
		{"screenshots", func(c *Config) {
			c.Page.Screenshot = ScreenshotConfig{Mode: ScreenshotsPlain, Format: ScreenshotPNG, Quality: DefaultScreenshotQuality}
		}, "screenshots"},
		{"shards", func(c *Config) { c.Shards = 4 }, "shards"},
		{"modes", func(c *Config) { c.Modes = []string{"fast", "deep"}; c.Deep = deep("") }, "modes"},
		{"expansions", func(c *Config) { c.Expansions = []int{0, 500} }, "viewport_expansions"},
		{"text", func(c *Config) { c.Texts = []dom.TextPolicy{dom.TextAll} }, "text"},
		{"encodings", func(c *Config) { c.Encodings = []metrics.Encoding{metrics.O200K} }, "encodings"},
		{"viewport", func(c *Config) { c.Page.ViewportWidth = 800 }, "viewport_width"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			tc.change(&c)
			err := checkResumable(base.record(), c.record())
			if tc.want == "" && err != nil {
				t.Errorf("refused: %v", err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("err %v, want a refusal naming %s", err, tc.want)
			}
		})
	}
	// The model of deep mode.
	a, b := base, base
	a.Modes, a.Deep = []string{"deep"}, deep("model-a")
	b.Modes, b.Deep = []string{"deep"}, deep("model-b")
	if err := checkResumable(a.record(), b.record()); err == nil || !strings.Contains(err.Error(), "llm_model") || !strings.Contains(err.Error(), "model-a") {
		t.Errorf("another LLM model: %v, want a refusal naming llm_model and the dataset's model", err)
	}
	// The other settings of deep mode, but the key (never recorded).
	llm := []struct {
		want   string
		change func(d *render.Deep)
	}{
		{"llm_max_tokens", func(d *render.Deep) { d.MaxTokens = 99 }},
		{"llm_coverage", func(d *render.Deep) { d.Coverage = 0.5 }},
		{"llm_max_extra_rounds", func(d *render.Deep) { d.MaxExtraRounds = 3 }},
		{"llm_max_parse_retries", func(d *render.Deep) { d.MaxParseRetries = 3 }},
		{"llm_classify_page", func(d *render.Deep) { d.ClassifyPage = true }},
	}
	for _, tc := range llm {
		r := &render.Deep{Model: "model-a"}
		tc.change(r)
		b.Deep = space.Deep{Renderer: r}
		if err := checkResumable(a.record(), b.record()); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("another %s: %v, want a refusal naming it", tc.want, err)
		}
	}
	b.Deep, b.LLMBaseURL = deep("model-a"), "http://127.0.0.1:1/v1"
	if err := checkResumable(a.record(), b.record()); err == nil || !strings.Contains(err.Error(), "llm_base_url") {
		t.Errorf("another LLM endpoint: %v, want a refusal naming llm_base_url", err)
	}
}

// TestCrawl_ResumeRunID: a resume that names no run takes the dataset's,
// and into an empty location the fresh one it was given: a row's run ID is
// never empty; with none to take, it is refused.
func TestCrawl_ResumeRunID(t *testing.T) {
	b := &fakeBrowser{load: func(ctx context.Context, url string) (*Load, error) { return okLoad(url), nil }}
	cfg := fakeConfig(t)
	cfg.RunID, cfg.Resume = "", true
	if _, err := Crawl(context.Background(), cfg, fakeTargets(2), t.TempDir(), opened(b), nil); err == nil || !strings.Contains(err.Error(), "run ID") {
		t.Errorf("resume into an empty location without a run ID: %v, want it refused", err)
	}
	dir := t.TempDir()
	cfg.NewRunID = "crawl-fresh"
	stats, err := Crawl(context.Background(), cfg, fakeTargets(2), dir, opened(b), nil)
	if err != nil || stats.RunID != "crawl-fresh" {
		t.Fatalf("resume into an empty location: %+v, %v; want run crawl-fresh", stats, err)
	}
	pages, err := parts.Files(dir, dataset.PagesDir)
	if err != nil || len(pages) == 0 {
		t.Fatalf("pages parts %v, %v", pages, err)
	}
	for _, p := range pages {
		rows, err := dataset.ReadAll[dataset.PageRow](p)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r.RunID != "crawl-fresh" {
				t.Errorf("%s: run_id %q, want crawl-fresh", r.URL, r.RunID)
			}
		}
		meta, err := dataset.ReadMetadata(p)
		if err != nil || meta.RunID != "crawl-fresh" {
			t.Errorf("%s: metadata run %q, %v; want crawl-fresh", p, meta.RunID, err)
		}
	}
	// The next resume takes the dataset's, not a new fresh one.
	cfg.NewRunID = "crawl-later"
	if stats, err := Crawl(context.Background(), cfg, fakeTargets(3), dir, opened(b), nil); err != nil || stats.RunID != "crawl-fresh" {
		t.Errorf("second resume: %+v, %v; want run crawl-fresh", stats, err)
	}
}

// TestConfig_recordKeepsSecretsOut: endpoints are recorded without user
// information or parameters, and the record names modes and the model.
func TestConfig_recordKeepsSecretsOut(t *testing.T) {
	c := fakeConfig(t)
	c.Modes, c.Deep = []string{"fast", "deep"}, space.Deep{Renderer: &render.Deep{Model: "qwen"}}
	c.BrowserEndpoints = []string{"ws://user:hunter2@browsers:3000/path-s3cr3t-9?token=s3cr3t"}
	c.LLMBaseURL = "https://key:sk-xyz@llm.example/v1?api_key=sk-abc"
	rec := c.record()
	for _, secret := range []string{"hunter2", "s3cr3t", "sk-xyz", "sk-abc"} {
		if strings.Contains(rec, secret) {
			t.Errorf("record holds %q: %s", secret, rec)
		}
	}
	for _, want := range []string{`"modes":["fast","deep"]`, `"llm_model":"qwen"`, `"browser_endpoints":["ws://browsers:3000"]`, `"llm_base_url":"https://llm.example/v1"`} {
		if !strings.Contains(rec, want) {
			t.Errorf("record %s lacks %s", rec, want)
		}
	}
}
