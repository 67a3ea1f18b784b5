package dom

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

//go:embed capture.js
var captureJS string

// Script returns the source of the capture script: a JavaScript function
// expression that takes [ScriptOptions] and returns the capture record as a
// JSON string. Callers evaluate it once per page, ideally in an isolated
// world so that the page's own scripts cannot change its results.
func Script() string { return captureJS }

// FramesGlobal is the global variable, in the world the capture script ran
// in, that holds the cross-origin iframe elements it met, in the order of
// [Node.CrossOrigin]. The browser adapter reads it to find each frame.
const FramesGlobal = "__actionspaceFrames"

// NodesGlobal is the global variable, in the world the capture script ran
// in, that holds the DOM node of every record entry: element i of the
// array is the node of [Capture.Nodes][i]. The browser adapter reads it to
// tie the accessibility tree's DOM nodes to the capture's elements.
const NodesGlobal = "__actionspaceNodes"

// SecretsGlobal is the global variable, in the world the capture script
// ran in, that holds what the page's password and hidden inputs held and
// the record leaves out: {values: [[kind, value]…], passwords: n}, kind
// "p" (password) or "h" (hidden), each value once (see [SecretValue]).
// The browser adapter reads it to scrub those values from the other
// records of the page state ([Secrets]); it never enters a record.
const SecretsGlobal = "__actionspaceSecrets"

// CaptureVersion is the version of the capture record format that [Script]
// produces and [Parse] reads.
const CaptureVersion = 1

// Defaults for [ScriptOptions].
const (
	DefaultMaxNodes  = 200000
	DefaultMaxChars  = 8000000
	DefaultAttrCap   = 200
	DefaultMaxAttrs  = 64
	DefaultNameCap   = 100
	DefaultTextCap   = 2000
	DefaultOptionCap = 50
	DefaultTitleCap  = 1000
	DefaultURLCap    = 8192
	// DefaultMaxSecrets is the default of ScriptOptions.MaxSecrets: a
	// page has a handful of password and hidden inputs; the bound keeps a
	// hostile page from making the scrub of its records slow.
	DefaultMaxSecrets = 256
)

// ScriptOptions bound the work and output size of the capture script:
// every size the page decides has a cap here, and [PageInfo.Capped] names
// the caps a capture hit. Lengths are in characters (UTF-16 code units, as
// JavaScript counts them). Zero means the field's default.
type ScriptOptions struct {
	// MaxNodes stops the walk after this many nodes; the capture is then
	// marked truncated ([CapNodes]). Zero means DefaultMaxNodes.
	MaxNodes int `json:"maxNodes"`
	// MaxChars stops the walk once the strings recorded (texts, tag and
	// attribute names, values, option labels) hold this many characters;
	// the capture is then marked truncated ([CapChars]). With MaxNodes it
	// bounds the size of the record. Zero means DefaultMaxChars.
	MaxChars int `json:"maxChars"`
	// AttrCap caps every attribute value, form control value and option
	// label ([CapValues]). Zero means DefaultAttrCap.
	AttrCap int `json:"attrCap"`
	// MaxAttrs caps the attributes recorded per element ([CapAttributes]);
	// past it only the attributes the renderer and the locators read (id,
	// role, type, name, href, value, aria-label …) are still recorded.
	// Zero means DefaultMaxAttrs.
	MaxAttrs int `json:"maxAttrs"`
	// NameCap drops attributes whose name is longer and cuts longer tag
	// names ([CapNames], [Node.TagCut]). Zero means DefaultNameCap.
	NameCap int `json:"nameCap"`
	// TextCap caps every text node ([CapText]). Zero means DefaultTextCap.
	TextCap int `json:"textCap"`
	// OptionCap caps the option labels and the selected indices recorded
	// per <select> ([CapOptions]); the option count is always recorded.
	// Zero means DefaultOptionCap.
	OptionCap int `json:"optionCap"`
	// TitleCap caps the document title ([CapTitle]). Zero means
	// DefaultTitleCap.
	TitleCap int `json:"titleCap"`
	// URLCap caps the page URL ([CapURL]). Zero means DefaultURLCap.
	URLCap int `json:"urlCap"`
	// MaxSecrets bounds the values of password and hidden inputs the
	// script keeps aside for the scrub ([SecretsGlobal]); their characters
	// count against MaxChars apart from the record's. Past either bound
	// the rest are not kept ([CapSecrets]): they are still left out of the
	// capture, the HTML and the accessibility records by structure, but not
	// scrubbed from the page's other text. Zero means DefaultMaxSecrets.
	MaxSecrets int `json:"maxSecrets"`
	// ExactOcclusion hit-tests every element whose occlusion is measured.
	// By default the script skips the hit tests that cannot find another
	// element on top (no other box holds the element's centre), which on
	// large pages are most of them and each costs time in proportion to
	// the page; the answer is the same. Tests set it to prove that.
	ExactOcclusion bool `json:"exactOcclusion,omitempty"`
}

