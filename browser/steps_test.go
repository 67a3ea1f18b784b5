package browser

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/internal/truthtest"
	"actionspace/pipeline"
)

// stepsConfig is the crawl's default page config with both extras and
// steps.
func stepsConfig(steps ...string) testConfig {
	cfg := defaultTestConfig()
	cfg.page.Extras = pipeline.DefaultExtrasConfig()
	cfg.page.Steps = steps
	return cfg
}

// TestSteps_mutationCorpus performs the steps of every mutation page
// (corpora.MutationTruthFor) in Chromium and checks each state against
// the hand-labeled truth: the step's status, and the truth names of the
// elements with a handle at the whole page, in document order. Every
// captured state carries the same extras as the first: the accessibility
// tree, the AI snapshot and the HTML.
func TestSteps_mutationCorpus(t *testing.T) {
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() }) // after the parallel subtests
	for _, path := range corpora.MutationPaths() {
		truth, err := corpora.MutationTruthFor(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimSuffix(strings.TrimPrefix(path, corpora.MutationPrefix), ".html"), func(t *testing.T) {
			b := mustLaunchChromium(t, stepsConfig(truth.Steps...))
			page := mustNewPage(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			ld, err := page.Load(ctx, srv.URL+path)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if len(ld.Steps) != len(truth.Steps) {
				t.Fatalf("%d steps performed, want %d: %+v", len(ld.Steps), len(truth.Steps), ld.Steps)
			}
			states := []*pipeline.Load{ld}
			for i, st := range ld.Steps {
				want := truth.States[i+1]
				if st.Step != i+1 || st.Action != truth.Steps[i] || st.Status != want.Status {
					t.Fatalf("step %d: %d %s %s (%s), want %d %s %s", i+1, st.Step, st.Action, st.Status, st.Error, i+1, truth.Steps[i], want.Status)
				}
				if st.State == nil {
					t.Fatalf("step %d: no state", st.Step)
				}
				t.Logf("step %d %s %s: %s (%v)", st.Step, st.Action, st.Status, st.Target, st.Duration.Round(time.Millisecond))
				states = append(states, st.State)
			}
			for i, s := range states {
				if s.AXTree == nil || s.AISnapshot == nil || s.HTML == "" || s.CapturedAt.IsZero() {
					t.Errorf("state %d: extras missing (axtree %v %q, AI snapshot %v %q, %d bytes of HTML)", i,
						s.AXTree != nil, s.AXTreeSkipped, s.AISnapshot != nil, s.AISnapshotSkipped, len(s.HTML))
				}
				if got, want := truthtest.HandleNames(t, s.Capture, s.AXTree, s.AISnapshot, s.HTML), truth.States[i].Present; !slices.Equal(got, want) {
					t.Errorf("state %d: handles on %v\nwant %v", i, got, want)
				}
			}
		})
	}
}

// TestSteps_statuses: a step with nothing to act on is skipped and the
// steps go on; a step whose navigation fails (404) is failed, ends the
// steps and keeps the first state; a step whose page does not answer in
// its time limit is a timeout; and a load abandoned in a step (the page
// busy past the URL's limit) still returns the states before it.
func TestSteps_statuses(t *testing.T) {
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	load := func(t *testing.T, cfg testConfig, path string, limit time.Duration) *pipeline.Load {
		t.Helper()
		page := mustNewPage(t, mustLaunchChromium(t, cfg))
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		start := time.Now()
		ld, err := page.Load(ctx, srv.URL+path)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if len(ld.Capture) == 0 || ld.HTML == "" {
			t.Fatal("the first state was lost")
		}
		for _, s := range ld.Steps {
			t.Logf("step %d %s %s %s: %q %s (%v)", s.Step, s.Action, s.Status, s.ErrorKind, s.Target, s.Error, s.Duration.Round(time.Millisecond))
		}
		t.Logf("load took %v", time.Since(start).Round(time.Millisecond))
		return ld
	}
	statuses := func(ld *pipeline.Load) []string {
		var out []string
		for _, s := range ld.Steps {
			out = append(out, s.Action+":"+s.Status)
			if (s.State != nil) != (s.Status == dataset.StepOK || s.Status == dataset.StepNavigated) {
				out = append(out, "(state does not match the status)")
			}
		}
		return out
	}

	t.Run("skipped", func(t *testing.T) {
		ld := load(t, stepsConfig("type", "back", "scroll", "expand"), "/mutation/insert.html", 30*time.Second)
		want := []string{"type:skipped", "back:skipped", "scroll:skipped", "expand:ok"}
		if got := statuses(ld); !slices.Equal(got, want) {
			t.Fatalf("statuses %v, want %v", got, want)
		}
		for _, s := range ld.Steps[:3] {
			if s.Target == "" {
				t.Errorf("skipped step %d says not why", s.Step)
			}
		}
	})
	t.Run("failed", func(t *testing.T) {
		ld := load(t, stepsConfig("expand", "wait"), corpora.StepBrokenPath, 30*time.Second)
		if got, want := statuses(ld), []string{"expand:failed"}; !slices.Equal(got, want) {
			t.Fatalf("statuses %v, want %v", got, want)
		}
		if ld.Steps[0].ErrorKind != pipeline.KindHTTP {
			t.Errorf("error kind %s, want %s", ld.Steps[0].ErrorKind, pipeline.KindHTTP)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		cfg := stepsConfig("expand", "wait")
		cfg.page.StepTimeout = time.Second
		ld := load(t, cfg, corpora.StepBusyPath+"?ms=3000", 30*time.Second)
		if got, want := statuses(ld), []string{"expand:timeout"}; !slices.Equal(got, want) {
			t.Fatalf("statuses %v, want %v", got, want)
		}
		if d := ld.Steps[0].Duration; d > 6*time.Second {
			t.Errorf("the step took %v", d)
		}
	})
	t.Run("abandoned", func(t *testing.T) {
		// The page is busy for 20 s, past the load's 6 s limit: the load
		// is abandoned in step 1, and returns step 0 with it.
		ld := load(t, stepsConfig("expand", "wait"), corpora.StepBusyPath+"?ms=20000", 6*time.Second)
		if got, want := statuses(ld), []string{"expand:timeout"}; !slices.Equal(got, want) {
			t.Fatalf("statuses %v, want %v", got, want)
		}
	})
}

// TestSteps_egress: a step obeys the page's network policy. On a page
// that plays a public host, the expand step's navigation to a metadata
// address is refused: the step fails as blocked, the address is never
// reached, and the load keeps its first state.
func TestSteps_egress(t *testing.T) {
	requireChromium(t)
	secret := startHitServer(t, "127.0.0.2:0", func(*hitServer) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, secretToken, "<p>"+secretToken+"</p>")
		})
	})
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := stepsConfig("expand", "wait")
	cfg.page.Network = egressPolicy
	page := mustNewPage(t, mustLaunchChromium(t, cfg))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ld, err := page.Load(ctx, srv.URL+corpora.StepBrokenPath+"?to="+url.QueryEscape(secret.url+"/latest/meta-data"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(ld.Steps) != 1 || ld.Steps[0].Status != dataset.StepFailed || ld.Steps[0].ErrorKind != pipeline.KindBlocked || len(ld.Capture) == 0 {
		t.Fatalf("steps %+v, want one, failed as blocked, after a first state", ld.Steps)
	}
	if hits := secret.took(); len(hits) > 0 {
		t.Errorf("the metadata address was reached: %v", hits)
	}
	t.Logf("step 1: %s", ld.Steps[0].Error)
}
