package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/internal/cli"
	"actionspace/internal/soaktest"
)

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

// memoryPage is the corpus page the memory check crawls: the smallest, so
// that the check measures what grows with the number of URLs, not the
// pages.
const memoryPage = "/fidelity/frame/leaf.html"

// The memory bounds of TestSoak_CrawlMemoryFlat: the most a peak at the
// larger list may be, as a multiple of the peak at the smaller.
const (
	// crawlMemoryBound holds the crawl process: nothing it keeps may grow
	// with the list.
	crawlMemoryBound = 1.3
	// browserMemoryBound holds the sum of the PSS of Chromium's processes
	// and the Playwright driver's peak RSS, each on its own, more loosely:
	// the driver's JavaScript heap grows to its working size over the
	// first thousand URLs or so (1.2 to 1.45 times from 200 to 2,000 URLs,
	// then flat up to 20,000, in earlier runs), while a leak of a page's
	// worth of memory per URL (some 70 KiB over 1,800 more URLs) doubles
	// either.
	browserMemoryBound = 2.0
)

// TestSoak_CrawlMemoryFlat crawls 200 and then 2,000 distinct URLs (query
// variants of one small corpus page, with settling shortened) and requires
// the crawl process's peak RSS (VmHWM, printed in its summary) at 2,000 to
// be at most crawlMemoryBound times that at 200: nothing the crawl keeps
// grows with the list. The peak PSS summed over Chromium's processes and
// the driver's peak RSS, sampled every half second, are held to
// browserMemoryBound. It logs every peak. ACTIONSPACE_MEMORY_URLS=200,20000
// measures other sizes (the first is the reference), and
// ACTIONSPACE_MEMORY_IN_FLIGHT=N loads N pages at once (--in-flight; by
// default the crawl's, one per worker). It takes minutes: it runs only
// under make soak.
func TestSoak_CrawlMemoryFlat(t *testing.T) {
	soaktest.Require(t, "crawl process memory flat from 200 to 2,000 URLs")
	requireBrowser(t)
	sizes := cmp.Or(os.Getenv("ACTIONSPACE_MEMORY_URLS"), "200,2000")
	inFlight := cmp.Or(os.Getenv("ACTIONSPACE_MEMORY_IN_FLIGHT"), "0")
	if n, err := strconv.Atoi(inFlight); err != nil || n < 0 {
		t.Fatalf("ACTIONSPACE_MEMORY_IN_FLIGHT: %q", inFlight)
	}
	srv := startCorpus(t)
	// all[i] are the peaks at counts[i], in MiB: the crawl process's RSS,
	// Chromium's summed PSS and the driver's RSS.
	type peaks struct{ crawl, chromiumPSS, driver int64 }
	var all []peaks
	var counts []int
	for _, f := range cli.SplitList(sizes) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			t.Fatalf("ACTIONSPACE_MEMORY_URLS: %q", f)
		}
		urls := make([]string, n)
		for i := range urls {
			urls[i] = fmt.Sprintf("%s%s?n=%d", srv.URL, memoryPage, i)
		}
		list := filepath.Join(t.TempDir(), "urls.txt")
		if err := os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "run")
		start := time.Now()
		p := startCrawl(t, nil, "--out", out, "--workers", "2", "--in-flight", inFlight, "--viewport-expansion", "0", "--encodings", "cl100k_base",
			"--settle-quiet", "0s", "--settle-max", "0s", "--timeout", "20s", list)
		chromiumPeak, pssPeak, driverPeak := samplePeaks(p, 500*time.Millisecond)
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
		t.Logf("%d URLs in %v: crawl process peak RSS %d MiB; Chromium peak RSS sum %d MiB, PSS sum %d MiB; driver %d MiB; %s",
			n, time.Since(start).Round(time.Second), goPeak, chromiumPeak>>10, pssPeak>>10, driverPeak>>10,
			strings.TrimSpace(strings.SplitN(p.stdout.String(), "\n", 2)[0]))
		counts = append(counts, n)
		all = append(all, peaks{goPeak, pssPeak >> 10, driverPeak >> 10})
		pages := readTable[dataset.PageRow](t, out, dataset.PagesDir)
		ok := 0
		for _, r := range pages {
			if r.Status == dataset.StatusOK {
				ok++
			}
		}
		if len(pages) != n || ok < n*99/100 {
			t.Errorf("%d URLs: %d rows, %d ok", n, len(pages), ok)
		}
	}
	for i := 1; i < len(all); i++ {
		for _, c := range []struct {
			what    string
			at, ref int64 // MiB
			bound   float64
		}{
			{"crawl process peak RSS", all[i].crawl, all[0].crawl, crawlMemoryBound},
			{"Chromium peak PSS sum", all[i].chromiumPSS, all[0].chromiumPSS, browserMemoryBound},
			{"Playwright driver peak RSS", all[i].driver, all[0].driver, browserMemoryBound},
		} {
			if c.ref <= 0 {
				t.Errorf("%s at %d URLs: none measured", c.what, counts[0])
				continue
			}
			ratio := float64(c.at) / float64(c.ref)
			t.Logf("%s at %d URLs / at %d URLs = %d / %d MiB = %.2f", c.what, counts[i], counts[0], c.at, c.ref, ratio)
			if ratio > c.bound {
				t.Errorf("%s %d MiB at %d URLs against %d MiB at %d: %.2f times, want at most %.1f",
					c.what, c.at, counts[i], c.ref, counts[0], ratio, c.bound)
			}
		}
	}
}
