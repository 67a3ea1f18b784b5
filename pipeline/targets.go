package pipeline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"
)

// defaultSchemes are the URL schemes crawled unless widened: a crawl must
// not copy local files (file:) or run code (javascript:) into a dataset.
var defaultSchemes = []string{"http", "https"}

// DefaultSchemes returns the URL schemes a crawl accepts by default.
func DefaultSchemes() []string { return append([]string(nil), defaultSchemes...) }

// MaxURLLine bounds one line of a URL list: a longer line becomes an
// invalid_url row that keeps its first MaxURLLine bytes.
const MaxURLLine = 64 << 10

// ReadTargets reads a URL list: one URL a line, blank lines and lines
// starting with # ignored, surrounding space (and a leading byte-order
// mark) trimmed. A line that is not an absolute URL with an allowed scheme
// — not a URL at all, too long, not UTF-8, with control characters, with
// another scheme, with user information (user:password@, whose part
// before the "@" is replaced by RedactedUser in the target's URL: the
// credentials are kept nowhere) — becomes a target carrying an
// invalid_url error that names its line number (it still gets its row). A URL listed twice is kept
// once, at its first line. It fails only when the list cannot be read.
func ReadTargets(r io.Reader, schemes []string) ([]Target, error) {
	allowed := make(map[string]bool, len(schemes))
	for _, s := range schemes {
		allowed[strings.ToLower(s)] = true
	}
	var targets []Target
	seen := make(map[string]bool)
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		raw, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return targets, fmt.Errorf("read URL list at line %d: %w", line, err)
		}
		if errors.Is(err, io.EOF) && raw == "" && !tooLong {
			return targets, nil
		}
		if line == 1 {
			raw = strings.TrimPrefix(raw, "\ufeff")
		}
		raw = strings.TrimSpace(raw)
		// A URL with user information (credentials) is refused, and
		// stored and logged with it replaced: from here on only the
		// redacted form exists.
		creds := HasUserInfo(raw)
		if creds {
			raw = RedactUserInfo(raw)
		}
		if raw != "" && !strings.HasPrefix(raw, "#") && !seen[raw] {
			seen[raw] = true
			t := Target{PageID: PageID(raw), URL: raw, Line: line}
			cerr := checkURL(raw, allowed)
			if tooLong {
				cerr = fmt.Errorf("line longer than %d bytes", MaxURLLine)
			}
			if creds {
				cerr = errors.New("user information (user:password@) in the URL: refused, credentials are never crawled nor stored")
			}
			if cerr != nil {
				// The row keeps the line as valid UTF-8 text.
				t.URL = strings.ToValidUTF8(raw, "\uFFFD")
				t.Err = &PageError{Kind: KindInvalidURL, URL: t.URL, Err: fmt.Errorf("line %d: %w", line, cerr)}
			}
			targets = append(targets, t)
		}
		if errors.Is(err, io.EOF) {
			return targets, nil
		}
	}
}

// readLine reads one line without its end of line. A line longer than
// MaxURLLine is cut there, the rest of it skipped, and tooLong set.
func readLine(br *bufio.Reader) (line string, tooLong bool, err error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(b)+len(chunk) > MaxURLLine {
			tooLong = true
			chunk = chunk[:max(0, MaxURLLine-len(b))]
		}
		b = append(b, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return strings.TrimRight(string(b), "\r\n"), tooLong, err
	}
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
	if !utf8.ValidString(raw) {
		return errors.New("not UTF-8")
	}
	if strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return errors.New("control character in URL")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %w", err)
	}
	if u.Scheme == "" {
		return fmt.Errorf("not an absolute URL: %q", raw)
	}
	if !allowed[strings.ToLower(u.Scheme)] {
		return fmt.Errorf("scheme %q not allowed (see --allow-scheme)", u.Scheme)
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return fmt.Errorf("no host in %q", raw)
	}
	return nil
}
