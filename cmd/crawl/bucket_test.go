package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/store"
	"actionspace/dataset/store/bucket"
	"actionspace/internal/s3test"
	"actionspace/pipelinetest"
)

// s3srv is the S3-compatible server of this package's tests, started by the
// first test that needs it.
var s3srv s3test.Shared

func TestMain(m *testing.M) {
	commandMain() // when this binary is the crawl command, it ends here
	replayMain()  // and when it is a replay crawl
	bucket.Register()
	s3srv.Main(m)
}

// locations runs fn with an output location in a directory and in a
// bucket of the real S3-compatible server (skipped under -short, or
// failed without the server when ACTIONSPACE_REQUIRE_S3=1). After the
// bucket run it checks that the server's credentials appear in no byte of
// the bucket and no output of the crawls the test ran.
func locations(t *testing.T, fn func(t *testing.T, out string)) {
	t.Run("dir", func(t *testing.T) {
		fn(t, filepath.Join(t.TempDir(), "run"))
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3srv.Start(t)
		srv.SetEnv(t)
		fn(t, srv.URL(srv.Bucket, "runs/x"))
		checkNoCredentials(t, srv, procsOf(t)...)
	})
}

// procs records the crawls each test started, for checkNoCredentials.
var procs sync.Map // *testing.T → *[]*crawlProc

func recordProc(t *testing.T, p *crawlProc) {
	v, _ := procs.LoadOrStore(t, &[]*crawlProc{})
	list := v.(*[]*crawlProc)
	*list = append(*list, p)
}

func procsOf(t *testing.T) []*crawlProc {
	v, ok := procs.Load(t)
	if !ok {
		return nil
	}
	return *v.(*[]*crawlProc)
}

