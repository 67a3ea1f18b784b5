package main

import (
	"flag"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"actionspace/browser"
	"actionspace/dataset/parts"
	"actionspace/internal/cli"
	"actionspace/pipeline"
)

// The crawl's flags come in groups, one options struct each: AddFlags
// binds a group's flags (defaults from the packages' DefaultConfig), and
// a method turns the parsed values into the package config they set.
// run only wires the groups together.

// inputOptions say which URLs the crawl takes: the list, the schemes it
// crawls and the shard of it this process owns.
type inputOptions struct {
	urls    string
	schemes string
	shard   string
}

func (o *inputOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.urls, "urls", "", "URL list `FILE` (\"-\" = stdin); same as the URL-FILE argument")
	fs.StringVar(&o.schemes, "allow-scheme", strings.Join(pipeline.DefaultSchemes(), ","), "URL schemes to crawl (`LIST`); others become invalid_url rows")
	fs.StringVar(&o.shard, "shard", "", "crawl only shard `I/N` of the URL list into OUT/pages/shard=000I/ (and the other tables'); auto/N takes I from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID; needs --run-id")
}

// setArgs takes the positional arguments: at most one URL-FILE, the same
// as --urls.
func (o *inputOptions) setArgs(args []string) error {
	switch {
	case len(args) > 1:
		return cli.Usagef("too many arguments: %q (want at most one URL-FILE)", args)
	case len(args) == 1 && o.urls != "":
		return cli.Usagef("both --urls and a URL-FILE argument given")
	case len(args) == 1:
		o.urls = args[0]
	}
	return nil
}

// Shard parses --shard; the one environment read besides the LLM key is
// the scheduler's task index, for auto/N.
func (o *inputOptions) Shard() (pipeline.Shard, error) {
	shard, err := pipeline.ParseShard(o.shard, os.LookupEnv)
	if err != nil {
		return shard, cli.Usagef("--shard: %v", err)
	}
	return shard, nil
}

// Targets reads the URL list (or serves the bundled corpus); label says
// which it was, and cleanup stops the corpus server.
func (o *inputOptions) Targets(stdin io.Reader, log *slog.Logger) (targets []pipeline.Target, label string, cleanup func(), err error) {
	return cli.LoadTargets(o.urls, cli.SplitList(o.schemes), stdin, log)
}

// outputOptions say where the dataset goes and how it is written: the
// location, the run ID, resuming, part rotation and the partition lock.
type outputOptions struct {
	out        string
	runID      string
	resume     bool
	keepFailed bool
	parts      parts.Config
}

func (o *outputOptions) AddFlags(fs *flag.FlagSet) {
	o.parts = parts.DefaultConfig()
	out := &o.parts
	fs.StringVar(&o.out, "out", "", "output `DIR` or bucket URL (s3://BUCKET/PREFIX?endpoint=…&use_path_style=true, gs://…, file://…; default "+cli.OutDir("<run-id>")+")")
	fs.StringVar(&o.runID, "run-id", "", "run `ID` recorded in every row (default crawl-<UTC time>)")
	fs.BoolVar(&o.resume, "resume", false, "continue the dataset in --out: skip the URLs its complete parts hold, crawl the rest, and crawl again those whose rows failed transiently (their old rows are replaced)")
	fs.BoolVar(&o.keepFailed, "resume-keep-failed", false, "with --resume, keep every failed row as done (crawl no failed page again)")
	fs.DurationVar(&out.LockTTL, "lock-ttl", out.LockTTL, "the output partition's lock lasts this long without renewal (`DURATION`); a killed crawl blocks the partition this long")
	fs.DurationVar(&out.LockWait, "lock-wait", out.LockWait, "wait this long (`DURATION`) for a partition lock another crawl holds to be released or go stale; 0 refuses at once")
	fs.IntVar(&out.PartPages, "part-pages", out.PartPages, "close a part file after `N` pages (0 = no limit); a kill loses at most the open part")
	fs.DurationVar(&out.PartInterval, "part-interval", out.PartInterval, "close a part file after it has been open this long (`DURATION`, 0 = no limit)")
}

