// Command crawl turns a list of URLs into an action-space dataset: it loads
// every URL in headless Chromium, captures the page once, renders the fast
// action space for each viewport_expansion, counts tokens and writes the
// dataset DIR/pages/part-*.parquet and DIR/spaces/part-*.parquet.
//
// With no URL list it serves the bundled corpus on 127.0.0.1 and crawls it.
//
// SIGINT or SIGTERM stops taking URLs, gives the pages in flight --grace to
// finish, closes the open part files and exits 1 with a summary; a second
// signal quits at once. A run stopped that way, or killed, is finished by
// `crawl --resume --out DIR` with the same URL list.
//
// To scale out, run several crawls of the same list with --shard I/N (or
// auto/N under a Kubernetes Indexed Job or a Slurm array) and the same
// --run-id and --out: each crawls its slice into DIR/pages/shard=000I/ and
// DIR/spaces/shard=000I/, and the directory reads as one dataset.
// --browser-endpoint ws://HOST:PORT/ (repeatable) drives Playwright browser
// servers instead of a local Chromium.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"actionspace/browser"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/internal/cli"
	"actionspace/internal/llmflags"
	"actionspace/pipeline"
)

func main() {
	cli.Main("crawl", run, "finishing the pages in flight (see --grace); interrupt again to quit at once")
}

// options are the flags that do not map onto a config field directly.
type options struct {
	llm      *llmflags.Options
	urls     string
	out      string
	viewport string
	logLevel string
	schemes  string
	shard    string
	shots    string
	shotQ    int
}

// resumeHint is how the error of an interrupted crawl ends.
const resumeHint = "finish it with: crawl --resume --out %s [the same URL list]"

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg := pipeline.DefaultConfig()
	bcfg := browser.DefaultConfig()
	o := options{shotQ: cfg.Page.Screenshot.Quality}
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: crawl [flags] [URL-FILE]

