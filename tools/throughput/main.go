// Command throughput measures the crawl's throughput against the floor:
// the bare navigation loop (pipeline.PageConfig.Floor: navigate to the
// load event, read the HTML with Playwright's content(), nothing else)
// run on the same URL list, with the same pool, the same browser launch
// and the same network policy. It runs every way asked for (-ways) in one
// process, round after round, alternating their order, and gives each
// crawl's wall time as a ratio to the floor's of the same round: the
// ratios hold on a loaded machine where absolute times do not.
//
//	go run ./tools/throughput                      # the bundled corpus
//	go run ./tools/throughput urls.txt             # a URL list
//	go run ./tools/realworld -n 150 -- go run ./tools/throughput -out results/throughput-realworld.md
//
// A way is a base — floor, actionspace (--formats actionspace, expansions
// 0, 500 and -1) or default (every format) — with optional suffixes:
// "-open" lifts the network policy (crawl --allow-private: no egress
// proxy), "-quiet" settles by the quiet-DOM rule (crawl --settle quiet),
// "-evidence" on evidence (crawl --settle evidence, the default), "-full"
// launches Debian's full browser (-full-chromium) instead of -chromium, "-seq"
// takes the extras one after the other (as the crawl did before it took
// them at once), "-raw" takes them as the floor does and drops them
// (pipeline.ExtrasConfig.Raw: what the records cost the browser alone)
// and "@N" loads N pages at once instead of -in-flight.
// "+FORMAT" (after the suffixes, before @N, repeatable) makes an
// actionspace way render that format too, and a floor way take its record
// raw (axtree, playwright-ai): the least a crawl storing it can cost.
//
// -doc NAME also puts the table between the NAME markers of
// docs/throughput.md, and of README.md where it has them; a test checks
// each block against its file. The table goes to
// stdout and to -out.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"actionspace/browser"
	"actionspace/internal/cli"
	"actionspace/internal/docblock"
	"actionspace/internal/hostinfo"
	"actionspace/metrics"
	"actionspace/pipeline"
	"actionspace/space"
)

// The bases of a way.
const (
	baseFloor       = "floor"
	baseActionSpace = "actionspace"
	baseDefault     = "default"
)

// docFile is the page whose blocks -doc fills; readmeFile repeats some
// of them (those it has markers for).
const (
	docFile    = "docs/throughput.md"
	readmeFile = "README.md"
)

// defaultWays are measured unless -ways says otherwise.
const defaultWays = "floor,actionspace,default"

func main() { cli.Main("throughput", run, "stopping") }

