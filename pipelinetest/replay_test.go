package pipelinetest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dom"
	"actionspace/internal/storedtest"
	"actionspace/metrics"
	"actionspace/pipeline"
)

// site is the origin the tests' URLs name.
const site = Origin

// load opens a page of b with cfg and loads url in it.
func load(t *testing.T, b *Browser, cfg pipeline.PageConfig, url string) (*pipeline.Load, error) {
	t.Helper()
	p, err := b.NewPage(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return p.Load(ctx, url)
}

// pageError returns err's PageError, failing the test when it has none.
func pageError(t *testing.T, err error) *pipeline.PageError {
	t.Helper()
	var pe *pipeline.PageError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *pipeline.PageError", err)
	}
	return pe
}

// TestReplay_EveryCorpusPage loads every page of the corpus's URL list at
// a test origin, with a query, and checks each record against the stored
// files read apart (storedtest): the capture parses and names the URL
// loaded, no record names the stored origin any more, the HTML is the
// stored one at the new origin, and the extras are there.
func TestReplay_EveryCorpusPage(t *testing.T) {
	t.Parallel()
	b := New(t, Options{})
	if got, want := len(b.Paths()), len(corpora.DefaultPaths())+len(corpora.MutationPaths()); got != want {
		t.Errorf("%d stored pages, want one per corpus page and mutation page (%d)", got, want)
	}
	dir, err := StoredDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range corpora.DefaultPaths() {
		t.Run(path, func(t *testing.T) {
			url := site + path + "?n=3"
			ld, err := load(t, b, pipeline.DefaultPageConfig(), url)
			if err != nil {
				t.Fatal(err)
			}
			c, err := dom.Parse(ld.Capture)
			if err != nil {
				t.Fatal(err)
			}
			if c.Page.URL != url || ld.FinalURL != url || ld.HTTPStatus != 200 || !strings.HasPrefix(ld.ContentType, "text/html") {
				t.Errorf("page URL %q, final URL %q, status %d, type %q; want %s, 200, HTML", c.Page.URL, ld.FinalURL, ld.HTTPStatus, ld.ContentType, url)
			}
			if ld.AXTree == nil || ld.AISnapshot == nil || ld.AXTreeSkipped != "" || ld.AISnapshotSkipped != "" {
				t.Errorf("extras: axtree %v (%q), AI snapshot %v (%q); want both", ld.AXTree != nil, ld.AXTreeSkipped, ld.AISnapshot != nil, ld.AISnapshotSkipped)
			}
			records := map[string]string{"capture": string(ld.Capture), "html": ld.HTML}
			if ld.AISnapshot != nil {
				records["aisnapshot"] = ld.AISnapshot.Text
			}
			for name, text := range records {
				if strings.Contains(text, StoredOrigin) {
					t.Errorf("the %s names the stored origin %s", name, StoredOrigin)
				}
			}
			name := strings.TrimSuffix(strings.TrimPrefix(path, "/"), ".html")
			stored := string(storedtest.Read(t, filepath.Join(dir, name, htmlFile)))
			// (Some stores predate the redaction of hidden inputs' values.)
			whole := strings.ReplaceAll(stored, StoredOrigin, site)
			if want, _ := dom.RedactSecrets(whole); ld.HTML != want || ld.HTMLBytes != len(whole) || ld.HTMLTruncated {
				t.Errorf("HTML: %d bytes (of %d, truncated %v), want the stored %d bytes at %s, redacted (%d)", len(ld.HTML), ld.HTMLBytes, ld.HTMLTruncated, len(whole), site, len(want))
			}
			if ld.CapturedAt.IsZero() || ld.BrowserVersion != DefaultVersion || ld.Navigate != StageTime || ld.CaptureTime != StageTime {
				t.Errorf("captured at %v, version %q, navigate %v, capture %v", ld.CapturedAt, ld.BrowserVersion, ld.Navigate, ld.CaptureTime)
			}
		})
	}
}

