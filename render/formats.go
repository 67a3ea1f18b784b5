package render

import (
	"actionspace/dom"
	"actionspace/oracle"
)

// FormatSpace is a space rendered in a format other than actionspace: the
// text an agent reads and what its handles cover.
type FormatSpace struct {
	// Text is the rendered text.
	Text string
	// Handles is the number of handles in Text: refs of the AI snapshot,
	// node ids of the accessibility tree, none for HTML.
	Handles int
	// Matched is how many of the handles stand for an oracle element;
	// Handles - Matched are the extra handles.
	Matched int
	// Handled tells, per oracle element (Oracle.Elements), whether it got
	// a handle in Text; nil when no oracle was given.
	Handled []bool
	// HandleLines are the lines of Text (0-based) that hold a handle, one
	// entry per handle, ascending.
	HandleLines []int
	// HandledLine is, per oracle element, the line of Text that holds its
	// handle, -1 when it has none; nil when no oracle was given.
	HandledLine []int
	// HandleNodes are, per handle (in the order of HandleLines), the node
	// of the record that holds it: the capture element for browser-use,
	// the AI snapshot's line (axtree.ParseSnapshot) for playwright-ai, the
	// accessibility tree's node for axtree. What the handle names across steps is decided from
	// them (docs/handles.md).
	HandleNodes []int
}

// Prefix describes the first n lines of Text, as CutFromEnd keeps them:
// the handles they hold and, per oracle element, whether its handle is
// among them (nil when no oracle was given). What a prefix holds only
// grows with n: the baseline's recall never falls as its budget grows.
func (f FormatSpace) Prefix(n int) (handles int, handled []bool) {
	for _, l := range f.HandleLines {
		if l < n {
			handles++
		}
	}
	if f.HandledLine != nil {
		handled = make([]bool, len(f.HandledLine))
		for k, l := range f.HandledLine {
			handled[k] = l >= 0 && l < n
		}
	}
	return handles, handled
}

// Score scores the space against o in the window it was rendered for.
func (f FormatSpace) Score(o *oracle.Oracle, win dom.Rect) oracle.Score {
	return o.ScoreHandled(win, f.Handled, f.Handles, f.Matched)
}
