package main

import (
	"flag"
	"fmt"
	"time"

	"actionspace/bench"
	"actionspace/dataset/parts"
	"actionspace/internal/cli"
)

// The bench's flags come in groups, one options struct each, as the
// crawl's do: AddFlags binds a group's flags (defaults from the bench
// package), and a method turns the parsed values into what they set.

// datasetArg takes the positional arguments: exactly one crawl dataset.
func datasetArg(args []string) (string, error) {
	switch {
	case len(args) == 0:
		return "", cli.Usagef("no DATASET: bench sweeps a crawl dataset; make one with crawl --out DIR [URL-FILE] (make bench does both on the bundled corpus)")
	case len(args) > 1:
		return "", cli.Usagef("too many arguments: %q (want one DATASET)", args)
	case !parts.IsDataset(args[0]):
		return "", cli.Usagef("%s is not a crawl dataset (a directory or an s3://, gs:// or file:// location); a URL list is crawled first: crawl --out DIR %[1]s", args[0])
	}
	return args[0], nil
}

// outputOptions say where the results go and the run's ID.
type outputOptions struct {
	out   string
	runID string
}

func (o *outputOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "out", "", "output `DIR` or bucket URL (default "+cli.OutDir("<run-id>")+")")
	fs.StringVar(&o.runID, "run-id", "", "run `ID` (default bench-<UTC time>)")
}

// apply sets cfg's run ID and returns the output location (the default
// one under the run ID when --out is not given).
func (o *outputOptions) apply(cfg *bench.Config, now time.Time) string {
	cfg.RunID = o.runID
	if cfg.RunID == "" {
		cfg.RunID = cli.RunID("bench", now)
	}
	if o.out == "" {
		return cli.OutDir(cfg.RunID)
	}
	return o.out
}

// sweepOptions say how the sweep runs: workers, repeats and the price
// table of its cost columns.
type sweepOptions struct {
	prices string
}

// AddFlags binds the sweep's flags onto cfg, whose values are the
// defaults.
func (o *sweepOptions) AddFlags(fs *flag.FlagSet, cfg *bench.Config) {
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "pages rendered at once (`N`)")
	fs.IntVar(&cfg.Repeat, "repeat", cfg.Repeat, "renders per fast cell and page; the fastest is reported (`N`)")
	fs.StringVar(&o.prices, "prices", "", "price table `FILE` (JSON, $ per 1M input/output tokens per model; default: the embedded bench/prices.json)")
}

// Prices returns the price table: --prices, or the embedded one.
func (o *sweepOptions) Prices() (bench.Prices, error) {
	if o.prices == "" {
		return bench.DefaultPrices(), nil
	}
	p, err := bench.LoadPrices(o.prices)
	if err != nil {
		return p, cli.Usagef("--prices: %v", err)
	}
	return p, nil
}

// gateOptions make the run a regression gate against a baseline.
type gateOptions struct {
	baseline   string
	maxRegress string
}

func (o *gateOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.baseline, "baseline", "", "baseline summary.json `FILE` to compare with; exit 1 on a regression")
	fs.StringVar(&o.maxRegress, "max-regress", bench.DefaultMaxRegress, "largest accepted worsening per metric (`LIST` of METRIC=PCT%[+ABS]; metrics: tokens, perception_tokens, ratio, render_ms, prompt_tokens, recall; recall in percentage points)")
}

// Thresholds parses --max-regress; none without --baseline.
func (o *gateOptions) Thresholds() ([]bench.Threshold, error) {
	if o.baseline == "" {
		return nil, nil
	}
	t, err := bench.ParseThresholds(o.maxRegress)
	if err != nil {
		return nil, cli.Usagef("--max-regress: %v", err)
	}
	return t, nil
}

// Baseline reads the baseline summary; nil without --baseline.
func (o *gateOptions) Baseline() (*bench.Summary, error) {
	if o.baseline == "" {
		return nil, nil
	}
	s, err := bench.ReadSummary(o.baseline)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return s, nil
}