// TestReplay_KeyedByPath: the host, port and query do not change what a
// path replays, beyond the origin and the page URL; a folder replays its
// index.html; a path with no stored page is a 404.
func TestReplay_KeyedByPath(t *testing.T) {
	t.Parallel()
	b := New(t, Options{})
	cfg := pipeline.DefaultPageConfig()
	norm := func(ld *pipeline.Load, origin, url string) string {
		s := strings.ReplaceAll(string(ld.Capture), fmt.Sprintf("%q", url), `"URL"`)
		return strings.ReplaceAll(s, origin, "ORIGIN")
	}
	a, err := load(t, b, cfg, site+"/login.html")
	if err != nil {
		t.Fatal(err)
	}
	other := "http://[::1]:9443"
	c, err := load(t, b, cfg, other+"/login.html?n=12")
	if err != nil {
		t.Fatal(err)
	}
	if norm(a, site, site+"/login.html") != norm(c, other, other+"/login.html?n=12") {
		t.Error("the same path at another origin and with a query replays another capture")
	}
	idx, err := load(t, b, cfg, site+"/")
	if err != nil {
		t.Fatal(err)
	}
	want, err := load(t, b, cfg, site+"/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if idx.HTML != want.HTML {
		t.Error("/ does not replay /index.html")
	}
	ld, err := load(t, b, cfg, site+"/no-such-page.html")
	pe := pageError(t, err)
	var se *pipeline.StatusError
	if pe.Kind != pipeline.KindHTTP || !errors.As(err, &se) || se.Code != 404 || ld == nil || ld.HTTPStatus != 404 || pe.Transient() {
		t.Errorf("unknown path: %v (load %+v); want a permanent KindHTTP 404 with the status in the load", err, ld)
	}
	if _, err := load(t, b, cfg, "/login.html"); pageError(t, err).Kind != pipeline.KindNavigate {
		t.Errorf("a relative URL: %v, want KindNavigate", err)
	}
}

// TestReplay_PageConfig: the extras only when asked, the HTML cut at the
// page's cap, screenshots of the viewport in the asked encoding.
func TestReplay_PageConfig(t *testing.T) {
	t.Parallel()
	b := New(t, Options{})
	url := site + "/article.html"

	cfg := pipeline.DefaultPageConfig()
	cfg.Extras.AXTree, cfg.Extras.AISnapshot = false, false
	cfg.MaxHTMLBytes = 1000
	ld, err := load(t, b, cfg, url)
	if err != nil {
		t.Fatal(err)
	}
	if ld.AXTree != nil || ld.AISnapshot != nil || ld.AXTreeTime != 0 || ld.AISnapshotTime != 0 {
		t.Errorf("extras off: axtree %v, AI snapshot %v", ld.AXTree != nil, ld.AISnapshot != nil)
	}
	if len(ld.HTML) > 1000 || !ld.HTMLTruncated || ld.HTMLBytes <= 1000 {
		t.Errorf("max 1000 HTML bytes: %d stored of %d, truncated %v", len(ld.HTML), ld.HTMLBytes, ld.HTMLTruncated)
	}
	if ld.Screenshot != nil || ld.ScreenshotFormat != "" {
		t.Errorf("a screenshot (%s) with screenshots off", ld.ScreenshotFormat)
	}

	for _, format := range []string{pipeline.ScreenshotJPEG, pipeline.ScreenshotPNG} {
		cfg := pipeline.DefaultPageConfig()
		cfg.ViewportWidth, cfg.ViewportHeight = 800, 600
		cfg.Screenshot.Mode, cfg.Screenshot.Format = pipeline.ScreenshotsPlain, format
		ld, err := load(t, b, cfg, url)
		if err != nil {
			t.Fatal(err)
		}
		img, got, err := image.Decode(bytes.NewReader(ld.Screenshot))
		if err != nil || got != format || ld.ScreenshotFormat != format || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
			t.Errorf("%s screenshot: decoded as %q (%v), format %q, bounds %v; want an 800x600 %s", format, got, err, ld.ScreenshotFormat, img, format)
		}
	}
	if _, err := b.NewPage(context.Background(), pipeline.PageConfig{}); err == nil {
		t.Error("NewPage took an invalid config")
	}
}

