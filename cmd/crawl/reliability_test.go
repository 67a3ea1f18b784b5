package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/internal/browsertest"
	"actionspace/internal/deeptest"
	"actionspace/pipeline"
	"actionspace/pipelinetest"
)

// requireBrowser is the shared real-Chromium guard (internal/browsertest).
func requireBrowser(tb testing.TB) {
	tb.Helper()
	browsertest.Require(tb)
}

// driverDirectory is where playwright-go looks for its driver by default.
func driverDirectory() (string, error) { return browsertest.DriverDirectory() }

// crawlProc is a crawl subprocess in its own process group, so that its
// Playwright driver and Chromium can be cleaned up after a SIGKILL.
type crawlProc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
	err            error
}

// startCrawl starts the crawl command (this test binary, see commandMain)
// with args, with env added to its environment: a crawl with Chromium.
func startCrawl(t *testing.T, env []string, args ...string) *crawlProc {
	t.Helper()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return startProc(t, bin, append([]string{commandEnv + "=1"}, env...), args...)
}

// startProc starts bin with args and env added to its environment.
func startProc(t *testing.T, bin string, env []string, args ...string) *crawlProc {
	t.Helper()
	p := &crawlProc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	recordProc(t, p)
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		// Whatever is left of the group: the driver and Chromium after a
		// kill -9 of the crawl itself.
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	return p
}

// wait waits for the process to exit and returns its exit code.
func (p *crawlProc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		t.Fatalf("crawl did not exit within %v\nstdout:\n%s\nstderr:\n%s", limit, &p.stdout, &p.stderr)
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	return 0
}

// run runs a crawl to its end and returns its exit code.
func runCrawl(t *testing.T, env []string, limit time.Duration, args ...string) (*crawlProc, int) {
	t.Helper()
	p := startCrawl(t, env, args...)
	return p, p.wait(t, limit)
}

// waitForParts waits until the dataset at loc holds at least n complete
// pages parts.
func waitForParts(t *testing.T, p *crawlProc, loc string, n int, limit time.Duration) {
	t.Helper()
	st := openLoc(t, loc)
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		pages, err := parts.Keys(context.Background(), st, dataset.PagesDir)
		if err == nil && len(pages) >= n {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("crawl exited before %d parts were written\nstdout:\n%s\nstderr:\n%s", n, &p.stdout, &p.stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("no %d parts in %s after %v", n, loc, limit)
}

// openLoc opens a dataset location (a directory or a bucket URL) for the
// test's own checks.
func openLoc(t *testing.T, loc string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), loc, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// arrowColumns reads the named string and int64 columns of every row of a
// Parquet file with arrow-go's pqarrow (a reader independent of the
// writer), and the file's key-value metadata.
func arrowColumns(t *testing.T, path string, cols ...string) ([]map[string]any, map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return arrowRead(t, f, info.Size(), path, cols...)
}

// arrowObject is arrowColumns on the object at key of st, read through
// the store's ranged reads.
func arrowObject(t *testing.T, st store.Store, key string, cols ...string) ([]map[string]any, map[string]string) {
	t.Helper()
	r, err := st.OpenReader(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return arrowRead(t, r, r.Size(), key, cols...)
}

// arrowRead reads the Parquet file of size bytes read through r with
// pqarrow; see arrowColumns.
func arrowRead(t *testing.T, r io.ReaderAt, size int64, name string, cols ...string) ([]map[string]any, map[string]string) {
	t.Helper()
	pf, err := file.NewParquetReader(io.NewSectionReader(r, 0, size))
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer pf.Close()
	meta := map[string]string{}
	kv := pf.MetaData().KeyValueMetadata()
	for i, k := range kv.Keys() {
		meta[k] = kv.Values()[i]
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	defer tbl.Release()
	rows := make([]map[string]any, tbl.NumRows())
	for i := range rows {
		rows[i] = map[string]any{}
	}
	for c := 0; c < int(tbl.NumCols()); c++ {
		col := tbl.Column(c)
		want := len(cols) == 0
		for _, name := range cols {
			want = want || name == col.Name()
		}
		if !want {
			continue
		}
		r := 0
		for _, chunk := range col.Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				var v any
				switch a := chunk.(type) {
				case *array.String:
					v = a.Value(i)
				case *array.Int64:
					if !a.IsNull(i) {
						v = a.Value(i)
					}
				case *array.Binary:
					v = string(a.Value(i))
				default:
					v = fmt.Sprint(a.GetOneForMarshal(i))
				}
				rows[r][col.Name()] = v
				r++
			}
		}
	}
	return rows, meta
}

// isVisiblePart reports whether key is a part file readers take: a
// .parquet name, no element starting with "_" or ".".
func isVisiblePart(key string) bool {
	if !strings.HasSuffix(key, dataset.PartExt) {
		return false
	}
	for _, elem := range strings.Split(key, "/") {
		if strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".") {
			return false
		}
	}
	return true
}

// readDataset reads every part of the dataset at loc with arrow-go and
// checks the layout: complete parts only, every other table's part beside
// its pages part, nothing else but the locks. cols are the pages columns
// read (by default the identity and outcome columns).
func readDataset(t *testing.T, loc string, cols ...string) (pages, spaces []map[string]any) {
	t.Helper()
	ctx := context.Background()
	st := openLoc(t, loc)
	objs, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]map[string]bool{} // table → part keys below it
	for _, o := range objs {
		table, rest, _ := strings.Cut(o.Key, "/")
		name := path.Base(o.Key)
		switch {
		case table == parts.LocksDir:
		case strings.HasPrefix(name, parts.PendingPrefix) && strings.HasSuffix(name, parts.PendingExt):
			// A pending part (after a kill): not visible, not read.
		case isVisiblePart(o.Key) && slices.Contains(parts.Tables(), table):
			if found[table] == nil {
				found[table] = map[string]bool{}
			}
			found[table][rest] = true
		default:
			t.Errorf("stray object in the dataset: %s", o.Key)
		}
	}
	for table, ps := range found {
		for part := range ps {
			if !found[dataset.PagesDir][part] {
				t.Errorf("%s/%s is visible without its pages part", table, part)
			}
		}
	}
	if len(cols) == 0 {
		cols = []string{"run_id", "page_id", "url", "status", "error_kind", "error_message"}
	}
	for _, part := range slices.Sorted(maps.Keys(found[dataset.PagesDir])) {
		rows, meta := arrowObject(t, st, dataset.PagesDir+"/"+part, cols...)
		if meta[dataset.KeySchemaVersion] == "" {
			t.Errorf("pages/%s: no schema version in the metadata", part)
		}
		for _, r := range rows {
			r["part"] = part
		}
		pages = append(pages, rows...)
	}
	for _, part := range slices.Sorted(maps.Keys(found[dataset.SpacesDir])) {
		rows, _ := arrowObject(t, st, dataset.SpacesDir+"/"+part, "page_id", "url", "format", "viewport_expansion", "mode", "action_space", "action_count", "tokens_cl100k")
		spaces = append(spaces, rows...)
	}
	return pages, spaces
}