// apply sets cfg's run ID, resume and output settings for shard, and
// returns the output location (the default one under the run ID when
// --out is not given).
func (o *outputOptions) apply(cfg *pipeline.Config, shard pipeline.Shard, now time.Time) (string, error) {
	switch {
	case o.resume && o.out == "":
		return "", cli.Usagef("--resume needs --out")
	case o.keepFailed && !o.resume:
		return "", cli.Usagef("--resume-keep-failed needs --resume")
	case shard.Count > 0 && o.runID == "":
		return "", cli.Usagef("--shard needs --run-id: every shard of a crawl must write the same run_id")
	}
	cfg.Resume, cfg.ResumeKeepFailed = o.resume, o.keepFailed
	cfg.Output = o.parts
	cfg.Output.Partition, cfg.Shards = shard.Partition(), shard.Count
	switch cfg.RunID = o.runID; {
	case cfg.RunID != "":
	case cfg.Resume: // a resume keeps the dataset's run ID, if there is a dataset
		cfg.NewRunID = cli.RunID("crawl", now)
	default:
		cfg.RunID = cli.RunID("crawl", now)
	}
	if o.out == "" {
		return cli.OutDir(cfg.RunID), nil
	}
	return o.out, nil
}

// poolOptions size the worker pool and bound each URL's attempts and the
// run's shutdown.
type poolOptions struct {
	cfg   pipeline.Config // the pool's fields only
	floor bool
}

func (o *poolOptions) AddFlags(fs *flag.FlagSet) {
	o.cfg = pipeline.DefaultConfig()
	c := &o.cfg
	fs.IntVar(&c.Workers, "workers", c.Workers, "pages processed at once (`N`: decoding, rendering, counting; CPU work, one per core)")
	fs.IntVar(&c.InFlight, "in-flight", c.InFlight, "pages loaded at once (`N`), each in a browser page of its own; a page loads its next URL while the last one is processed (0 = one per worker)")
	fs.DurationVar(&c.Timeout, "timeout", c.Timeout, "time limit per URL attempt (`DURATION`)")
	fs.IntVar(&c.Retries, "retries", c.Retries, "extra attempts after a transient failure (timeout, network, crash)")
	fs.DurationVar(&c.Grace, "grace", c.Grace, "on SIGINT/SIGTERM, let the pages in flight finish for this long (`DURATION`)")
	fs.IntVar(&c.RecyclePages, "recycle-pages", c.RecyclePages, "give a worker a fresh page and browser context after `N` URLs (0 = never)")
	fs.BoolVar(&o.floor, "floor", false, "first load the list the bare way (navigation and Playwright's content() only, with the same pool, browser and network policy), and give the crawl's time as a ratio to that floor's in the summary line")
}

// apply sets the pool's fields of cfg.
func (o *poolOptions) apply(cfg *pipeline.Config) {
	cfg.Workers, cfg.InFlight, cfg.Timeout, cfg.Retries = o.cfg.Workers, o.cfg.InFlight, o.cfg.Timeout, o.cfg.Retries
	cfg.Grace, cfg.RecyclePages = o.cfg.Grace, o.cfg.RecyclePages
}

// pageOptions say how every page loads a URL: the viewport, settling,
// the extras' bounds, screenshots, and the caps on everything a page
// decides the size of. Every cap, when hit, is named in the page's row
// (capture_capped, html_truncated; see docs/crawl.md).
type pageOptions struct {
	page     pipeline.PageConfig
	steps    string
	viewport string
	shots    string
	shotQ    int
	network  networkOptions
}