// TestReplay_RedactsPasswords replays a stored page whose HTML holds a
// password value, as the browser's HTML would: the value is taken out
// before the records leave the page.
func TestReplay_RedactsPasswords(t *testing.T) {
	t.Parallel()
	root, err := StoredDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "login")
	for _, name := range []string{captureFile, axtreeFile, aisnapshotFile} {
		data, err := os.ReadFile(filepath.Join(root, "login", name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), data)
	}
	const secret = "hunter2-correct-horse"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	fmt.Fprintf(zw, `<html><body><form><input type="password" name="pw" value="%s"></form></body></html>`, secret)
	zw.Close()
	writeFile(t, filepath.Join(dir, htmlFile), gz.Bytes())
	b, err := Open(filepath.Dir(dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ld, err := load(t, b, pipeline.DefaultPageConfig(), site+"/login.html")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ld.HTML, secret) || !strings.Contains(ld.HTML, `type="password"`) {
		t.Errorf("HTML %q: want the input without its value", ld.HTML)
	}
}

func writeFile(t *testing.T, file string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReplay_Faults scripts each fault and checks the load's outcome as
// the crawl core sees it: the kind, whether it is transient, the status,
// how long it took, and what it leaves of the page.
func TestReplay_Faults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fault     Fault
		cancel    bool // stop the run (cancel ctx) instead of a deadline
		kind      pipeline.ErrorKind
		transient bool
		status    int           // in the load and the error; 0 for none
		waits     bool          // returns only when ctx ends
		deadPage  bool          // the page fails every later load
		nextLoad  error         // what a second load of the URL in a new page gives
		timeout   time.Duration // of the load's ctx
	}{
		{name: "timeout", fault: Fault{Kind: Timeout}, kind: pipeline.KindTimeout, transient: true},
		{name: "hang to the deadline", fault: Fault{Kind: Hang}, kind: pipeline.KindTimeout, transient: true, waits: true},
		{name: "hang until stopped", fault: Fault{Kind: Hang}, cancel: true, kind: pipeline.KindCanceled, waits: true},
		{name: "crash", fault: Fault{Kind: Crash}, kind: pipeline.KindBrowser, transient: true, deadPage: true},
		{name: "5xx", fault: Fault{Kind: Status, Status: 503}, kind: pipeline.KindHTTP, transient: true, status: 503},
		{name: "default status", fault: Fault{Kind: Status}, kind: pipeline.KindHTTP, transient: true, status: 500},
		{name: "4xx", fault: Fault{Kind: Status, Status: 410}, kind: pipeline.KindHTTP, status: 410},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const path = "/widgets.html"
			b := New(t, Options{Faults: map[string]Fault{path: tc.fault}})
			p, err := b.NewPage(context.Background(), pipeline.DefaultPageConfig())
			if err != nil {
				t.Fatal(err)
			}
			const limit = time.Second
			// start comes first: the stop and the deadline are timed from
			// it, so "returned before the stop" cannot be a clock artefact.
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			if tc.cancel {
				time.AfterFunc(limit/2, cancel)
			}
			deadline, _ := ctx.Deadline()
			ld, err := p.Load(ctx, site+path)
			took, late := time.Since(start), !time.Now().Before(deadline)
			pe := pageError(t, err)
			if pe.Kind != tc.kind || pe.Transient() != tc.transient || pe.URL != site+path {
				t.Errorf("%v: kind %s, transient %v; want %s, %v", err, pe.Kind, pe.Transient(), tc.kind, tc.transient)
			}
			var se *pipeline.StatusError
			if got := errors.As(err, &se); got != (tc.status != 0) || (got && (se.Code != tc.status || ld == nil || ld.HTTPStatus != tc.status)) {
				t.Errorf("%v: status error %v, load %+v; want status %d in both", err, got, ld, tc.status)
			}
			switch {
			case tc.waits && tc.cancel && (took < limit/2 || late):
				t.Errorf("returned after %v, want when the run stopped (%v)", took, limit/2)
			case tc.waits && !tc.cancel && !late:
				t.Errorf("returned after %v, before the deadline (%v)", took, limit)
			case !tc.waits && took > limit/2:
				t.Errorf("returned after %v, want at once", took)
			}
			again, err := p.Load(context.Background(), site+"/login.html")
			if dead := err != nil; dead != tc.deadPage || (dead && pageError(t, err).Kind != pipeline.KindBrowser) {
				t.Errorf("the next load in the same page: %v (load %v); want dead page %v", err, again != nil, tc.deadPage)
			}
			if n := b.Loads(path); n != 1 {
				t.Errorf("Loads(%s) = %d, want 1", path, n)
			}
		})
	}
}