// checkComplete asserts that the dataset holds every URL of the list once
// and, for each captured page, one spaces row per expansion.
func checkComplete(t *testing.T, dir string, urls []string, expansions int) {
	t.Helper()
	pages, spaces := readDataset(t, dir)
	byURL := map[string]int{}
	ok := map[string]bool{}
	runs := map[string]bool{}
	for _, p := range pages {
		byURL[p["url"].(string)]++
		runs[p["run_id"].(string)] = true
		if p["status"] == dataset.StatusOK {
			ok[p["page_id"].(string)] = true
		}
	}
	for _, u := range urls {
		if byURL[u] != 1 {
			t.Errorf("%s: %d pages rows, want exactly 1", u, byURL[u])
		}
	}
	if len(pages) != len(urls) {
		t.Errorf("%d pages rows for %d URLs", len(pages), len(urls))
	}
	if len(runs) != 1 {
		t.Errorf("run IDs %v, want one", runs)
	}
	perPage := map[string]int{}
	for _, s := range spaces {
		perPage[s["page_id"].(string)]++
	}
	for id := range ok {
		if perPage[id] != expansions {
			t.Errorf("page %s: %d spaces rows, want %d", id, perPage[id], expansions)
		}
	}
	for id := range perPage {
		if !ok[id] {
			t.Errorf("spaces rows for page %s, which has no ok pages row", id)
		}
	}
}