// DefaultScriptOptions returns the options the crawler uses.
func DefaultScriptOptions() ScriptOptions {
	return ScriptOptions{
		MaxNodes: DefaultMaxNodes, MaxChars: DefaultMaxChars,
		AttrCap: DefaultAttrCap, MaxAttrs: DefaultMaxAttrs, NameCap: DefaultNameCap,
		TextCap: DefaultTextCap, OptionCap: DefaultOptionCap,
		TitleCap: DefaultTitleCap, URLCap: DefaultURLCap, MaxSecrets: DefaultMaxSecrets,
	}
}

// Validate reports a negative field, naming it.
func (o ScriptOptions) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{
		{"MaxNodes", o.MaxNodes}, {"MaxChars", o.MaxChars}, {"AttrCap", o.AttrCap},
		{"MaxAttrs", o.MaxAttrs}, {"NameCap", o.NameCap}, {"TextCap", o.TextCap},
		{"OptionCap", o.OptionCap}, {"TitleCap", o.TitleCap}, {"URLCap", o.URLCap},
		{"MaxSecrets", o.MaxSecrets},
	} {
		if f.v < 0 {
			return fmt.Errorf("capture option %s is %d: want 0 (the default) or more", f.name, f.v)
		}
	}
	return nil
}

// KeptAttributes returns the attributes the capture records of every
// element that has them, even past [ScriptOptions.MaxAttrs]: those the
// roles, the renderers and the locators read. (capture.js holds the same
// list; a test keeps them in step.)
func KeptAttributes() []string {
	return []string{"id", "role", "type", "name", "href", "src", "alt", "title", "value", "placeholder",
		"aria-label", "aria-expanded", "aria-checked", "aria-selected", "checked", "selected", "multiple",
		"size", "list", "action"}
}

// Caps a capture can hit, as [PageInfo.Capped] names them, in the order it
// lists them.
const (
	CapURL        = "url"        // the page URL was cut at URLCap
	CapTitle      = "title"      // the title was cut at TitleCap
	CapAttributes = "attributes" // an element had more than MaxAttrs attributes
	CapNames      = "names"      // an attribute name or tag name was longer than NameCap
	CapValues     = "values"     // a value or option label was cut at AttrCap
	CapText       = "text"       // a text node was cut at TextCap
	CapOptions    = "options"    // a select had more than OptionCap options or selections
	CapNodes      = "nodes"      // the walk stopped at MaxNodes (or a frame was left out for it)
	CapChars      = "chars"      // the walk stopped at MaxChars
	CapFrames     = "frames"     // cross-origin frames were left out: more than the crawler captures per page, or nested deeper than it follows
	CapSecrets    = "secrets"    // more password and hidden values than MaxSecrets (or MaxChars characters of them): the rest are not scrubbed from the page's text
)

