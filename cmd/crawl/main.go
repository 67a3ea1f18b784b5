// Command crawl turns a list of URLs into an action-space dataset: it loads
// every URL in headless Chromium, captures the page once (and, on the same
// page state, its accessibility tree and Playwright's AI snapshot), renders
// each format (--formats) for each viewport_expansion, counts tokens,
// measures recall against the accessibility tree's oracle and writes the
// dataset OUT/pages/, blobs/, spaces/, elements/ and oracle/ part files,
// where OUT (--out) is a directory or a bucket URL (s3://bucket/prefix,
// gs://…, file://…; credentials from the environment only).
//
// With no URL list it serves the bundled corpus on 127.0.0.1 and crawls it.
//
// SIGINT or SIGTERM stops taking URLs, gives the pages in flight --grace to
// finish, closes the open part files and exits 1 with a summary; a second
// signal quits at once. A run stopped that way, or killed, is finished by
// `crawl --resume --out OUT` with the same URL list, which also crawls
// again the pages whose rows failed transiently.
//
// To scale out, run several crawls of the same list with --shard I/N (or
// auto/N under a Kubernetes Indexed Job or a Slurm array) and the same
// --run-id and --out: each crawls its slice into OUT/pages/shard=000I/ and
// the other tables' shard=000I/ folders, and OUT reads as one dataset.
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
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"actionspace/browser"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/dataset/store/bucket"
	"actionspace/internal/cli"
	"actionspace/internal/llmflags"
	"actionspace/pipeline"
)

func main() { cli.Main("crawl", command{}.run, interrupted) }

// interrupted is what the command prints on its first SIGINT or SIGTERM.
const interrupted = "finishing the pages in flight (see --grace); interrupt again to quit at once"