// testList writes a URL list of n corpus pages (with ?n=i to make them
// distinct) plus a 404 and a malformed line, and returns the URLs.
func testList(t *testing.T, base string, n int) (path string, urls []string) {
	t.Helper()
	pages := corpora.DefaultURLs(base)
	for i := range n {
		urls = append(urls, fmt.Sprintf("%s?n=%d", pages[i%len(pages)], i))
	}
	urls = append(urls, base+"/faults/status/404", "not a url")
	path = filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(path, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, urls
}

// fastFlags keep the subprocess crawls short: one window, one encoding,
// the actionspace format only (the others are tested apart).
var fastFlags = []string{"--workers", "2", "--viewport-expansion", "0", "--encodings", "cl100k_base", "--formats", "actionspace",
	"--settle-quiet", "100ms", "--settle-max", "500ms", "--timeout", "20s"}

func startCorpus(t *testing.T) *corpora.Server {
	t.Helper()
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var tmps []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, store.TempSuffix) {
			tmps = append(tmps, path)
		}
		return nil
	})
	return tmps
}

// TestCrawl_KillAndResume kills a crawl with SIGKILL after it completed a
// few parts, into a directory and into a bucket: what it wrote stays
// readable, a second crawl of the partition is refused while the killed
// one's lock is fresh, and a resume takes over the lock once it is stale
// and finishes the list with every URL exactly once.
func TestCrawl_KillAndResume(t *testing.T) {
	requireBrowser(t)
	srv := startCorpus(t)
	list, urls := testList(t, srv.URL, 40)
	locations(t, func(t *testing.T, out string) {
		args := append([]string{"--out", out, "--part-pages", "4", "--run-id", "kill-test", "--lock-ttl", "3s"}, fastFlags...)

		p := startCrawl(t, nil, append(args, list)...)
		waitForParts(t, p, out, 2, 3*time.Minute)

		// While it runs, its partition is locked.
		second, code := runCrawl(t, nil, time.Minute, append(append([]string{"--resume"}, args...), list)...)
		if code != 1 || !strings.Contains(second.stderr.String(), "is held by kill-test") {
			t.Errorf("a second crawl of a running crawl's partition: exit %d, stderr %q; want it refused, naming the holder", code, second.stderr.String())
		}
		if dir, ok := localDir(out); ok {
			for deadline := time.Now().Add(10 * time.Second); len(tempFiles(t, dir)) == 0 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond) // kill while a part is open
			}
		}
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		if code := p.wait(t, 30*time.Second); code != -1 {
			t.Errorf("exit code after SIGKILL = %d, want -1 (killed)", code)
		}
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) // the orphaned driver and browser

		// What the killed run left: complete parts, all readable.
		before, _ := readDataset(t, out)
		t.Logf("killed with %d pages in complete parts", len(before))
		if len(before) == 0 || len(before) >= len(urls) {
			t.Fatalf("%d pages before the kill, want some but not all of %d", len(before), len(urls))
		}

		// A new crawl into the same location is refused.
		if _, code := runCrawl(t, nil, time.Minute, append(args, list)...); code != 1 {
			t.Errorf("crawl into a used location without --resume: exit %d, want 1", code)
		}

		// The resume waits for the dead crawl's lock to go stale, takes it
		// over, and takes the run ID from the dataset.
		resume := append(append([]string{"--resume", "--out", out, "--part-pages", "4", "--lock-wait", "30s"}, fastFlags...), list)
		r, code := runCrawl(t, nil, 3*time.Minute, resume...)
		if code != 0 {
			t.Fatalf("resume: exit %d\nstdout:\n%s\nstderr:\n%s", code, &r.stdout, &r.stderr)
		}
		t.Logf("resumed %v after the kill: %s", time.Since(killed).Round(time.Millisecond), strings.SplitN(r.stdout.String(), "\n", 2)[0])
		if want := fmt.Sprintf("%d already done", len(before)); !strings.Contains(r.stdout.String(), want) || !strings.Contains(r.stdout.String(), "run kill-test:") {
			t.Errorf("resume summary %q, want it to say %q of run kill-test", r.stdout.String(), want)
		}
		if dir, ok := localDir(out); ok {
			if tmps := tempFiles(t, dir); len(tmps) != 0 {
				t.Errorf("temporary files left after the resume: %v", tmps)
			}
		}
		checkComplete(t, out, urls, 1)
	})
}

// localDir returns the directory of a location that is one.
func localDir(loc string) (string, bool) {
	return loc, !strings.Contains(loc, "://")
}

// slowCorpus scripts every corpus page to load in delay: a replay crawl
// then runs long enough to be stopped midway.
func slowCorpus(delay time.Duration) map[string]pipelinetest.Fault {
	faults := map[string]pipelinetest.Fault{}
	for _, p := range corpora.DefaultPaths() {
		faults[p] = pipelinetest.Fault{Kind: pipelinetest.Slow, Delay: delay}
	}
	return faults
}

