// Package cli holds the conventions crawl and bench share, so that both
// commands read the same flags the same way, put their output in the same
// place, report progress alike and fail alike: flag-value parsers and
// formatters (lists, viewports), the usage error and exit codes, the
// logger, the default output root and run IDs, and the progress reporter.
package cli

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

	"actionspace/metrics"
)

// ParseViewport reads "WIDTHxHEIGHT" in CSS pixels.
func ParseViewport(s string) (int, int, error) {
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

// FormatViewport writes a viewport the way ParseViewport reads it.
func FormatViewport(w, h int) string { return fmt.Sprintf("%dx%d", w, h) }

// ParseInts reads a comma list of integers.
func ParseInts(s string) ([]int, error) {
	xs, err := ParseInt64s(s)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(xs))
	for i, x := range xs {
		if int64(int(x)) != x {
			return nil, fmt.Errorf("%d is out of range", x)
		}
		out[i] = int(x)
	}
	return out, nil
}

// FormatInts writes a comma list the way ParseInts reads it.
func FormatInts(xs []int) string {
	ys := make([]int64, len(xs))
	for i, x := range xs {
		ys[i] = int64(x)
	}
	return FormatInt64s(ys)
}

// ParseInt64s reads a comma list of 64-bit integers; an empty list is
// nil.
func ParseInt64s(s string) ([]int64, error) {
	var out []int64
	for _, f := range SplitList(s) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// FormatInt64s writes a comma list the way ParseInt64s reads it.
func FormatInt64s(xs []int64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}

// FormatEncodings writes a comma list the way metrics.ParseEncodings
// reads it.
func FormatEncodings(encs []metrics.Encoding) string {
	s := make([]string, len(encs))
	for i, e := range encs {
		s[i] = string(e)
	}
	return strings.Join(s, ",")
}

// SplitList splits a comma list, trimming space and dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// IsTerminal reports whether w is a terminal (progress bars go there).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// UsageError is a bad flag or argument: the command prints it with a hint
// and exits 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// Usagef makes a UsageError.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// Exit prints err for command name on stderr and returns the exit code:
// 0 for none (or --help), 2 for a UsageError (with a hint to try --help),
// 1 for anything else.
func Exit(name string, err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(UsageError)):
		fmt.Fprintf(stderr, "%s: %v\nTry: %s --help\n", name, err, name)
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 1
}

// NewFlagSet returns the flag set of the command name: it reports its
// errors (the caller exits 2, see Exit) and prints usage, then the flags'
// defaults, to stderr.
func NewFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses args with fs and wraps a bad flag as a UsageError
// (flag.ErrHelp passes through).
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return UsageError{err}
	}
	return nil
}

// DefaultLogLevel is the level of --log-level when not given.
const DefaultLogLevel = "warn"

// LogOptions is the logging flag both commands take.
type LogOptions struct {
	// Level is --log-level: debug, info, warn or error.
	Level string
}

// AddFlags binds --log-level on fs.
func (o *LogOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Level, "log-level", DefaultLogLevel, "log level: debug, info, warn, error")
}

// Logger returns the logger at the flag's level, on w (see NewLogger).
func (o *LogOptions) Logger(w io.Writer) (*slog.Logger, error) { return NewLogger(w, o.Level) }

// NewLogger returns the text logger both commands log with, at level
// (debug, info, warn, error), on w.
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, Usagef("--log-level: %v", err)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// OutputRoot is where both commands put a run's output when --out is not
// given: OutputRoot/<run-id>. It is git-ignored.
const OutputRoot = "results/runs"

// OutDir returns the default output directory of run runID.
func OutDir(runID string) string { return filepath.Join(OutputRoot, runID) }

// RunID returns a new run ID: the command's name and the UTC time, such as
// crawl-20261202T101500Z.
func RunID(command string, now time.Time) string {
	return command + "-" + now.UTC().Format("20060102T150405Z")
}

// RunFunc is a command's body: it parses args and does the work, reading
// stdin and writing stdout and stderr, until ctx ends.
type RunFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// Main runs command name and exits with Exit's code. The context run gets
// ends at the first SIGINT or SIGTERM, when interrupted (if not empty) is
// printed on stderr; a second signal quits at once.
func Main(name string, run RunFunc, interrupted string) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // from now on a second signal gets the default action: quit now
		if interrupted != "" {
			fmt.Fprintf(os.Stderr, "%s: interrupted: %s\n", name, interrupted)
		}
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(Exit(name, err, os.Stderr))
}
