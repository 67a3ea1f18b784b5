package pipeline

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"actionspace/axtree"
)

func TestPageConfig_Validate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*PageConfig)
		want   string // substring of the error; "" for none
	}{
		{"default", func(*PageConfig) {}, ""},
		{"zero width", func(c *PageConfig) { c.ViewportWidth = 0 }, "viewport width"},
		{"negative width", func(c *PageConfig) { c.ViewportWidth = -1 }, "viewport width"},
		{"negative height", func(c *PageConfig) { c.ViewportHeight = -5 }, "viewport height"},
		{"negative quiet", func(c *PageConfig) { c.SettleQuiet = -time.Second }, "settle quiet"},
		{"negative max", func(c *PageConfig) { c.SettleMax = -time.Second }, "settle max"},
		{"settle on evidence", func(c *PageConfig) { c.Settle = SettleEvidence }, ""},
		{"unknown settle rule", func(c *PageConfig) { c.Settle = "soon" }, "settle"},
		{"max below quiet", func(c *PageConfig) { c.SettleQuiet, c.SettleMax = time.Second, 500*time.Millisecond }, "settle max"},
		{"no node budget", func(c *PageConfig) { c.Script.MaxNodes = 0 }, "max nodes"},
		{"screenshots plain", func(c *PageConfig) { c.Screenshot.Mode = ScreenshotsPlain }, ""},
		{"png ignores quality", func(c *PageConfig) { c.Screenshot = ScreenshotConfig{Mode: ScreenshotsLabeled, Format: ScreenshotPNG} }, ""},
		{"unknown mode", func(c *PageConfig) { c.Screenshot.Mode = "fancy" }, "screenshots"},
		{"unknown format", func(c *PageConfig) { c.Screenshot.Format = "gif" }, "screenshot format"},
		{"jpeg quality 0", func(c *PageConfig) { c.Screenshot.Quality = 0 }, "screenshot quality"},
		{"jpeg quality 101", func(c *PageConfig) { c.Screenshot.Quality = 101 }, "screenshot quality"},
		{"no AX node budget", func(c *PageConfig) { c.Extras.MaxAXNodes = 0 }, "max-ax-nodes"},
		{"no AX text budget", func(c *PageConfig) { c.Extras.MaxAXText = 0 }, "max-ax-text"},
		{"no AI snapshot budget", func(c *PageConfig) { c.Extras.MaxAISnapshotBytes = -1 }, "max-aisnapshot-bytes"},
		{"unknown probe", func(c *PageConfig) { c.Extras.ActionableProbe = "screen" }, "actionable-probe"},
		{"no probe cap", func(c *PageConfig) { c.Extras.MaxActionableProbe = 0 }, "max-actionable-probe"},
		{"no probe time", func(c *PageConfig) { c.Extras.ActionableProbeTime = 0 }, "actionable-probe-time"},
		{"no probe, no cap", func(c *PageConfig) { c.Extras.ActionableProbe, c.Extras.MaxActionableProbe = axtree.ProbeNone, 0 }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultPageConfig()
			tt.modify(&cfg)
			err := cfg.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate() = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

// TestDefaultPageConfig: the defaults are resolved in one place, and a
// crawl's config holds them.
func TestDefaultPageConfig(t *testing.T) {
	got := DefaultPageConfig()
	if got.ViewportWidth != DefaultViewportWidth || got.ViewportHeight != DefaultViewportHeight ||
		got.SettleQuiet != DefaultSettleQuiet || got.SettleMax != DefaultSettleMax || got.Script.MaxNodes == 0 ||
		got.Screenshot.Mode != ScreenshotsNone || got.Screenshot.Quality != DefaultScreenshotQuality ||
		got.Extras != (ExtrasConfig{AXTree: true, AISnapshot: true, MaxAXNodes: DefaultMaxAXNodes, MaxAXText: DefaultMaxAXText, MaxAISnapshotBytes: DefaultMaxAISnapshotBytes,
			ActionableProbe: axtree.ProbeViewport, MaxActionableProbe: DefaultMaxActionableProbe, ActionableProbeTime: DefaultActionableProbeTime}) {
		t.Errorf("DefaultPageConfig() = %+v, want every default filled in", got)
	}
	if c := DefaultConfig(); !reflect.DeepEqual(c.Page, got) {
		t.Errorf("DefaultConfig().Page = %+v, want DefaultPageConfig()", c.Page)
	}
}

// TestConfig_UseFormats: the formats decide the records a page load takes,
// and Validate refuses a format whose record is not taken.
func TestConfig_UseFormats(t *testing.T) {
	tests := []struct {
		formats      []string
		axTree, snap bool
	}{
		{[]string{"actionspace"}, false, false},
		{[]string{"actionspace", "html"}, false, false},
		{[]string{"actionspace", "axtree"}, true, false},
		{[]string{"playwright-ai"}, false, true},
		{[]string{"actionspace", "playwright-ai", "axtree", "html"}, true, true},
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		cfg.UseFormats(tt.formats)
		if cfg.Page.Extras.AXTree != tt.axTree || cfg.Page.Extras.AISnapshot != tt.snap {
			t.Errorf("UseFormats(%v): extras %+v, want axtree %v, snapshot %v", tt.formats, cfg.Page.Extras, tt.axTree, tt.snap)
		}
		if err := cfg.Validate(); err != nil {
			t.Errorf("UseFormats(%v): Validate() = %v", tt.formats, err)
		}
	}
	for _, tt := range []struct {
		name   string
		modify func(*Config)
		want   string
	}{
		{"no formats", func(c *Config) { c.Formats = nil }, "formats: empty"},
		{"unknown", func(c *Config) { c.Formats = []string{"markdown"} }, "formats"},
		{"twice", func(c *Config) { c.Formats = []string{"html", "html"} }, "formats"},
		{"axtree not taken", func(c *Config) { c.Page.Extras.AXTree = false }, "axtree needs"},
		{"snapshot not taken", func(c *Config) { c.Page.Extras.AISnapshot = false }, "playwright-ai needs"},
	} {
		cfg := DefaultConfig()
		tt.modify(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate() = %v, want an error naming %q", tt.name, err, tt.want)
		}
	}
}

func TestErrorKindOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want ErrorKind
	}{
		{"nil", nil, ""},
		{"page error", &PageError{Kind: KindHTTP, URL: "http://x/", Err: errors.New("HTTP 404")}, KindHTTP},
		{"wrapped page error", fmt.Errorf("attempt 2: %w", &PageError{Kind: KindNavigate, Err: errors.New("x")}), KindNavigate},
		{"deadline", fmt.Errorf("load: %w", context.DeadlineExceeded), KindTimeout},
		{"canceled", context.Canceled, KindCanceled},
		{"unknown", errors.New("something else"), KindCapture},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ErrorKindOf(tt.err); got != tt.want {
				t.Errorf("ErrorKindOf(%v) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func TestPageError_Transient(t *testing.T) {
	tests := []struct {
		err  *PageError
		want bool
	}{
		{&PageError{Kind: KindTimeout}, true},
		{&PageError{Kind: KindNavigate}, true},
		{&PageError{Kind: KindBrowser}, true},
		{&PageError{Kind: KindHTTP, Err: &StatusError{Code: 503}}, true},
		{&PageError{Kind: KindHTTP, Err: &StatusError{Code: 404}}, false},
		{&PageError{Kind: KindContentType}, false},
		{&PageError{Kind: KindCapture}, false},
		{&PageError{Kind: KindInvalidURL}, false},
		{&PageError{Kind: KindCanceled}, false},
	}
	for _, tt := range tests {
		if got := tt.err.Transient(); got != tt.want {
			t.Errorf("%s (%v).Transient() = %v, want %v", tt.err.Kind, tt.err.Err, got, tt.want)
		}
	}
}

func TestPageError_Error(t *testing.T) {
	cause := context.DeadlineExceeded
	err := error(&PageError{Kind: KindNavigate, URL: "http://a.test/", Err: fmt.Errorf("navigate: %w", cause)})
	if got, want := err.Error(), "navigate http://a.test/: navigate: context deadline exceeded"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(%v, %v) = false, want true", err, cause)
	}
}