// TestReplay_FaultScope: a fault keyed by a path and query fails that URL
// only, and wins over the path's; Times lets the loads after the first
// ones through; SetFault scripts and clears faults while pages run.
func TestReplay_FaultScope(t *testing.T) {
	t.Parallel()
	b := New(t, Options{Faults: map[string]Fault{
		"/news.html":     {Kind: Status, Status: 502, Times: 2},
		"/news.html?n=1": {Kind: Timeout},
	}})
	p, err := b.NewPage(context.Background(), pipeline.DefaultPageConfig())
	if err != nil {
		t.Fatal(err)
	}
	kind := func(url string) pipeline.ErrorKind {
		_, err := p.Load(context.Background(), site+url)
		return pipeline.ErrorKindOf(err)
	}
	got := []pipeline.ErrorKind{kind("/news.html?n=1"), kind("/news.html?n=2"), kind("/news.html"), kind("/news.html"), kind("/news.html?n=1"), kind("/docs.html")}
	want := []pipeline.ErrorKind{pipeline.KindTimeout, pipeline.KindHTTP, pipeline.KindHTTP, "", pipeline.KindTimeout, ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %q, want %q", got, want)
	}
	if err := b.SetFault("/docs.html", Fault{Kind: Crash, Times: 1}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetFault("/news.html?n=1", Fault{}); err != nil {
		t.Fatal(err)
	}
	if k := kind("/news.html?n=1"); k != "" {
		t.Errorf("after its fault was cleared: %q, want ok", k)
	}
	if k := kind("/docs.html"); k != pipeline.KindBrowser {
		t.Errorf("crash set while running: %q", k)
	}
	if n := b.Loads("/news.html?n=1"); n != 3 {
		t.Errorf("Loads(/news.html?n=1) = %d, want 3", n)
	}
	for _, bad := range []struct {
		key string
		f   Fault
	}{{"/x", Fault{Kind: "melt"}}, {"/x", Fault{Kind: Timeout, Status: 500}}, {"/x", Fault{Kind: Status, Status: 200}}, {"/x", Fault{Kind: Hang, Times: -1}}, {"x.html", Fault{Kind: Hang}}} {
		if err := b.SetFault(bad.key, bad.f); err == nil {
			t.Errorf("SetFault(%q, %+v) took it", bad.key, bad.f)
		}
	}
}

// TestReplay_Slow: a slow load replays the page after its delay, or times
// out when its deadline comes first.
func TestReplay_Slow(t *testing.T) {
	t.Parallel()
	const delay = 100 * time.Millisecond
	b := New(t, Options{Faults: map[string]Fault{"/docs.html": {Kind: Slow, Delay: delay}}})
	p, err := b.NewPage(context.Background(), pipeline.DefaultPageConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []time.Duration{10 * delay, delay / 2} {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		start := time.Now()
		ld, err := p.Load(ctx, site+"/docs.html")
		took := time.Since(start)
		cancel()
		switch {
		case limit > delay && (err != nil || took < delay || ld.Navigate != delay):
			t.Errorf("limit %v: %v after %v (navigate %v), want the page after %v", limit, err, took, ld.Navigate, delay)
		case limit < delay && pipeline.ErrorKindOf(err) != pipeline.KindTimeout:
			t.Errorf("limit %v: %v after %v, want a timeout at the limit", limit, err, took)
		}
	}
	// A deadline that has passed while the context has not yet said so
	// (its timer not run yet, as on a busy machine): the load times out.
	ctx := lateContext{Context: context.Background(), deadline: time.Now().Add(-time.Millisecond)}
	if _, err := p.Load(ctx, site+"/docs.html"); pipeline.ErrorKindOf(err) != pipeline.KindTimeout {
		t.Errorf("past deadline, context not yet done: %v, want a timeout", err)
	}
	if err := b.SetFault("/x", Fault{Kind: Slow}); err == nil {
		t.Error("a slow fault without a delay was taken")
	}
}

// lateContext is a context whose deadline has passed but which is not
// done: what a load sees when it wakes before the context's timer runs.
type lateContext struct {
	context.Context
	deadline time.Time
}

func (c lateContext) Deadline() (time.Time, bool) { return c.deadline, true }

// TestReplay_PageContract: overlapping loads of one page, a load after
// Close, and NewPage after the Browser's Close all fail; the page counts
// add up.
func TestReplay_PageContract(t *testing.T) {
	t.Parallel()
	b := New(t, Options{Faults: map[string]Fault{"/hang": {Kind: Hang}}})
	p, err := b.NewPage(context.Background(), pipeline.DefaultPageConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := p.Load(ctx, site+"/hang"); done <- err }()
	for b.Loads("/hang") == 0 {
		time.Sleep(time.Millisecond)
	}
	if _, err := p.Load(context.Background(), site+"/login.html"); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("overlapping load: %v, want refused", err)
	}
	cancel()
	<-done
	p.Close()
	if _, err := p.Load(context.Background(), site+"/login.html"); pipeline.ErrorKindOf(err) != pipeline.KindBrowser {
		t.Errorf("load after Close: %v, want KindBrowser", err)
	}
	if opened, closed := b.Pages(); opened != 1 || closed != 1 {
		t.Errorf("pages opened %d, closed %d; want 1 and 1", opened, closed)
	}
	b.Close()
	if _, err := b.NewPage(context.Background(), pipeline.DefaultPageConfig()); pipeline.ErrorKindOf(err) != pipeline.KindBrowser {
		t.Errorf("NewPage after Close: %v, want KindBrowser", err)
	}
}

// TestReplay_Concurrent loads every stored page from many pages at once
// (run it with -race) and gets the same records in each.
func TestReplay_Concurrent(t *testing.T) {
	t.Parallel()
	b := New(t, Options{})
	paths := b.Paths()
	first := map[string]string{}
	for _, p := range paths {
		ld, err := load(t, b, pipeline.DefaultPageConfig(), site+p)
		if err != nil {
			t.Fatal(err)
		}
		first[p] = string(ld.Capture)
	}
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers*len(paths))
	for range workers {
		wg.Go(func() {
			page, err := b.NewPage(context.Background(), pipeline.DefaultPageConfig())
			if err != nil {
				errs <- err
				return
			}
			defer page.Close()
			for _, p := range paths {
				ld, err := page.Load(context.Background(), site+p)
				switch {
				case err != nil:
					errs <- err
				case string(ld.Capture) != first[p]:
					errs <- fmt.Errorf("%s: another capture", p)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for _, p := range paths {
		if n := b.Loads(p); n != workers+1 {
			t.Errorf("Loads(%s) = %d, want %d", p, n, workers+1)
		}
	}
}

// TestReplay_Crawl runs the crawl core over the corpus and scripted faults
// on a replay: one row per URL, ok for the stored pages, the scripted kind
// for the others, a fault limited to one load retried into an ok row, and
// a crash that costs the worker its page (a new page is opened for the
// URLs after it).
func TestReplay_Crawl(t *testing.T) {
	t.Parallel()
	urls := corpora.DefaultURLs(site)
	failing := map[string]Fault{
		"/faults/timeout": {Kind: Timeout},
		"/faults/crash":   {Kind: Crash},
		"/faults/503":     {Kind: Status, Status: 503},
		"/news.html?n=1":  {Kind: Crash, Times: 1}, // retried: ok
	}
	want := map[string]pipeline.ErrorKind{
		"/faults/timeout": pipeline.KindTimeout, "/faults/crash": pipeline.KindBrowser,
		"/faults/503": pipeline.KindHTTP, "/faults/404": pipeline.KindHTTP, "/news.html?n=1": "",
	}
	for key := range want {
		urls = append(urls, site+key)
	}
	b := New(t, Options{Faults: failing})
	cfg := pipeline.DefaultConfig()
	cfg.RunID = "replay"
	cfg.Workers = 3
	cfg.Retries = 1
	cfg.Timeout = 20 * time.Second
	cfg.Logger = slog.New(slog.DiscardHandler)
	cfg.Expansions = []int{0}
	cfg.Encodings = []metrics.Encoding{metrics.CL100K}
	out := t.TempDir()
	rows := map[string]dataset.PageRow{}
	var mu sync.Mutex
	stats, err := pipeline.Crawl(context.Background(), cfg, pipeline.TargetsFromURLs(urls), out, b.Opener(), func(r pipeline.Result) {
		mu.Lock()
		defer mu.Unlock()
		if _, dup := rows[r.Page.URL]; dup {
			t.Errorf("%s: two results", r.Page.URL)
		}
		rows[r.Page.URL] = r.Page
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(urls) || stats.OK+stats.Failed != len(urls) {
		t.Fatalf("%d rows, stats %+v for %d URLs", len(rows), stats, len(urls))
	}
	for _, u := range urls {
		r := rows[u]
		kind, scripted := want[strings.TrimPrefix(u, site)]
		switch {
		case !scripted || kind == "":
			if r.Status != dataset.StatusOK || r.BrowserVersion != DefaultVersion {
				t.Errorf("%s: %s %s %s (browser %q), want ok", u, r.Status, r.ErrorKind, r.ErrorMessage, r.BrowserVersion)
			}
		case r.ErrorKind != string(kind):
			t.Errorf("%s: %s %q, want %s", u, r.Status, r.ErrorKind, kind)
		}
		// Transient failures are tried twice (--retries 1), the others once.
		transient := pipeline.TransientRow(parts.PageOutcome{Status: r.Status, ErrorKind: r.ErrorKind, HTTPStatus: r.HTTPStatus})
		if wantAttempts := map[bool]int64{true: 2, false: 1}[transient || kind == "" && scripted]; r.Attempts != wantAttempts {
			t.Errorf("%s: %d attempts, want %d", u, r.Attempts, wantAttempts)
		}
	}
	if stats.Retried == 0 {
		t.Error("no retries counted")
	}
	if opened, _ := b.Pages(); opened <= cfg.Workers {
		t.Errorf("%d pages opened for %d workers: the crashed and timed-out pages were not replaced", opened, cfg.Workers)
	}
}

// TestOptions_JSON: Options survive JSON, for a crawl started as a
// subprocess.
func TestOptions_JSON(t *testing.T) {
	t.Parallel()
	in := Options{Version: "v1.2", Faults: map[string]Fault{"/a": {Kind: Hang}, "/b?n=1": {Kind: Status, Status: 503, Times: 1}, "/c": {Kind: Slow, Delay: time.Second}}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out Options
	if err := json.Unmarshal(data, &out); err != nil || !reflect.DeepEqual(in, out) {
		t.Errorf("round trip: %+v (%v), want %+v", out, err, in)
	}
}