Crawls the URLs in URL-FILE (or --urls; "-" reads stdin; one URL a line,
blank lines and # comments ignored) with headless Chromium and writes
the dataset OUT/pages/part-*.parquet (one row per URL) and
OUT/spaces/part-*.parquet (one row per successful page, mode and viewport
expansion, and per page and --token-budget). Without a URL list it serves the bundled corpus on 127.0.0.1
and crawls that. SIGINT/SIGTERM stops after --grace; crawl --resume --out
OUT with the same list finishes an interrupted or killed crawl.

Scale-out: --shard I/N --run-id ID crawls one of N slices of the list into
OUT/pages/shard=000I/ (N processes, one OUT, one dataset);
--browser-endpoint ws://HOST:PORT/ uses Playwright browser servers.

Progress goes to stderr: a bar on a terminal, a line every 10s otherwise.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.urls, "urls", "", "URL list `FILE` (\"-\" = stdin); same as the URL-FILE argument")
	fs.StringVar(&o.out, "out", "", "output `DIR` (default "+cli.OutDir("<run-id>")+")")
	fs.StringVar(&cfg.RunID, "run-id", "", "run `ID` recorded in every row (default crawl-<UTC time>)")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "pages crawled at once (`N`)")
	fs.StringVar(&o.viewport, "viewport", cli.FormatViewport(cfg.Page.ViewportWidth, cfg.Page.ViewportHeight), "browser viewport `WxH` in CSS pixels")
	m := cli.Matrix{Modes: cfg.Modes, Expansions: cfg.Expansions, Texts: []dom.TextPolicy{cfg.Text}, Encodings: cfg.Encodings, Budgets: cfg.Budgets}
	m.Register(fs, stderr)
	o.llm = llmflags.Register(fs)
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "time limit per URL attempt (`DURATION`)")
	fs.IntVar(&cfg.Retries, "retries", cfg.Retries, "extra attempts after a transient failure (timeout, network, crash)")
	fs.DurationVar(&cfg.Page.SettleQuiet, "settle-quiet", cfg.Page.SettleQuiet, "capture once the DOM has gone this long without a change (`DURATION`)")
	fs.DurationVar(&cfg.Page.SettleMax, "settle-max", cfg.Page.SettleMax, "capture after this long even if the DOM keeps changing (`DURATION`)")
	fs.StringVar(&bcfg.ChromiumPath, "chromium", bcfg.ChromiumPath, "Chromium executable `PATH`")
	fs.IntVar(&cfg.Page.Script.MaxNodes, "max-nodes", cfg.Page.Script.MaxNodes, "capture at most `N` DOM nodes per page (the capture is then marked truncated)")
	fs.StringVar(&o.shots, "screenshots", cfg.Page.Screenshot.Mode, "viewport screenshot per page in the pages table: none, plain, labeled (IDs of the first expansion drawn on it)")
	fs.IntVar(&o.shotQ, "screenshot-quality", o.shotQ, "screenshot JPEG quality `N`, 1-100; 0 stores lossless PNG instead")
	fs.StringVar(&o.schemes, "allow-scheme", strings.Join(pipeline.DefaultSchemes(), ","), "URL schemes to crawl (`LIST`); others become invalid_url rows")
	fs.StringVar(&o.logLevel, "log-level", cli.DefaultLogLevel, "log level: debug, info, warn, error")
	fs.BoolVar(&cfg.Resume, "resume", false, "continue the dataset in --out: skip the URLs its complete parts hold, crawl the rest")
	fs.DurationVar(&cfg.Grace, "grace", cfg.Grace, "on SIGINT/SIGTERM, let the pages in flight finish for this long (`DURATION`)")
	fs.IntVar(&cfg.Output.PartPages, "part-pages", cfg.Output.PartPages, "close a part file after `N` pages (0 = no limit); a kill loses at most the open part")
	fs.DurationVar(&cfg.Output.PartInterval, "part-interval", cfg.Output.PartInterval, "close a part file after it has been open this long (`DURATION`, 0 = no limit)")
	fs.IntVar(&cfg.RecyclePages, "recycle-pages", cfg.RecyclePages, "give a worker a fresh page and browser context after `N` URLs (0 = never)")
	fs.StringVar(&o.shard, "shard", "", "crawl only shard `I/N` of the URL list into OUT/pages/shard=000I/ (and spaces/); auto/N takes I from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID; needs --run-id")
	fs.Func("browser-endpoint", "use the Playwright browser server at `URL` (ws://HOST:PORT/PATH, from playwright run-server) instead of launching --chromium; repeat for several, workers are spread over them", func(s string) error {
		bcfg.Endpoints = append(bcfg.Endpoints, s)
		return nil
	})
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return cli.Usagef("too many arguments: %q (want at most one URL-FILE)", fs.Args())
	}
	if fs.NArg() == 1 {
		if o.urls != "" {
			return cli.Usagef("both --urls and a URL-FILE argument given")
		}
		o.urls = fs.Arg(0)
	}

	log, err := cli.NewLogger(stderr, o.logLevel)
	if err != nil {
		return err
	}
	cfg.Logger, bcfg.Logger = log, log
	if cfg.Page.ViewportWidth, cfg.Page.ViewportHeight, err = cli.ParseViewport(o.viewport); err != nil {
		return cli.Usagef("--viewport: %v", err)
	}
	if err := m.Parse(); err != nil {
		return err
	}
	if len(m.Texts) != 1 {
		return cli.Usagef("--text: crawl takes one policy, not %d (bench sweeps several)", len(m.Texts))
	}
	cfg.Modes, cfg.Expansions, cfg.Text, cfg.Encodings, cfg.Budgets = m.Modes, m.Expansions, m.Texts[0], m.Encodings, m.Budgets
	if cfg.Deep, err = o.llm.Renderer(cfg.Modes, os.Getenv, log); err != nil {
		return err
	}
	if cfg.Page.Screenshot.Mode, err = pipeline.ParseScreenshotMode(o.shots); err != nil {
		return cli.Usagef("--screenshots: %v", err)
	}
	switch {
	case o.shotQ < 0 || o.shotQ > 100:
		return cli.Usagef("--screenshot-quality: %d, want 1-100, or 0 for PNG", o.shotQ)
	case o.shotQ == 0:
		cfg.Page.Screenshot.Format = pipeline.ScreenshotPNG
	default:
		cfg.Page.Screenshot.Quality = o.shotQ
	}
	if cfg.Resume && o.out == "" {
		return cli.Usagef("--resume needs --out DIR")
	}
	// The one environment read besides the LLM key: the scheduler's task
	// index, for --shard auto/N.
	shard, err := pipeline.ParseShard(o.shard, os.LookupEnv)
	if err != nil {
		return cli.Usagef("--shard: %v", err)
	}
	if shard.Count > 0 && cfg.RunID == "" {
		return cli.Usagef("--shard needs --run-id: every shard of a crawl must write the same run_id")
	}
	cfg.Output.Partition = shard.Partition()
	if cfg.RunID == "" && !cfg.Resume { // a resume keeps the dataset's run ID
		cfg.RunID = cli.RunID("crawl", time.Now())
	}
	if err := cfg.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	if err := bcfg.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	if len(bcfg.Endpoints) == 0 {
		if err := browser.CheckChromium(bcfg.ChromiumPath); err != nil {
			return err
		}
	}
	if o.out == "" {
		o.out = cli.OutDir(cfg.RunID)
	}

	targets, _, cleanup, err := cli.LoadTargets(o.urls, cli.SplitList(o.schemes), stdin, log)
	if err != nil {
		return err
	}
	defer cleanup()
	if shard.Count > 0 {
		all := len(targets)
		targets = shard.Filter(targets)
		fmt.Fprintf(stderr, "crawl: shard %s: %d of %d URLs -> %s\n", shard, len(targets), all, filepath.Join(o.out, dataset.PagesDir, shard.Partition()))
	}

	fmt.Fprintf(stderr, "crawl: %d URLs, %d workers, expansions %v -> %s\n", len(targets), cfg.Workers, cfg.Expansions, o.out)
	stats, err := cli.Crawl(ctx, cfg, targets, o.out, browser.Opener(bcfg), stderr)
	if err != nil && stats.OK+stats.Failed == 0 && !errors.Is(err, context.Canceled) {
		return err // nothing was crawled: no summary
	}
	printSummary(stdout, stats, o.out)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted after %d of %d URLs; "+resumeHint, stats.OK+stats.Failed+stats.Skipped, stats.Targets, o.out)
		}
		return fmt.Errorf("crawl stopped after %d of %d URLs: %w; "+resumeHint, stats.OK+stats.Failed+stats.Skipped, stats.Targets, err, o.out)
	}
	return nil
}

