package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dom"
	"actionspace/internal/browsertest"
)

// Bounds the attack crawl is held to, with what it measured on the 2-core
// development machine (2 workers; see TestCrawl_AttackPages's log).
const (
	// attackCrawlRSS bounds the crawl process's peak RSS. Measured: 469
	// MiB without the extras, much of it the 20 MB page's HTML as the
	// driver hands it over (JSON), decoded, redacted and cut; 758 to 1,046
	// MiB with them (the default), most of the rest the DOM snapshot the
	// accessibility tree reads of the renderer that holds the 50 frames.
	attackCrawlRSS = 1280 << 20
	// attackFooter bounds every file's footer: statistics hold at most 64
	// bytes a value, so the footer grows with columns and row groups, never
	// with a page. Measured: 2.8 to 6.7 KB.
	attackFooter = 64 << 10
	// attackMaxFrames is the test's --max-frames: the frames page needs
	// about 12 s to load its 50 frames, and each frame captured adds
	// about 0.6 s.
	attackMaxFrames = 4
)

// procStat is one process of a tree: its parent, name and RSS in KiB.
type procStat struct {
	ppid int
	comm string
	rss  int64
}

// procTree reads /proc: every process's parent, name and RSS.
func procTree() map[int]procStat {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	procs := map[int]procStat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		var p procStat
		for line := range strings.Lines(string(status)) {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))
			switch k {
			case "Name":
				p.comm = v
			case "PPid":
				p.ppid, _ = strconv.Atoi(v)
			case "VmRSS":
				p.rss, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		procs[pid] = p
	}
	return procs
}

// browserRSS sums the RSS (KiB) of root's descendants (root excluded):
// Chromium's processes (browsertest.IsChromium and their children), and the
// others (the Playwright driver); and the PSS of Chromium's (which splits
// the pages its processes share, where RSS counts them in each).
func browserRSS(root int) (chromium, chromiumPSS, driver int64) {
	procs := procTree()
	for pid, p := range procs {
		inChromium, under := false, false
		for q := pid; q > 1; q = procs[q].ppid {
			if browsertest.IsChromium(procs[q].comm) {
				inChromium = true
			}
			if procs[q].ppid == root {
				under = true
				break
			}
		}
		switch {
		case !under:
		case inChromium:
			chromium += p.rss
			chromiumPSS += pss(pid)
		default:
			driver += p.rss
		}
	}
	return chromium, chromiumPSS, driver
}

// samplePeaks samples, every interval until p exits, the memory of the
// processes below p (browserRSS) and returns the peaks, in KiB: Chromium's
// RSS summed, its PSS summed, and the other processes' RSS.
func samplePeaks(p *crawlProc, every time.Duration) (chromium, chromiumPSS, driver int64) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-p.done:
			return chromium, chromiumPSS, driver
		case <-tick.C:
			c, cp, d := browserRSS(p.cmd.Process.Pid)
			chromium, chromiumPSS, driver = max(chromium, c), max(chromiumPSS, cp), max(driver, d)
		}
	}
}

// footerSize returns the length of a Parquet file's footer (its metadata)
// and the file's size.
func footerSize(t *testing.T, path string) (footer, size int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	tail := make([]byte, 8)
	if _, err := f.ReadAt(tail, st.Size()-8); err != nil {
		t.Fatal(err)
	}
	if string(tail[4:]) != "PAR1" {
		t.Fatalf("%s: no Parquet magic at the end", path)
	}
	return int64(binary.LittleEndian.Uint32(tail[:4])), st.Size()
}

