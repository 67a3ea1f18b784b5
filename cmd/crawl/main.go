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
	"actionspace/space"
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

// options are the crawl's flags, by group (see options.go).
type options struct {
	input   inputOptions
	output  outputOptions
	pool    poolOptions
	page    pageOptions
	browser browserOptions
	llm     llmflags.Options
	log     cli.LogOptions
	matrix  *cli.Matrix
}

// addFlags binds every group's flags on fs; matrix binds onto m.
func (o *options) addFlags(fs *flag.FlagSet, m *space.Matrix, stderr io.Writer) {
	o.input.AddFlags(fs)
	o.output.AddFlags(fs)
	o.pool.AddFlags(fs)
	o.matrix = cli.BindMatrix(fs, m, "formats rendered per page",
		"axtree takes the accessibility tree, which is also the oracle of every recall column, playwright-ai the AI snapshot", stderr)
	o.page.AddFlags(fs)
	o.browser.AddFlags(fs)
	o.llm.AddFlags(fs)
	o.log.AddFlags(fs)
}

// resumeHint is how the error of an interrupted crawl ends.
const resumeHint = "finish it with: crawl --resume --out %s [the same URL list and flags]"

const usage = `Usage: crawl [flags] [URL-FILE]

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
`

func (c command) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	bucket.Register() // s3:// and gs:// locations for --out and the input
	cfg := pipeline.DefaultConfig()
	var o options
	fs := cli.NewFlagSet("crawl", usage, stderr)
	o.addFlags(fs, &cfg.Matrix, stderr)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if err := o.input.setArgs(fs.Args()); err != nil {
		return err
	}
	log, err := o.log.Logger(stderr)
	if err != nil {
		return err
	}
	cfg.Logger = log
	if err := o.matrix.Parse(); err != nil {
		return err
	}
	if len(cfg.Texts) != 1 {
		return cli.Usagef("--text: crawl takes one policy, not %d (bench sweeps several)", len(cfg.Texts))
	}
	if cfg.Page, err = o.page.Config(); err != nil {
		return err
	}
	cfg.UseFormats(cfg.Formats)
	if cfg.Deep, err = o.llm.Renderer(cfg.Modes, os.Getenv, log); err != nil {
		return err
	}
	o.pool.apply(&cfg)
	shard, err := o.input.Shard()
	if err != nil {
		return err
	}
	out, err := o.output.apply(&cfg, shard, time.Now())
	if err != nil {
		return err
	}
	if o.pool.floor && cfg.Resume {
		return cli.Usagef("--floor loads the whole list, a resume crawls what is left: not both")
	}
	bcfg, err := o.browser.Config(log)
	if err != nil {
		return err
	}
	cfg.BrowserEndpoints, cfg.LLMBaseURL = bcfg.Endpoints, o.llm.BaseURL
	if err := cfg.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	open := c.open
	if open == nil {
		if len(bcfg.Endpoints) == 0 {
			if err := browser.CheckChromium(bcfg.ChromiumPath); err != nil {
				return err
			}
		}
		open = browser.Opener(bcfg)
	}

	targets, label, cleanup, err := o.input.Targets(stdin, log)
	if err != nil {
		return err
	}
	defer cleanup()
	cfg.Input = label
	if shard.Count > 0 {
		all := len(targets)
		targets = shard.Filter(targets)
		fmt.Fprintf(stderr, "crawl: shard %s: %d of %d URLs -> %s\n", shard, len(targets), all, joinLoc(out, dataset.PagesDir, shard.Partition()))
	}

	var floor *pipeline.Stats
	if o.pool.floor {
		f, err := crawlFloor(ctx, cfg, targets, open, stderr)
		if err != nil {
			return err
		}
		floor = &f
	}
	fmt.Fprintf(stderr, "crawl: %d URLs, %d pages in flight, %d workers, expansions %v -> %s\n", len(targets), cfg.PagesInFlight(), cfg.Workers, cfg.Expansions, store.Redact(out))
	stats, err := cli.Crawl(ctx, cfg, targets, out, open, stderr)
	if err != nil && stats.OK+stats.Failed == 0 && !errors.Is(err, context.Canceled) {
		return err // nothing was crawled: no summary
	}
	printSummary(stdout, stats, floor, out)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted after %d of %d URLs; "+resumeHint, stats.OK+stats.Failed+stats.Skipped, stats.Targets, store.Redact(out))
		}
		return fmt.Errorf("crawl stopped after %d of %d URLs: %w; "+resumeHint, stats.OK+stats.Failed+stats.Skipped, stats.Targets, err, store.Redact(out))
	}
	return nil
}

// crawlFloor runs the floor of the crawl (--floor): the bare loop over
// targets with cfg's pool, browser and network policy, no record taken.
func crawlFloor(ctx context.Context, cfg pipeline.Config, targets []pipeline.Target, open pipeline.Opener, stderr io.Writer) (pipeline.Stats, error) {
	fmt.Fprintf(stderr, "crawl: the floor first: %d URLs, navigation and content() only, %d pages in flight\n", len(targets), cfg.PagesInFlight())
	cfg.UseFormats([]string{space.FormatActionSpace}) // takes no record
	stats, err := pipeline.Floor(ctx, cfg, targets, open)
	if errors.Is(err, context.Canceled) {
		return stats, errors.New("interrupted while loading the floor, before the crawl: nothing was written")
	}
	if err != nil {
		return stats, fmt.Errorf("the floor: %w", err)
	}
	fmt.Fprintf(stderr, "crawl: the floor: %d ok, %d failed in %s\n", stats.OK, stats.Failed, stats.Elapsed.Round(time.Millisecond))
	return stats, nil
}

// printSummary writes the one summary line and where the dataset is.
// floor, when measured (--floor), gives the crawl's time as a ratio to
// the floor's.
func printSummary(w io.Writer, stats pipeline.Stats, floor *pipeline.Stats, out string) {
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
	fmt.Fprintf(w, " in %s (%.1f pages/min", stats.Elapsed.Round(time.Millisecond), rate)
	if floor != nil && floor.Elapsed > 0 {
		fmt.Fprintf(w, ", %.2f × the floor's %s", stats.Elapsed.Seconds()/floor.Elapsed.Seconds(), floor.Elapsed.Round(time.Millisecond))
	}
	fmt.Fprintf(w, "), %s written", mib(stats.BytesWritten))
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
