package dom

// Exclusion says why an element got no ID in a view: which of the view's
// rules (docs/perception.md) left it out. The oracle reports its misses
// with it.
type Exclusion string

// Exclusions, in the order the rules apply: the first that holds is the
// one reported.
const (
	// Included: the element has an ID in the view.
	Included Exclusion = ""
	// NotInteractive: no interactivity signal (tag, role, tabindex,
	// handler, cursor, editable, popup, label).
	NotInteractive Exclusion = "not_interactive"
	// Disabled: interactive, but disabled by the capture's rules
	// (disabled, aria-disabled, inert, a not-allowed or wait cursor).
	Disabled Exclusion = "disabled"
	// Hidden: interactive and enabled, but not visible by the capture's
	// rules (not rendered, zero size, aria-hidden, hidden, inert, cut away
	// by a box that cannot scroll).
	Hidden Exclusion = "hidden"
	// Occluded: another element covers the point a click lands on, the
	// centre of the visible part of its first box fragment (tested only
	// when the centre of its box is inside the real viewport).
	Occluded Exclusion = "occluded"
	// OutsideWindow: its box, as far as scroll boxes and frames leave it
	// visible, does not meet the view's window.
	OutsideWindow Exclusion = "outside_window"
	// Nested: inside an interactive element and not a distinct control.
	Nested Exclusion = "nested"
	// LabelOfControl: a label whose control has an ID of its own.
	LabelOfControl Exclusion = "label_of_control"
	// Filtered: of a kind the view's element filter (Options.Only) drops.
	Filtered Exclusion = "filtered"
	// ModalBackdrop: behind a modal dialog that holds the view's IDs.
	ModalBackdrop Exclusion = "modal_backdrop"
	// NotElement: a text node.
	NotElement Exclusion = "not_element"
)

// Why returns, for every node of the view's capture, why it got no ID
// ([Included] for those that have one). It applies the rules of
// [Tree.Select] in the same order.
func (v *View) Why() []Exclusion {
	t := v.Tree
	nodes := t.Capture.Nodes
	out := make([]Exclusion, len(nodes))
	emitted := make([]bool, len(nodes))
	for _, it := range v.Items {
		if it.IsAction() {
			emitted[it.Node] = true
		}
	}
	for i := range nodes {
		nd := &nodes[i]
		switch {
		case nd.Kind != ElementNode:
			out[i] = NotElement
		case emitted[i]:
			out[i] = Included
		case len(nd.Signals) == 0:
			out[i] = NotInteractive
		case nd.Disabled != "":
			out[i] = Disabled
		case !nd.Visible:
			out[i] = Hidden
		case nd.Occluded():
			out[i] = Occluded
		case !inWindow(nd, v.Window, v.Options.Expansion):
			out[i] = OutsideWindow
		case t.Nested(i):
			out[i] = Nested
		case !v.Options.Only.Keeps(t.kindRole(i)):
			out[i] = Filtered
		case nd.Tag == "label" && nd.LabelFor > 0 && emitted[nd.LabelFor]:
			out[i] = LabelOfControl
		default:
			out[i] = ModalBackdrop
		}
	}
	return out
}
