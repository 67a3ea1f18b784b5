package main

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"actionspace/internal/cli"
	"actionspace/pipelinetest"
)

// replaySite is the origin of the URL lists crawled on a replay browser.
const replaySite = pipelinetest.Origin

// replayEnv, set in its environment, makes this test binary the crawl
// command on a replay browser (see replayMain): a crawl to kill or signal
// without a browser. Its value is the pipelinetest.Options as JSON.
const replayEnv = "ACTIONSPACE_CRAWL_REPLAY"

// commandEnv, set in its environment, makes this test binary the crawl
// command itself (see commandMain): main, with Chromium, as `go build`
// would make it, without linking the package a second time.
const commandEnv = "ACTIONSPACE_CRAWL_COMMAND"

// commandMain runs main, which exits, when commandEnv is set; it returns
// otherwise. TestMain calls it first, before the testing package reads
// any flag.
func commandMain() {
	if os.Getenv(commandEnv) != "" {
		main()
	}
}

// replayMain runs the crawl command with the binary's arguments on a
// pipelinetest.Browser that replays the stored corpus pages, and exits
// with the command's code, when replayEnv is set; it returns otherwise.
// TestMain calls it first, before the testing package reads any flag.
func replayMain() {
	spec, ok := os.LookupEnv(replayEnv)
	if !ok {
		return
	}
	var opts pipelinetest.Options
	if err := json.Unmarshal([]byte(spec), &opts); err != nil {
		fmt.Fprintf(os.Stderr, "crawl: %s: %v\n", replayEnv, err)
		os.Exit(2)
	}
	dir, err := pipelinetest.StoredDir()
	if err == nil {
		var b *pipelinetest.Browser
		if b, err = pipelinetest.Open(dir, opts); err == nil {
			cli.Main("crawl", command{open: b.Opener()}.run, interrupted) // exits
		}
	}
	fmt.Fprintf(os.Stderr, "crawl: replay: %v\n", err)
	os.Exit(1)
}

// startReplay starts the crawl command with args as a subprocess (this
// test binary, see replayMain) that crawls on a replay browser with opts,
// with env added to its environment.
func startReplay(t *testing.T, opts pipelinetest.Options, env []string, args ...string) *crawlProc {
	t.Helper()
	spec, err := json.Marshal(opts)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return startProc(t, bin, append([]string{replayEnv + "=" + string(spec)}, env...), args...)
}

// runReplay runs a replay crawl (startReplay) to its end and returns its
// exit code.
func runReplay(t *testing.T, opts pipelinetest.Options, env []string, limit time.Duration, args ...string) (*crawlProc, int) {
	t.Helper()
	p := startReplay(t, opts, env, args...)
	return p, p.wait(t, limit)
}