// capOrder is the order of [PageInfo.Capped].
var capOrder = []string{CapURL, CapTitle, CapAttributes, CapNames, CapValues, CapText, CapOptions, CapNodes, CapChars, CapFrames, CapSecrets}

// Cap records in p that the cap named c was hit, keeping Capped in its
// order. Nodes and chars also mark the capture truncated.
func (p *PageInfo) Cap(c string) {
	if c == CapNodes || c == CapChars {
		p.Truncated = true
	}
	if slices.Contains(p.Capped, c) {
		return
	}
	p.Capped = append(p.Capped, c)
	slices.SortFunc(p.Capped, func(a, b string) int {
		return cmp.Compare(capRank(a), capRank(b))
	})
}

// capRank is the position of c in capOrder (unknown names last).
func capRank(c string) int {
	if i := slices.Index(capOrder, c); i >= 0 {
		return i
	}
	return len(capOrder)
}

// Capture is one page as the capture script saw it.
type Capture struct {
	Version int      `json:"version"`
	Page    PageInfo `json:"page"`
	Nodes   []Node   `json:"nodes"`
}

// PageInfo is the page-level part of a capture. Lengths are CSS pixels.
type PageInfo struct {
	URL            string  `json:"url"`
	Title          string  `json:"title"`
	ViewportWidth  float64 `json:"vw"`
	ViewportHeight float64 `json:"vh"`
	ScrollX        float64 `json:"sx"`
	ScrollY        float64 `json:"sy"`
	DocWidth       float64 `json:"dw"`
	DocHeight      float64 `json:"dh"`
	DPR            float64 `json:"dpr"`
	Quirks         bool    `json:"quirks"`
	Elements       int     `json:"elements"`
	Texts          int     `json:"texts"`
	// Truncated is set when the walk did not reach the whole page: it
	// stopped at MaxNodes or MaxChars, or a frame was left out because the
	// node budget was spent.
	Truncated bool `json:"truncated"`
	// Chars is the number of characters of the strings the record holds
	// (what [ScriptOptions.MaxChars] counts).
	Chars int `json:"chars,omitempty"`
	// Capped names the caps the capture hit (Cap* constants, in their
	// order); empty when nothing was cut.
	Capped []string `json:"capped,omitempty"`
	// CrossOriginFrames is the number of iframes whose documents the
	// script could not read (Node.CrossOrigin runs from 1 to it), and
	// FramesStitched how many of them were captured through their own
	// frame and stitched in (see [Stitch]).
	CrossOriginFrames int `json:"frames,omitempty"`
	FramesStitched    int `json:"stitched,omitempty"`
	// Doc identifies the document the capture saw (a random token the
	// capture script keeps in its isolated world, which lives as long as
	// the document): two captures with the same Doc are of one document,
	// and their elements' keys ([Node.Key]) compare. Empty in captures
	// made before keys existed.
	Doc string `json:"doc,omitempty"`
	// Time is when the capture ran, in Unix milliseconds (the page's clock).
	Time float64 `json:"time"`
	// ScriptMs is the capture script's own run time.
	ScriptMs float64 `json:"ms"`
}

// Node kinds, as in the DOM's nodeType.
const (
	ElementNode = 1
	TextNode    = 3
)

// Rect is x, y, width, height in page coordinates (CSS pixels).
type Rect [4]float64

// Intersects reports whether r and o overlap with a positive area.
func (r Rect) Intersects(o Rect) bool {
	return r[2] > 0 && r[3] > 0 && o[2] > 0 && o[3] > 0 && r[0] < o[0]+o[2] && o[0] < r[0]+r[2] && r[1] < o[1]+o[3] && o[1] < r[1]+r[3]
}

