package pipeline

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// defaultSchemes are the URL schemes crawled unless widened: a crawl must
// not copy local files (file:) or run code (javascript:) into a dataset.
var defaultSchemes = []string{"http", "https"}

// DefaultSchemes returns the URL schemes a crawl accepts by default.
func DefaultSchemes() []string { return append([]string(nil), defaultSchemes...) }

// maxLine bounds one line of a URL list.
const maxLine = 64 << 10

// ReadTargets reads a URL list: one URL a line, blank lines and lines
// starting with # ignored, surrounding space trimmed. A line that is not an
// absolute URL with an allowed scheme becomes a target carrying an
// invalid_url error (it still gets its row); a URL listed twice is kept
// once. It fails only when the list cannot be read.
func ReadTargets(r io.Reader, schemes []string) ([]Target, error) {
	allowed := make(map[string]bool, len(schemes))
	for _, s := range schemes {
		allowed[strings.ToLower(s)] = true
	}
	var targets []Target
	seen := make(map[string]bool)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	line := 0
	for sc.Scan() {
		line++
		raw := strings.TrimSpace(sc.Text())
		if raw == "" || strings.HasPrefix(raw, "#") {
			continue
		}
		if seen[raw] {
			continue
		}
		seen[raw] = true
		t := Target{PageID: PageID(raw), URL: raw, Line: line}
		if err := checkURL(raw, allowed); err != nil {
			t.Err = &PageError{Kind: KindInvalidURL, URL: raw, Err: fmt.Errorf("line %d: %w", line, err)}
		}
		targets = append(targets, t)
	}
	if err := sc.Err(); err != nil {
		return targets, fmt.Errorf("read URL list at line %d: %w", line+1, err)
	}
	return targets, nil
}

// TargetsFromURLs makes targets from URLs known to be well formed.
func TargetsFromURLs(urls []string) []Target {
	targets := make([]Target, len(urls))
	for i, u := range urls {
		targets[i] = Target{PageID: PageID(u), URL: u, Line: i + 1}
	}
	return targets
}

func checkURL(raw string, allowed map[string]bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %w", err)
	}
	if u.Scheme == "" {
		return fmt.Errorf("not an absolute URL: %q", raw)
	}
	if !allowed[strings.ToLower(u.Scheme)] {
		return fmt.Errorf("scheme %q not allowed", u.Scheme)
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return fmt.Errorf("no host in %q", raw)
	}
	return nil
}
