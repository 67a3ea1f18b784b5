package oracle

import (
	"math"
	"sort"

	"actionspace/axtree"
	"actionspace/dom"
)

// WidgetRoles are the roles that make a node an action by themselves.
var WidgetRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true,
	"combobox": true, "listbox": true, "option": true, "checkbox": true,
	"radio": true, "switch": true, "tab": true, "menuitem": true,
	"menuitemcheckbox": true, "menuitemradio": true, "slider": true,
	"spinbutton": true, "treeitem": true,
}

// rootRoles are the document and frame roots, which never count.
var rootRoles = map[string]bool{"RootWebArea": true, "WebArea": true, "Iframe": true, "IframePresentational": true}

// Why an accessibility node is an oracle element.
const (
	// ByRole: it has a widget role.
	ByRole = "role"
	// ByFocus: it is keyboard-focusable: focusable, and not taken out of
	// the tab order by a negative tabindex.
	ByFocus = "focusable"
)

// How an element was tied to the capture.
const (
	// ByIdentity: the browser resolved the node's DOM node to the capture
	// element (axtree.Node.Capture), and the tags agree.
	ByIdentity = "identity"
	// ByGeometry: the capture element in the same frame whose box
	// overlaps the node's most, the roles agreeing first.
	ByGeometry = "geometry"
)

// MinOverlap is the least intersection-over-union of boxes that geometry
// matching accepts.
const MinOverlap = 0.5

// Element is one actionable element of a page state.
type Element struct {
	// Node is the element's index in the record.
	Node int
	Role string
	Name string
	// Box is its border box in page coordinates.
	Box dom.Rect
	// Frame is the record's frame index; Depth how many frames deep it is
	// (0 in the main frame), which the capture's Node.Frame also counts.
	Frame, Depth int
	// Why is ByRole or ByFocus.
	Why string
	// Capture is the capture element it is, -1 when none was found;
	// MatchedBy says how (ByIdentity, ByGeometry, or "").
	Capture   int
	MatchedBy string
	// Geometry is the element geometry matching would pick (-1 for none),
	// kept beside an identity match so that the two can be compared.
	Geometry int
	// Actionable is the actionable-now probe's answer (see
	// axtree.Probe): true when a pointer event at the centre of the
	// element's visible box reaches it, false when another element covers
	// it, nil when it was not tested (ProbeWhy says why, or the page has
	// no probe, or the element was not a candidate: off screen under the
	// viewport probe). CoverTag and CoverRole name the covering element.
	Actionable          *bool
	ProbeWhy            string
	CoverTag, CoverRole string
}

// Oracle is the actionable elements of one page state, by a definition
// that does not use the capture's rules: accessibility nodes with a widget
// role, or keyboard-focusable, that are not ignored, hidden or disabled,
// with a non-empty box; document and frame roots never count.
type Oracle struct {
	Record   *axtree.Record
	Elements []Element
	// byCapture maps a capture element to the oracle elements tied to it.
	byCapture map[int][]int
}

// New applies the definition to rec and, when tree is not nil, ties every
// element to the capture's elements: by DOM identity where the record
// resolved it, by frame, box and role otherwise.
func New(rec *axtree.Record, tree *dom.Tree) *Oracle {
	o := &Oracle{Record: rec, byCapture: map[int][]int{}}
	depth := rec.FrameDepths()
	for i := range rec.Nodes {
		n := &rec.Nodes[i]
		why := qualifies(n)
		if why == "" {
			continue
		}
		o.Elements = append(o.Elements, Element{
			Node: i, Role: n.Role, Name: n.Name, Box: *n.Box,
			Frame: n.Frame, Depth: depth[n.Frame], Why: why,
			Capture: -1, Geometry: -1,
		})
	}
	if tree != nil {
		o.match(tree)
	}
	o.applyProbe()
	return o
}

// qualifies returns why node n is an oracle element, or "".
func qualifies(n *axtree.Node) string {
	if n.Ignored || rootRoles[n.Role] || n.Is("hidden") || n.Is("disabled") {
		return ""
	}
	if n.Box == nil || n.Box[2] <= 0 || n.Box[3] <= 0 {
		return ""
	}
	if WidgetRoles[n.Role] {
		return ByRole
	}
	if n.Is("focusable") {
		if ti, ok := n.TabIndexValue(); !ok || ti >= 0 {
			return ByFocus
		}
	}
	return ""
}

// match ties the elements to capture elements.
func (o *Oracle) match(tree *dom.Tree) {
	nodes := tree.Capture.Nodes
	grid := newGrid(nodes)
	for k := range o.Elements {
		e := &o.Elements[k]
		e.Geometry = o.geometry(tree, grid, e)
		if c := byDOM(o.Record, tree, e.Node); c >= 0 {
			e.Capture, e.MatchedBy = c, ByIdentity
		} else if e.Geometry >= 0 {
			e.Capture, e.MatchedBy = e.Geometry, ByGeometry
		}
		if e.Capture >= 0 {
			o.byCapture[e.Capture] = append(o.byCapture[e.Capture], k)
		}
	}
}

// geometry picks the capture element for e (see closest), comparing
// the capture's roles (dom's table) with Chromium's.
func (o *Oracle) geometry(tree *dom.Tree, g *grid, e *Element) int {
	nodes := tree.Capture.Nodes
	return closest(e, g, func(i int) (dom.Rect, int, bool) {
		return nodes[i].Rect, nodes[i].Frame, sameRole(tree.Role(i), e.Role)
	})
}

