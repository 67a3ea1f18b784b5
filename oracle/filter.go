package oracle

import "actionspace/dom"

// ScoreFilter scores a space against the oracle elements a view's element
// filter keeps (dom.Filter.Keeps of the element's role): of those whose
// box meets win, how many handled (per element, as Result.Handled holds
// it) marks. An element filter asks for a subset of the page's actions;
// this is the recall of that subset, beside the recall against all of
// them, which the filter lowers by design.
func (o *Oracle) ScoreFilter(win dom.Rect, handled []bool, f dom.Filter) Score {
	var s Score
	for k := range o.Elements {
		e := &o.Elements[k]
		if !f.Keeps(e.Role) || !e.Box.Intersects(win) {
			continue
		}
		s.InWindow++
		if k < len(handled) && handled[k] {
			s.Handled++
		}
	}
	return s
}