// command is the crawl command. Its zero value crawls with Chromium (or
// the --browser-endpoint servers), as the flags say.
type command struct {
	// open, when set, opens the crawl's browser instead, and --chromium
	// is not checked: the seam through which tests replay stored pages
	// (package pipelinetest).
	open pipeline.Opener
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
const resumeHint = "finish it with: crawl --resume --out %s [the same URL list and flags]"

func (c command) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	bucket.Register() // s3:// and gs:// locations for --out and the input
	cfg := pipeline.DefaultConfig()
	bcfg := browser.DefaultConfig()
	o := options{shotQ: cfg.Page.Screenshot.Quality}
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: crawl [flags] [URL-FILE]

Crawls the URLs in URL-FILE (or --urls; "-" reads stdin; one URL a line,
blank lines and # comments ignored) with headless Chromium and writes
the dataset OUT/pages/part-*.parquet (one row per URL), OUT/blobs/ (the
heavy records of each captured page), OUT/spaces/ (one row per captured
page, format, mode and viewport expansion, and per page and
--token-budget), OUT/elements/ and OUT/oracle/ (one row per interactive
element and per oracle element of each page). OUT is a directory or a
bucket: s3://BUCKET/PREFIX (parameters endpoint=URL, use_path_style=true,
region=R, or the AWS_* environment), gs://BUCKET/PREFIX, file:///PATH;
credentials come from the environment only. Without a URL list it serves
the bundled corpus on 127.0.0.1 and crawls that. SIGINT/SIGTERM stops
after --grace; crawl --resume --out OUT with the same list finishes an
interrupted or killed crawl and crawls again the pages that failed
transiently (timeout, network, crash, 5xx).

Scale-out: --shard I/N --run-id ID crawls one of N slices of the list into
OUT/pages/shard=000I/ (N processes, one OUT, one dataset);
--browser-endpoint ws://HOST:PORT/ uses Playwright browser servers. Each
partition is locked while a crawl writes it (--lock-ttl, --lock-wait).

Progress goes to stderr: a bar on a terminal, a line every 10s otherwise.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.urls, "urls", "", "URL list `FILE` (\"-\" = stdin); same as the URL-FILE argument")
	fs.StringVar(&o.out, "out", "", "output `DIR` or bucket URL (s3://BUCKET/PREFIX?endpoint=…&use_path_style=true, gs://…, file://…; default "+cli.OutDir("<run-id>")+")")
	fs.StringVar(&cfg.RunID, "run-id", "", "run `ID` recorded in every row (default crawl-<UTC time>)")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "pages crawled at once (`N`)")
	fs.StringVar(&o.viewport, "viewport", cli.FormatViewport(cfg.Page.ViewportWidth, cfg.Page.ViewportHeight), "browser viewport `WxH` in CSS pixels")
	m := cli.BindMatrix(fs, &cfg.Matrix, "formats rendered per page",
		"axtree takes the accessibility tree, which is also the oracle of every recall column, playwright-ai the AI snapshot", stderr)
	fs.IntVar(&cfg.Page.Extras.MaxAXNodes, "max-ax-nodes", cfg.Page.Extras.MaxAXNodes, "skip the accessibility tree of a page with more than `N` DOM nodes (the pages row says axtree_skipped=too_large)")
	fs.IntVar(&cfg.Page.Extras.MaxAISnapshotBytes, "max-aisnapshot-bytes", cfg.Page.Extras.MaxAISnapshotBytes, "drop an AI snapshot longer than `N` bytes (the pages row says aisnapshot_skipped=too_large)")
	o.llm = llmflags.Register(fs)
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "time limit per URL attempt (`DURATION`)")
	fs.IntVar(&cfg.Retries, "retries", cfg.Retries, "extra attempts after a transient failure (timeout, network, crash)")
	fs.DurationVar(&cfg.Page.SettleQuiet, "settle-quiet", cfg.Page.SettleQuiet, "capture once the DOM has gone this long without a change (`DURATION`)")
	fs.DurationVar(&cfg.Page.SettleMax, "settle-max", cfg.Page.SettleMax, "capture after this long even if the DOM keeps changing (`DURATION`)")
	fs.StringVar(&bcfg.ChromiumPath, "chromium", bcfg.ChromiumPath, "Chromium executable `PATH`")
	registerBounds(fs, &cfg.Page)
	registerNetwork(fs, &cfg.Page.Network)
	fs.StringVar(&o.shots, "screenshots", cfg.Page.Screenshot.Mode, "viewport screenshot per page in the pages table: none, plain, labeled (IDs of the first expansion drawn on it)")
	fs.IntVar(&o.shotQ, "screenshot-quality", o.shotQ, "screenshot JPEG quality `N`, 1-100; 0 stores lossless PNG instead")
	fs.StringVar(&o.schemes, "allow-scheme", strings.Join(pipeline.DefaultSchemes(), ","), "URL schemes to crawl (`LIST`); others become invalid_url rows")
	fs.StringVar(&o.logLevel, "log-level", cli.DefaultLogLevel, "log level: debug, info, warn, error")
	fs.BoolVar(&cfg.Resume, "resume", false, "continue the dataset in --out: skip the URLs its complete parts hold, crawl the rest, and crawl again those whose rows failed transiently (their old rows are replaced)")
	fs.BoolVar(&cfg.ResumeKeepFailed, "resume-keep-failed", false, "with --resume, keep every failed row as done (crawl no failed page again)")
	fs.DurationVar(&cfg.Output.LockTTL, "lock-ttl", cfg.Output.LockTTL, "the output partition's lock lasts this long without renewal (`DURATION`); a killed crawl blocks the partition this long")
	fs.DurationVar(&cfg.Output.LockWait, "lock-wait", cfg.Output.LockWait, "wait this long (`DURATION`) for a partition lock another crawl holds to be released or go stale; 0 refuses at once")
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
	if len(cfg.Texts) != 1 {
		return cli.Usagef("--text: crawl takes one policy, not %d (bench sweeps several)", len(cfg.Texts))
	}
	cfg.UseFormats(cfg.Formats)
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
		return cli.Usagef("--resume needs --out")
	}
	if cfg.ResumeKeepFailed && !cfg.Resume {
		return cli.Usagef("--resume-keep-failed needs --resume")
	}
	cfg.BrowserEndpoints, cfg.LLMBaseURL = bcfg.Endpoints, o.llm.BaseURL
	// The one environment read besides the LLM key: the scheduler's task
	// index, for --shard auto/N.
	shard, err := pipeline.ParseShard(o.shard, os.LookupEnv)
	if err != nil {
		return cli.Usagef("--shard: %v", err)
	}
	if shard.Count > 0 && cfg.RunID == "" {
		return cli.Usagef("--shard needs --run-id: every shard of a crawl must write the same run_id")
	}
	cfg.Output.Partition, cfg.Shards = shard.Partition(), shard.Count
	switch {
	case cfg.RunID != "":
	case cfg.Resume: // a resume keeps the dataset's run ID, if there is a dataset
		cfg.NewRunID = cli.RunID("crawl", time.Now())
	default:
		cfg.RunID = cli.RunID("crawl", time.Now())
	}
	if err := cfg.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	if err := bcfg.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	open := c.open
	if open == nil {
		open = browser.Opener(bcfg)
	}
	if len(bcfg.Endpoints) == 0 && c.open == nil {
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
		fmt.Fprintf(stderr, "crawl: shard %s: %d of %d URLs -> %s\n", shard, len(targets), all, joinLoc(o.out, dataset.PagesDir, shard.Partition()))
	}

	fmt.Fprintf(stderr, "crawl: %d URLs, %d workers, expansions %v -> %s\n", len(targets), cfg.Workers, cfg.Expansions, store.Redact(o.out))
	stats, err := cli.Crawl(ctx, cfg, targets, o.out, open, stderr)
	if err != nil && stats.OK+stats.Failed == 0 && !errors.Is(err, context.Canceled) {
		return err // nothing was crawled: no summary
	}
	printSummary(stdout, stats, o.out)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted after %d of %d URLs; "+resumeHint, stats.OK+stats.Failed+stats.Skipped, stats.Targets, store.Redact(o.out))
		}
		return fmt.Errorf("crawl stopped after %d of %d URLs: %w; "+resumeHint, stats.OK+stats.Failed+stats.Skipped, stats.Targets, err, store.Redact(o.out))
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
	if stats.Recrawled > 0 {
		fmt.Fprintf(w, ", %d failed transiently before and crawled again (%d old rows replaced)", stats.Recrawled, stats.Superseded)
	}
	if stats.Unfinished > 0 {
		fmt.Fprintf(w, ", %d unfinished", stats.Unfinished)
	}
	if stats.Relaunches > 0 {
		fmt.Fprintf(w, ", %d browser relaunches", stats.Relaunches)
	}
	fmt.Fprintf(w, " in %s (%.1f pages/min), %s written", stats.Elapsed.Round(time.Millisecond), rate, mib(stats.BytesWritten))
	if kb, ok := peakRSS(); ok {
		fmt.Fprintf(w, ", peak RSS %d MiB", kb>>10)
	}
	fmt.Fprintln(w)
	tables := parts.Tables()
	slices.Reverse(tables) // pages first
	for _, table := range tables {
		fmt.Fprintln(w, joinLoc(out, table, "**", "*"+dataset.PartExt))
	}
}

// mib formats a byte count.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// joinLoc joins the output location and elems for display (globs
// included): without URL parameters.
func joinLoc(out string, elems ...string) string {
	loc := store.Redact(out)
	if !strings.Contains(loc, "://") {
		return filepath.Join(append([]string{loc}, elems...)...)
	}
	return strings.TrimSuffix(loc, "/") + "/" + path.Join(elems...)
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
