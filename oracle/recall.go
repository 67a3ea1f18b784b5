package oracle

import (
	"strings"

	"actionspace/dom"
)

// Miss reasons beyond the view's own exclusions (dom.Exclusion): the
// element has no capture element to stand for it.
const (
	// NotCaptured: no capture element was found for it (a frame the
	// capture did not reach, a closed shadow root, a node budget spent, or
	// geometry that matched nothing).
	NotCaptured = "not_captured"
)

// Score is the recall of one rendered space against the oracle.
type Score struct {
	// InWindow is the number of oracle elements whose box meets the
	// space's window (oracle_in_window).
	InWindow int
	// Handled is how many of them got a handle in the space.
	Handled int
	// Handles is the number of handles the space has (IDs, refs, node
	// ids), and Extra how many of them stand for no oracle element
	// (extra_handles).
	Handles, Extra int
}

// Recall returns Handled / InWindow, and false when no oracle element is
// in the window (recall is then undefined: store null).
func (s Score) Recall() (float64, bool) {
	if s.InWindow == 0 {
		return 0, false
	}
	return float64(s.Handled) / float64(s.InWindow), true
}

// Miss is an oracle element inside a space's window that got no handle,
// and why: a row a table can hold.
type Miss struct {
	// Element is the index in Oracle.Elements.
	Element int
	Role    string
	Name    string
	Box     dom.Rect
	// Capture is the capture element it was tied to (-1 for none).
	Capture int
	// Reason is a dom.Exclusion value (outside_window, occluded,
	// modal_backdrop, nested, hidden, disabled, not_interactive) or
	// NotCaptured.
	Reason string
}

// Extra is a handle of a space that stands for no oracle element, and
// why the capture thought it interactive: a row a table can hold.
type Extra struct {
	// ID is the handle ("M3").
	ID string
	// Capture is the element's index in the capture.
	Capture int
	Tag     string
	Role    string
	// Reason is the element's strongest interactivity signal, in the
	// capture's order: tag, editable, role, tabindex, handler, cursor,
	// haspopup, label.
	Reason string
	// Signals are all of them, comma-separated.
	Signals string
}

// Result is the recall of an actionspace view with its misses and extra
// handles.
type Result struct {
	Score  Score
	Misses []Miss
	Extras []Extra
	// Handled tells, per element (Oracle.Elements), whether it got a
	// handle in the view, inside its window or not.
	Handled []bool
	// Reasons says, per element without a handle, why: the view's
	// exclusion of its capture element (outside_window for an element
	// whose box misses the window), or NotCaptured; "" for the handled.
	Reasons []string
}

// InWindow returns the indices of the elements whose box meets win.
func (o *Oracle) InWindow(win dom.Rect) []int {
	var out []int
	for k := range o.Elements {
		if o.Elements[k].Box.Intersects(win) {
			out = append(out, k)
		}
	}
	return out
}

// ScoreHandled scores a space of another format: handled[k] tells whether
// oracle element k got a handle, handles is how many handles the space
// has and matched how many of those stand for an oracle element.
func (o *Oracle) ScoreHandled(win dom.Rect, handled []bool, handles, matched int) Score {
	s := Score{Handles: handles, Extra: handles - matched}
	for _, k := range o.InWindow(win) {
		s.InWindow++
		if k < len(handled) && handled[k] {
			s.Handled++
		}
	}
	return s
}

// View scores an actionspace view (fast or deep mode: the IDs are the
// same). An oracle element is handled when its capture element has an ID,
// or a label of it does (the label stands for its control). Misses carry
// the view's reason; extra handles are IDs that stand for no oracle
// element (see StandsFor).
func (o *Oracle) View(v *dom.View) Result {
	nodes := v.Tree.Capture.Nodes
	var kept []int
	for _, it := range v.Items {
		if it.IsAction() {
			kept = append(kept, it.Node)
		}
	}
	has := withLabels(nodes, kept)
	res := Result{Handled: make([]bool, len(o.Elements)), Reasons: make([]string, len(o.Elements))}
	why := v.Why()
	for k := range o.Elements {
		e := &o.Elements[k]
		in := e.Box.Intersects(v.Window)
		if in {
			res.Score.InWindow++
		}
		if e.Capture >= 0 && has[e.Capture] {
			res.Handled[k] = true
			if in {
				res.Score.Handled++
			}
			continue
		}
		reason := NotCaptured
		switch {
		case !in:
			reason = string(dom.OutsideWindow)
		case e.Capture >= 0:
			reason = string(why[e.Capture])
		}
		res.Reasons[k] = reason
		if in {
			res.Misses = append(res.Misses, Miss{Element: k, Role: e.Role, Name: e.Name, Box: e.Box, Capture: e.Capture, Reason: reason})
		}
	}
	for _, it := range v.Items {
		if !it.IsAction() {
			continue
		}
		res.Score.Handles++
		if len(o.StandsFor(nodes, it.Node)) > 0 {
			continue
		}
		res.Score.Extra++
		nd := &nodes[it.Node]
		res.Extras = append(res.Extras, Extra{
			ID: it.ID, Capture: it.Node, Tag: nd.Tag, Role: it.Role,
			Reason: ExtraReason(nd), Signals: strings.Join(nd.Signals, ","),
		})
	}
	return res
}

// StandsFor returns the oracle elements capture element i stands for: those
// tied to it, or, for a label of a control, those tied to the control. A
// handle on an element that stands for none is an extra handle.
func (o *Oracle) StandsFor(nodes []dom.Node, i int) []int {
	if k := o.byCapture[i]; len(k) > 0 {
		return k
	}
	if nd := &nodes[i]; nd.Tag == "label" && nd.LabelFor > 0 {
		return o.byCapture[nd.LabelFor]
	}
	return nil
}

// ExtraReason is why the capture found an element interactive, as an extra
// handle reports it: its strongest signal, in the capture's order (tag,
// editable, role, tabindex, handler, cursor, haspopup, label); "" for none.
func ExtraReason(nd *dom.Node) string {
	if len(nd.Signals) > 0 {
		return nd.Signals[0]
	}
	return ""
}

// withLabels returns the capture elements that kept, the capture elements
// with a handle, stand for: each of them and, for a label, the control it
// labels (a label stands for its control).
func withLabels(nodes []dom.Node, kept []int) map[int]bool {
	has := make(map[int]bool, len(kept))
	for _, i := range kept {
		has[i] = true
		if nd := &nodes[i]; nd.Tag == "label" && nd.LabelFor > 0 {
			has[nd.LabelFor] = true
		}
	}
	return has
}

// Kept tells, per element (Elements), whether it got a handle in a space
// whose handles are the capture elements kept (indexes into tree's
// capture, as render.BudgetSpace.Kept lists them): by the rule View
// applies, a label standing for its control. The result feeds
// ScoreHandled, for any window.
func (o *Oracle) Kept(tree *dom.Tree, kept []int) []bool {
	has := withLabels(tree.Capture.Nodes, kept)
	out := make([]bool, len(o.Elements))
	for k := range o.Elements {
		if c := o.Elements[k].Capture; c >= 0 && has[c] {
			out[k] = true
		}
	}
	return out
}