// Node is one element or text node. Field names are short because a large
// page holds hundreds of thousands of them; integer flags are 0 or 1.
type Node struct {
	Kind   int    `json:"k"`
	Parent int    `json:"p"`
	Tag    string `json:"tag,omitempty"`
	// TagCut marks a tag name cut at [ScriptOptions.NameCap].
	TagCut int `json:"tc,omitempty"`
	// Foreign marks an element outside the HTML namespace (SVG, MathML).
	Foreign int `json:"x,omitempty"`
	// Attrs are all attributes in source order, each value capped. Password
	// values are never recorded.
	Attrs [][2]string `json:"a,omitempty"`
	// Text is a text node's text (capped).
	Text string `json:"t,omitempty"`
	Rect Rect   `json:"r"`
	// ClipRect is the part of Rect left visible by scrollable ancestors
	// (overflow auto/scroll) cut to their boxes; nil when nothing cuts it.
	// Content scrolled out of a scroll box is not on screen, but scrolling
	// the box (not the page) brings it back: the window test uses ClipRect,
	// except for the whole page. Boxes that cannot scroll (overflow hidden)
	// make an element invisible instead.
	ClipRect *Rect `json:"cr,omitempty"`
	// Visible: for an element, rendered with a non-zero size and not hidden
	// from users (aria-hidden, hidden, inert); for a text node, rendered with
	// a non-zero box.
	Visible bool `json:"v"`
	// HiddenTree marks an element that is not rendered (display, visibility,
	// opacity): nothing below it is.
	HiddenTree int `json:"h,omitempty"`
	// AriaHidden marks an element in an aria-hidden, hidden or inert subtree.
	AriaHidden int `json:"ah,omitempty"`
	// Signals are the reasons the element looks interactive: tag, editable,
	// role, tabindex, handler, cursor, haspopup, label.
	Signals []string `json:"s,omitempty"`
	// Disabled says why the element is disabled: disabled, aria-disabled,
	// inert, cursor; empty when enabled.
	Disabled string `json:"d,omitempty"`
	// Topmost is nil when occlusion was not measured (the centre of the
	// element's box lies outside the real viewport), 1 when the element
	// (or its label, ancestor or descendant) is topmost at the point a
	// click lands on, 0 when something else covers it. The point is the
	// centre of the visible part (inside the viewport, without its scroll
	// bars) of the element's first box fragment that shows at least a
	// pixel each way: the actionable-now probe's point.
	Topmost *int `json:"o,omitempty"`
	// Frame is the nesting depth of the frame holding the node (0 = top).
	Frame int `json:"f,omitempty"`
	// Shadow marks nodes inside a shadow root.
	Shadow int `json:"sh,omitempty"`
	// Block marks elements whose display is not inline.
	Block int `json:"b,omitempty"`
	// LabelFor is the node index of the control a <label> labels (0 = none;
	// the root element is never a control).
	LabelFor int `json:"lc,omitempty"`
	// Modal marks a visible modal dialog.
	Modal int `json:"m,omitempty"`
	// Checked is the checked state of a checkbox or radio (nil otherwise).
	Checked *int `json:"c,omitempty"`
	// Value is the current value of a text-like control, as typed or set by
	// script (never for passwords).
	Value string `json:"val,omitempty"`
	// Select boxes: option count, the first option labels, selected indices.
	OptionCount int      `json:"on,omitempty"`
	Options     []string `json:"os,omitempty"`
	Selected    []int    `json:"si,omitempty"`
	// CrossOrigin marks an iframe whose document could not be read here:
	// it is the frame's 1-based position among such frames, in document
	// order, and its index+1 in the FramesGlobal list the script leaves
	// behind.
	CrossOrigin int `json:"fx,omitempty"`
	// FrameBox is a rendered cross-origin frame's content box (its
	// viewport) in page coordinates, and FrameClip the part of it that
	// ancestors which cannot scroll leave visible: what [Stitch] offsets
	// and clips the frame's own capture by.
	FrameBox  *Rect `json:"fb,omitempty"`
	FrameClip *Rect `json:"fc,omitempty"`

	// What [Tree.Locator] needs besides the tree:
	//
	// UniqueID marks an element whose id attribute (recorded whole) no
	// other element of its document or shadow root carries.
	UniqueID int `json:"u,omitempty"`
	// ShadowHost marks an element whose open shadow root was walked: its
	// children in the record are the shadow root's.
	ShadowHost int `json:"hs,omitempty"`
	// LightParent, for an element a slot shows, is the node index of its
	// parent in the DOM (a shadow host; the record's parent is the slot),
	// and LightPos its 1-based position among that parent's children with
	// the same tag. Zero for other elements.
	LightParent int `json:"lp,omitempty"`
	LightPos    int `json:"lk,omitempty"`
	// TreeIndex is the 1-based position of the element among all elements
	// of its document or shadow root, in tree order: the XPath (//*)[k]. It
	// is recorded for elements with signals, shadow hosts and frames, the
	// elements a locator ends at.
	TreeIndex int `json:"ti,omitempty"`

	// Element identity across captures of one document:
	//
	// Key is the element's key in its document, given by the capture
	// script the first time it meets the element and kept in its isolated
	// world, so a later capture of the same document gives the same
	// element the same key, and never gives it to another element. Keys
	// start at 1; 0 means none (text nodes, captures made before keys
	// existed). See [Tree.Identity].
	Key int `json:"key,omitempty"`
	// KeyDoc is the document (see [PageInfo.Doc]) Key belongs to, when
	// it is not the capture's own: the elements of a cross-origin frame
	// stitched in ([Stitch]) carry their frame document's token.
	KeyDoc string `json:"kd,omitempty"`
}

