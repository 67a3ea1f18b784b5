// Command bench sweeps formats (the action space and what agents read
// today: Playwright's AI snapshot, the accessibility tree, the HTML),
// render modes, viewport_expansion settings, text policies and token
// budgets over the captured pages of a crawl dataset and reports how token
// cost, recall, compression and time change; with --baseline it is a
// regression gate.
//
// It re-renders the stored captures of the dataset (a directory or a
// bucket URL) with no browser; the crawl command makes the dataset (make
// bench runs the two, on the bundled corpus). OUT (--out) is a directory
// or a bucket URL too.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"actionspace/bench"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/dataset/store/bucket"
	"actionspace/internal/cli"
	"actionspace/internal/llmflags"
	"actionspace/space"
)

func main() { cli.Main("bench", command{}.run, "") }

// command is the bench command.
type command struct{}

// options are bench's flags, by group (see options.go).
type options struct {
	out    outputOptions
	sweep  sweepOptions
	gate   gateOptions
	llm    llmflags.Options
	log    cli.LogOptions
	matrix *cli.Matrix
}

// addFlags binds every group's flags on fs; the matrix and the sweep's
// settings bind onto cfg.
func (o *options) addFlags(fs *flag.FlagSet, cfg *bench.Config, stderr io.Writer) {
	o.out.AddFlags(fs)
	cfg.Modes = []string{space.ModeFast, space.ModeDeep} // deep is a dry run without --llm-base-url
	o.matrix = cli.BindMatrix(fs, &cfg.Matrix, "formats swept",
		"a page whose crawl stored no record for a format gets no row in its cells", stderr)
	o.sweep.AddFlags(fs, cfg)
	o.gate.AddFlags(fs)
	o.llm.AddFlags(fs)
	o.log.AddFlags(fs)
}

const usage = `Usage: bench [flags] DATASET

Renders every page of a crawl dataset under every cell of the matrix
(actionspace: mode x viewport expansion x text policy, and token budget x
text policy; playwright-ai and axtree: viewport expansion, and token
budget for their whole-page text cut from the end; html: the whole page),
counts tokens in every encoding, measures recall against the page's
accessibility tree and writes
OUT/cells.parquet (one row per page x cell), OUT/summary.parquet and
OUT/summary.json (one row per cell), OUT/report.md and its SVG charts.

DATASET is a crawl output (its pages and blobs tables), a directory or a
bucket URL (s3://BUCKET/PREFIX?endpoint=…&use_path_style=true, gs://…,
file://…; credentials from the environment only): its stored captures are
re-rendered without a browser, read by ranged requests. Make one with the
crawl command (crawl --out DIR [URL-FILE]); make bench crawls the bundled
corpus and sweeps it. OUT is a directory or a bucket URL as well.

With --baseline, the run is compared with a baseline summary.json cell by
cell and bench exits 1 when a cell regressed beyond --max-regress.

Exit codes: 0 done (gate passed), 1 gate failed or the run failed,
2 bad flags.

Flags:
`

func (c command) run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	bucket.Register() // s3:// and gs:// locations for --out and the input
	cfg := bench.DefaultConfig()
	var o options
	fs := cli.NewFlagSet("bench", usage, stderr)
	o.addFlags(fs, &cfg, stderr)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	input, err := datasetArg(fs.Args())
	if err != nil {
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
	if cfg.Deep, err = o.llm.Renderer(cfg.Modes, os.Getenv, log); err != nil {
		return err
	}
	if cfg.Prices, err = o.sweep.Prices(); err != nil {
		return err
	}
	thresholds, err := o.gate.Thresholds()
	if err != nil {
		return err
	}
	out := o.out.apply(&cfg, time.Now())
	if err := cfg.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	base, err := o.gate.Baseline()
	if err != nil {
		return err
	}

	dst, err := store.Open(ctx, out, store.Config{})
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	defer dst.Close()

	data, err := parts.Open(ctx, input)
	if err != nil {
		return err
	}
	defer data.Close()

	cells := len(cfg.Cells())
	fmt.Fprintf(stderr, "bench: sweeping %s: %d cells (%s), %d workers -> %s\n", data.Loc, cells, o.matrix, cfg.Workers, dst)
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
	res, err := bench.Sweep(ctx, cfg, data, dst)
	if progress != nil {
		progress.Finish()
	}
	if err != nil {
		return err
	}
	res.Summary.Input.Path = data.Loc

	var gate *bench.Gate
	if base != nil {
		g := bench.Compare(base, &res.Summary, thresholds, o.gate.baseline)
		gate = &g
	}
	if err := bench.WriteResults(ctx, dst, res, gate); err != nil {
		return err
	}
	res.WriteHeadline(stdout)
	fmt.Fprintf(stdout, "\nresults: %s (%s, %s, %s, %s)\n", dst, bench.CellsFile, bench.SummaryFile, bench.SummaryJSONFile, bench.ReportFile)
	if gate != nil {
		fmt.Fprintln(stdout)
		gate.WriteText(stdout)
		if gate.Failed() {
			return bench.ErrRegressed
		}
	}
	return nil
}
