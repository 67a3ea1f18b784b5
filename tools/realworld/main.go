// Command realworld runs a command over real-world pages that this project
// did not write: pages of public sites, saved by other projects as their
// test data and shipped in their Go modules, fetched through the Go module
// proxy and served on 127.0.0.1. No other network is needed (the pages'
// own stylesheets, images and scripts on their original hosts do not load,
// so geometry differs from the live sites).
//
//	go run ./tools/realworld [-set trafilatura] [-n 150] -- go run ./cmd/crawl --out results/runs/realworld
//	go run ./cmd/bench results/runs/realworld
//
// It downloads the set's module (go mod download), picks n of its pages
// deterministically — every k-th file, by name, of those of at least
// -min-bytes — serves them, writes their URL list (to -urls, or a temporary
// file) and runs the command with the list's path appended as its last
// argument; then it stops serving and exits with the command's status.
//
// Sets:
//
//	trafilatura   the comparison corpus of github.com/markusmobius/go-trafilatura
//	              v1.12.2 (test-files/comparison: 945 saved pages of news sites,
//	              blogs, shops and institutions, in many languages)
//	readability   Mozilla Readability's test pages, as codeberg.org/readeck/
//	              go-readability/v2 v2.1.3 ships them (test-pages/*/source.html;
//	              -min-bytes keeps the saved sites, not the synthetic cases)
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"actionspace/corpora"
)

// pageSet is a module of saved pages.
type pageSet struct {
	module string // module@version
	dir    string // the folder of the pages inside the module
	match  func(rel string) bool
}

var sets = map[string]pageSet{
	"trafilatura": {
		module: "github.com/markusmobius/go-trafilatura@v1.12.2",
		dir:    "test-files/comparison",
		match:  func(rel string) bool { return strings.HasSuffix(rel, ".html") && !strings.Contains(rel, "/") },
	},
	"readability": {
		module: "codeberg.org/readeck/go-readability/v2@v2.1.3",
		dir:    "test-pages",
		match:  func(rel string) bool { return strings.HasSuffix(rel, "/source.html") && strings.Count(rel, "/") == 1 },
	},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("realworld", flag.ContinueOnError)
	fs.SetOutput(stderr)
	set := fs.String("set", "trafilatura", "the page set: trafilatura or readability")
	n := fs.Int("n", 150, "how many pages to serve (`N`; 0 = all)")
	minBytes := fs.Int64("min-bytes", 10000, "leave out pages smaller than `BYTES`")
	urls := fs.String("urls", "", "write the URL list to `FILE` (default a temporary file)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ps, ok := sets[*set]
	if !ok || *n < 0 || fs.NArg() == 0 {
		fmt.Fprintln(stderr, "realworld: usage: realworld [-set trafilatura|readability] [-n N] [-min-bytes B] [-urls FILE] -- COMMAND [ARG...]")
		return 2
	}
	if err := serveAndRun(ps, *n, *minBytes, *urls, fs.Args(), stdout, stderr); err != nil {
		var exit *exec.ExitError
		if ok := asExit(err, &exit); ok {
			return exit.ExitCode()
		}
		fmt.Fprintf(stderr, "realworld: %v\n", err)
		return 1
	}
	return 0
}

func asExit(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

func serveAndRun(ps pageSet, n int, minBytes int64, urlFile string, command []string, stdout, stderr io.Writer) error {
	root, err := moduleDir(ps.module)
	if err != nil {
		return err
	}
	pagesDir := filepath.Join(root, ps.dir)
	pages, err := pick(pagesDir, ps.match, n, minBytes)
	if err != nil {
		return err
	}
	srv, err := corpora.ServeDir(pagesDir)
	if err != nil {
		return err
	}
	defer srv.Close()
	if urlFile == "" {
		f, err := os.CreateTemp("", "realworld-*.txt")
		if err != nil {
			return err
		}
		f.Close()
		urlFile = f.Name()
		defer os.Remove(urlFile)
	}
	var list bytes.Buffer
	fmt.Fprintf(&list, "# %d saved pages of %s/%s, served from %s\n", len(pages), ps.module, ps.dir, srv.URL)
	for _, p := range pages {
		fmt.Fprintf(&list, "%s/%s\n", srv.URL, p)
	}
	if err := os.WriteFile(urlFile, list.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "realworld: %d pages of %s served at %s; list in %s\n", len(pages), ps.module, srv.URL, urlFile)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd := exec.CommandContext(ctx, command[0], append(command[1:], urlFile)...)
	cmd.Stdout, cmd.Stderr, cmd.Stdin = stdout, stderr, os.Stdin
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	return cmd.Run()
}

// moduleDir downloads module@version through the Go module proxy (the go
// command's cache) and returns its folder.
func moduleDir(module string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, info.Error)
	}
	return info.Dir, nil
}

// pick lists the pages below dir that match and have at least minBytes,
// sorted by path, and keeps n of them spread evenly (every k-th).
func pick(dir string, match func(string) bool, n int, minBytes int64) ([]string, error) {
	var all []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if !match(rel) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() < minBytes {
			return err
		}
		all = append(all, rel)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list pages: %w", err)
	}
	slices.Sort(all)
	if len(all) == 0 {
		return nil, fmt.Errorf("no pages of at least %d bytes in %s", minBytes, dir)
	}
	if n == 0 || n >= len(all) {
		return all, nil
	}
	picked := make([]string, 0, n)
	for i := range n {
		picked = append(picked, all[i*len(all)/n])
	}
	return picked, nil
}
