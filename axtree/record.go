package axtree

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"actionspace/dom"
)

// Version is the version of the [Record] and [Snapshot] formats that
// [Parse] and [ParseSnapshotRecord] read.
const Version = 1

// Record is the accessibility tree of one page state, every frame
// included. Nodes are in pre-order: a node's parent has a smaller index,
// and a frame's tree follows its Iframe node.
type Record struct {
	Version int `json:"version"`
	// Frames lists the frames, the main frame first; a frame's parent
	// comes before it.
	Frames []Frame `json:"frames"`
	Nodes  []Node  `json:"nodes"`
	// Match says how the nodes' capture indices were resolved.
	Match Match `json:"match"`
	// Probe is the actionable-now probe of the oracle's elements (see
	// Probe); nil when none was taken.
	Probe *Probe `json:"probe,omitempty"`
}

// Match describes the DOM-identity resolution of [Node.Capture].
type Match struct {
	// Method names how capture elements were tied to backend DOM nodes
	// ("ordinal": each captured element's position among the elements of
	// its document, computed in the capture's world and in the browser's
	// DOM snapshot); empty when no capture was matched.
	Method string `json:"method,omitempty"`
	// Elements is the number of captured elements that were looked up,
	// Resolved how many of them were found in the DOM snapshot with the
	// same tag, and Mismatched how many were found with another tag (the
	// page changed in between; those are left unresolved).
	Elements   int `json:"elements"`
	Resolved   int `json:"resolved"`
	Mismatched int `json:"mismatched,omitempty"`
}

// Frame is one frame of the page.
type Frame struct {
	// ID is the browser's frame id (not stable across loads).
	ID string `json:"id"`
	// Parent is the index of the parent frame; -1 for the main frame.
	Parent int    `json:"parent"`
	URL    string `json:"url"`
	// Origin is where the frame's viewport's top-left corner lies, in page
	// coordinates: a box relative to this frame's viewport moves by it. For
	// the main frame it is the page's scroll offset.
	Origin [2]float64 `json:"origin"`
	// Scroll is the frame document's own scroll offset.
	Scroll [2]float64 `json:"scroll"`
	// Box is the frame element's border box in page coordinates; nil for
	// the main frame.
	Box *dom.Rect `json:"box,omitempty"`
	// Owner is the index of the frame's Iframe node in Nodes; -1 for the
	// main frame, or when the parent's tree has no node for the element.
	Owner int `json:"owner"`
	// Root is the index of the frame's root node (RootWebArea) in Nodes;
	// -1 when its tree could not be taken (see Missing).
	Root int `json:"root"`
	// OutOfProcess marks a frame rendered in a process of its own, reached
	// through its own session.
	OutOfProcess bool `json:"oop,omitempty"`
	// Missing says why the frame's tree is not in the record; empty when
	// it is.
	Missing string `json:"missing,omitempty"`
}

// Node is one accessibility node.
type Node struct {
	// Parent is the index of the parent node; -1 for the main root. A
	// frame's root has its Iframe node as parent.
	Parent int `json:"p"`
	// Role is Chromium's role: an ARIA role ("button", "link") or an
	// internal one ("RootWebArea", "StaticText", "Iframe").
	Role  string `json:"role"`
	Name  string `json:"name,omitempty"`
	Value string `json:"val,omitempty"`
	// Password marks a password input's node: its value (Chromium's mask,
	// as long as the password) and the text below it are not recorded.
	Password bool `json:"pw,omitempty"`
	// Ignored marks a node left out of the accessibility tree that
	// assistive technology sees (not rendered, aria-hidden, presentational
	// …); IgnoredWhy holds the reasons Chromium gave.
	Ignored    bool     `json:"ig,omitempty"`
	IgnoredWhy []string `json:"igw,omitempty"`
	// Props are the node's accessibility properties in Chromium's order,
	// as name and value strings ("focusable" "true", "level" "2",
	// "checked" "mixed").
	Props [][2]string `json:"props,omitempty"`
	// Backend is the backend DOM node id (0 when the node has none); it
	// names the DOM node within one renderer process and one load only.
	Backend int `json:"be,omitempty"`
	// Tag is the DOM node's lower-case name ("button", "#text"); empty when
	// the DOM node was not found in the DOM snapshot.
	Tag string `json:"tag,omitempty"`
	// TabIndex is the element's tabindex attribute as written; nil when it
	// has none.
	TabIndex *string `json:"ti,omitempty"`
	// Box is the DOM node's border box in page coordinates (CSS pixels);
	// nil when it has no layout box (not rendered).
	Box *dom.Rect `json:"box,omitempty"`
	// Frame is the index of the frame the node belongs to.
	Frame int `json:"f,omitempty"`
	// Capture is the index of the capture element this node's DOM node is,
	// resolved by DOM identity in the browser; -1 when unresolved.
	Capture int `json:"c"`
}