// TestCrawl_Interrupt sends SIGINT mid-crawl (a replay crawl whose pages
// take 300 ms each): the crawl stops taking URLs, lets the pages in flight
// finish, closes its files, prints its summary and exits 1; a resume then
// finishes the list.
func TestCrawl_Interrupt(t *testing.T) {
	t.Parallel()
	list, urls := testList(t, replaySite, 40)
	out := filepath.Join(t.TempDir(), "run")
	args := append([]string{"--out", out, "--part-pages", "5", "--grace", "15s"}, fastFlags...)

	p := startReplay(t, pipelinetest.Options{Faults: slowCorpus(300 * time.Millisecond)}, nil, append(args, list)...)
	waitForParts(t, p, out, 1, 3*time.Minute)
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := p.wait(t, time.Minute)
	t.Logf("exited %d, %v after SIGINT\nstdout: %s", code, time.Since(start).Round(time.Millisecond), &p.stdout)
	if code != 1 {
		t.Errorf("exit code after SIGINT = %d, want 1\nstderr:\n%s", code, &p.stderr)
	}
	if !regexp.MustCompile(`run crawl-\S+: \d+ URLs, \d+ ok, \d+ failed, \d+ retried, \d+ unfinished`).MatchString(p.stdout.String()) {
		t.Errorf("stdout %q, want the summary with the unfinished count", p.stdout.String())
	}
	if stderr := p.stderr.String(); !strings.Contains(stderr, "interrupted") || !strings.Contains(stderr, "--resume --out "+out) {
		t.Errorf("stderr %q, want it to say interrupted and how to resume", stderr)
	}
	if tmps := tempFiles(t, out); len(tmps) != 0 {
		t.Errorf("temporary files left after SIGINT: %v (the open part must be closed)", tmps)
	}
	pages, _ := readDataset(t, out)
	if len(pages) == 0 || len(pages) >= len(urls) {
		t.Errorf("%d pages after the interrupt, want some but not all of %d", len(pages), len(urls))
	}
	for _, pg := range pages {
		if pg["error_kind"] == string(pipeline.KindCanceled) {
			t.Errorf("%s: a canceled row; an interrupted page must be left to the resume", pg["url"])
		}
	}

	r, code := runReplay(t, pipelinetest.Options{}, nil, 3*time.Minute, append([]string{"--resume"}, append(args, list)...)...)
	if code != 0 {
		t.Fatalf("resume: exit %d\nstderr:\n%s", code, &r.stderr)
	}
	checkComplete(t, out, urls, 1)
}

// TestCrawl_BadList crawls a list of malformed lines and refused schemes
// (on a replay browser):
// each is logged with its line number and becomes an invalid_url row, the
// good URL is crawled once however often it is listed, and nothing is
// written outside the output directory.
func TestCrawl_BadList(t *testing.T) {
	t.Parallel()
	good := replaySite + "/login.html"
	lines := []string{
		good,                                   // 1
		"# comment",                            // 2
		"not a url",                            // 3
		"file:///etc/passwd",                   // 4
		"javascript:alert(1)",                  // 5
		"data:text/html,<b>x</b>",              // 6
		"chrome://version",                     // 7
		"http://[::1",                          // 8
		good,                                   // 9: duplicate
		"http://example.test/\xff",             // 10
		replaySite + "/../../../../etc/passwd", // 11: a path, not a file name
		"",                                     // 12
		"  " + good + "  ",                     // 13: duplicate
	}
	list := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(list, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	p, code := runReplay(t, pipelinetest.Options{}, nil, 2*time.Minute, append(append([]string{"--out", out, "--log-level", "info"}, fastFlags...), list)...)
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, &p.stderr)
	}
	stderr := p.stderr.String()
	for _, line := range []int{3, 4, 5, 6, 7, 8, 10} {
		if !regexp.MustCompile(`line refused.* line=` + strconv.Itoa(line) + ` `).MatchString(stderr) {
			t.Errorf("stderr does not report line %d", line)
		}
	}
	pages, _ := readDataset(t, out)
	rows := map[string]map[string]any{}
	for _, pg := range pages {
		if rows[pg["url"].(string)] != nil {
			t.Errorf("%s: two rows", pg["url"])
		}
		rows[pg["url"].(string)] = pg
	}
	if len(pages) != 9 {
		t.Errorf("%d rows, want 9 (one per distinct non-comment line)", len(pages))
	}
	for _, l := range []int{3, 4, 5, 6, 7, 8} {
		r := rows[lines[l-1]]
		if r == nil || r["error_kind"] != string(pipeline.KindInvalidURL) || !strings.Contains(r["error_message"].(string), fmt.Sprintf("line %d:", l)) {
			t.Errorf("line %d %q: row %v, want invalid_url naming the line", l, lines[l-1], r)
		}
	}
	if r := rows[good]; r == nil || r["status"] != dataset.StatusOK {
		t.Errorf("%s: row %v, want ok", good, r)
	}
}

