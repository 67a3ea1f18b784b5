package space

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"actionspace/axtree"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/oracle"
	"actionspace/render"
)

// Formats returns every format name, in the order rows and reports list
// them.
func Formats() []string {
	return []string{FormatActionSpace, FormatBrowserUse, FormatPlaywrightAI, FormatAXTree, FormatHTML}
}

// ParseFormats reads a comma list of formats: each known, none twice, at
// least one.
func ParseFormats(list string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(Formats(), f) {
			return nil, fmt.Errorf("unknown format %q (want %s)", f, strings.Join(Formats(), ", "))
		}
		if slices.Contains(out, f) {
			return nil, fmt.Errorf("format %s listed twice", f)
		}
		out = append(out, f)
	}
	return out, nil
}

// Records says which records of the page state, besides the capture and
// the HTML, formats render from: Chromium's accessibility tree for axtree
// (the same tree is the oracle every recall is measured against, so
// without axtree in the list no row has a recall), and Playwright's AI
// snapshot for playwright-ai.
func Records(formats []string) (axTree, snapshot bool) {
	return slices.Contains(formats, FormatAXTree), slices.Contains(formats, FormatPlaywrightAI)
}

// Setting is one rendering of a page: a format and, for actionspace, a
// mode; a window (Options.Expansion) and, for actionspace, a text policy.
type Setting struct {
	// Format is one of Formats().
	Format string
	// Mode is ModeFast or ModeDeep for actionspace, "" for the other
	// formats (their text is made by code alone).
	Mode string
	// Options is the window and the text policy. The text policy is
	// actionspace's ("" for the other formats, which have no context-text
	// switch); html has one window, the whole page.
	Options dom.Options
}

// IDPolicy returns the ID policy of an actionspace setting
// (dom.IDsPositional when Options.IDs is empty), "" for the other
// formats: the spaces table's id_policy.
func (s Setting) IDPolicy() dom.IDPolicy {
	switch {
	case s.Format != FormatActionSpace:
		return ""
	case s.Options.IDs == "":
		return dom.IDsPositional
	}
	return s.Options.IDs
}

// Page is one captured page state, decoded once, that every format
// renders from: the capture's tree, the accessibility tree, the AI
// snapshot, the HTML and the oracle built from the accessibility tree.
// It is read-only once made and safe for concurrent Render calls.
type Page struct {
	Tree *dom.Tree
	// AXTree is Chromium's accessibility tree; nil when it was not taken.
	AXTree *axtree.Record
	// Snapshot is Playwright's AI snapshot; nil when it was not taken.
	Snapshot *axtree.Snapshot
	// HTML is the page's HTML.
	HTML string
	// Oracle is the page's actionable elements by the accessibility tree,
	// tied to the capture's elements; nil without AXTree.
	Oracle *oracle.Oracle
	// steps is what the page's step metrics need, and before the state
	// before this one (see SetPrevious); nil at a page's first step.
	steps  *stepState
	before *Page

	// salientTexts are the capture's salient texts (dom.Salient), found
	// once, on first use, by salient.
	salientOnce  sync.Once
	salientTexts dom.SalientTexts
}

// NewPage assembles a page and builds its oracle (once: every setting is
// scored against it). rec and snap may be nil.
func NewPage(tree *dom.Tree, rec *axtree.Record, snap *axtree.Snapshot, html string) *Page {
	p := &Page{Tree: tree, AXTree: rec, Snapshot: snap, HTML: html, steps: &stepState{}}
	if rec != nil {
		p.Oracle = oracle.New(rec, tree)
	}
	return p
}

// DecodePage decodes a page's records as the blobs table stores them
// (capture, axtree and aisnapshot, each json+zstd; axtree and snapshot nil
// when not taken) and assembles the page.
func DecodePage(capture, axTree, snapshot []byte, html string) (*Page, error) {
	raw, err := dataset.DecompressCapture(capture)
	if err != nil {
		return nil, err
	}
	c, err := dom.Parse(raw)
	if err != nil {
		return nil, err
	}
	var rec *axtree.Record
	if len(axTree) > 0 {
		if raw, err = dataset.DecompressCapture(axTree); err != nil {
			return nil, fmt.Errorf("accessibility tree: %w", err)
		}
		if rec, err = axtree.Parse(raw); err != nil {
			return nil, err
		}
	}
	var snap *axtree.Snapshot
	if len(snapshot) > 0 {
		if raw, err = dataset.DecompressCapture(snapshot); err != nil {
			return nil, fmt.Errorf("AI snapshot: %w", err)
		}
		if snap, err = axtree.ParseSnapshotRecord(raw); err != nil {
			return nil, err
		}
	}
	return NewPage(dom.NewTree(c), rec, snap, html), nil
}

