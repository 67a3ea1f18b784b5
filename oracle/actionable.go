package oracle

import (
	"actionspace/axtree"
	"actionspace/dom"
)

// applyProbe sets the elements' actionable-now answers from the record's
// probe (see axtree.Probe).
func (o *Oracle) applyProbe() {
	pr := o.Record.Probe
	if pr == nil {
		return
	}
	byNode := make(map[int]*axtree.Hit, len(pr.Hits))
	for k := range pr.Hits {
		byNode[pr.Hits[k].Node] = &pr.Hits[k]
	}
	for k := range o.Elements {
		e := &o.Elements[k]
		h := byNode[e.Node]
		if h == nil {
			continue
		}
		if h.Reached != nil {
			v := *h.Reached
			e.Actionable = &v
		}
		e.ProbeWhy, e.CoverTag, e.CoverRole = h.Why, h.Tag, h.Role
	}
}

// Probe returns the mode of the page's actionable-now probe
// (axtree.ProbeViewport or axtree.ProbeAll); "" when none was taken.
func (o *Oracle) Probe() string {
	if o.Record.Probe == nil {
		return ""
	}
	return o.Record.Probe.Mode
}

// ActionableScore is a space's recall against the actionable-now oracle:
// the oracle elements that the probe found a pointer event reaches.
type ActionableScore struct {
	// InWindow is the number of those elements whose box meets the
	// space's window (actionable_in_window); elements the probe did not
	// test (off screen under the viewport probe, past its cap) are not
	// among them.
	InWindow int
	// Handled is how many of them got a handle in the space.
	Handled int
}

// Recall returns Handled / InWindow, and false when InWindow is 0.
func (s ActionableScore) Recall() (float64, bool) {
	if s.InWindow == 0 {
		return 0, false
	}
	return float64(s.Handled) / float64(s.InWindow), true
}

// Actionable scores a space whose handles are handled (per element, as
// ScoreHandled takes them) against the actionable-now oracle in window
// win; ok is false when the page has no probe.
func (o *Oracle) Actionable(win dom.Rect, handled []bool) (s ActionableScore, ok bool) {
	if o.Record.Probe == nil {
		return s, false
	}
	for k := range o.Elements {
		e := &o.Elements[k]
		if e.Actionable == nil || !*e.Actionable || !e.Box.Intersects(win) {
			continue
		}
		s.InWindow++
		if k < len(handled) && handled[k] {
			s.Handled++
		}
	}
	return s, true
}