// keyedChatServer is a local OpenAI-compatible chat-completions server
// that answers only requests carrying its API key (401 otherwise), with a
// reply that describes every ID the prompt asks for.
type keyedChatServer struct {
	key                   string
	mu                    sync.Mutex
	calls, refused, keyed int
}

func (s *keyedChatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls++
	ok := r.Header.Get("Authorization") == "Bearer "+s.key
	if ok {
		s.keyed++
	} else {
		s.refused++
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":{"message":"invalid API key","type":"invalid_request_error"}}`, http.StatusUnauthorized)
		return
	}
	msgs, ok := deeptest.ReadChat(w, r)
	if !ok {
		return
	}
	deeptest.WriteReply(w, deeptest.Describe(msgs[len(msgs)-1], nil), 100, 20)
}

// scanForSecrets walks root and fails the test for every secret found
// in the bytes of a file, and, for Parquet files (when parquet is set), in
// their key-value metadata or in any column of any row read back through
// Arrow, with the blob columns (capture, axtree, aisnapshot: zstd frames)
// decompressed. It returns how many files it read and every row.
func scanForSecrets(t *testing.T, root string, parquet bool, secrets ...string) (int, []map[string]any) {
	t.Helper()
	n := 0
	var all []map[string]any
	holds := func(where, text string) {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%q is in %s", s, where)
			}
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		holds("the bytes of "+path, string(data))
		if !parquet || !strings.HasSuffix(path, dataset.PartExt) {
			return nil // a cache file or a lock object: its bytes are all there is
		}
		meta, err := dataset.ReadMetadata(path)
		if err != nil {
			return err
		}
		holds("the metadata of "+path, fmt.Sprint(meta))
		rows, _ := arrowColumns(t, path) // every column, decompressed
		for _, r := range rows {
			for col, v := range r {
				s, _ := v.(string)
				if strings.HasPrefix(s, "\x28\xb5\x2f\xfd") { // a zstd frame: a blob
					if raw, err := dataset.DecompressCapture([]byte(s)); err == nil {
						s = string(raw)
					}
				}
				holds(fmt.Sprintf("column %s of %s", col, path), s+fmt.Sprint(v))
			}
		}
		all = append(all, rows...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, all
}

// TestCrawl_SecretsStayOut runs a deep-mode crawl (replayed pages) against a local chat
// server that requires an API key, with the key in the crawl's environment
// only, and checks that the key was used (every call carried it, deep rows
// ran) and appears nowhere it could leak: not in any byte of any output
// file (data or metadata, compressed or not), not in the rows decoded,
// not in the LLM reply cache, not in stdout or the debug logs.
func TestCrawl_SecretsStayOut(t *testing.T) {
	t.Parallel()
	const key = "sk-actionspace-test-7f3c9e1d4b2a-SECRET"
	chat := &keyedChatServer{key: key}
	chatSrv := httptest.NewServer(chat)
	defer chatSrv.Close()
	env := []string{"ACTIONSPACE_LLM_API_KEY=" + key, "OPENAI_API_KEY=" + key}
	list, urls := testList(t, replaySite, 3)
	out := filepath.Join(t.TempDir(), "run")
	cache := filepath.Join(t.TempDir(), "llm-cache")
	args := append([]string{"--out", out, "--log-level", "debug", "--part-pages", "2", "--mode", "fast,deep",
		"--llm-base-url", chatSrv.URL + "/v1", "--llm-model", "test-model", "--llm-cache", cache}, fastFlags...)
	p, code := runReplay(t, pipelinetest.Options{}, env, 3*time.Minute, append(args, list)...)
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, &p.stderr)
	}
	chat.mu.Lock()
	calls, keyed, refused := chat.calls, chat.keyed, chat.refused
	chat.mu.Unlock()
	if calls == 0 || refused > 0 || keyed != calls {
		t.Fatalf("chat server: %d calls, %d with the key, %d refused; want every call to carry the key", calls, keyed, refused)
	}
	for name, text := range map[string]string{"stdout": p.stdout.String(), "stderr": p.stderr.String()} {
		if strings.Contains(text, key) {
			t.Errorf("the key is in %s", name)
		}
	}
	if !strings.Contains(p.stderr.String(), "level=DEBUG") {
		t.Errorf("no debug logs to check: %q", p.stderr.String())
	}
	files, rows := scanForSecrets(t, out, true, key)
	cached, _ := scanForSecrets(t, cache, false, key)
	if files == 0 || cached == 0 {
		t.Fatalf("%d output files, %d cache files: want both", files, cached)
	}
	ran := 0
	for _, r := range rows {
		if r["mode"] == "deep" && r["llm_ran"] == "true" {
			ran++
		}
	}
	if ran == 0 {
		t.Error("no deep row with llm_ran true: the key was never put to use")
	}
	t.Logf("%d chat calls, all with the key; %d output and %d cache files and %d bytes of logs hold no key; %d deep rows ran",
		calls, files, cached, p.stderr.Len(), ran)
	checkComplete(t, out, urls, 2)
}