// Attr returns the value of the named attribute and whether it is present.
func (n *Node) Attr(name string) (string, bool) {
	for _, a := range n.Attrs {
		if a[0] == name {
			return a[1], true
		}
	}
	return "", false
}

// Occluded reports whether occlusion was measured and something covered
// the element's centre.
func (n *Node) Occluded() bool { return n.Topmost != nil && *n.Topmost == 0 }

// ErrMalformed is returned for capture records that do not decode into a
// consistent tree.
var ErrMalformed = errors.New("malformed capture")

// Parse decodes a capture record and checks that it forms a tree. Records
// as the capture script writes them take a fast path; anything else is
// decoded by encoding/json, with the same result.
func Parse(data []byte) (*Capture, error) {
	c, ok := decodeFast(data)
	if !ok {
		c = &Capture{}
		if err := json.Unmarshal(data, c); err != nil {
			return nil, fmt.Errorf("decode capture: %w", err)
		}
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// Decode reads and parses a capture record.
func Decode(r io.Reader) (*Capture, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read capture: %w", err)
	}
	return Parse(data)
}

func (c *Capture) check() error {
	if c.Version != CaptureVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrMalformed, c.Version, CaptureVersion)
	}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Parent >= i || n.Parent < -1 || (n.Parent == -1 && i != 0) {
			return fmt.Errorf("%w: node %d has parent %d", ErrMalformed, i, n.Parent)
		}
		if n.Kind != ElementNode && n.Kind != TextNode {
			return fmt.Errorf("%w: node %d has kind %d", ErrMalformed, i, n.Kind)
		}
		if n.Parent >= 0 && c.Nodes[n.Parent].Kind != ElementNode {
			return fmt.Errorf("%w: node %d has a text parent", ErrMalformed, i)
		}
		if n.LabelFor < 0 || n.LabelFor >= len(c.Nodes) {
			return fmt.Errorf("%w: node %d labels node %d", ErrMalformed, i, n.LabelFor)
		}
		if n.LightParent < 0 || (n.LightParent > 0 && (n.LightParent >= i || c.Nodes[n.LightParent].Kind != ElementNode)) {
			return fmt.Errorf("%w: node %d has light parent %d", ErrMalformed, i, n.LightParent)
		}
	}
	return nil
}
