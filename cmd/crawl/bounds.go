package main

import (
	"flag"

	"actionspace/pipeline"
)

// registerBounds binds the flags that cap what a page decides the size of
// onto page, whose values are the defaults. Every cap, when hit, is named
// in the page's row (capture_capped, html_truncated; see docs/crawl.md).
func registerBounds(fs *flag.FlagSet, page *pipeline.PageConfig) {
	s := &page.Script
	fs.IntVar(&s.MaxNodes, "max-nodes", s.MaxNodes, "capture at most `N` DOM nodes per page, frames included (the capture is then marked truncated)")
	fs.IntVar(&s.MaxChars, "max-capture-chars", s.MaxChars, "capture at most `N` characters of text, names and values per page, frames included (then truncated)")
	fs.IntVar(&s.TitleCap, "max-title", s.TitleCap, "cut the page title at `N` characters")
	fs.IntVar(&s.URLCap, "max-url", s.URLCap, "cut the page URL recorded in the capture at `N` characters")
	fs.IntVar(&s.MaxAttrs, "max-attributes", s.MaxAttrs, "record at most `N` attributes per element (and those the renderer reads)")
	fs.IntVar(&s.AttrCap, "max-attr-value", s.AttrCap, "cut attribute values, control values and option labels at `N` characters")
	fs.IntVar(&s.NameCap, "max-name-length", s.NameCap, "drop attributes whose name is longer than `N` characters, and cut tag names there")
	fs.IntVar(&s.TextCap, "max-text", s.TextCap, "cut each text node at `N` characters")
	fs.IntVar(&s.OptionCap, "max-options", s.OptionCap, "list at most `N` options (and selections) per select")
	fs.IntVar(&s.MaxSecrets, "max-secrets", s.MaxSecrets, "keep at most `N` values of password and hidden inputs per page to scrub from its stored text (past it: capture_capped has secrets)")
	fs.IntVar(&page.MaxFrames, "max-frames", page.MaxFrames, "capture at most `N` cross-origin frames per page")
	fs.IntVar(&page.MaxHTMLBytes, "max-html-bytes", page.MaxHTMLBytes, "store and count at most `N` bytes of each page's HTML (password values taken out first)")
}