func (o *pageOptions) AddFlags(fs *flag.FlagSet) {
	o.page = pipeline.DefaultPageConfig()
	p, s, x := &o.page, &o.page.Script, &o.page.Extras
	o.shotQ = p.Screenshot.Quality
	fs.StringVar(&o.viewport, "viewport", cli.FormatViewport(p.ViewportWidth, p.ViewportHeight), "browser viewport `WxH` in CSS pixels")
	fs.DurationVar(&p.SettleQuiet, "settle-quiet", p.SettleQuiet, "under --settle quiet, capture once the DOM has gone this long without a change; under evidence, wait for the page's timers due within it (`DURATION`)")
	fs.DurationVar(&p.SettleMax, "settle-max", p.SettleMax, "capture after this long even if the DOM keeps changing (`DURATION`)")
	fs.StringVar(&p.Settle, "settle", p.Settle, "when to capture (`RULE`): evidence (fonts loaded, no request of the page's origin pending, no timer due within --settle-quiet pending, layout and DOM still for 100 ms) or quiet (--settle-quiet without a DOM change); --settle-max bounds both")
	fs.IntVar(&x.MaxAXNodes, "max-ax-nodes", x.MaxAXNodes, "skip the accessibility tree and the AI snapshot of a page with more than `N` DOM nodes (the pages row says axtree_skipped and aisnapshot_skipped=too_large)")
	fs.IntVar(&x.MaxAXText, "max-ax-text", x.MaxAXText, "skip the accessibility tree and the AI snapshot of a page whose text holds more than `N` characters, counted before either is taken (the pages row says axtree_skipped and aisnapshot_skipped=too_large)")
	fs.IntVar(&x.MaxAISnapshotBytes, "max-aisnapshot-bytes", x.MaxAISnapshotBytes, "drop an AI snapshot longer than `N` bytes (the pages row says aisnapshot_skipped=too_large)")
	fs.StringVar(&x.ActionableProbe, "actionable-probe", x.ActionableProbe, "after every other record, test whether a pointer reaches each oracle element: viewport (those on screen), all (each scrolled into view: moves the page) or none")
	fs.IntVar(&x.MaxActionableProbe, "max-actionable-probe", x.MaxActionableProbe, "test at most `N` oracle elements per page (the pages row says actionable_probe_capped)")
	fs.DurationVar(&x.ActionableProbeTime, "actionable-probe-time", x.ActionableProbeTime, "give the actionable probe at most this long per page (`DURATION`; then actionable_probe_skipped=deadline)")
	fs.StringVar(&o.shots, "screenshots", p.Screenshot.Mode, "viewport screenshot per page in the pages table: none, plain, labeled (IDs of the first expansion drawn on it)")
	fs.IntVar(&o.shotQ, "screenshot-quality", o.shotQ, "screenshot JPEG quality `N`, 1-100; 0 stores lossless PNG instead")
	fs.IntVar(&s.MaxNodes, "max-nodes", s.MaxNodes, "capture at most `N` DOM nodes per page, frames included (the capture is then marked truncated)")
	fs.IntVar(&s.MaxChars, "max-capture-chars", s.MaxChars, "capture at most `N` characters of text, names and values per page, frames included (then truncated)")
	fs.IntVar(&s.TitleCap, "max-title", s.TitleCap, "cut the page title at `N` characters")
	fs.IntVar(&s.URLCap, "max-url", s.URLCap, "cut the page URL recorded in the capture at `N` characters")
	fs.IntVar(&s.MaxAttrs, "max-attributes", s.MaxAttrs, "record at most `N` attributes per element (and those the renderer reads)")
	fs.IntVar(&s.AttrCap, "max-attr-value", s.AttrCap, "cut attribute values, control values and option labels at `N` characters")
	fs.IntVar(&s.NameCap, "max-name-length", s.NameCap, "drop attributes whose name is longer than `N` characters, and cut tag names there")
	fs.IntVar(&s.TextCap, "max-text", s.TextCap, "cut each text node at `N` characters")
	fs.IntVar(&s.OptionCap, "max-options", s.OptionCap, "list at most `N` options (and selections) per select")
	fs.IntVar(&s.MaxSecrets, "max-secrets", s.MaxSecrets, "keep at most `N` values of password and hidden inputs per page to scrub from its stored text (past it: capture_capped has secrets)")
	fs.IntVar(&p.MaxFrames, "max-frames", p.MaxFrames, "capture at most `N` cross-origin frames per page")
	fs.IntVar(&p.MaxHTMLBytes, "max-html-bytes", p.MaxHTMLBytes, "store and count at most `N` bytes of each page's HTML (password values taken out first)")
	fs.StringVar(&o.steps, "steps", "", "after the first capture, perform the steps in `LIST` (scroll, expand, type, wait, back; comma-separated) and capture the state each leaves (docs/steps.md)")
	fs.DurationVar(&p.StepTimeout, "step-timeout", p.StepTimeout, "limit each step to `DURATION` inside the URL's --timeout; 0 gives each an equal share of what the first capture left")
	o.network.AddFlags(fs)
}