// printSummary writes the one summary line and where the dataset is.
func printSummary(w io.Writer, stats pipeline.Stats, out string) {
	rate := 0.0
	if m := stats.Elapsed.Minutes(); m > 0 {
		rate = float64(stats.OK+stats.Failed) / m
	}
	fmt.Fprintf(w, "run %s: %d URLs, %d ok, %d failed, %d retried", stats.RunID, stats.Targets, stats.OK, stats.Failed, stats.Retried)
	if stats.Skipped > 0 {
		fmt.Fprintf(w, ", %d already done", stats.Skipped)
	}
	if stats.Unfinished > 0 {
		fmt.Fprintf(w, ", %d unfinished", stats.Unfinished)
	}
	if stats.Relaunches > 0 {
		fmt.Fprintf(w, ", %d browser relaunches", stats.Relaunches)
	}
	fmt.Fprintf(w, " in %s (%.1f pages/min)", stats.Elapsed.Round(time.Millisecond), rate)
	if kb, ok := peakRSS(); ok {
		fmt.Fprintf(w, ", peak RSS %d MiB", kb>>10)
	}
	fmt.Fprintf(w, "\n%s\n%s\n", filepath.Join(out, dataset.PagesGlob), filepath.Join(out, dataset.SpacesGlob))
}

// peakRSS returns this process's peak resident set size in KiB (VmHWM),
// where the system tells it (Linux).
func peakRSS() (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}