// FrameDepths returns how many frames deep each of r's frames is (0 for
// the main frame), by their Parent links.
func (r *Record) FrameDepths() []int {
	depth := make([]int, len(r.Frames))
	for i, f := range r.Frames {
		if f.Parent >= 0 && f.Parent < i {
			depth[i] = depth[f.Parent] + 1
		}
	}
	return depth
}

// Prop returns the value of the named property and whether it is present.
func (n *Node) Prop(name string) (string, bool) {
	for _, p := range n.Props {
		if p[0] == name {
			return p[1], true
		}
	}
	return "", false
}

// Is reports whether the named boolean property is present and true.
func (n *Node) Is(name string) bool {
	v, ok := n.Prop(name)
	return ok && v == "true"
}

// TabIndexValue returns the element's tabindex as an integer and whether
// it has a valid one (HTML's rules: an optional sign and digits, leading
// space allowed, trailing junk ignored).
func (n *Node) TabIndexValue() (int, bool) {
	if n.TabIndex == nil {
		return 0, false
	}
	s := *n.TabIndex
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	j := i
	if j < len(s) && (s[j] == '-' || s[j] == '+') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == j {
		return 0, false
	}
	v, err := strconv.Atoi(s[i:k])
	if err != nil {
		return 0, false
	}
	return v, true
}

// Children returns every node's children, in order.
func (r *Record) Children() [][]int {
	kids := make([][]int, len(r.Nodes))
	for i := range r.Nodes {
		if p := r.Nodes[i].Parent; p >= 0 {
			kids[p] = append(kids[p], i)
		}
	}
	return kids
}

// ErrMalformed is returned for records that do not form a consistent tree.
var ErrMalformed = errors.New("malformed accessibility record")

// Parse decodes and checks a record.
func Parse(data []byte) (*Record, error) {
	r := &Record{}
	if err := json.Unmarshal(data, r); err != nil {
		return nil, fmt.Errorf("decode accessibility record: %w", err)
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return r, nil
}

// Decode reads and parses a record.
func Decode(rd io.Reader) (*Record, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read accessibility record: %w", err)
	}
	return Parse(data)
}

// Encode writes r as JSON.
func (r *Record) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode accessibility record: %w", err)
	}
	return nil
}

// Check reports the first inconsistency: a wrong version, a parent that
// does not come first, a frame or capture index out of range, a frame
// whose owner or root is not a node of it.
func (r *Record) Check() error {
	if r.Version != Version {
		return fmt.Errorf("%w: version %d, want %d", ErrMalformed, r.Version, Version)
	}
	if len(r.Frames) == 0 && len(r.Nodes) > 0 {
		return fmt.Errorf("%w: nodes without frames", ErrMalformed)
	}
	for i, f := range r.Frames {
		if f.Parent >= i || f.Parent < -1 || (f.Parent == -1) != (i == 0) {
			return fmt.Errorf("%w: frame %d has parent %d", ErrMalformed, i, f.Parent)
		}
		if f.Owner < -1 || f.Owner >= len(r.Nodes) || f.Root < -1 || f.Root >= len(r.Nodes) {
			return fmt.Errorf("%w: frame %d has owner %d, root %d", ErrMalformed, i, f.Owner, f.Root)
		}
		if f.Root >= 0 && r.Nodes[f.Root].Frame != i {
			return fmt.Errorf("%w: frame %d has root node %d of frame %d", ErrMalformed, i, f.Root, r.Nodes[f.Root].Frame)
		}
		if f.Owner >= 0 && r.Nodes[f.Owner].Frame != f.Parent {
			return fmt.Errorf("%w: frame %d has owner node %d outside its parent frame", ErrMalformed, i, f.Owner)
		}
	}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		if n.Parent >= i || n.Parent < -1 || (n.Parent == -1 && i != 0) {
			return fmt.Errorf("%w: node %d has parent %d", ErrMalformed, i, n.Parent)
		}
		if n.Frame < 0 || n.Frame >= len(r.Frames) {
			return fmt.Errorf("%w: node %d has frame %d", ErrMalformed, i, n.Frame)
		}
		if n.Capture < -1 {
			return fmt.Errorf("%w: node %d has capture index %d", ErrMalformed, i, n.Capture)
		}
	}
	if r.Probe != nil {
		for _, h := range r.Probe.Hits {
			if h.Node < 0 || h.Node >= len(r.Nodes) {
				return fmt.Errorf("%w: probe of node %d", ErrMalformed, h.Node)
			}
		}
	}
	return nil
}
