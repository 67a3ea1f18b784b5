package dom

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// CaptureVersion is the version of the capture record format that [Script]
// produces and [Parse] reads.
const CaptureVersion = 1

// Defaults for [ScriptOptions].
const (
	DefaultMaxNodes  = 200000
	DefaultAttrCap   = 200
	DefaultTextCap   = 2000
	DefaultOptionCap = 50
)

// ScriptOptions bound the work and output size of the capture script.
type ScriptOptions struct {
	// MaxNodes stops the walk after this many nodes; the capture is then
	// marked truncated. Zero means DefaultMaxNodes.
	MaxNodes int `json:"maxNodes"`
	// AttrCap caps every attribute value, in characters.
	AttrCap int `json:"attrCap"`
	// TextCap caps every text node, in characters.
	TextCap int `json:"textCap"`
	// OptionCap caps the option labels recorded per <select>.
	OptionCap int `json:"optionCap"`
	// ExactOcclusion hit-tests every element whose occlusion is measured.
	// By default the script skips the hit tests that cannot find another
	// element on top (no other box holds the element's centre), which on
	// large pages are most of them and each costs time in proportion to
	// the page; the answer is the same. Tests set it to prove that.
	ExactOcclusion bool `json:"exactOcclusion,omitempty"`
}

// DefaultScriptOptions returns the options the crawler uses.
func DefaultScriptOptions() ScriptOptions {
	return ScriptOptions{MaxNodes: DefaultMaxNodes, AttrCap: DefaultAttrCap, TextCap: DefaultTextCap, OptionCap: DefaultOptionCap}
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
	Truncated      bool    `json:"truncated"`
	// CrossOriginFrames is the number of iframes whose documents the
	// script could not read (Node.CrossOrigin runs from 1 to it), and
	// FramesStitched how many of them were captured through their own
	// frame and stitched in (see [Stitch]).
	CrossOriginFrames int `json:"frames,omitempty"`
	FramesStitched    int `json:"stitched,omitempty"`
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
	// Topmost is nil when occlusion was not measured (the element's centre
	// lies outside the real viewport), 1 when the element (or its label or
	// descendant) is topmost at its centre, 0 when something else covers it.
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
	}
	return nil
}