// TestCrawl_AttackPages crawls every attack page of the corpus with the
// crawl command and two workers, as a nightly build meets them: each page
// gets its ok row with the caps it was made to hit flagged, the files and
// their footers stay within what the caps allow, and the crawl process's
// memory stays under attackCrawlRSS. It logs the peak RSS of the crawl
// process and of Chromium (its process tree) separately, each file's and
// footer's size, and each page's wall time.
func TestCrawl_AttackPages(t *testing.T) {
	requireBrowser(t)
	srv := startCorpus(t)
	urls := corpora.AttackURLs(srv.URL)
	list := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	start := time.Now()
	// The pages take 2–60 s each on an idle machine, and the 20 MB one
	// passed 60 s beside the browser package's tests: the test is about
	// caps, not time, so each page may take up to 3 min.
	p := startCrawl(t, nil, "--out", out, "--workers", "2", "--viewport-expansion", "0,-1", "--encodings", "cl100k_base",
		"--settle-quiet", "100ms", "--settle-max", "500ms", "--timeout", "3m", "--max-frames", strconv.Itoa(attackMaxFrames), list)
	chromiumPeak, pssPeak, driverPeak := samplePeaks(p, 200*time.Millisecond)
	if code := p.wait(t, time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, &p.stderr)
	}
	wall := time.Since(start)
	m := peakRSSLine.FindStringSubmatch(p.stdout.String())
	if m == nil {
		t.Fatalf("no peak RSS in %q", p.stdout.String())
	}
	crawlPeak, _ := strconv.ParseInt(m[1], 10, 64)
	t.Logf("%d attack pages in %v: crawl process peak RSS %d MiB; Chromium peak RSS (sum of its processes) %d MiB, PSS %d MiB; driver %d MiB",
		len(urls), wall.Round(time.Millisecond), crawlPeak, chromiumPeak>>10, pssPeak>>10, driverPeak>>10)
	if crawlPeak<<20 > attackCrawlRSS {
		t.Errorf("crawl process peak RSS %d MiB, want at most %d MiB", crawlPeak, attackCrawlRSS>>20)
	}

	// Each page: its row, ok, the caps it attacks flagged.
	want := map[string][]string{
		"/attacks/deep-controls": nil,
		"/attacks/frames":        {dom.CapFrames},
		"/attacks/title":         {dom.CapTitle},
		"/attacks/attributes":    {dom.CapAttributes, dom.CapNames, dom.CapValues},
		"/attacks/html":          {dom.CapText, dom.CapChars},
		"/attacks/options":       {dom.CapOptions, dom.CapNodes},
	}
	pages := readTable[dataset.PageRow](t, out, dataset.PagesDir)
	blobs := readTable[dataset.BlobRow](t, out, dataset.BlobsDir)
	html := map[string]int{}
	for _, b := range blobs {
		html[b.URL] = len(b.HTML)
	}
	if len(pages) != len(urls) {
		t.Errorf("%d pages rows for %d URLs", len(pages), len(urls))
	}
	opts := dom.DefaultScriptOptions()
	for _, r := range pages {
		path := strings.TrimPrefix(r.URL, srv.URL)
		t.Logf("%-24s %-5s total %6.0f ms (navigate %s, settle %s, capture %s, content %s, axtree %s, aisnapshot %s, probe %s, process %s); axtree skipped %q, aisnapshot skipped %q; capped %v; html %d bytes, %d stored; title %d bytes; %s nodes",
			path, r.Status, r.TotalMS, msOf(r.NavigateMS), msOf(r.SettleMS), msOf(r.CaptureMS), msOf(r.ContentMS),
			msOf(r.AXTreeMS), msOf(r.AISnapshotMS), msOf(r.ActionableProbeMS), msOf(r.ProcessMS), r.AXTreeSkipped, r.AISnapshotSkipped, r.CaptureCapped,
			deref(r.HTMLBytes), html[r.URL], len(r.Title), ptrText(r.DOMNodes))
		if r.Status != dataset.StatusOK {
			t.Errorf("%s: %s %s: %s", path, r.Status, r.ErrorKind, r.ErrorMessage)
			continue
		}
		// More DOM nodes than --max-ax-nodes, or more text than
		// --max-ax-text: neither extra is taken, which spares the browser
		// an AI snapshot of half a million nodes, and a tree and a
		// snapshot of 20 MB of text (63 s and 32 s here before the text
		// was counted). The pages after them in the same tab are not
		// refused for the nodes those left behind.
		overCap := path == "/attacks/frames" || path == "/attacks/options" || path == "/attacks/html"
		if tooLarge := r.AXTreeSkipped == dataset.SkippedTooLarge && r.AISnapshotSkipped == dataset.SkippedTooLarge; tooLarge != overCap {
			t.Errorf("%s: axtree_skipped %q, aisnapshot_skipped %q; want both too_large: %v", path, r.AXTreeSkipped, r.AISnapshotSkipped, overCap)
		}
		if !slices.Equal(r.CaptureCapped, want[path]) {
			t.Errorf("%s: capture_capped %v, want %v", path, r.CaptureCapped, want[path])
		}
		wantTrunc := slices.Contains(want[path], dom.CapNodes) || slices.Contains(want[path], dom.CapChars)
		if r.CaptureTruncated != wantTrunc {
			t.Errorf("%s: capture_truncated %v, want %v", path, r.CaptureTruncated, wantTrunc)
		}
		if n := len([]rune(r.Title)); n > opts.TitleCap {
			t.Errorf("%s: title of %d characters, cap %d", path, n, opts.TitleCap)
		}
		if r.CaptureChars == nil || *r.CaptureChars > int64(opts.MaxChars+opts.TextCap) {
			t.Errorf("%s: capture_chars %s, cap %d", path, ptrText(r.CaptureChars), opts.MaxChars)
		}
		if html[r.URL] > dom.DefaultMaxHTMLBytes {
			t.Errorf("%s: %d bytes of HTML stored, cap %d", path, html[r.URL], dom.DefaultMaxHTMLBytes)
		}
		// The 20 MB page, and the 5 MB title's.
		if wantCut := path == "/attacks/html" || path == "/attacks/title"; r.HTMLTruncated != wantCut || (wantCut && html[r.URL] != dom.DefaultMaxHTMLBytes) {
			t.Errorf("%s: html_truncated %v, %d of %d bytes stored; want truncated %v", path, r.HTMLTruncated, html[r.URL], deref(r.HTMLBytes), wantCut)
		}
		// The page stops serializing at the cap: html_bytes is a lower
		// bound, at least the cap.
		if path == "/attacks/html" && deref(r.HTMLBytes) < dom.DefaultMaxHTMLBytes {
			t.Errorf("%s: html_bytes %d, want a lower bound of at least %d", path, deref(r.HTMLBytes), dom.DefaultMaxHTMLBytes)
		}
		if r.HTMLUncounted || r.HTMLTokensCL100K == nil {
			t.Errorf("%s: HTML tokens not counted", path)
		}
	}

	// Files and footers.
	var blobBound int64
	for _, b := range blobs {
		blobBound += int64(dom.DefaultMaxHTMLBytes) + int64(len(b.Capture))
	}
	for _, table := range []string{dataset.PagesDir, dataset.BlobsDir, dataset.SpacesDir} {
		files, err := parts.Files(out, table)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			footer, size := footerSize(t, f)
			t.Logf("%s: %d bytes, footer %d bytes", filepath.Join(table, filepath.Base(f)), size, footer)
			if footer > attackFooter {
				t.Errorf("%s: footer of %d bytes, want at most %d", f, footer, attackFooter)
			}
			bound := map[string]int64{
				dataset.PagesDir: 64 << 10, // six rows of small columns
				// the HTML at most its cap, the captures as stored
				dataset.BlobsDir: blobBound + attackFooter,
				// twelve spaces of at most 5,000 actions each, a few
				// hundred bytes a line and a locator of at most 256
				dataset.SpacesDir: 16 << 20,
			}[table]
			if size > bound {
				t.Errorf("%s: %d bytes, want at most %d", f, size, bound)
			}
		}
	}
}

// readTable reads every part of a table with the dataset reader.
func readTable[T any](t *testing.T, dir, table string) []T {
	t.Helper()
	files, err := parts.Files(dir, table)
	if err != nil {
		t.Fatal(err)
	}
	var rows []T
	for _, f := range files {
		rs, err := dataset.ReadAll[T](f)
		if err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		rows = append(rows, rs...)
	}
	return rows
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func ptrText[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func msOf(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f ms", *p)
}
