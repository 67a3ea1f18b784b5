package browser

import (
	"context"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/internal/browsertest"
	"actionspace/metrics"
	"actionspace/pipeline"
	"actionspace/space"
)

// procTable is a snapshot of /proc: each process's parent and name.
type procTable struct {
	parent map[int]int
	comm   map[int]string
}

func readProcs(tb testing.TB) procTable {
	tb.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	pt := procTable{parent: map[int]int{}, comm: map[int]string{}}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(stat)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		pt.parent[pid], pt.comm[pid] = ppid, s[open+1:end]
	}
	return pt
}

// browserOf returns the Chromium browser process (the one without --type=)
// that pid is or descends from; 0 if none.
func (pt procTable) browserOf(pid int) int {
	for p := pid; p > 1; p = pt.parent[p] {
		if !browsertest.IsChromium(pt.comm[p]) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
		if err == nil && !strings.Contains(string(cmdline), "--type=") {
			return p
		}
	}
	return 0
}

// socketOwners maps the local ports of this machine's IPv4 TCP sockets
// that are in ports to the processes holding them, from /proc/net/tcp and
// the processes' file descriptors.
func socketOwners(ports map[int]bool) []int {
	data, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return nil
	}
	inodes := map[string]bool{}
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) < 10 {
			continue
		}
		_, portHex, ok := strings.Cut(f[1], ":") // local_address
		port, err := strconv.ParseInt(portHex, 16, 32)
		if ok && err == nil && ports[int(port)] {
			inodes["socket:["+f[9]+"]"] = true
		}
	}
	var owners []int
	procs, _ := os.ReadDir("/proc")
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", e.Name(), "fd"))
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join("/proc", e.Name(), "fd", fd.Name())); err == nil && inodes[link] {
				owners = append(owners, pid)
				break
			}
		}
	}
	return owners
}

// connTracker records the client ports of a server's open connections.
type connTracker struct {
	mu   sync.Mutex
	open map[int]bool
}

func (c *connTracker) track(conn net.Conn, state http.ConnState) {
	addr, ok := conn.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		c.open[addr.Port] = true
	case http.StateClosed, http.StateHijacked:
		delete(c.open, addr.Port)
	}
}

func (c *connTracker) ports() map[int]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.open)
}

// browsersConnectedTo returns the Chromium browser processes whose
// network service holds a connection to the tracked server: the crawl's
// own browser, whatever else runs on the machine.
func browsersConnectedTo(tb testing.TB, c *connTracker) []int {
	pt := readProcs(tb)
	seen := map[int]bool{}
	var out []int
	for _, pid := range socketOwners(c.ports()) {
		if b := pt.browserOf(pid); b != 0 && !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}

// TestCrawl_BrowserKilled kills the crawl's Chromium with SIGKILL after a
// few pages: the browser is relaunched, the pages in flight are retried on
// it, and every URL still gets exactly one row, captured. The crawl
// launches a browser of its own (launchingOpener), since it kills it.
func TestCrawl_BrowserKilled(t *testing.T) {
	requireChromium(t)
	conns := &connTracker{open: map[int]bool{}}
	srv := httptest.NewUnstartedServer(corpora.Handler())
	srv.Config.ConnState = conns.track
	srv.Start()
	defer srv.Close()
	// The corpus once: the kill comes after 5 rows, so 9 URLs, those in
	// flight among them, are left for the relaunched browser.
	urls := corpora.DefaultURLs(srv.URL)
	cfg := pipeline.DefaultConfig()
	cfg.UseFormats([]string{space.FormatActionSpace}) // the other formats are tested apart
	cfg.RunID = "browser-kill"
	cfg.Workers = 2
	cfg.Timeout = 20 * time.Second
	cfg.Expansions = []int{0}
	cfg.Encodings = []metrics.Encoding{metrics.CL100K}
	cfg.Logger = testLogger(t)
	cfg.Output.PartPages = 10
	// No egress proxy: the browser is found by its connections to the
	// corpus server, which the proxy would make in its stead.
	cfg.Page.Network.AllowPrivate = true

	var killed []int
	done := 0
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := t.TempDir()
	stats, err := pipeline.Crawl(ctx, cfg, pipeline.TargetsFromURLs(urls), out, launchingOpener(cfg), func(pipeline.Result) {
		done++
		if done != 5 {
			return
		}
		for _, pid := range browsersConnectedTo(t, conns) {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Errorf("kill chromium %d: %v", pid, err)
			}
			killed = append(killed, pid)
		}
	})
	if err != nil {
		t.Fatalf("Crawl: %v", err)
	}
	if len(killed) != 1 {
		t.Fatalf("killed Chromium processes %v, want exactly the crawl's browser", killed)
	}
	if stats.Relaunches < 1 {
		t.Errorf("stats.Relaunches = %d, want at least 1", stats.Relaunches)
	}
	pageFiles, _ := datasetFiles(t, out)
	rows := map[string]int{}
	for _, f := range pageFiles {
		got, err := dataset.ReadAll[dataset.PageRow](f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range got {
			rows[r.URL]++
			if r.Status != dataset.StatusOK {
				t.Errorf("%s: %s %s (attempts %d)", r.URL, r.ErrorKind, r.ErrorMessage, r.Attempts)
			}
		}
	}
	for _, u := range urls {
		if rows[u] != 1 {
			t.Errorf("%s: %d rows, want 1", u, rows[u])
		}
	}
	t.Logf("killed Chromium %v after 5 pages; %d relaunches, %d ok, %d failed, %d retried", killed, stats.Relaunches, stats.OK, stats.Failed, stats.Retried)
}
