package pipelinetest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/axtree"
	"actionspace/dom"
	"actionspace/pipeline"
)

// StoredOrigin is the origin the stored records carry in place of the
// corpus server's (internal/goldens normalizes them to it).
const StoredOrigin = "http://corpus.test"

// Origin is an origin for the URL lists of tests that crawl on a replay:
// loopback, where nothing needs to listen, since the replay dials nothing.
const Origin = "http://127.0.0.1:8000"

// DefaultVersion is what Version reports when Options.Version is empty.
const DefaultVersion = "pipelinetest-replay/1.0"

// StageTime is the nominal duration of every stage a replayed load
// performs (navigate, settle, capture, extras, content, screenshot).
const StageTime = time.Millisecond

// Stored file names, per page folder (see internal/goldens).
const (
	captureFile    = "capture.json.gz"
	axtreeFile     = "axtree.json.gz"
	aisnapshotFile = "aisnapshot.json.gz"
	htmlFile       = "page.html.gz"
)

// storedDir is the stored pages' directory below the module root, and
// stepsDir that of the mutation pages stored with their steps.
var (
	storedDir = filepath.Join("render", "testdata")
	stepsDir  = filepath.Join("pipelinetest", "testdata", "mutation")
)

// Options say what a Browser reports and which loads fail.
type Options struct {
	// Version is the browser version the Browser and every Load report
	// (the files' metadata, the pages rows); DefaultVersion when empty.
	Version string `json:"version,omitempty"`
	// Faults are the loads that fail, by URL key: a path ("/login.html")
	// for every URL of the path, or a path and query
	// ("/login.html?n=3") for that URL only, which wins.
	Faults map[string]Fault `json:"faults,omitempty"`
}

// stored is one page's records as stored: a state, and for a page stored
// with steps (see storedStep) the states its steps left.
type stored struct {
	url                               string // as stored, at StoredOrigin
	capture, axtree, aisnapshot, html []byte
	steps                             []storedStep
}

// Browser is a pipeline.Browser that replays stored pages (see the
// package doc). Make one with Open or New.
type Browser struct {
	version string
	pages   map[string]*stored // by path

	mu     sync.Mutex
	faults map[string]*faultState
	loads  map[string]int // by URL key (path?query)
	opened int
	closed int
	shut   bool
}

// faultState is a scripted fault and how many loads it has failed.
type faultState struct {
	Fault
	used int
}

// StoredDir returns the directory of the stored corpus pages, the module's
// render/testdata, looking for the module root (go.mod) from the working
// directory up: a test's working directory is its package's.
func StoredDir() (string, error) { return moduleDir(storedDir) }

// StepsDir returns the directory of the mutation pages stored with their
// steps (corpora.MutationPaths), the module's
// pipelinetest/testdata/mutation, written by `go run ./tools/goldens
// -steps`.
func StepsDir() (string, error) { return moduleDir(stepsDir) }

// moduleDir returns rel below the module root.
func moduleDir(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the stored pages: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, rel), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find the stored pages: no go.mod above the working directory")
		}
		dir = parent
	}
}

// New opens the stored corpus pages (StoredDir) and the mutation pages
// stored with their steps (StepsDir) with opts for the test tb and closes
// the Browser when tb ends; it fails tb if they cannot be read.
func New(tb testing.TB, opts Options) *Browser {
	tb.Helper()
	dir, err := StoredDir()
	if err != nil {
		tb.Fatal(err)
	}
	steps, err := StepsDir()
	if err != nil {
		tb.Fatal(err)
	}
	b, err := Open(dir, opts, steps)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() })
	return b
}

