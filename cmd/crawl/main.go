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
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/internal/cli"
	"actionspace/internal/llmflags"
	"actionspace/metrics"
	"actionspace/pipeline"
	"actionspace/space"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		// From now on a second signal gets the default action: quit now.
		stop()
		fmt.Fprintln(os.Stderr, "crawl: interrupted: finishing the pages in flight (see --grace); interrupt again to quit at once")
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, new(usageError)):
		fmt.Fprintf(os.Stderr, "crawl: %v\nTry: crawl --help\n", err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "crawl: %v\n", err)
		os.Exit(1)
	}
}

// logErr is the log key of an error, as in package pipeline.
const logErr = "err"

// usageError is a bad flag or argument.
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// options are the flags that do not map onto pipeline.Config directly.
type options struct {
	modes      string
	llm        *llmflags.Options
	urls       string
	out        string
	viewport   string
	expansions string
	encodings  string
	text       string
	logLevel   string
	schemes    string
	maxNodes   int
	shard      string
	shots      string
	shotQ      int
}

// resumeHint is how the error of an interrupted crawl ends.
const resumeHint = "finish it with: crawl --resume --out %s [the same URL list]"

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg := pipeline.DefaultConfig()
	var o options
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: crawl [flags] [URL-FILE]

Crawls the URLs in URL-FILE (or --urls; "-" reads stdin; one URL a line,
blank lines and # comments ignored) with headless Chromium and writes
the dataset OUT/pages/part-*.parquet (one row per URL) and
OUT/spaces/part-*.parquet (one row per successful page and viewport
expansion). Without a URL list it serves the bundled corpus on 127.0.0.1
and crawls that. SIGINT/SIGTERM stops after --grace; crawl --resume --out
OUT with the same list finishes an interrupted or killed crawl.

Scale-out: --shard I/N --run-id ID crawls one of N slices of the list into
OUT/pages/shard=000I/ (N processes, one OUT, one dataset);
--browser-endpoint ws://HOST:PORT/ uses Playwright browser servers.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.urls, "urls", "", "URL list `FILE` (\"-\" = stdin); same as the URL-FILE argument")
	fs.StringVar(&o.out, "out", "", "output `DIR` (default results/runs/<run-id>)")
	fs.StringVar(&cfg.RunID, "run-id", "", "run `ID` recorded in every row (default crawl-<UTC time>)")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "pages crawled at once (`N`)")
	fs.StringVar(&o.viewport, "viewport", "1280x720", "browser viewport `WxH` in CSS pixels")
	fs.StringVar(&o.expansions, "viewport-expansion", "0,500,-1", "comma `LIST` of viewport expansions in pixels, -1 = whole page; one spaces row each")
	fs.StringVar(&o.modes, "mode", space.ModeFast, "renderings per page and expansion (`LIST` of fast, deep); one spaces row each")
	o.llm = llmflags.Register(fs)
	fs.StringVar(&o.text, "text", string(dom.TextViewport), "context text: viewport (inside the window), all (every text), none")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "time limit per URL attempt (`DURATION`)")
	fs.IntVar(&cfg.Retries, "retries", cfg.Retries, "extra attempts after a transient failure (timeout, network, crash)")
	fs.DurationVar(&cfg.Browser.SettleQuiet, "settle-quiet", cfg.Browser.SettleQuiet, "capture once the DOM has gone this long without a change (`DURATION`)")
	fs.DurationVar(&cfg.Browser.SettleMax, "settle-max", cfg.Browser.SettleMax, "capture after this long even if the DOM keeps changing (`DURATION`)")
	fs.StringVar(&cfg.Browser.ChromiumPath, "chromium", cfg.Browser.ChromiumPath, "Chromium executable `PATH`")
	fs.StringVar(&o.encodings, "encodings", "cl100k_base,o200k_base", "tokenizers to count with (`LIST` of cl100k_base, o200k_base)")
	fs.IntVar(&o.maxNodes, "max-nodes", dom.DefaultMaxNodes, "capture at most `N` DOM nodes per page (the capture is then marked truncated)")
	fs.StringVar(&o.shots, "screenshots", pipeline.ScreenshotsNone, "viewport screenshot per page in the pages table: none, plain, labeled (IDs of the first expansion drawn on it)")
	fs.IntVar(&o.shotQ, "screenshot-quality", pipeline.DefaultScreenshotQuality, "screenshot JPEG quality `N`, 1-100; 0 stores lossless PNG instead")
	fs.StringVar(&o.schemes, "allow-scheme", "http,https", "URL schemes to crawl (`LIST`); others become invalid_url rows")
	fs.StringVar(&o.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	fs.BoolVar(&cfg.Resume, "resume", false, "continue the dataset in --out: skip the URLs its complete parts hold, crawl the rest")
	fs.DurationVar(&cfg.Grace, "grace", cfg.Grace, "on SIGINT/SIGTERM, let the pages in flight finish for this long (`DURATION`)")
	fs.IntVar(&cfg.Output.PartPages, "part-pages", cfg.Output.PartPages, "close a part file after `N` pages (0 = no limit); a kill loses at most the open part")
	fs.DurationVar(&cfg.Output.PartInterval, "part-interval", cfg.Output.PartInterval, "close a part file after it has been open this long (`DURATION`, 0 = no limit)")
	fs.IntVar(&cfg.RecyclePages, "recycle-pages", cfg.RecyclePages, "give a worker a fresh page and browser context after `N` URLs (0 = never)")
	fs.StringVar(&o.shard, "shard", "", "crawl only shard `I/N` of the URL list into OUT/pages/shard=000I/ (and spaces/); auto/N takes I from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID; needs --run-id")
	fs.Func("browser-endpoint", "use the Playwright browser server at `URL` (ws://HOST:PORT/PATH, from playwright run-server) instead of launching --chromium; repeat for several, workers are spread over them", func(s string) error {
		cfg.Browser.Endpoints = append(cfg.Browser.Endpoints, s)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 1 {
		return usagef("too many arguments: %q (want at most one URL-FILE)", fs.Args())
	}
	if fs.NArg() == 1 {
		if o.urls != "" {
			return usagef("both --urls and a URL-FILE argument given")
		}
		o.urls = fs.Arg(0)
	}

	var err error
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return usagef("--log-level: %v", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg.Logger, cfg.Browser.Logger = log, log
	if cfg.Browser.ViewportWidth, cfg.Browser.ViewportHeight, err = cli.ParseViewport(o.viewport); err != nil {
		return usagef("--viewport: %v", err)
	}
	if cfg.Expansions, err = cli.ParseInts(o.expansions); err != nil {
		return usagef("--viewport-expansion: %v", err)
	}
	if cfg.Text, err = dom.ParseTextPolicy(o.text); err != nil {
		return usagef("--text: %v", err)
	}
	if cfg.Encodings, err = metrics.ParseEncodings(o.encodings); err != nil {
		return usagef("--encodings: %v", err)
	}
	if cfg.Modes, err = space.ParseModes(o.modes); err != nil {
		return usagef("--mode: %v", err)
	}
	if slices.Contains(cfg.Modes, space.ModeDeep) {
		d, err := o.llm.Deep(os.Getenv, log)
		if err != nil {
			return usageError{err}
		}
		cfg.Deep = space.Deep{Renderer: d}
	} else if o.llm.BaseURL != "" {
		return usagef("--llm-base-url needs --mode with deep")
	}
	script := dom.DefaultScriptOptions()
	script.MaxNodes = o.maxNodes
	cfg.Browser.CaptureArg = script
	if cfg.Screenshots, err = pipeline.ParseScreenshotMode(o.shots); err != nil {
		return usagef("--screenshots: %v", err)
	}
	if o.shotQ < 0 || o.shotQ > 100 {
		return usagef("--screenshot-quality: %d, want 1-100, or 0 for PNG", o.shotQ)
	}
	if cfg.Screenshots != pipeline.ScreenshotsNone {
		cfg.Browser.Screenshot, cfg.Browser.ScreenshotQuality = pipeline.ScreenshotJPEG, o.shotQ
		if o.shotQ == 0 {
			cfg.Browser.Screenshot, cfg.Browser.ScreenshotQuality = pipeline.ScreenshotPNG, 0
		}
	}
	if cfg.Resume && o.out == "" {
		return usagef("--resume needs --out DIR")
	}
	// The one environment read besides the LLM key: the scheduler's task
	// index, for --shard auto/N.
	shard, err := pipeline.ParseShard(o.shard, os.LookupEnv)
	if err != nil {
		return usagef("--shard: %v", err)
	}
	if shard.Count > 0 && cfg.RunID == "" {
		return usagef("--shard needs --run-id: every shard of a crawl must write the same run_id")
	}
	cfg.Output.Partition = shard.Partition()
	if cfg.RunID == "" && !cfg.Resume { // a resume keeps the dataset's run ID
		cfg.RunID = "crawl-" + time.Now().UTC().Format("20060102T150405Z")
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	if _, err := os.Stat(cfg.Browser.ChromiumPath); err != nil && len(cfg.Browser.Endpoints) == 0 {
		return fmt.Errorf("chromium: %w (run `make setup`, or pass --chromium)", err)
	}
	if o.out == "" {
		o.out = filepath.Join("results", "runs", cfg.RunID)
	}

	targets, cleanup, err := loadTargets(o.urls, cli.SplitList(o.schemes), stdin, log)
	if err != nil {
		return err
	}
	defer cleanup()
	if len(targets) == 0 {
		return fmt.Errorf("no URLs in %s", o.urls)
	}
	if shard.Count > 0 {
		all := len(targets)
		targets = shard.Filter(targets)
		fmt.Fprintf(stderr, "crawl: shard %s: %d of %d URLs -> %s\n", shard, len(targets), all, filepath.Join(o.out, dataset.PagesDir, shard.Partition()))
	}

	fmt.Fprintf(stderr, "crawl: %d URLs, %d workers, expansions %v -> %s\n", len(targets), cfg.Workers, cfg.Expansions, o.out)
	progress := pipeline.NewProgress(stderr, len(targets), cli.IsTerminal(stderr), log)
	stats, err := pipeline.Crawl(ctx, cfg, targets, o.out, progress.Add)
	progress.Finish()
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

// loadTargets reads the URL list, or serves the bundled corpus when there
// is none. cleanup stops the corpus server. Lines that are not crawlable
// URLs are logged with their line numbers; they still get their rows.
func loadTargets(path string, schemes []string, stdin io.Reader, log *slog.Logger) ([]pipeline.Target, func(), error) {
	if path == "" {
		srv, err := corpora.Start()
		if err != nil {
			return nil, nil, fmt.Errorf("serve bundled corpus: %w", err)
		}
		return pipeline.TargetsFromURLs(corpora.DefaultURLs(srv.URL)), func() { srv.Close() }, nil
	}
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, fmt.Errorf("URL list: %w", err)
		}
		defer f.Close()
		r = f
	}
	targets, err := pipeline.ReadTargets(r, schemes)
	if err != nil {
		return nil, nil, fmt.Errorf("URL list %s: %w", path, err)
	}
	for _, t := range targets {
		if t.Err != nil {
			log.Warn("URL list: line refused; it gets an invalid_url row", "file", path, "line", t.Line, logErr, t.Err.Err)
		}
	}
	return targets, func() {}, nil
}
