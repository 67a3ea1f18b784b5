package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"actionspace/internal/cli"
)

// processTreeRSS sums the resident set size and the proportional set size
// (KiB; PSS splits the pages that Chromium's processes share) of root's
// descendants, root excluded, from /proc: the Playwright driver and
// Chromium.
func processTreeRSS(root int) (rssSum, pssSum int64) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0
	}
	parent := map[int]int{}
	rss := map[int]int64{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(status)) {
			k, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))
			switch k {
			case "PPid":
				parent[pid], _ = strconv.Atoi(v)
			case "VmRSS":
				rss[pid], _ = strconv.ParseInt(v, 10, 64)
			}
		}
	}
	for pid, kb := range rss {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == root {
				rssSum += kb
				pssSum += pss(pid)
				break
			}
		}
	}
	return rssSum, pssSum
}

// pss returns the proportional set size of pid in KiB, 0 when unknown.
func pss(pid int) int64 {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

var peakRSSLine = regexp.MustCompile(`peak RSS (\d+) MiB`)

// TestCrawl_MemoryFlat crawls lists of corpus URLs of growing length and
// compares the crawl process's peak RSS (VmHWM, printed in its summary) and
// the peak RSS of its browser tree. It takes about a minute per 300 URLs,
// so it runs only with ACTIONSPACE_MEMORY_URLS set, e.g. "1000,5000".
func TestCrawl_MemoryFlat(t *testing.T) {
	sizes := os.Getenv("ACTIONSPACE_MEMORY_URLS")
	if sizes == "" {
		t.Skip("set ACTIONSPACE_MEMORY_URLS=1000,5000 to measure peak RSS against the URL count")
	}
	requireBrowser(t)
	srv := startCorpus(t)
	var goPeaks, browserPeaks, browserPSS []int64
	var counts []int
	for _, f := range cli.SplitList(sizes) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			t.Fatalf("ACTIONSPACE_MEMORY_URLS: %q", f)
		}
		list, urls := testList(t, srv.URL, n)
		out := filepath.Join(t.TempDir(), "run")
		start := time.Now()
		p := startCrawl(t, nil, "--out", out, "--workers", "2", "--settle-quiet", "100ms", "--settle-max", "500ms", list)
		var browserPeak, browserPSSPeak int64
		tick := time.NewTicker(500 * time.Millisecond)
	sample:
		for {
			select {
			case <-p.done:
				break sample
			case <-tick.C:
				rss, pss := processTreeRSS(p.cmd.Process.Pid)
				browserPeak, browserPSSPeak = max(browserPeak, rss), max(browserPSSPeak, pss)
			}
		}
		tick.Stop()
		code := p.wait(t, time.Second)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		if code != 0 {
			t.Fatalf("%d URLs: exit %d\nstderr:\n%s", n, code, &p.stderr)
		}
		m := peakRSSLine.FindStringSubmatch(p.stdout.String())
		if m == nil {
			t.Fatalf("no peak RSS in %q", p.stdout.String())
		}
		goPeak, _ := strconv.ParseInt(m[1], 10, 64)
		t.Logf("%d URLs in %v: crawl process peak RSS %d MiB; driver+Chromium peak RSS sum %d MiB, PSS sum %d MiB; %s",
			len(urls), time.Since(start).Round(time.Second), goPeak, browserPeak>>10, browserPSSPeak>>10, strings.TrimSpace(strings.SplitN(p.stdout.String(), "\n", 2)[0]))
		counts = append(counts, len(urls))
		goPeaks = append(goPeaks, goPeak)
		browserPeaks = append(browserPeaks, browserPeak>>10)
		browserPSS = append(browserPSS, browserPSSPeak>>10)
		checkComplete(t, out, urls, 3)
	}
	// Flat: five times the URLs may not cost half again the memory.
	for i := 1; i < len(goPeaks); i++ {
		if goPeaks[i] > goPeaks[0]*3/2+32 {
			t.Errorf("crawl peak RSS %d MiB for %d URLs against %d MiB for %d: it grows with the list", goPeaks[i], counts[i], goPeaks[0], counts[0])
		}
		if browserPSS[i] > browserPSS[0]*3/2+128 {
			t.Errorf("browser peak PSS %d MiB for %d URLs against %d MiB for %d: it grows with the list", browserPSS[i], counts[i], browserPSS[0], counts[0])
		}
	}
}