// Config returns the page config the flags give, the extras left as the
// defaults set them (pipeline.Config.UseFormats sets them from the
// formats).
func (o *pageOptions) Config() (pipeline.PageConfig, error) {
	p := o.page
	var err error
	if p.ViewportWidth, p.ViewportHeight, err = cli.ParseViewport(o.viewport); err != nil {
		return p, cli.Usagef("--viewport: %v", err)
	}
	if p.Screenshot.Mode, err = pipeline.ParseScreenshotMode(o.shots); err != nil {
		return p, cli.Usagef("--screenshots: %v", err)
	}
	switch {
	case o.shotQ < 0 || o.shotQ > 100:
		return p, cli.Usagef("--screenshot-quality: %d, want 1-100, or 0 for PNG", o.shotQ)
	case o.shotQ == 0:
		p.Screenshot.Format = pipeline.ScreenshotPNG
	default:
		p.Screenshot.Quality = o.shotQ
	}
	if p.Steps, err = pipeline.ParseSteps(o.steps); err != nil {
		return p, cli.Usagef("--steps: %v", err)
	}
	if p.StepTimeout < 0 {
		return p, cli.Usagef("--step-timeout: %v, want >= 0", p.StepTimeout)
	}
	p.Network = o.network.nc
	return p, nil
}

// networkOptions are the network policy (see docs/network.md): which
// addresses pages may reach, and where the egress proxy listens. The
// range lists add up over repeated flags.
type networkOptions struct {
	nc pipeline.NetworkConfig
}

func (o *networkOptions) AddFlags(fs *flag.FlagSet) {
	nc := &o.nc
	fs.BoolVar(&nc.AllowPrivate, "allow-private", false, "let pages reach link-local and metadata addresses, and public pages private ones (refused by default)")
	fs.Func("net-blocked", "refuse the address ranges in `LIST` (CIDRs or addresses, comma-separated) to every page, as metadata addresses are", func(s string) error {
		p, err := pipeline.ParsePrefixes(s)
		nc.Blocked = append(nc.Blocked, p...)
		return err
	})
	fs.Func("net-public", "treat the address ranges in `LIST` (CIDRs or addresses) as public, though private or link-local otherwise; --net-blocked wins", func(s string) error {
		p, err := pipeline.ParsePrefixes(s)
		nc.Public = append(nc.Public, p...)
		return err
	})
	fs.StringVar(&nc.ProxyListen, "egress-listen", "", "the egress proxy every page goes through listens on `HOST`, a free port per browser context (default 127.0.0.1); remote browser servers must reach it")
	fs.StringVar(&nc.ProxyAdvertise, "egress-advertise", "", "browsers reach the egress proxy at `HOST` (default: the --egress-listen host); needed when it listens on every interface (0.0.0.0)")
}

// browserOptions say which browser serves the pages: a local Chromium, or
// Playwright browser servers.
type browserOptions struct {
	cfg browser.Config
}

func (o *browserOptions) AddFlags(fs *flag.FlagSet) {
	o.cfg = browser.DefaultConfig()
	fs.StringVar(&o.cfg.ChromiumPath, "chromium", o.cfg.ChromiumPath, "Chromium executable `PATH`")
	fs.IntVar(&o.cfg.MaxJSHeapMB, "max-js-heap", browser.DefaultMaxJSHeapMB, "bound each renderer's JavaScript heap to `MIB` (a page needing more crashes its renderer: error_kind browser); -1 leaves V8's own limit; not applied to --browser-endpoint servers")
	fs.Func("browser-endpoint", "use the Playwright browser server at `URL` (ws://HOST:PORT/PATH, from playwright run-server) instead of launching --chromium; repeat for several, workers are spread over them", func(s string) error {
		o.cfg.Endpoints = append(o.cfg.Endpoints, s)
		return nil
	})
}

// Config returns the browser config, validated, logging to log.
func (o *browserOptions) Config(log *slog.Logger) (browser.Config, error) {
	c := o.cfg
	c.Logger = log
	if err := c.Validate(); err != nil {
		return c, cli.UsageError{Err: err}
	}
	return c, nil
}
