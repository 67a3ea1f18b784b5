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
}

// Score scores the space against o in the window it was rendered for.
func (f FormatSpace) Score(o *oracle.Oracle, win dom.Rect) oracle.Score {
	return o.ScoreHandled(win, f.Handled, f.Handles, f.Matched)
}