// Has reports whether the page holds what format renders from: the AI
// snapshot for playwright-ai, the accessibility tree for axtree.
func (p *Page) Has(format string) bool {
	switch format {
	case FormatPlaywrightAI:
		return p.Snapshot != nil
	case FormatAXTree:
		return p.AXTree != nil
	}
	return slices.Contains(Formats(), format)
}

// Renderers are the actionspace renderers by mode (ModeFast: Fast{},
// ModeDeep: a Deep).
type Renderers map[string]Renderer

// Render renders the page in setting s and scores it against the page's
// oracle: actionspace through the renderer of s.Mode (its IDs scored by
// oracle.View: an element is handled when it or a label of it has an ID),
// playwright-ai and axtree restricted to the window by their boxes (their
// refs and node ids tied to the oracle's elements), html whole. A format
// whose record the page lacks (see Has) is an error; a deep-mode failure
// returns the space with what was done, as the Deep renderer does.
func (p *Page) Render(ctx context.Context, s Setting, modes Renderers) (Rendered, error) {
	if !p.Has(s.Format) {
		return Rendered{Format: s.Format}, fmt.Errorf("render %s: the page has no record for it", s.Format)
	}
	if s.Format == FormatActionSpace {
		r, ok := modes[s.Mode]
		if !ok || r == nil {
			return Rendered{Format: s.Format}, fmt.Errorf("render %s: no renderer for mode %q", s.Format, s.Mode)
		}
		v := p.Tree.Select(s.Options)
		out, err := r.Render(ctx, v)
		out.Format, out.Handles = FormatActionSpace, len(out.Actions)
		out.HandleNodes = make([]int, 0, len(out.Actions))
		for _, it := range v.Items {
			if it.IsAction() {
				out.HandleNodes = append(out.HandleNodes, it.Node)
			}
		}
		if p.Oracle != nil {
			res := p.Oracle.View(v)
			out.Score, out.Handled = &res.Score, res.Handled
			if f := s.Options.Only; f != "" && f != dom.FilterAll {
				sc := p.Oracle.ScoreFilter(v.Window, res.Handled, f)
				out.OnlyScore = &sc
			}
		}
		return out, err
	}
	fs, win, err := p.formatSpace(s.Format, s.Options.Expansion)
	if err != nil {
		return Rendered{Format: s.Format}, err
	}
	out := Rendered{Space: render.Space{ActionSpace: fs.Text}, Format: s.Format, Handles: fs.Handles, Handled: fs.Handled, HandleNodes: fs.HandleNodes}
	if p.Oracle != nil {
		sc := fs.Score(p.Oracle, win)
		out.Score = &sc
	}
	return out, nil
}

// formatSpace renders the page in a format other than actionspace in the
// window of expansion e (html: always the whole page) and returns it with
// that window. The page must have the format's record (Has).
func (p *Page) formatSpace(format string, e int) (render.FormatSpace, dom.Rect, error) {
	if format == FormatHTML {
		e = dom.WholePage
	}
	win := p.Tree.Window(e)
	switch format {
	case FormatPlaywrightAI:
		fs, err := render.AISnapshot(p.Snapshot, p.AXTree, p.Oracle, win)
		if err != nil {
			return fs, win, fmt.Errorf("render %s: %w", format, err)
		}
		return fs, win, nil
	case FormatAXTree:
		return render.AXTree(p.AXTree, p.Oracle, win), win, nil
	case FormatHTML:
		return render.HTML(p.HTML), win, nil
	case FormatBrowserUse:
		fs := render.BrowserUse(p.Tree, p.Oracle, render.BrowserUseOptions{Expansion: e})
		fs.Text = render.BrowserUseWrap(p.Tree, e, fs.Text)
		if strings.HasPrefix(fs.Text, "[Start of page]\n") {
			shiftLines(&fs, 1)
		}
		return fs, win, nil
	}
	return render.FormatSpace{}, win, fmt.Errorf("render %s: not a format of its own renderer", format)
}