// checkNoCredentials scans every object of the test's bucket — its raw
// bytes, and for Parquet parts every decoded row and the metadata — and
// the output of the crawls for the server's access key and secret.
func checkNoCredentials(t *testing.T, srv *s3test.Server, crawls ...*crawlProc) {
	t.Helper()
	secrets := []string{srv.AccessKey, srv.SecretKey}
	st := openLoc(t, srv.URL(srv.Bucket, ""))
	objs, err := st.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	scanned := 0
	for _, o := range objs {
		raw, err := store.ReadAll(context.Background(), st, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		texts := []string{string(raw)}
		if strings.HasSuffix(o.Key, dataset.PartExt) {
			rows, meta := arrowObject(t, st, o.Key)
			texts = append(texts, fmt.Sprint(rows), fmt.Sprint(meta))
		}
		for _, s := range secrets {
			for _, text := range texts {
				if strings.Contains(text, s) {
					t.Errorf("a credential is in %s", o.Key)
				}
			}
		}
		scanned += len(raw)
	}
	for _, p := range crawls {
		for _, s := range secrets {
			if strings.Contains(p.stdout.String(), s) || strings.Contains(p.stderr.String(), s) {
				t.Errorf("a credential is in the output of crawl %v", p.cmd.Args[1:])
			}
		}
	}
	if len(objs) == 0 {
		t.Error("no objects to scan for credentials")
	}
	t.Logf("no credential in %d objects (%d bytes) nor in the output of %d crawls", len(objs), scanned, len(crawls))
}

// writeList writes urls as a URL list and returns its path.
func writeList(t *testing.T, urls []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(path, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writtenRE reads the bytes a crawl's summary says it wrote.
var writtenRE = regexp.MustCompile(`([0-9.]+) MiB written`)

// TestCrawl_BucketEqualsDirectory crawls the corpus (replayed, so that
// both sides get the same pages) as two shards into a bucket and into a
// directory, alternating which goes first, and checks that the two
// datasets are equal row by row: the same pages in the same partitions,
// with the same outcome, and the same text of every format for every page
// and expansion. It logs the wall time of each against the other and the
// bytes uploaded.
func TestCrawl_BucketEqualsDirectory(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	list := writeList(t, corpora.DefaultURLs(replaySite))
	dir := filepath.Join(t.TempDir(), "run")
	bucket := srv.URL(srv.Bucket, "runs/nightly")

	elapsed := map[string]time.Duration{}
	var written float64
	for shard := range 2 {
		order := []string{dir, bucket}
		if shard == 1 {
			order = []string{bucket, dir}
		}
		for _, out := range order {
			args := []string{"--out", out, "--shard", fmt.Sprintf("%d/2", shard), "--run-id", "equal", "--part-pages", "3",
				"--workers", "2", "--viewport-expansion", "0,-1", "--encodings", "cl100k_base", "--timeout", "30s"}
			start := time.Now()
			p, code := runReplay(t, pipelinetest.Options{}, nil, 3*time.Minute, append(args, list)...)
			if code != 0 {
				t.Fatalf("shard %d into %s: exit %d\nstderr:\n%s", shard, out, code, &p.stderr)
			}
			elapsed[out] += time.Since(start)
			if out == bucket {
				m := writtenRE.FindStringSubmatch(p.stdout.String())
				if m == nil {
					t.Fatalf("no bytes written in the summary %q", p.stdout.String())
				}
				v, _ := strconv.ParseFloat(m[1], 64)
				written += v
			}
		}
	}
	cols := []string{"page_id", "url", "status", "error_kind", "http_status", "title", "dom_nodes", "interactive_nodes"}
	dirPages, dirSpaces := readDataset(t, dir, cols...)
	bucketPages, bucketSpaces := readDataset(t, bucket, cols...)
	if len(dirPages) != len(corpora.DefaultPaths()) {
		t.Errorf("%d pages rows in the directory, want one per corpus page (%d)", len(dirPages), len(corpora.DefaultPaths()))
	}
	byID := func(rows []map[string]any, key func(r map[string]any) string) map[string]map[string]any {
		m := map[string]map[string]any{}
		for _, r := range rows {
			k := key(r)
			if m[k] != nil {
				t.Errorf("row %s twice", k)
			}
			m[k] = r
		}
		return m
	}
	pageKey := func(r map[string]any) string { return r["page_id"].(string) }
	spaceKey := func(r map[string]any) string {
		return fmt.Sprintf("%s/%v/%v/%v", r["page_id"], r["format"], r["mode"], r["viewport_expansion"])
	}
	partition := func(r map[string]any) string { p, _, _ := strings.Cut(r["part"].(string), "/"); return p }
	dp, bp := byID(dirPages, pageKey), byID(bucketPages, pageKey)
	for id, d := range dp {
		b := bp[id]
		if b == nil {
			t.Errorf("page %s (%s) is in the directory, not in the bucket", id, d["url"])
			continue
		}
		for _, c := range cols {
			if fmt.Sprint(d[c]) != fmt.Sprint(b[c]) {
				t.Errorf("page %s column %s: %v in the directory, %v in the bucket", d["url"], c, d[c], b[c])
			}
		}
		if partition(d) != partition(b) {
			t.Errorf("page %s: partition %s in the directory, %s in the bucket", d["url"], partition(d), partition(b))
		}
	}
	if len(bp) != len(dp) {
		t.Errorf("%d pages in the bucket, %d in the directory", len(bp), len(dp))
	}
	ds, bs := byID(dirSpaces, spaceKey), byID(bucketSpaces, spaceKey)
	for k, d := range ds {
		b := bs[k]
		if b == nil {
			t.Errorf("space %s is in the directory, not in the bucket", k)
			continue
		}
		// Both crawls replayed the same records: every format's text is
		// equal.
		if d["action_space"] != b["action_space"] || fmt.Sprint(d["tokens_cl100k"]) != fmt.Sprint(b["tokens_cl100k"]) {
			t.Errorf("space %s (%s) differs: %d tokens in the directory, %v in the bucket", k, d["url"], d["tokens_cl100k"], b["tokens_cl100k"])
		}
		if fmt.Sprint(d["action_count"]) != fmt.Sprint(b["action_count"]) {
			t.Errorf("space %s (%s): %v handles in the directory, %v in the bucket", k, d["url"], d["action_count"], b["action_count"])
		}
	}
	// Per page: actionspace, browser-use, playwright-ai and axtree at 0 and
	// -1, html once.
	if perPage := 4*2 + 1; len(bs) != len(ds) || len(ds) != perPage*len(dp) {
		t.Errorf("%d spaces rows in the bucket, %d in the directory; want %d per page (%d)", len(bs), len(ds), perPage, perPage*len(dp))
	}

	st := openLoc(t, bucket)
	objs, err := st.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var stored int64
	for _, o := range objs {
		stored += o.Size
	}
	ratio := elapsed[bucket].Seconds() / elapsed[dir].Seconds()
	t.Logf("corpus (%d pages, 2 shards, expansions 0 and -1): directory %v, bucket %v (bucket/directory %.2f); uploaded %.2f MiB of parts, %d objects of %.2f MiB in the bucket",
		len(dp), elapsed[dir].Round(time.Millisecond), elapsed[bucket].Round(time.Millisecond), ratio, written, len(objs), float64(stored)/(1<<20))
	checkNoCredentials(t, srv, procsOf(t)...)
}

// TestCrawl_ResumeRecrawlsTransient crashes (SIGKILL) a replay crawl into
// a directory and a bucket whose list starts with pages that hang until they time out
// (scripted), a 500 and a 404, and whose other pages are slow, then
// resumes with the pages answering: the resume crawls again exactly the
// rows that failed transiently (the timeouts and the 500, not the 404),
// besides the URLs the crash left undone, and leaves one row per URL — the
// new one for each page crawled again.
func TestCrawl_ResumeRecrawlsTransient(t *testing.T) {
	locations(t, func(t *testing.T, out string) { resumeRecrawlsTransient(t, out) })
}

// resumeRecrawlsTransient is TestCrawl_ResumeRecrawlsTransient into out.
func resumeRecrawlsTransient(t *testing.T, out string) {
	pages := corpora.DefaultPaths()
	faults := slowCorpus(300 * time.Millisecond) // the crash comes before the end
	var urls []string
	for i := range 5 {
		key := fmt.Sprintf("%s?hang=%d", pages[i%len(pages)], i)
		faults[key] = pipelinetest.Fault{Kind: pipelinetest.Hang}
		urls = append(urls, replaySite+key)
	}
	fails := pipelinetest.Fault{Kind: pipelinetest.Status, Status: 500}
	faults["/faults/status/500"] = fails
	urls = append(urls, replaySite+"/faults/status/500", replaySite+"/faults/status/404")
	for i := range 30 {
		urls = append(urls, fmt.Sprintf("%s%s?n=%d", replaySite, pages[i%len(pages)], i))
	}
	first := urls[:7] // the failures: 5 timeouts, a 500, a 404
	list := writeList(t, urls)
	args := []string{"--out", out, "--part-pages", "2", "--lock-ttl", "3s", "--timeout", "2s", "--retries", "0",
		"--workers", "2", "--viewport-expansion", "0", "--encodings", "cl100k_base", "--formats", "actionspace"}

	p := startReplay(t, pipelinetest.Options{Faults: faults}, nil, append(append([]string{"--run-id", "transient"}, args...), list)...)
	cols := []string{"page_id", "url", "status", "error_kind", "http_status", "captured_at"}
	var before []map[string]any
	for deadline := time.Now().Add(3 * time.Minute); ; {
		if time.Now().After(deadline) {
			t.Fatalf("the failures were not all in complete parts after 3 minutes\nstderr:\n%s", &p.stderr)
		}
		before, _ = readDataset(t, out, cols...)
		have := 0
		for _, r := range before {
			if slices.Contains(first, r["url"].(string)) {
				have++
			}
		}
		if have == len(first) {
			break
		}
		select {
		case <-p.done:
			t.Fatalf("the crawl ended before the kill\nstdout:\n%s", &p.stdout)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait(t, 30*time.Second)
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	before, _ = readDataset(t, out, cols...) // what the crash left
	transient := map[string]bool{}
	kept := map[string]string{} // url → captured_at of the rows that must stay
	for _, r := range before {
		u := r["url"].(string)
		code, _ := r["http_status"].(int64)
		switch {
		case r["error_kind"] == "timeout" || r["error_kind"] == "navigate" || r["error_kind"] == "browser" || (r["error_kind"] == "http" && code >= 500):
			transient[u] = true
			if !slices.Contains(first, u) {
				t.Logf("%s also failed transiently: %s", u, r["error_kind"])
			}
		default:
			kept[u] = fmt.Sprint(r["captured_at"])
		}
	}
	for _, u := range first[:6] {
		if !transient[u] {
			t.Errorf("%s: not a transient failure after the crash", u)
		}
	}
	if kept[replaySite+"/faults/status/404"] == "" || len(before) >= len(urls) {
		t.Fatalf("after the crash: %d rows, the 404 kept: %v; want it, and some of %d URLs left", len(before), kept[replaySite+"/faults/status/404"] != "", len(urls))
	}

	// The pages answer now; the 500 still fails.
	r, code := runReplay(t, pipelinetest.Options{Faults: map[string]pipelinetest.Fault{"/faults/status/500": fails}}, nil, 3*time.Minute, append(append([]string{"--resume", "--lock-wait", "30s"}, args...), list)...)
	if code != 0 {
		t.Fatalf("resume: exit %d\nstdout:\n%s\nstderr:\n%s", code, &r.stdout, &r.stderr)
	}
	summary := strings.SplitN(r.stdout.String(), "\n", 2)[0]
	t.Logf("after the crash: %d of %d URLs in complete parts, %d of them transient failures; resume: %s", len(before), len(urls), len(transient), summary)
	want := fmt.Sprintf("%d already done, %d failed transiently before and crawled again (%d old rows replaced)", len(before)-len(transient), len(transient), len(transient))
	if !strings.Contains(summary, want) {
		t.Errorf("resume summary %q, want %q", summary, want)
	}

	after, _ := readDataset(t, out, cols...)
	byURL := map[string][]map[string]any{}
	for _, row := range after {
		byURL[row["url"].(string)] = append(byURL[row["url"].(string)], row)
	}
	beforeAt := map[string]string{}
	for _, row := range before {
		beforeAt[row["url"].(string)] = fmt.Sprint(row["captured_at"])
	}
	for _, u := range urls {
		rows := byURL[u]
		if len(rows) != 1 {
			t.Errorf("%s: %d pages rows, want exactly 1", u, len(rows))
			continue
		}
		at := fmt.Sprint(rows[0]["captured_at"])
		switch {
		case transient[u]:
			if at == beforeAt[u] {
				t.Errorf("%s failed transiently and was not crawled again (captured_at %s)", u, at)
			}
			if strings.Contains(u, "hang=") && rows[0]["status"] != dataset.StatusOK {
				t.Errorf("%s: %s (%s) after the resume, want ok now that it answers", u, rows[0]["status"], rows[0]["error_kind"])
			}
		case kept[u] != "":
			if at != kept[u] {
				t.Errorf("%s: crawled again (captured_at %s, was %s), want its row kept", u, at, kept[u])
			}
		}
	}
	if len(after) != len(urls) {
		t.Errorf("%d pages rows for %d URLs", len(after), len(urls))
	}
}

// TestCrawl_BucketErrorsHideCredentials: a crawl whose credentials the
// bucket refuses, into a bucket that does not exist, or given credentials
// in its --out URL, fails with a message that carries neither the key ID
// nor the secret.
func TestCrawl_BucketErrorsHideCredentials(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	list := writeList(t, corpora.DefaultURLs(replaySite)[:1])
	wrong := "wrong-secret-" + strings.Repeat("x", 20)
	tests := []struct {
		name string
		env  []string
		out  string
	}{
		{"wrong secret", []string{"AWS_SECRET_ACCESS_KEY=" + wrong}, srv.URL(srv.Bucket, "runs/refused")},
		{"no such bucket", nil, srv.URL("no-such-bucket-"+strings.ToLower(t.Name()[:4]), "runs/x")},
		{"wrong key ID", []string{"AWS_ACCESS_KEY_ID=" + wrong}, srv.URL(srv.Bucket, "runs/refused")},
		// Credentials in the URL are refused, and not echoed.
		{"credentials in the URL", nil, strings.Replace(srv.URL(srv.Bucket, "runs/x"), "s3://", "s3://"+srv.AccessKey+":"+srv.SecretKey+"@", 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, code := runReplay(t, pipelinetest.Options{}, tc.env, 2*time.Minute, append(append([]string{"--out", tc.out}, fastFlags...), list)...)
			if code != 1 {
				t.Errorf("exit %d, want 1\nstderr:\n%s", code, &p.stderr)
			}
			t.Logf("stderr: %s", strings.TrimSpace(p.stderr.String()))
			for _, s := range []string{srv.AccessKey, srv.SecretKey, wrong} {
				if strings.Contains(p.stdout.String()+p.stderr.String(), s) {
					t.Errorf("a credential is in the output:\n%s", &p.stderr)
				}
			}
		})
	}
}
