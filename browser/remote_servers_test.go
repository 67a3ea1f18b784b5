package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/internal/browsertest"
	"actionspace/pipeline"
	"actionspace/space"
)

// runServerTools are what a Playwright browser server needs here: node,
// the driver's playwright-core CLI, and a browsers folder that points at
// the Chromium a local crawl launches (DefaultChromiumPath).
type runServerTools struct {
	node, cli, browsers string
}

// requireRunServer skips (or, with ACTIONSPACE_REQUIRE_CHROMIUM=1, fails)
// like requireChromium, and also when node cannot be found. It lays out a
// browsers folder for PLAYWRIGHT_BROWSERS_PATH: a run-server ignores the
// client's executable path and launches the browser its browsers.json
// names, so the folder links that name to DefaultChromiumPath.
func requireRunServer(t testing.TB) runServerTools {
	t.Helper()
	requireChromium(t)
	dir, err := testDriverDirectory()
	if err != nil {
		t.Fatalf("playwright driver: %v", err)
	}
	tools := runServerTools{cli: filepath.Join(dir, "package", "cli.js")}
	for _, node := range []string{os.Getenv("PLAYWRIGHT_NODEJS_PATH"), filepath.Join(dir, "node"), "/usr/bin/node"} {
		if node == "" {
			continue
		}
		if _, err := os.Stat(node); err == nil {
			tools.node = node
			break
		}
	}
	if tools.node == "" {
		browsertest.Missing(t, "node is missing (run make setup)")
	}
	tools.browsers, err = browsersFolder(t.TempDir(), filepath.Join(dir, "package", "browsers.json"), DefaultChromiumPath)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// browsersFolder makes, in dir, the layout playwright-core expects under
// PLAYWRIGHT_BROWSERS_PATH for its chromium and chromium-headless-shell
// revisions (headless launches use the latter), each executable a symlink
// to chromium: the server then launches what a local crawl launches.
func browsersFolder(dir, browsersJSON, chromium string) (string, error) {
	data, err := os.ReadFile(browsersJSON)
	if err != nil {
		return "", err
	}
	var list struct {
		Browsers []struct {
			Name     string `json:"name"`
			Revision string `json:"revision"`
		} `json:"browsers"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return "", fmt.Errorf("%s: %w", browsersJSON, err)
	}
	suffix := "linux64"
	if runtime.GOARCH == "arm64" {
		suffix = "linux-arm64"
	}
	exe := map[string][]string{
		"chromium":                {"chrome-" + suffix, "chrome"},
		"chromium-headless-shell": {"chrome-headless-shell-" + suffix, "chrome-headless-shell"},
	}
	made := 0
	for _, b := range list.Browsers {
		rel, ok := exe[b.Name]
		if !ok {
			continue
		}
		folder := strings.ReplaceAll(b.Name, "-", "_") + "-" + b.Revision
		path := filepath.Join(append([]string{dir, folder}, rel...)...)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.Symlink(chromium, path); err != nil {
			return "", err
		}
		made++
	}
	if made != len(exe) {
		return "", fmt.Errorf("%s: want chromium and chromium-headless-shell entries", browsersJSON)
	}
	return dir, nil
}

// runServer is one `playwright run-server` process on a loopback port.
type runServer struct {
	endpoint string
	cmd      *exec.Cmd
	exited   chan struct{}
	stopOnce sync.Once
}

// startRunServer starts a browser server on a free loopback port and waits
// for the endpoint it prints; extra are more run-server flags. It is
// stopped when the test ends.
func startRunServer(t testing.TB, tools runServerTools, extra ...string) *runServer {
	t.Helper()
	args := append([]string{tools.cli, "run-server", "--port", "0", "--host", "127.0.0.1"}, extra...)
	cmd := exec.Command(tools.node, args...)
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_BROWSERS_PATH="+tools.browsers)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start run-server: %v", err)
	}
	s := &runServer{cmd: cmd, exited: make(chan struct{})}
	t.Cleanup(s.stop)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if ep, ok := strings.CutPrefix(sc.Text(), "Listening on "); ok {
				found <- strings.TrimSpace(ep)
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		close(s.exited)
	}()
	select {
	case s.endpoint = <-found:
	case <-s.exited:
		t.Fatal("run-server exited before listening")
	case <-time.After(30 * time.Second):
		t.Fatal("run-server did not print its endpoint in 30s")
	}
	return s
}

// kill sends SIGKILL to the server's process group, as when its machine
// dies, and waits for it to exit.
func (s *runServer) kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
}

// stop ends the server: SIGTERM (it closes its browsers), then SIGKILL.
func (s *runServer) stop() {
	s.stopOnce.Do(func() {
		select {
		case <-s.exited:
			return
		default:
		}
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			s.kill()
		}
	})
}

// remoteTestConfig is the crawl config of the two-server tests: the real
// capture script, few workers for a small shared machine.
func remoteTestConfig(t testing.TB) pipeline.Config {
	cfg := pipeline.DefaultConfig()
	cfg.UseFormats([]string{space.FormatActionSpace}) // the other formats are tested apart
	cfg.RunID = "remote-test"
	cfg.Workers = 2
	cfg.Timeout = 30 * time.Second
	cfg.Retries = 2
	cfg.Logger = testLogger(t)
	return cfg
}

// spaceKey names one spaces row of a page.
type spaceKey struct {
	pageID, mode, text string
	expansion          int64
}

// readDataset reads every part of the dataset in dir: pages rows by page
// ID (each must be there once) and action spaces by spaceKey.
func readDataset(t *testing.T, dir string) (map[string]dataset.PageRow, map[spaceKey]string) {
	t.Helper()
	pageFiles, spaceFiles := datasetFiles(t, dir)
	pages := map[string]dataset.PageRow{}
	for _, f := range pageFiles {
		rows, err := dataset.ReadAll[dataset.PageRow](f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if _, dup := pages[r.PageID]; dup {
				t.Errorf("%s: page %s (%s) has a second row", f, r.PageID, r.URL)
			}
			pages[r.PageID] = r
		}
	}
	spaces := map[spaceKey]string{}
	for _, f := range spaceFiles {
		rows, err := dataset.ReadAll[dataset.SpaceRow](f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			k := spaceKey{r.PageID, r.Mode, r.TextPolicy, r.ViewportExpansion}
			if _, dup := spaces[k]; dup {
				t.Errorf("%s: spaces row %v twice", f, k)
			}
			spaces[k] = r.ActionSpace
		}
	}
	return pages, spaces
}

// TestRemote_TwoServersShards is the local proof of scale-out: two
// Playwright browser servers on loopback ports, the bundled corpus crawled
// as shards 0/2 and 1/2 at once, each spread over both servers, into one
// partitioned dataset — which must equal a single-process crawl with a
// local Chromium: the same URLs and the same action spaces.
func TestRemote_TwoServersShards(t *testing.T) {
	tools := requireRunServer(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	targets := pipeline.TargetsFromURLs(corpora.DefaultURLs(srv.URL))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	a, b := startRunServer(t, tools), startRunServer(t, tools)

	local := t.TempDir()
	if _, err := pipeline.Crawl(ctx, remoteTestConfig(t), targets, local, localOpener(pipeline.Config{Logger: testLogger(t)}), nil); err != nil {
		t.Fatalf("local crawl: %v", err)
	}

	merged := t.TempDir()
	var wg sync.WaitGroup
	shardStats := make([]pipeline.Stats, 2)
	shardErrs := make([]error, 2)
	shards := []pipeline.Shard{{Index: 0, Count: 2}, {Index: 1, Count: 2}}
	for i, sh := range shards {
		cfg := remoteTestConfig(t)
		endpoints := []string{a.endpoint, b.endpoint}
		cfg.Output.Partition = sh.Partition()
		wg.Go(func() {
			shardStats[i], shardErrs[i] = pipeline.Crawl(ctx, cfg, sh.Filter(targets), merged, remoteOpener(cfg, endpoints...), nil)
		})
	}
	wg.Wait()
	total := 0
	for i, sh := range shards {
		if shardErrs[i] != nil {
			t.Fatalf("shard %v: %v", sh, shardErrs[i])
		}
		st := shardStats[i]
		if st.Targets == 0 || st.OK != st.Targets {
			t.Errorf("shard %v: stats %+v, want every target ok", sh, st)
		}
		total += st.Targets
	}
	if total != len(targets) {
		t.Errorf("the shards crawled %d targets, want %d", total, len(targets))
	}

	// Layout: each shard's parts in its own partition, holding its URLs.
	pageFiles, _ := datasetFiles(t, merged)
	for _, f := range pageFiles {
		rel, _ := filepath.Rel(merged, f)
		part := strings.Split(filepath.ToSlash(rel), "/")
		if len(part) != 3 || part[0] != dataset.PagesDir || !strings.HasPrefix(part[1], "shard=") {
			t.Errorf("part %s, want pages/shard=NNNN/part-NNNNN.parquet", rel)
			continue
		}
		sh := shards[0]
		if part[1] == shards[1].Partition() {
			sh = shards[1]
		}
		rows, err := dataset.ReadAll[dataset.PageRow](f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if !sh.Contains(r.PageID) {
				t.Errorf("%s holds %s, which is not in shard %v", rel, r.URL, sh)
			}
		}
		meta, err := dataset.ReadMetadata(f)
		if err != nil {
			t.Fatal(err)
		}
		if meta.RunID != "remote-test" || !strings.Contains(meta.BrowserVersion, ".") {
			t.Errorf("%s: metadata run %q browser %q", rel, meta.RunID, meta.BrowserVersion)
		}
	}

	wantPages, wantSpaces := readDataset(t, local)
	gotPages, gotSpaces := readDataset(t, merged)
	if got, want := slices.Sorted(maps.Keys(gotPages)), slices.Sorted(maps.Keys(wantPages)); !slices.Equal(got, want) {
		t.Errorf("merged page IDs %v, want %v", got, want)
	}
	for id, w := range wantPages {
		g := gotPages[id]
		if g.URL != w.URL || g.Status != w.Status || g.Status != dataset.StatusOK {
			t.Errorf("page %s: url %q status %q, want %q %q (ok)", id, g.URL, g.Status, w.URL, w.Status)
		}
	}
	if len(gotSpaces) != len(wantSpaces) || len(wantSpaces) != len(targets)*len(remoteTestConfig(t).Expansions) {
		t.Errorf("%d spaces rows merged, %d local; want %d", len(gotSpaces), len(wantSpaces), len(targets)*len(remoteTestConfig(t).Expansions))
	}
	for k, w := range wantSpaces {
		g, ok := gotSpaces[k]
		switch {
		case !ok:
			t.Errorf("spaces %v: missing from the merged dataset", k)
		case g != w:
			t.Errorf("spaces %v (%s): action space differs\nmerged:\n%s\nlocal:\n%s", k, wantPages[k.pageID].URL, g, w)
		}
	}
}

// TestRemote_ServerKilled: a crawl over two browser servers, one of which
// is killed (SIGKILL, with its browser) mid-run, finishes on the other:
// every URL exactly one row, all captured.
func TestRemote_ServerKilled(t *testing.T) {
	tools := requireRunServer(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// The kill comes after killAfter rows: the rest of the corpus, more
	// URLs than the workers hold at once, is left to finish without the
	// killed server.
	const killAfter = 4
	targets := pipeline.TargetsFromURLs(corpora.DefaultURLs(srv.URL))
	a, b := startRunServer(t, tools), startRunServer(t, tools)
	cfg := remoteTestConfig(t)
	cfg.Workers = 4
	endpoints := []string{a.endpoint, b.endpoint}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var mu sync.Mutex
	done, afterKill := 0, 0
	killed := make(chan struct{})
	out := t.TempDir()
	stats, err := pipeline.Crawl(ctx, cfg, targets, out, remoteOpener(cfg, endpoints...), func(pipeline.Result) {
		mu.Lock()
		defer mu.Unlock()
		done++
		switch {
		case done == killAfter:
			go func() {
				b.kill()
				close(killed)
			}()
		case done > killAfter:
			select {
			case <-killed:
				afterKill++
			default:
			}
		}
	})
	if err != nil {
		t.Fatalf("crawl: %v (stats %+v)", err, stats)
	}
	if afterKill == 0 {
		t.Errorf("no page finished after the server was killed; the test proves nothing")
	}
	pages, _ := readDataset(t, out)
	if len(pages) != len(targets) || stats.OK+stats.Failed != len(targets) {
		t.Errorf("%d pages rows, stats %+v; want %d", len(pages), stats, len(targets))
	}
	for _, tg := range targets {
		p, ok := pages[tg.PageID]
		if !ok {
			t.Errorf("%s: no row", tg.URL)
			continue
		}
		if p.Status != dataset.StatusOK {
			t.Errorf("%s: %s %s: %s, want ok", tg.URL, p.Status, p.ErrorKind, p.ErrorMessage)
		}
	}
	t.Logf("%d URLs, %d after the kill, %d retried", len(targets), afterKill, stats.Retried)
}
