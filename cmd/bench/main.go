// Command bench sweeps render modes, viewport_expansion settings and text
// policies over captured pages and reports how token cost, compression and
// time change; with --baseline it is a regression gate.
//
// Given a crawl dataset directory it re-renders the stored captures, with
// no browser. Given a URL list, or nothing (the bundled corpus), it crawls
// first into OUT/crawl and then sweeps that.
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

	"github.com/schollz/progressbar/v3"

	"actionspace/bench"
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
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// errRegressed is returned by run when the regression gate fails; the
// gate has printed why.
var errRegressed = errors.New("regression gate failed")

// usageError is a bad flag or argument.
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitCode maps run's error to the process exit code, printing it: 0 on
// success, 1 when the gate fails or the run fails, 2 for a usage error.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errRegressed):
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	case errors.As(err, new(usageError)):
		fmt.Fprintf(stderr, "bench: %v\nTry: bench --help\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "bench: %v\n", err)
	return 1
}

// options are the flags that do not map onto bench.Config directly.
type options struct {
	urls       string
	out        string
	modes      string
	expansions string
	texts      string
	encodings  string
	prices     string
	baseline   string
	maxRegress string
	logLevel   string
	viewport   string
	chromium   string
	crawlers   int
	timeout    time.Duration
	llm        *llmflags.Options
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg := bench.DefaultConfig()
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: bench [flags] [DATASET | URL-FILE]

Renders every page under every cell of the matrix (mode x viewport
expansion x text policy), counts tokens in every encoding and writes
OUT/cells.parquet (one row per page x cell), OUT/summary.parquet and
OUT/summary.json (one row per cell), OUT/report.md and its SVG charts.

DATASET is a crawl output directory (or one of its pages files): its
stored captures are re-rendered without a browser. URL-FILE (or --urls)
is a URL list, crawled first into OUT/crawl with headless Chromium. With
neither, the bundled corpus is served on 127.0.0.1 and crawled.

With --baseline, the run is compared with a baseline summary.json cell by
cell and bench exits 1 when a cell regressed beyond --max-regress.

Exit codes: 0 done (gate passed), 1 gate failed or the run failed,
2 bad flags.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.urls, "urls", "", "URL list `FILE` to crawl first (\"-\" = stdin); same as a URL-FILE argument")
	fs.StringVar(&o.out, "out", "", "output `DIR` (default results/<run-id>)")
	fs.StringVar(&cfg.RunID, "run-id", "", "run `ID` (default bench-<UTC time>)")
	fs.StringVar(&o.modes, "modes", "fast,deep", "render modes to sweep (`LIST` of fast, deep); deep without --llm-base-url is a dry run: prompts built and counted, no call")
	fs.StringVar(&o.expansions, "viewport-expansion", joinInts(cfg.Expansions), "viewport expansions to sweep, CSS pixels (`LIST`; -1 = whole page)")
	fs.StringVar(&o.texts, "text", "viewport,all", "context-text policies to sweep (`LIST` of viewport, all, none)")
	fs.StringVar(&o.encodings, "encodings", "cl100k_base,o200k_base", "tokenizers to count with (`LIST`; the first leads the report)")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "pages rendered at once (`N`)")
	fs.IntVar(&cfg.Repeat, "repeat", cfg.Repeat, "renders per fast cell and page; the fastest is reported (`N`)")
	fs.StringVar(&o.prices, "prices", "", "price table `FILE` (JSON, $ per 1M input/output tokens per model; default: the embedded bench/prices.json)")
	fs.StringVar(&o.baseline, "baseline", "", "baseline summary.json `FILE` to compare with; exit 1 on a regression")
	fs.StringVar(&o.maxRegress, "max-regress", bench.DefaultMaxRegress, "largest accepted worsening per metric (`LIST` of METRIC=PCT%[+ABS]; metrics: tokens, perception_tokens, ratio, render_ms, prompt_tokens)")
	fs.StringVar(&o.viewport, "viewport", "1280x720", "crawl only: browser viewport `WxH`")
	fs.StringVar(&o.chromium, "chromium", pipeline.DefaultChromiumPath, "crawl only: Chromium executable `PATH`")
	fs.IntVar(&o.crawlers, "crawl-workers", pipeline.DefaultWorkers(), "crawl only: pages loaded at once (`N`)")
	fs.DurationVar(&o.timeout, "timeout", pipeline.DefaultTimeout, "crawl only: time limit per URL attempt (`DURATION`)")
	o.llm = llmflags.Register(fs)
	fs.StringVar(&o.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 1 {
		return usagef("too many arguments: %q (want at most one DATASET or URL-FILE)", fs.Args())
	}
	input := ""
	if fs.NArg() == 1 {
		if o.urls != "" {
			return usagef("both --urls and an argument given")
		}
		if arg := fs.Arg(0); bench.IsDataset(arg) {
			input = arg
		} else {
			o.urls = arg
		}
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return usagef("--log-level: %v", err)
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg.Logger = log
	if err := parseMatrix(&cfg, o); err != nil {
		return err
	}
	if slices.Contains(cfg.Modes, space.ModeDeep) {
		d, err := o.llm.Deep(os.Getenv, log)
		if err != nil {
			return usageError{err}
		}
		cfg.Deep = space.Deep{Renderer: d}
	} else if o.llm.BaseURL != "" {
		return usagef("--llm-base-url needs --modes with deep")
	}
	var thresholds []bench.Threshold
	if o.baseline != "" {
		var err error
		if thresholds, err = bench.ParseThresholds(o.maxRegress); err != nil {
			return usagef("--max-regress: %v", err)
		}
	}
	cfg.Prices = bench.DefaultPrices()
	if o.prices != "" {
		var err error
		if cfg.Prices, err = bench.LoadPrices(o.prices); err != nil {
			return usagef("--prices: %v", err)
		}
	}
	if cfg.RunID == "" {
		cfg.RunID = "bench-" + time.Now().UTC().Format("20060102T150405Z")
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	var base *bench.Summary
	if o.baseline != "" {
		var err error
		if base, err = bench.ReadSummary(o.baseline); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	if o.out == "" {
		o.out = filepath.Join("results", cfg.RunID)
	}

	label := "crawl dataset"
	if input == "" {
		var err error
		if input, label, err = crawlFirst(ctx, cfg, o, stdin, stderr, log); err != nil {
			return err
		}
	}
	pages, err := bench.PagesFiles(input)
	if err != nil {
		return err
	}

	cells := len(cfg.Cells())
	fmt.Fprintf(stderr, "bench: sweeping %s: %d cells (%s x %s x %s), %d workers -> %s\n", input, cells,
		o.modes, o.expansions, o.texts, cfg.Workers, o.out)
	progress := newProgress(stderr)
	cfg.OnPage = progress.add
	res, err := bench.Sweep(ctx, cfg, pages, o.out)
	progress.finish()
	if err != nil {
		return err
	}
	res.Summary.Input.Label, res.Summary.Input.Path = label, input

	var gate *bench.Gate
	if base != nil {
		g := bench.Compare(base, &res.Summary, thresholds, o.baseline)
		gate = &g
	}
	if err := bench.WriteResults(o.out, res, gate); err != nil {
		return err
	}
	res.WriteHeadline(stdout)
	fmt.Fprintf(stdout, "\nresults: %s (%s, %s, %s, %s)\n", o.out, bench.CellsFile, bench.SummaryFile, bench.SummaryJSONFile, bench.ReportFile)
	if gate != nil {
		fmt.Fprintln(stdout)
		gate.WriteText(stdout)
		if gate.Failed() {
			return errRegressed
		}
	}
	return nil
}

// parseMatrix parses the matrix flags into cfg.
func parseMatrix(cfg *bench.Config, o options) error {
	cfg.Modes = cli.SplitList(o.modes)
	var err error
	if cfg.Expansions, err = cli.ParseInts(o.expansions); err != nil {
		return usagef("--viewport-expansion: %v", err)
	}
	cfg.Texts = nil
	for _, t := range cli.SplitList(o.texts) {
		p, err := dom.ParseTextPolicy(t)
		if err != nil {
			return usagef("--text: %v", err)
		}
		cfg.Texts = append(cfg.Texts, p)
	}
	if cfg.Encodings, err = metrics.ParseEncodings(o.encodings); err != nil {
		return usagef("--encodings: %v", err)
	}
	return nil
}

// crawlFirst crawls the URL list (or the bundled corpus) into OUT/crawl
// and returns that directory and a label for the report.
func crawlFirst(ctx context.Context, cfg bench.Config, o options, stdin io.Reader, stderr io.Writer, log *slog.Logger) (dir, label string, err error) {
	pc := pipeline.DefaultConfig()
	pc.RunID = cfg.RunID
	pc.Workers = o.crawlers
	pc.Timeout = o.timeout
	pc.Expansions = cfg.Expansions
	pc.Text = cfg.Texts[0]
	pc.Encodings = cfg.Encodings
	pc.Browser.ChromiumPath = o.chromium
	pc.Logger, pc.Browser.Logger = log, log
	if pc.Browser.ViewportWidth, pc.Browser.ViewportHeight, err = cli.ParseViewport(o.viewport); err != nil {
		return "", "", usagef("--viewport: %v", err)
	}
	if err := pc.Validate(); err != nil {
		return "", "", usageError{err}
	}
	if _, err := os.Stat(pc.Browser.ChromiumPath); err != nil {
		return "", "", fmt.Errorf("chromium: %w (run `make setup`, pass --chromium, or give a crawl dataset)", err)
	}

	var targets []pipeline.Target
	if o.urls == "" {
		srv, err := corpora.Start()
		if err != nil {
			return "", "", fmt.Errorf("serve bundled corpus: %w", err)
		}
		defer srv.Close()
		targets = pipeline.TargetsFromURLs(corpora.DefaultURLs(srv.URL))
		label = fmt.Sprintf("bundled corpus (%d pages)", len(targets))
	} else {
		r := stdin
		if o.urls != "-" {
			f, err := os.Open(o.urls)
			if err != nil {
				return "", "", fmt.Errorf("URL list: %w", err)
			}
			defer f.Close()
			r = f
		}
		if targets, err = pipeline.ReadTargets(r, pipeline.DefaultSchemes()); err != nil {
			return "", "", fmt.Errorf("URL list %s: %w", o.urls, err)
		}
		label = "URL list " + o.urls
	}
	if len(targets) == 0 {
		return "", "", fmt.Errorf("no URLs in %s", o.urls)
	}
	dir = filepath.Join(o.out, bench.CrawlDir)
	if pages, _, err := dataset.Files(dir); err == nil && len(pages) > 0 {
		return "", "", fmt.Errorf("%s already holds a crawl: sweep it again with `bench %s --out NEW-DIR`, or choose another --out", dir, dir)
	}
	fmt.Fprintf(stderr, "bench: crawling %d URLs with %d workers -> %s\n", len(targets), pc.Workers, dir)
	progress := pipeline.NewProgress(stderr, len(targets), cli.IsTerminal(stderr), log)
	stats, err := pipeline.Crawl(ctx, pc, targets, dir, progress.Add)
	progress.Finish()
	if err != nil {
		return "", "", fmt.Errorf("crawl stopped after %d of %d URLs: %w", stats.OK+stats.Failed, stats.Targets, err)
	}
	fmt.Fprintf(stderr, "bench: crawled %d URLs: %d ok, %d failed in %s\n", stats.Targets, stats.OK, stats.Failed, stats.Elapsed.Round(time.Millisecond))
	return dir, label, nil
}

// progress reports the sweep on stderr: a bar per pass on a terminal, a
// line every progressEvery otherwise.
type progress struct {
	w        io.Writer
	terminal bool
	bar      *progressbar.ProgressBar
	pass     string
	last     time.Time
	errs     int
}

const progressEvery = 10 * time.Second

func newProgress(w io.Writer) *progress {
	return &progress{w: w, terminal: cli.IsTerminal(w), last: time.Now()}
}

func (p *progress) add(d bench.PageDone) {
	p.errs += d.Errors
	if d.Pass != p.pass {
		p.finish()
		p.pass = d.Pass
		if p.terminal {
			p.bar = progressbar.NewOptions(d.Total, progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetDescription("bench "+d.Pass+" pass"), progressbar.OptionShowCount(),
				progressbar.OptionShowIts(), progressbar.OptionSetItsString("pages"),
				progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		}
	}
	if p.bar != nil {
		_ = p.bar.Add(1)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= progressEvery || d.Done == d.Total {
		p.last = now
		fmt.Fprintf(p.w, "bench: %s pass: %d/%d pages, %d cell errors\n", d.Pass, d.Done, d.Total, p.errs)
	}
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