// closest returns, among the items g holds near e's box, the one in e's
// frame depth whose box overlaps e's best: an item whose role agrees
// first, then the largest intersection over union, then the later item
// (the inner one, in document order); -1 when none reaches MinOverlap.
// item(i) gives an item's box, frame depth and whether its role agrees.
func closest(e *Element, g *grid, item func(i int) (box dom.Rect, depth int, role bool)) int {
	best, bestRole, bestIoU := -1, false, 0.0
	for _, i := range g.near(e.Box) {
		box, depth, role := item(i)
		if depth != e.Depth {
			continue
		}
		iou := IoU(box, e.Box)
		if iou < MinOverlap {
			continue
		}
		switch {
		case best < 0, role && !bestRole:
		case role != bestRole:
			continue
		case iou > bestIoU+1e-9:
		case iou >= bestIoU-1e-9 && i > best:
		default:
			continue
		}
		best, bestRole, bestIoU = i, role, iou
	}
	return best
}

// sameRole reports whether the capture's role for an element (dom's
// table: explicit, else implicit by tag) and Chromium's agree.
func sameRole(capture, ax string) bool {
	if capture == ax {
		return true
	}
	switch ax {
	case "generic", "":
		return capture == ""
	case "image":
		return capture == "img"
	case "DisclosureTriangle":
		return capture == "button"
	}
	return false
}

// IoU is the intersection over union of two boxes (0 when either is
// empty).
func IoU(a, b dom.Rect) float64 {
	if a[2] <= 0 || a[3] <= 0 || b[2] <= 0 || b[3] <= 0 {
		return 0
	}
	w := math.Min(a[0]+a[2], b[0]+b[2]) - math.Max(a[0], b[0])
	h := math.Min(a[1]+a[3], b[1]+b[3]) - math.Max(a[1], b[1])
	if w <= 0 || h <= 0 {
		return 0
	}
	inter := w * h
	return inter / (a[2]*a[3] + b[2]*b[3] - inter)
}

// gridCell is the side of the cells the geometry index sorts boxes into.
const gridCell = 256

// grid indexes the capture's element boxes by the cells they cover.
type grid struct {
	cells map[[2]int][]int
}

func newGrid(nodes []dom.Node) *grid {
	g := &grid{cells: map[[2]int][]int{}}
	for i := range nodes {
		nd := &nodes[i]
		if nd.Kind != dom.ElementNode || nd.Rect[2] <= 0 || nd.Rect[3] <= 0 {
			continue
		}
		g.add(i, nd.Rect)
	}
	return g
}

// add indexes item i by the cells its box r covers.
func (g *grid) add(i int, r dom.Rect) {
	x0, y0, x1, y1 := cellSpan(r)
	if (x1-x0+1)*(y1-y0+1) > 4096 {
		// A huge box (a page-wide wrapper): one cell is enough to find it
		// from its corner; it can only match a huge node.
		x1, y1 = x0, y0
	}
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			g.cells[[2]int{x, y}] = append(g.cells[[2]int{x, y}], i)
		}
	}
}

func cellSpan(r dom.Rect) (x0, y0, x1, y1 int) {
	return int(math.Floor(r[0] / gridCell)), int(math.Floor(r[1] / gridCell)),
		int(math.Floor((r[0] + r[2]) / gridCell)), int(math.Floor((r[1] + r[3]) / gridCell))
}

// near returns the elements sharing a cell with r, and those indexed by
// their corner only, in index order without repeats.
func (g *grid) near(r dom.Rect) []int {
	seen := map[int]bool{}
	var out []int
	x0, y0, x1, y1 := cellSpan(r)
	if (x1-x0+1)*(y1-y0+1) > 4096 {
		x1, y1 = x0, y0
	}
	for x := x0; x <= x1; x++ {
		for y := y0; y <= y1; y++ {
			for _, i := range g.cells[[2]int{x, y}] {
				if !seen[i] {
					seen[i] = true
					out = append(out, i)
				}
			}
		}
	}
	sort.Ints(out)
	return out
}

// Candidate is a handle of another format (an AI snapshot ref …), placed
// in the page: what [Oracle.Tie] compares with the elements.
type Candidate struct {
	Box  dom.Rect
	Role string
	// Depth is how many frames deep it is (0 in the main frame).
	Depth int
}

// Tie picks, for every element, the candidate that stands for it, the
// way geometry matching picks a capture element (see closest): at the
// same frame depth, with a box overlapping the element's by at least
// MinOverlap (intersection over union), one whose role is the element's
// first, then the largest overlap, then the later. It returns the
// candidate index per element, -1 for none. Several elements may pick the
// same candidate.
func (o *Oracle) Tie(cands []Candidate) []int {
	out := make([]int, len(o.Elements))
	g := &grid{cells: map[[2]int][]int{}}
	for i, c := range cands {
		if c.Box[2] > 0 && c.Box[3] > 0 {
			g.add(i, c.Box)
		}
	}
	for k := range o.Elements {
		e := &o.Elements[k]
		out[k] = closest(e, g, func(i int) (dom.Rect, int, bool) {
			return cands[i].Box, cands[i].Depth, cands[i].Role == e.Role
		})
	}
	return out
}