// options are the tool's flags.
type options struct {
	rounds   int
	workers  int
	inFlight int
	ways     []way
	out      string
	doc      string
	urls     string
	chromium string
	// fullChromium is the browser of the -full ways.
	fullChromium string
	timeout      time.Duration
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	o := options{}
	fs := flag.NewFlagSet("throughput", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: throughput [flags] [URL-FILE]\n\nMeasures crawls as ratios to the floor (the bare navigation loop) in one run; without a URL list, on the bundled corpus.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	ways := fs.String("ways", defaultWays, "the ways measured (`LIST`): floor, actionspace, default, each with optional -open (no egress proxy), -quiet or -evidence (the settle rule; evidence by default), -full (Debian's full browser, -full-chromium), -seq (extras one after the other), -raw (the records taken raw and dropped: the least they cost) and @N (N pages in flight); actionspace+FORMAT[+FORMAT…] also renders the formats named (after the suffixes, before @N), floor+axtree and floor+playwright-ai also take those records raw")
	fs.IntVar(&o.rounds, "rounds", 2, "measure every way this many times (`N`), alternating their order")
	fs.IntVar(&o.workers, "workers", pipeline.DefaultWorkers(), "pages processed at once (`N`), as crawl --workers")
	fs.IntVar(&o.inFlight, "in-flight", 0, "pages loaded at once (`N`), as crawl --in-flight (0: one per worker); the floor loads as many")
	fs.StringVar(&o.out, "out", "results/throughput.md", "write the table to `FILE` too")
	fs.StringVar(&o.doc, "doc", "", "and between the `NAME` markers of "+docFile+" (and of "+readmeFile+" where it has them)")
	fs.StringVar(&o.chromium, "chromium", browser.DefaultChromiumPath, "Chromium executable `PATH`")
	fs.StringVar(&o.fullChromium, "full-chromium", browser.FullChromiumPath, "the Chromium executable (`PATH`) of the -full ways")
	fs.DurationVar(&o.timeout, "timeout", pipeline.DefaultTimeout, "time limit per URL attempt (`DURATION`)")
	if err := cli.Parse(fs, args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 1:
		return o, cli.Usagef("too many arguments: %q (want at most one URL-FILE)", fs.Args())
	case fs.NArg() == 1:
		o.urls = fs.Arg(0)
	}
	if o.rounds < 1 || o.workers < 1 || o.inFlight < 0 {
		return o, cli.Usagef("-rounds and -workers: want at least 1; -in-flight: at least 0")
	}
	for _, s := range cli.SplitList(*ways) {
		w, err := parseWay(s)
		if err != nil {
			return o, cli.Usagef("-ways: %v", err)
		}
		o.ways = append(o.ways, w)
	}
	if !slices.ContainsFunc(o.ways, func(w way) bool { return w.base == baseFloor && !w.open && !w.full && w.inFlight == 0 }) {
		return o, cli.Usagef("-ways: the ratios need %q among them", baseFloor)
	}
	return o, nil
}

// way is one crawl measured.
type way struct {
	name     string
	base     string
	open     bool   // the network policy lifted: no egress proxy
	full     bool   // Debian's full browser, not -chromium
	settle   string // the settle rule; "": the crawl's default
	seq      bool   // the extras one after the other
	raw      bool   // the records taken raw and dropped (ExtrasConfig.Raw)
	inFlight int    // 0: -in-flight
	// plus lists, joined by "+", the formats an actionspace way renders
	// besides actionspace: it measures what each costs on its own. A
	// floor way takes their records raw (axtree, playwright-ai only): the
	// least a crawl storing them can cost.
	plus string
}

// parseWay reads a way's name: a base and its suffixes.
func parseWay(s string) (way, error) {
	w := way{name: s}
	rest := s
	if base, n, ok := strings.Cut(rest, "@"); ok {
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 {
			return w, fmt.Errorf("%q: want @N with N >= 1", s)
		}
		rest, w.inFlight = base, v
	}
	rest, plus, hasPlus := strings.Cut(rest, "+")
	parts := strings.Split(rest, "-")
	w.base = parts[0]
	if w.base != baseFloor && w.base != baseActionSpace && w.base != baseDefault {
		return w, fmt.Errorf("%q: unknown way (want floor, actionspace or default)", s)
	}
	for _, suffix := range parts[1:] {
		switch suffix {
		case "open":
			w.open = true
		case pipeline.SettleEvidence, pipeline.SettleQuietRule:
			if w.settle != "" {
				return w, fmt.Errorf("%q: two settle rules", s)
			}
			w.settle = suffix
		case "seq":
			w.seq = true
		case "raw":
			w.raw = true
		case "full":
			w.full = true
		default:
			return w, fmt.Errorf("%q: unknown suffix %q (want -open, -quiet, -evidence, -full, -seq or -raw)", s, suffix)
		}
	}
	if w.base == baseFloor && w.settle != "" {
		return w, fmt.Errorf("%q: the floor does not settle", s)
	}
	if hasPlus {
		if w.base == baseDefault {
			return w, fmt.Errorf("%q: default renders every format already", s)
		}
		formats, err := space.ParseFormats(space.FormatActionSpace + "," + strings.ReplaceAll(plus, "+", ","))
		if err != nil {
			return w, fmt.Errorf("%q: %w", s, err)
		}
		if w.base == baseFloor {
			for _, f := range formats[1:] {
				if f != space.FormatAXTree && f != space.FormatPlaywrightAI {
					return w, fmt.Errorf("%q: the floor takes only the records of %s and %s, not %s", s, space.FormatAXTree, space.FormatPlaywrightAI, f)
				}
			}
		}
		w.plus = strings.Join(formats[1:], "+")
	}
	if w.raw && !w.takesRecords() {
		return w, fmt.Errorf("%q: -raw needs a crawl that takes records (default, or actionspace+axtree or +playwright-ai)", s)
	}
	return w, nil
}

// formats is actionspace and the formats w.plus names.
func (w way) formats() []string {
	formats := []string{space.FormatActionSpace}
	if w.plus != "" {
		formats = append(formats, strings.Split(w.plus, "+")...)
	}
	return formats
}

// takesRecords reports whether w is a crawl that takes the accessibility
// tree or the AI snapshot (the floor takes them raw, always).
func (w way) takesRecords() bool {
	switch w.base {
	case baseDefault:
		return true
	case baseActionSpace:
		ax, snap := space.Records(w.formats())
		return ax || snap
	}
	return false
}

// config is the crawl configuration of w.
func (w way) config(o options, log *slog.Logger) pipeline.Config {
	cfg := pipeline.DefaultConfig()
	cfg.RunID = "throughput-" + w.name
	cfg.Workers, cfg.InFlight = o.workers, cmp.Or(w.inFlight, o.inFlight)
	cfg.Timeout = o.timeout
	cfg.Logger = log
	switch w.base {
	case baseFloor:
		cfg.UseFormats(w.formats())
		cfg.Page.Floor = true
	case baseActionSpace:
		cfg.UseFormats(w.formats())
	}
	cfg.Page.Network.AllowPrivate = w.open
	if w.settle != "" {
		cfg.Page.Settle = w.settle
	}
	cfg.Page.Extras.Sequential = w.seq
	cfg.Page.Extras.Raw = w.raw
	return cfg
}

// measurement is one way's crawl in one round.
type measurement struct {
	elapsed            time.Duration
	ok, failed         int
	loadStart, loadEnd string
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	targets, label, cleanup, err := cli.LoadTargets(o.urls, pipeline.DefaultSchemes(), stdin, log)
	if err != nil {
		return err
	}
	defer cleanup()
	if o.urls != "" {
		// The list's name only: the table may be committed, its folder
		// is the machine's business.
		label = fmt.Sprintf("URL list %s (%d URLs)", filepath.Base(o.urls), len(targets))
	}
	bcfg := browser.DefaultConfig()
	bcfg.ChromiumPath, bcfg.Logger = o.chromium, log
	if err := browser.CheckChromium(bcfg.ChromiumPath); err != nil {
		return err
	}
	full := bcfg
	full.ChromiumPath = o.fullChromium
	if slices.ContainsFunc(o.ways, func(w way) bool { return w.full }) {
		if err := browser.CheckChromium(full.ChromiumPath); err != nil {
			return err
		}
	}
	host := hostinfo.Describe()
	got := map[string][]measurement{}
	for r := range o.rounds {
		order := slices.Clone(o.ways)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, w := range order {
			b := bcfg
			if w.full {
				b = full
			}
			m, err := measure(ctx, w, w.config(o, log), b, targets)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, w.name, err)
			}
			fmt.Fprintf(stderr, "round %d of %d: %-24s %8.1f s  %d ok, %d failed  (load average %s → %s)\n",
				r+1, o.rounds, w.name, m.elapsed.Seconds(), m.ok, m.failed, m.loadStart, m.loadEnd)
			got[w.name] = append(got[w.name], m)
		}
	}
	table := report(o, got, label, len(targets), host)
	fmt.Fprint(stdout, table)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(table), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", o.out, err)
		}
	}
	if o.doc == "" {
		return nil
	}
	for i, file := range []string{docFile, readmeFile} {
		doc, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		if _, ok := docblock.Get(string(doc), o.doc); !ok && i > 0 {
			continue // the README carries some of the blocks only
		}
		updated, err := docblock.Replace(string(doc), o.doc, table)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if err := os.WriteFile(file, []byte(updated), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// measure runs one way's crawl of targets and times it. The floor runs
// the pool alone (its rows are only counted); a crawl writes its dataset
// into a temporary directory, as a crawl does. The time is the pool's,
// from the first page opened to the last row (pipeline.Stats.Elapsed):
// launching the browser is left out of both.
func measure(ctx context.Context, w way, cfg pipeline.Config, bcfg browser.Config, targets []pipeline.Target) (measurement, error) {
	m := measurement{loadStart: hostinfo.LoadAverage()}
	var stats pipeline.Stats
	var err error
	if w.base == baseFloor {
		stats, err = pipeline.Floor(ctx, cfg, targets, browser.Opener(bcfg))
	} else {
		dir, derr := os.MkdirTemp("", "throughput-")
		if derr != nil {
			return m, derr
		}
		defer os.RemoveAll(dir)
		stats, err = pipeline.Crawl(ctx, cfg, targets, dir, browser.Opener(bcfg), nil)
	}
	if err != nil {
		return m, err
	}
	m.elapsed, m.ok, m.failed, m.loadEnd = stats.Elapsed, stats.OK, stats.Failed, hostinfo.LoadAverage()
	return m, nil
}

// report renders the figures as a Markdown table: per way the median wall
// time over the rounds, the pages per minute and per core-hour at it, and
// the median over the rounds of its time's ratio to the floor's in the
// same round.
func report(o options, got map[string][]measurement, label string, pages int, host string) string {
	floors := got[baseFloor]
	var b strings.Builder
	inFlight := pipeline.Config{Workers: o.workers, InFlight: o.inFlight}.PagesInFlight()
	fmt.Fprintf(&b, "%s, %d rounds, %d workers, %d pages in flight, %s.\n\n", label, o.rounds, o.workers, inFlight, host)
	b.WriteString("| way | wall time (median) | pages/min | pages per core-hour | core-hours per million URLs | × the floor's time (median) | ok | failed | load average (start → end, per round) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	cores := runtime.NumCPU()
	for _, w := range o.ways {
		ms := got[w.name]
		var secs, ratios []float64
		var loads []string
		ok, failed := 0, 0
		for i, m := range ms {
			secs = append(secs, m.elapsed.Seconds())
			ratios = append(ratios, m.elapsed.Seconds()/floors[i].elapsed.Seconds())
			loads = append(loads, m.loadStart+" → "+m.loadEnd)
			ok, failed = ok+m.ok, failed+m.failed
		}
		wall := metrics.Median(secs)
		perMin := float64(pages) / (wall / 60)
		perCoreHour := perMin * 60 / float64(cores)
		fmt.Fprintf(&b, "| %s | %.1f s | %.1f | %.0f | %.0f | %.2f | %d | %d | %s |\n",
			w.name, wall, perMin, perCoreHour, 1e6/perCoreHour, metrics.Median(ratios), ok, failed, strings.Join(loads, "; "))
	}
	fmt.Fprintf(&b, "\nPages per core-hour: pages/min × 60 / %d cores (the browser's processes included).\n", cores)
	return b.String()
}
