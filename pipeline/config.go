package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"actionspace/dom"
	"actionspace/metrics"
)

// Mode names in the spaces table.
const ModeFast = "fast"

// Config holds the settings of a crawl. The zero value is not usable; start
// from DefaultConfig.
type Config struct {
	// RunID names the run in every row.
	RunID string
	// Workers is the number of pages crawled at once.
	Workers int
	// Timeout bounds one attempt at one URL: navigation, settling, capture
	// and content.
	Timeout time.Duration
	// Retries is how many more attempts a transient failure gets.
	Retries int
	// Expansions lists the viewport_expansion values rendered per page: one
	// spaces row each.
	Expansions []int
	// Text is the context-text policy of the rendered spaces.
	Text dom.TextPolicy
	// Encodings are the tokenizers to count with.
	Encodings []metrics.Encoding
	// Browser configures the local Chromium and every page: viewport,
	// capture script, settling.
	Browser BrowserConfig
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
}

// DefaultConfig returns the settings `crawl` starts from.
func DefaultConfig() Config {
	return Config{
		Workers:    DefaultWorkers(),
		Timeout:    DefaultTimeout,
		Retries:    DefaultRetries,
		Expansions: []int{0, 500, dom.WholePage},
		Text:       dom.TextViewport,
		Encodings:  []metrics.Encoding{metrics.CL100K, metrics.O200K},
		Browser:    DefaultBrowserConfig(),
	}
}

// Validate reports the first invalid setting, naming it.
func (c Config) Validate() error {
	switch {
	case c.Workers < 1:
		return fmt.Errorf("workers: %d, want at least 1", c.Workers)
	case c.Timeout <= 0:
		return fmt.Errorf("timeout: %v, want > 0", c.Timeout)
	case c.Retries < 0:
		return fmt.Errorf("retries: %d, want >= 0", c.Retries)
	case len(c.Expansions) == 0:
		return fmt.Errorf("viewport-expansion: empty list")
	case len(c.Encodings) == 0:
		return fmt.Errorf("encodings: empty list")
	}
	if err := c.Browser.Validate(); err != nil {
		return err
	}
	seen := make(map[int]bool)
	for _, e := range c.Expansions {
		if err := (dom.Options{Expansion: e, Text: c.Text}).Validate(); err != nil {
			return fmt.Errorf("viewport-expansion: %w", err)
		}
		if seen[e] {
			return fmt.Errorf("viewport-expansion: %d listed twice", e)
		}
		seen[e] = true
	}
	return nil
}

func (c Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// PageID is the one page identity: the first 16 hex digits of the SHA-256
// of the URL as listed. The same URL gets the same ID in every run, shard
// and resume.
func PageID(url string) string {
	sum := sha256.Sum256([]byte(url))
	return hex.EncodeToString(sum[:8])
}
