// Package cli holds the small flag-value parsers that crawl and bench
// share, so both commands read lists and viewports the same way.
package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
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

// ParseInts reads a comma list of integers.
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range SplitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, n)
	}
	return out, nil
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