// TestCrawl_FaultAccounting crawls the corpus with scripted faults (on a
// replay browser) and --retries 1: a timeout and a crash that fail the
// first attempt only, a 503 and a hang that fail every attempt, and a
// 404. Each URL gets one row whose kind and attempts follow from its
// fault, and the summary line counts what the rows hold: ok, failed and
// retried.
func TestCrawl_FaultAccounting(t *testing.T) {
	t.Parallel()
	type want struct {
		kind     pipeline.ErrorKind // "" for ok
		attempts int64
	}
	faults := map[string]pipelinetest.Fault{
		"/login.html?f=timeout": {Kind: pipelinetest.Timeout, Times: 1},
		"/login.html?f=crash":   {Kind: pipelinetest.Crash, Times: 1},
		"/login.html?f=503":     {Kind: pipelinetest.Status, Status: 503},
		"/login.html?f=hang":    {Kind: pipelinetest.Hang},
	}
	wants := map[string]want{
		"/login.html?f=timeout": {"", 2},
		"/login.html?f=crash":   {"", 2},
		"/login.html?f=503":     {pipeline.KindHTTP, 2},
		"/login.html?f=hang":    {pipeline.KindTimeout, 2},
		"/no-such-page.html":    {pipeline.KindHTTP, 1},
	}
	for _, p := range corpora.DefaultPaths() {
		wants[p] = want{"", 1}
	}
	var urls []string
	for key := range wants {
		urls = append(urls, replaySite+key)
	}
	slices.Sort(urls)
	list := writeList(t, urls)
	out := filepath.Join(t.TempDir(), "run")
	replay := pipelinetest.New(t, pipelinetest.Options{Faults: faults})
	var stdout, stderr bytes.Buffer
	err := command{open: replay.Opener()}.run(context.Background(), []string{"--out", out, "--retries", "1", "--timeout", "2s", "--workers", "3",
		"--viewport-expansion", "0", "--encodings", "cl100k_base", "--formats", "actionspace", list}, strings.NewReader(""), &stdout, &stderr)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, &stderr)
	}
	rows := readTable[dataset.PageRow](t, out, dataset.PagesDir)
	ok, failed, retried := 0, 0, 0
	seen := map[string]bool{}
	for _, r := range rows {
		key := strings.TrimPrefix(r.URL, replaySite)
		w, listed := wants[key]
		if !listed || seen[key] {
			t.Errorf("%s: a row not listed, or a second one", r.URL)
			continue
		}
		seen[key] = true
		if r.ErrorKind != string(w.kind) || r.Attempts != w.attempts {
			t.Errorf("%s: %s %q after %d attempts, want %q after %d", key, r.Status, r.ErrorKind, r.Attempts, w.kind, w.attempts)
		}
		if r.Status == dataset.StatusOK {
			ok++
		} else {
			failed++
		}
		if r.Attempts > 1 {
			retried++
		}
	}
	if len(seen) != len(wants) {
		t.Errorf("%d rows for %d URLs", len(seen), len(wants))
	}
	summary := fmt.Sprintf("%d URLs, %d ok, %d failed, %d retried", len(wants), ok, failed, retried)
	if !strings.Contains(stdout.String(), summary) {
		t.Errorf("summary %q, want it to say %q", stdout.String(), summary)
	}
	// every retried attempt of a timeout, a crash or a hang got a new page
	if opened, _ := replay.Pages(); opened < 3+3 {
		t.Errorf("%d pages opened: the pages of the timeout, the crash and the hang were not replaced", opened)
	}
}
