// Command crawl turns a list of URLs into an action-space dataset: it loads
// every URL in headless Chromium, captures the page once, renders the fast
// action space for each viewport_expansion, counts tokens and writes
// DIR/pages.parquet and DIR/spaces.parquet.
//
// With no URL list it serves the bundled corpus on 127.0.0.1 and crawls it.
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
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"actionspace/corpora"
	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/pipeline"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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

// usageError is a bad flag or argument.
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// options are the flags that do not map onto pipeline.Config directly.
type options struct {
	urls       string
	out        string
	viewport   string
	expansions string
	encodings  string
	text       string
	logLevel   string
	schemes    string
	maxNodes   int
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg := pipeline.DefaultConfig()
	var o options
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: crawl [flags] [URL-FILE]

Crawls the URLs in URL-FILE (or --urls; "-" reads stdin; one URL a line,
blank lines and # comments ignored) with headless Chromium and writes
OUT/pages.parquet (one row per URL) and OUT/spaces.parquet (one row per
successful page and viewport expansion). Without a URL list it serves the
bundled corpus on 127.0.0.1 and crawls that.

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
	fs.StringVar(&o.text, "text", string(dom.TextViewport), "context text: viewport (inside the window), all (every text), none")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "time limit per URL attempt (`DURATION`)")
	fs.IntVar(&cfg.Retries, "retries", cfg.Retries, "extra attempts after a transient failure (timeout, network, crash)")
	fs.DurationVar(&cfg.Browser.SettleQuiet, "settle-quiet", cfg.Browser.SettleQuiet, "capture once the DOM has gone this long without a change (`DURATION`)")
	fs.DurationVar(&cfg.Browser.SettleMax, "settle-max", cfg.Browser.SettleMax, "capture after this long even if the DOM keeps changing (`DURATION`)")
	fs.StringVar(&cfg.Browser.ChromiumPath, "chromium", cfg.Browser.ChromiumPath, "Chromium executable `PATH`")
	fs.StringVar(&o.encodings, "encodings", "cl100k_base,o200k_base", "tokenizers to count with (`LIST` of cl100k_base, o200k_base)")
	fs.IntVar(&o.maxNodes, "max-nodes", dom.DefaultMaxNodes, "capture at most `N` DOM nodes per page (the capture is then marked truncated)")
	fs.StringVar(&o.schemes, "allow-scheme", "http,https", "URL schemes to crawl (`LIST`); others become invalid_url rows")
	fs.StringVar(&o.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
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
	if cfg.Browser.ViewportWidth, cfg.Browser.ViewportHeight, err = parseViewport(o.viewport); err != nil {
		return usagef("--viewport: %v", err)
	}
	if cfg.Expansions, err = parseInts(o.expansions); err != nil {
		return usagef("--viewport-expansion: %v", err)
	}
	if cfg.Text, err = dom.ParseTextPolicy(o.text); err != nil {
		return usagef("--text: %v", err)
	}
	if cfg.Encodings, err = metrics.ParseEncodings(o.encodings); err != nil {
		return usagef("--encodings: %v", err)
	}
	script := dom.DefaultScriptOptions()
	script.MaxNodes = o.maxNodes
	cfg.Browser.CaptureArg = script
	if cfg.RunID == "" {
		cfg.RunID = "crawl-" + time.Now().UTC().Format("20060102T150405Z")
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	if _, err := os.Stat(cfg.Browser.ChromiumPath); err != nil {
		return fmt.Errorf("chromium: %w (run `make setup`, or pass --chromium)", err)
	}
	if o.out == "" {
		o.out = filepath.Join("results", "runs", cfg.RunID)
	}

	targets, cleanup, err := loadTargets(o.urls, splitList(o.schemes), stdin)
	if err != nil {
		return err
	}
	defer cleanup()
	if len(targets) == 0 {
		return fmt.Errorf("no URLs in %s", o.urls)
	}

	fmt.Fprintf(stderr, "crawl: %d URLs, %d workers, expansions %v -> %s\n", len(targets), cfg.Workers, cfg.Expansions, o.out)
	progress := pipeline.NewProgress(stderr, len(targets), isTerminal(stderr), log)
	stats, err := pipeline.Crawl(ctx, cfg, targets, o.out, progress.Add)
	progress.Finish()
	fmt.Fprintf(stdout, "run %s: %d URLs, %d ok, %d failed, %d retried in %s (%.1f pages/min)\n%s\n%s\n",
		cfg.RunID, stats.Targets, stats.OK, stats.Failed, stats.Retried, stats.Elapsed.Round(time.Millisecond),
		float64(stats.OK+stats.Failed)/stats.Elapsed.Minutes(),
		filepath.Join(o.out, pipeline.PagesFile), filepath.Join(o.out, pipeline.SpacesFile))
	if err != nil {
		return fmt.Errorf("crawl stopped after %d of %d URLs: %w", stats.OK+stats.Failed, stats.Targets, err)
	}
	return nil
}

// loadTargets reads the URL list, or serves the bundled corpus when there
// is none. cleanup stops the corpus server.
func loadTargets(path string, schemes []string, stdin io.Reader) ([]pipeline.Target, func(), error) {
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
	return targets, func() {}, nil
}

func parseViewport(s string) (int, int, error) {
	w, h, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		return 0, 0, fmt.Errorf("%q: want WIDTHxHEIGHT, e.g. 1280x720", s)
	}
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if err1 != nil || err2 != nil || wi < 1 || hi < 1 {
		return 0, 0, fmt.Errorf("%q: want positive WIDTHxHEIGHT, e.g. 1280x720", s)
	}
	return wi, hi, nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