// Open reads every page stored under dir, and under each of more (one
// folder per page, as render/testdata; a page stored with steps as
// StepsDir holds them), and returns a Browser that replays them with
// opts.
func Open(dir string, opts Options, more ...string) (*Browser, error) {
	var folders []string
	for _, d := range append([]string{dir}, more...) {
		found, err := filepath.Glob(filepath.Join(d, "*", captureFile))
		if err != nil {
			return nil, fmt.Errorf("list stored pages in %s: %w", d, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("list stored pages in %s: none (regenerate them with `make goldens`)", d)
		}
		folders = append(folders, found...)
	}
	b := &Browser{version: opts.Version, pages: map[string]*stored{}, faults: map[string]*faultState{}, loads: map[string]int{}}
	if b.version == "" {
		b.version = DefaultVersion
	}
	for _, f := range folders {
		page, err := readPage(filepath.Dir(f))
		if err == nil {
			page.steps, err = readSteps(filepath.Dir(f))
		}
		if err != nil {
			return nil, err
		}
		u, err := url.Parse(page.url)
		if err != nil || !strings.HasPrefix(page.url, StoredOrigin+"/") {
			return nil, fmt.Errorf("stored page %s: URL %q, want one at %s", filepath.Dir(f), page.url, StoredOrigin)
		}
		if b.pages[u.Path] != nil {
			return nil, fmt.Errorf("stored page %s: a second page for %s", filepath.Dir(f), u.Path)
		}
		b.pages[u.Path] = page
	}
	for key, f := range opts.Faults {
		if err := b.SetFault(key, f); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// readPage reads the records of the page stored in folder dir.
func readPage(dir string) (*stored, error) {
	p := &stored{}
	for name, dst := range map[string]*[]byte{captureFile: &p.capture, axtreeFile: &p.axtree, aisnapshotFile: &p.aisnapshot, htmlFile: &p.html} {
		data, err := readGzip(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		*dst = data
	}
	// The page's URL as stored: the capture's page.url, the only record
	// that names it on its own.
	var head struct {
		Page struct {
			URL string `json:"url"`
		} `json:"page"`
	}
	if err := json.Unmarshal(p.capture, &head); err != nil {
		return nil, fmt.Errorf("read stored capture in %s: %w", dir, err)
	}
	p.url = head.Page.URL
	// Check every record once, here, rather than at a load.
	if _, err := dom.Parse(p.capture); err != nil {
		return nil, fmt.Errorf("parse stored capture in %s: %w", dir, err)
	}
	if _, err := axtree.Parse(p.axtree); err != nil {
		return nil, fmt.Errorf("parse stored accessibility tree in %s: %w", dir, err)
	}
	if _, err := axtree.ParseSnapshotRecord(p.aisnapshot); err != nil {
		return nil, fmt.Errorf("parse stored AI snapshot in %s: %w", dir, err)
	}
	return p, nil
}

// readGzip returns the content of a gzipped file.
func readGzip(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read stored record: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read stored record %s: %w", file, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("read stored record %s: %w", file, err)
	}
	return data, nil
}

// Paths returns the paths the Browser has a stored page for, sorted.
func (b *Browser) Paths() []string {
	paths := make([]string, 0, len(b.pages))
	for p := range b.pages {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

// SetFault scripts f for the URLs of key (a path, or a path and query; see
// Options.Faults), replacing any fault of key and starting its count of
// Times again. The zero Fault removes key's fault.
func (b *Browser) SetFault(key string, f Fault) error {
	if err := f.Validate(); err != nil {
		return fmt.Errorf("fault for %s: %w", key, err)
	}
	if !strings.HasPrefix(key, "/") {
		return fmt.Errorf("fault for %q: the key must be a path (with a query or not)", key)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if f.Kind == "" {
		delete(b.faults, key)
		return nil
	}
	b.faults[key] = &faultState{Fault: f}
	return nil
}

// Loads returns how many times a URL of key was loaded (a path and query
// counts that URL's loads; a path, those of the path without a query).
// Every Load counts, failed or not.
func (b *Browser) Loads(key string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.loads[key]
}

// Pages returns how many pages NewPage opened and how many were closed.
func (b *Browser) Pages() (opened, closed int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opened, b.closed
}

// Opener returns a pipeline.Opener that opens b, for pipeline.Crawl and
// the commands' crawls.
func (b *Browser) Opener() pipeline.Opener {
	return func(context.Context) (pipeline.Browser, error) { return b, nil }
}

// NewPage opens a page that loads URLs as cfg says (see the package doc
// for what the replay applies). It fails with pipeline.KindBrowser once
// the Browser is closed.
func (b *Browser) NewPage(ctx context.Context, cfg pipeline.PageConfig) (pipeline.Page, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new page: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, &pipeline.PageError{Kind: pipeline.ErrorKindOf(err), Err: fmt.Errorf("new page: %w", err)}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.shut {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: errors.New("new page: browser closed")}
	}
	b.opened++
	return &Page{b: b, cfg: cfg}, nil
}

// Version reports Options.Version, or DefaultVersion.
func (b *Browser) Version() string { return b.version }

// Close marks the Browser closed: NewPage fails from then on, and so does
// every Load of its pages.
func (b *Browser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.shut = true
	return nil
}

// start counts a load of u and returns the fault that decides it, if any.
func (b *Browser) start(u *url.URL) (f Fault, faulted, shut bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := u.Path
	if u.RawQuery != "" {
		key += "?" + u.RawQuery
	}
	b.loads[key]++
	if b.shut {
		return Fault{}, false, true
	}
	fs := b.faults[key]
	if fs == nil {
		fs = b.faults[u.Path]
	}
	if fs == nil || (fs.Times > 0 && fs.used >= fs.Times) {
		return Fault{}, false, false
	}
	fs.used++
	return fs.Fault, true, false
}

// Page is one replaying page of a Browser.
type Page struct {
	b   *Browser
	cfg pipeline.PageConfig

	mu      sync.Mutex
	loading bool
	closed  bool
	crashed error // why the page is dead, once a Crash fault hit it
}

// Load replays url: the stored page of its path, or its scripted fault
// (see the package doc). It returns within about a millisecond, except
// for a Hang, which returns when ctx ends.
func (p *Page) Load(ctx context.Context, rawURL string) (*pipeline.Load, error) {
	p.mu.Lock()
	switch {
	case p.closed:
		p.mu.Unlock()
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, URL: rawURL, Err: errors.New("page closed")}
	case p.loading:
		p.mu.Unlock()
		return nil, fmt.Errorf("pipelinetest: Load of %s while another Load of the page runs (loads must not overlap)", rawURL)
	case p.crashed != nil:
		err := p.crashed
		p.mu.Unlock()
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, URL: rawURL, Err: err}
	}
	p.loading = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.loading = false
		p.mu.Unlock()
	}()
	return p.load(ctx, rawURL)
}

func (p *Page) load(ctx context.Context, rawURL string) (*pipeline.Load, error) {
	if err := ctx.Err(); err != nil {
		return nil, &pipeline.PageError{Kind: pipeline.ErrorKindOf(err), URL: rawURL, Err: err}
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, &pipeline.PageError{Kind: pipeline.KindNavigate, URL: rawURL, Err: fmt.Errorf("not an absolute URL: %q", rawURL)}
	}
	fault, faulted, shut := p.b.start(u)
	if shut {
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, URL: rawURL, Err: errors.New("browser closed")}
	}
	ld := &pipeline.Load{FinalURL: rawURL, BrowserVersion: p.b.version, Navigate: StageTime}
	if faulted && fault.Kind == Slow {
		timer := time.NewTimer(fault.Delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
		}
		// A load whose context ended fails, however late it woke; so
		// does one whose deadline has passed while the context's own
		// timer has not yet run (a busy machine can wake the load's
		// timer first).
		if err := deadlineErr(ctx); err != nil {
			return ld, &pipeline.PageError{Kind: pipeline.ErrorKindOf(err), URL: rawURL, Err: fmt.Errorf("navigate: scripted slow load of %v: %w", fault.Delay, err)}
		}
		ld.Navigate = fault.Delay
	} else if faulted && fault.Kind != StepFail {
		return p.fail(ctx, ld, rawURL, fault)
	}
	pth := u.Path
	if pth == "" || strings.HasSuffix(pth, "/") {
		pth += "index.html"
	}
	page := p.b.pages[path.Clean(pth)]
	if page == nil {
		return failStatus(ld, rawURL, http.StatusNotFound)
	}
	return p.replay(ld, page, u, fault, faulted && fault.Kind == StepFail)
}

// deadlineErr is ctx's error, or context.DeadlineExceeded when ctx's
// deadline has passed and the context has not yet said so.
func deadlineErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// fail makes the outcome of a scripted fault.
func (p *Page) fail(ctx context.Context, ld *pipeline.Load, rawURL string, f Fault) (*pipeline.Load, error) {
	switch f.Kind {
	case Timeout:
		return ld, &pipeline.PageError{Kind: pipeline.KindTimeout, URL: rawURL, Err: fmt.Errorf("navigate: scripted timeout: %w", context.DeadlineExceeded)}
	case Hang:
		<-ctx.Done()
		return ld, &pipeline.PageError{Kind: pipeline.ErrorKindOf(ctx.Err()), URL: rawURL, Err: fmt.Errorf("navigate: scripted hang: %w", ctx.Err())}
	case Crash:
		err := errors.New("scripted crash: the page's renderer is gone")
		p.mu.Lock()
		p.crashed = err
		p.mu.Unlock()
		return nil, &pipeline.PageError{Kind: pipeline.KindBrowser, URL: rawURL, Err: err}
	}
	return failStatus(ld, rawURL, f.status())
}

// failStatus is the outcome of a main response with status code.
func failStatus(ld *pipeline.Load, rawURL string, code int) (*pipeline.Load, error) {
	ld.HTTPStatus, ld.ContentType = code, htmlType
	return ld, &pipeline.PageError{Kind: pipeline.KindHTTP, URL: rawURL, Err: &pipeline.StatusError{Code: code, Text: http.StatusText(code)}}
}

// htmlType is the Content-Type of every replayed page, the corpus
// server's.
const htmlType = "text/html; charset=utf-8"

// replay makes the Load of stored page at u, and of its steps (see
// replaySteps).
func (p *Page) replay(ld *pipeline.Load, page *stored, u *url.URL, fault Fault, faulted bool) (*pipeline.Load, error) {
	ld, err := p.replayState(ld, page, u, u.String())
	if err != nil {
		return ld, err
	}
	return p.replaySteps(ld, page, u, fault, faulted)
}

// replayState fills ld with the stored state page, loaded from u, whose
// capture's page URL becomes pageURL.
func (p *Page) replayState(ld *pipeline.Load, page *stored, u *url.URL, pageURL string) (*pipeline.Load, error) {
	origin := []byte(u.Scheme + "://" + u.Host)
	local := func(data []byte) []byte { return bytes.ReplaceAll(data, []byte(StoredOrigin), origin) }
	ld.HTTPStatus, ld.ContentType = http.StatusOK, htmlType
	ld.Settle, ld.CaptureTime, ld.Content = StageTime, StageTime, StageTime

	// The capture's page URL is the URL loaded, query and all; every other
	// URL of the records moves to its origin.
	was, _ := json.Marshal(page.url)
	now, _ := json.Marshal(pageURL)
	ld.Capture = local(bytes.Replace(page.capture, append([]byte(`"url":`), was...), append([]byte(`"url":`), now...), 1))
	ld.CapturedAt = time.Now()

	extras := p.cfg.Extras
	if extras.AXTree {
		rec, err := axtree.Parse(local(page.axtree))
		if err != nil { // Open parsed it at the stored origin
			return ld, &pipeline.PageError{Kind: pipeline.KindCapture, URL: u.String(), Err: fmt.Errorf("replay the accessibility tree: %w", err)}
		}
		ld.AXTree, ld.AXTreeTime = rec, StageTime
	}
	if extras.AISnapshot {
		snap, err := axtree.ParseSnapshotRecord(local(page.aisnapshot))
		if err != nil {
			return ld, &pipeline.PageError{Kind: pipeline.KindCapture, URL: u.String(), Err: fmt.Errorf("replay the AI snapshot: %w", err)}
		}
		ld.AISnapshot, ld.AISnapshotTime = snap, StageTime
	}
	if p.cfg.Screenshot.On() {
		ld.Screenshot, ld.ScreenshotFormat = blankViewport(p.cfg)
		ld.ScreenshotTime = StageTime
	}
	html := string(local(page.html))
	ld.HTMLBytes = len(html)
	html, _ = dom.RedactSecrets(html)
	ld.HTML, ld.HTMLTruncated = dom.CutHTML(html, p.cfg.MaxHTMLBytes)
	return ld, nil
}

// blankViewport encodes a white image of cfg's viewport as cfg's
// screenshots are encoded.
func blankViewport(cfg pipeline.PageConfig) ([]byte, string) {
	img := image.NewRGBA(image.Rect(0, 0, cfg.ViewportWidth, cfg.ViewportHeight))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	var buf bytes.Buffer
	if cfg.Screenshot.Format == pipeline.ScreenshotPNG {
		_ = png.Encode(&buf, img) // into memory: cannot fail
		return buf.Bytes(), pipeline.ScreenshotPNG
	}
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: cfg.Screenshot.Quality})
	return buf.Bytes(), pipeline.ScreenshotJPEG
}

// Close closes the page: a Load after it fails with pipeline.KindBrowser.
func (p *Page) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	p.b.mu.Lock()
	p.b.closed++
	p.b.mu.Unlock()
	return nil
}
