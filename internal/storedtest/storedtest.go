// Package storedtest reads the corpus pages stored for the render goldens
// (render/testdata/<page>/: capture.json.gz, axtree.json.gz,
// page.html.gz …) for the tests of the packages that re-render them
// offline, as a crawl would have: real captures, no browser.
package storedtest

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// MinPages is the least number of stored pages a test accepts: one per
// page of the bundled corpus.
const MinPages = 12

// Captures returns the paths of the stored captures under root (the
// render package's testdata directory), <page>/capture.json.gz, in name
// order; it fails the test when there are fewer than MinPages.
func Captures(tb testing.TB, root string) []string {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "*", "capture.json.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(paths) < MinPages {
		tb.Fatalf("found %d stored captures in %s, want one per corpus page (>= %d); regenerate with `make goldens`", len(paths), root, MinPages)
	}
	sort.Strings(paths)
	return paths
}

// Read returns the content of a stored, gzipped file.
func Read(tb testing.TB, path string) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return data
}
