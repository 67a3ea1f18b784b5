// Command bench sweeps formats (the action space and what agents read
// today: Playwright's AI snapshot, the accessibility tree, the HTML),
// render modes, viewport_expansion settings, text policies and token
// budgets over captured pages and reports how token cost, recall,
// compression and time change; with --baseline it is a regression gate.
//
// Given a crawl dataset (a directory or a bucket URL) it re-renders the
// stored captures, with no browser. Given a URL list, or nothing (the
// bundled corpus), it crawls first into OUT/crawl and then sweeps that.
// OUT (--out) is a directory or a bucket URL too.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"actionspace/bench"
	"actionspace/browser"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/dataset/store/bucket"
	"actionspace/internal/cli"
	"actionspace/internal/llmflags"
	"actionspace/pipeline"
	"actionspace/space"
)

func main() { cli.Main("bench", command{}.run, "") }

// command is the bench command. Its zero value crawls, when it has to,
// with Chromium.
type command struct {
	// open, when set, opens the browser of the crawl bench runs first
	// instead, and --chromium is not checked: the seam through which
	// tests replay stored pages (package pipelinetest).
	open pipeline.Opener
}

// options are the flags that do not map onto bench.Config directly.
type options struct {
	urls       string
	out        string
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

func (c command) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	bucket.Register() // s3:// and gs:// locations for --out and the input
	cfg := bench.DefaultConfig()
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: bench [flags] [DATASET | URL-FILE]

Renders every page under every cell of the matrix (actionspace: mode x
viewport expansion x text policy, and token budget x text policy;
playwright-ai and axtree: viewport expansion, and token budget for their
whole-page text cut from the end; html: the whole page), counts tokens
in every encoding, measures recall against the page's accessibility tree
and writes
OUT/cells.parquet (one row per page x cell), OUT/summary.parquet and
OUT/summary.json (one row per cell), OUT/report.md and its SVG charts.

DATASET is a crawl output (its pages and blobs tables), a directory or a
bucket URL (s3://BUCKET/PREFIX?endpoint=…&use_path_style=true, gs://…,
file://…; credentials from the environment only): its stored captures are
re-rendered without a browser, read by ranged requests. URL-FILE (or
--urls) is a URL list, crawled first into OUT/crawl with headless
Chromium. With neither, the bundled corpus is served on 127.0.0.1 and
crawled. OUT is a directory or a bucket URL as well.

With --baseline, the run is compared with a baseline summary.json cell by
cell and bench exits 1 when a cell regressed beyond --max-regress.

Exit codes: 0 done (gate passed), 1 gate failed or the run failed,
2 bad flags.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.urls, "urls", "", "URL list `FILE` to crawl first (\"-\" = stdin); same as a URL-FILE argument")
	fs.StringVar(&o.out, "out", "", "output `DIR` or bucket URL (default "+cli.OutDir("<run-id>")+")")
	fs.StringVar(&cfg.RunID, "run-id", "", "run `ID` (default bench-<UTC time>)")
	cfg.Modes = []string{space.ModeFast, space.ModeDeep} // deep is a dry run without --llm-base-url
	m := cli.BindMatrix(fs, &cfg.Matrix, "formats swept",
		"a page whose crawl stored no record for a format gets no row in its cells", stderr)
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "pages rendered at once (`N`)")
	fs.IntVar(&cfg.Repeat, "repeat", cfg.Repeat, "renders per fast cell and page; the fastest is reported (`N`)")
	fs.StringVar(&o.prices, "prices", "", "price table `FILE` (JSON, $ per 1M input/output tokens per model; default: the embedded bench/prices.json)")
	fs.StringVar(&o.baseline, "baseline", "", "baseline summary.json `FILE` to compare with; exit 1 on a regression")
	fs.StringVar(&o.maxRegress, "max-regress", bench.DefaultMaxRegress, "largest accepted worsening per metric (`LIST` of METRIC=PCT%[+ABS]; metrics: tokens, perception_tokens, ratio, render_ms, prompt_tokens, recall; recall in percentage points)")
	crawlDefaults := pipeline.DefaultConfig()
	fs.StringVar(&o.viewport, "viewport", cli.FormatViewport(crawlDefaults.Page.ViewportWidth, crawlDefaults.Page.ViewportHeight), "crawl only: browser viewport `WxH`")
	fs.StringVar(&o.chromium, "chromium", browser.DefaultChromiumPath, "crawl only: Chromium executable `PATH`")
	fs.IntVar(&o.crawlers, "crawl-workers", crawlDefaults.Workers, "crawl only: pages loaded at once (`N`)")
	fs.DurationVar(&o.timeout, "timeout", crawlDefaults.Timeout, "crawl only: time limit per URL attempt (`DURATION`)")
	o.llm = llmflags.Register(fs)
	fs.StringVar(&o.logLevel, "log-level", cli.DefaultLogLevel, "log level: debug, info, warn, error")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return cli.Usagef("too many arguments: %q (want at most one DATASET or URL-FILE)", fs.Args())
	}
	input := ""
	if fs.NArg() == 1 {
		if o.urls != "" {
			return cli.Usagef("both --urls and an argument given")
		}
		if arg := fs.Arg(0); parts.IsDataset(arg) {
			input = arg
		} else {
			o.urls = arg
		}
	}

	log, err := cli.NewLogger(stderr, o.logLevel)
	if err != nil {
		return err
	}
	cfg.Logger = log
	if err := m.Parse(); err != nil {
		return err
	}
	if cfg.Deep, err = o.llm.Renderer(cfg.Modes, os.Getenv, log); err != nil {
		return err
	}
	var thresholds []bench.Threshold
	if o.baseline != "" {
		if thresholds, err = bench.ParseThresholds(o.maxRegress); err != nil {
			return cli.Usagef("--max-regress: %v", err)
		}
	}
	cfg.Prices = bench.DefaultPrices()
	if o.prices != "" {
		if cfg.Prices, err = bench.LoadPrices(o.prices); err != nil {
			return cli.Usagef("--prices: %v", err)
		}
	}
	if cfg.RunID == "" {
		cfg.RunID = cli.RunID("bench", time.Now())
	}
	if err := cfg.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	var base *bench.Summary
	if o.baseline != "" {
		if base, err = bench.ReadSummary(o.baseline); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	if o.out == "" {
		o.out = cli.OutDir(cfg.RunID)
	}

	out, err := store.Open(ctx, o.out, store.Config{})
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	defer out.Close()

	label := "crawl dataset"
	if input == "" {
		if input, label, err = crawlFirst(ctx, cfg, o, c.open, stdin, stderr, log); err != nil {
			return err
		}
	}
	data, err := parts.Open(ctx, input)
	if err != nil {
		return err
	}
	defer data.Close()

	cells := len(cfg.Cells())
	fmt.Fprintf(stderr, "bench: sweeping %s: %d cells (%s), %d workers -> %s\n", data.Loc, cells, m, cfg.Workers, out)
	var progress *cli.Progress
	pass := ""
	cfg.OnPage = func(d bench.PageDone) {
		if d.Pass != pass {
			pass = d.Pass
			if progress != nil {
				progress.Finish()
			}
			progress = cli.NewProgress(stderr, cli.IsTerminal(stderr), "bench "+d.Pass+" pass", "pages", d.Total)
		}
		progress.Add(1, d.Errors)
	}
	res, err := bench.Sweep(ctx, cfg, data, out)
	if progress != nil {
		progress.Finish()
	}
	if err != nil {
		return err
	}
	res.Summary.Input.Label, res.Summary.Input.Path = label, data.Loc

	var gate *bench.Gate
	if base != nil {
		g := bench.Compare(base, &res.Summary, thresholds, o.baseline)
		gate = &g
	}
	if err := bench.WriteResults(ctx, out, res, gate); err != nil {
		return err
	}
	res.WriteHeadline(stdout)
	fmt.Fprintf(stdout, "\nresults: %s (%s, %s, %s, %s)\n", out, bench.CellsFile, bench.SummaryFile, bench.SummaryJSONFile, bench.ReportFile)
	if gate != nil {
		fmt.Fprintln(stdout)
		gate.WriteText(stdout)
		if gate.Failed() {
			return bench.ErrRegressed
		}
	}
	return nil
}
