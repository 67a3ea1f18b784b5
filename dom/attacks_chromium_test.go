package dom

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"actionspace/corpora"
)

// maxRecordBytes bounds the capture record of any page under the default
// options: MaxNodes nodes of a few hundred bytes of structure each, plus
// MaxChars characters of strings of at most three bytes each.
const maxRecordBytes = DefaultMaxNodes*400 + 3*DefaultMaxChars

// TestScript_AttackPages captures each attack page of the corpus in real
// Chromium with the default options and requires a record that respects
// every cap, flags exactly the caps the page was made to hit, and gives
// every element with signals a locator that fits the locator budget; on
// deep-controls, 300 locators spread over the page resolve each to its
// element. It logs the load and capture time and the record size of each
// page.
func TestScript_AttackPages(t *testing.T) {
	c := startChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	opts := DefaultScriptOptions()
	want := map[string][]string{
		"/attacks/deep-controls": nil,
		"/attacks/frames":        nil, // its frames are captured on their own (see the browser adapter)
		"/attacks/title":         {CapTitle},
		"/attacks/attributes":    {CapAttributes, CapNames, CapValues},
		"/attacks/html":          {CapText, CapChars},
		"/attacks/options":       {CapOptions, CapNodes},
	}
	for _, path := range corpora.AttackPaths() {
		t.Run(strings.TrimPrefix(path, corpora.AttackPrefix), func(t *testing.T) {
			start := time.Now()
			c.load(t, srv.URL+path, 2*time.Minute)
			loaded := time.Since(start)
			world := c.world(t)
			start = time.Now()
			record, capt := c.capture(t, world, opts)
			captured := time.Since(start)
			for _, problem := range overCaps(capt, opts) {
				t.Error(problem)
			}
			if len(record) > maxRecordBytes {
				t.Errorf("record of %d bytes, want at most %d", len(record), maxRecordBytes)
			}
			if got := capt.Page.Capped; !slices.Equal(got, want[path]) {
				t.Errorf("capped = %v, want %v", got, want[path])
			}
			if got, wantTrunc := capt.Page.Truncated, slices.Contains(want[path], CapNodes) || slices.Contains(want[path], CapChars); got != wantTrunc {
				t.Errorf("truncated = %v, want %v", got, wantTrunc)
			}
			tree := NewTree(capt)
			locBytes, actions := 0, 0
			for i, n := range capt.Nodes {
				if len(n.Signals) == 0 {
					continue
				}
				loc := tree.Locator(i)
				if loc == "" || len(loc) > DefaultMaxLocator {
					t.Errorf("node %d <%s>: locator %q", i, n.Tag, loc)
				}
				locBytes += len(loc)
				actions++
			}
			switch path {
			case "/attacks/deep-controls":
				if actions < corpora.AttackButtons {
					t.Errorf("%d elements with signals, want the %d buttons", actions, corpora.AttackButtons)
				}
				for _, b := range badLocators(t, tree, 300, func(expr string) any { return c.eval(t, world, expr) }) {
					t.Error(b)
				}
			case "/attacks/frames":
				if capt.Page.CrossOriginFrames != corpora.AttackFrames {
					t.Errorf("%d cross-origin frames, want %d", capt.Page.CrossOriginFrames, corpora.AttackFrames)
				}
			case "/attacks/attributes":
				if label, _ := capt.Nodes[attrsButton(capt)].Attr("aria-label"); label != "Many attributes" {
					t.Errorf("aria-label past the attribute cap = %q, want it kept", label)
				}
			case "/attacks/options":
				for _, n := range capt.Nodes {
					if n.Tag == "select" && n.OptionCount != corpora.AttackOptions && n.OptionCount != 1000 {
						t.Errorf("select counts %d options", n.OptionCount)
					}
				}
			}
			t.Logf("%s: load %v, capture %v (script %.0f ms), record %d bytes, %d nodes, %d chars, capped %v, %d locators of %d bytes",
				path, loaded.Round(time.Millisecond), captured.Round(time.Millisecond), capt.Page.ScriptMs,
				len(record), len(capt.Nodes), capt.Page.Chars, capt.Page.Capped, actions, locBytes)
		})
	}
}

// attrsButton is the index of the first button of c (-1 when none).
func attrsButton(c *Capture) int {
	for i, n := range c.Nodes {
		if n.Tag == "button" {
			return i
		}
	}
	return -1
}

// jsLen is the length of s as JavaScript counts it (UTF-16 code units),
// the unit of the caps.
func jsLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// overCaps lists the ways a capture exceeds the caps of opts.
func overCaps(c *Capture, o ScriptOptions) []string {
	keptNames := len(KeptAttributes())
	var out []string
	over := func(what string, got, limit int) {
		if got > limit {
			out = append(out, fmt.Sprintf("%s: %d, cap %d", what, got, limit))
		}
	}
	over("title", jsLen(c.Page.Title), o.TitleCap)
	over("url", jsLen(c.Page.URL), o.URLCap)
	over("nodes", len(c.Nodes), o.MaxNodes)
	// the walk stops once the characters reach the cap: one node more
	// at most, of bounded size
	over("chars", c.Page.Chars, o.MaxChars+o.TextCap+(o.MaxAttrs+keptNames)*(o.NameCap+o.AttrCap)+o.OptionCap*o.AttrCap)
	chars := 0
	for i, n := range c.Nodes {
		over(fmt.Sprintf("node %d tag", i), jsLen(n.Tag), o.NameCap)
		over(fmt.Sprintf("node %d attributes", i), len(n.Attrs), o.MaxAttrs+keptNames)
		for _, a := range n.Attrs {
			over(fmt.Sprintf("node %d attribute name", i), jsLen(a[0]), o.NameCap)
			over(fmt.Sprintf("node %d attribute %.20s", i, a[0]), jsLen(a[1]), o.AttrCap)
			chars += jsLen(a[0]) + jsLen(a[1])
		}
		over(fmt.Sprintf("node %d text", i), jsLen(n.Text), o.TextCap)
		over(fmt.Sprintf("node %d value", i), jsLen(n.Value), o.AttrCap)
		over(fmt.Sprintf("node %d options", i), len(n.Options), o.OptionCap)
		over(fmt.Sprintf("node %d selected", i), len(n.Selected), o.OptionCap)
		for _, l := range n.Options {
			over(fmt.Sprintf("node %d option label", i), jsLen(l), o.AttrCap)
			chars += jsLen(l)
		}
		chars += jsLen(n.Tag) + jsLen(n.Text) + jsLen(n.Value)
	}
	if chars != c.Page.Chars {
		out = append(out, fmt.Sprintf("page.chars = %d, but the record holds %d", c.Page.Chars, chars))
	}
	return out
}
