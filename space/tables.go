package space

import (
	"strings"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/oracle"
	"actionspace/render"
)

// Tables returns the page's rows of the elements and oracle tables (see
// dataset.ElementRow and dataset.OracleRow), keyed by runID, pageID and
// url: its elements interactive by our rules, with what decides whether a
// window gives them an ID and whether they stand for an oracle element;
// and its oracle elements, with what they were tied to and why the fast
// action space of the whole page gave them no handle. Without an oracle
// the oracle rows are none and the elements' oracle columns null.
func (p *Page) Tables(runID, pageID, url string) ([]dataset.ElementRow, []dataset.OracleRow) {
	t := p.Tree
	nodes := t.Capture.Nodes
	// The IDs do not depend on the text policy: none is the cheapest.
	v := t.Select(dom.Options{Expansion: dom.WholePage, Text: dom.TextNone})
	why := v.Why()
	items := make(map[int]dom.Item, len(v.Items))
	for _, it := range v.Items {
		if it.IsAction() {
			items[it.Node] = it
		}
	}
	var elements []dataset.ElementRow
	for i := range nodes {
		if !t.Interactive(i) {
			continue
		}
		nd := &nodes[i]
		it, hasID := items[i]
		r := dataset.ElementRow{
			RunID: runID, PageID: pageID, URL: url,
			Element: int64(i), Tag: nd.Tag, Role: t.Role(i), Name: render.ActionName(nd, it.Text),
			Locator: t.Locator(i), X: nd.Rect[0], Y: nd.Rect[1], Width: nd.Rect[2], Height: nd.Rect[3],
			Frame: int64(nd.Frame), Shadow: nd.Shadow == 1, Occluded: nd.Occluded(), Nested: t.Nested(i),
			InModal: t.InModal(i), Signals: strings.Join(nd.Signals, ","),
		}
		if nd.Tag == "label" && nd.LabelFor > 0 {
			r.LabelFor = ptr(int64(nd.LabelFor))
		}
		if e := t.EntryExpansion(i); e >= 0 {
			r.OutsidePX = ptr(int64(e))
		}
		if hasID {
			r.WholePageID = ptr(it.ID)
		} else {
			r.WholePageExclusion = string(why[i])
		}
		if p.Oracle != nil {
			if k := p.Oracle.StandsFor(nodes, i); len(k) > 0 {
				r.OracleElement = ptr(int64(k[0]))
			} else {
				r.ExtraReason = ptr(oracle.ExtraReason(nd))
			}
		}
		elements = append(elements, r)
	}
	if p.Oracle == nil {
		return elements, nil
	}
	res := p.Oracle.View(v)
	rows := make([]dataset.OracleRow, len(p.Oracle.Elements))
	for k, e := range p.Oracle.Elements {
		r := dataset.OracleRow{
			RunID: runID, PageID: pageID, URL: url,
			Element: int64(k), Role: e.Role, Name: e.Name,
			X: e.Box[0], Y: e.Box[1], Width: e.Box[2], Height: e.Box[3],
			Frame: int64(e.Depth), QualifiedBy: e.Why, InWholePage: e.Box.Intersects(v.Window),
			MatchedBy: e.MatchedBy,
		}
		if x := t.BoxExpansion(e.Box); x >= 0 {
			r.OutsidePX = ptr(int64(x))
		}
		if e.Capture >= 0 {
			r.CaptureElement = ptr(int64(e.Capture))
		}
		if reason := res.Reasons[k]; reason != "" {
			r.MissReason = ptr(reason)
		}
		probeColumns(&r, p.Oracle, &e)
		rows[k] = r
	}
	return elements, rows
}

// probeColumns sets an oracle row's actionable-now columns from element
// e's probe answer.
func probeColumns(r *dataset.OracleRow, o *oracle.Oracle, e *oracle.Element) {
	switch {
	case o.Probe() == "":
		r.ActionableSkipped = dataset.SkippedNotProbed
	case e.Actionable != nil:
		r.Actionable = ptr(*e.Actionable)
		if !*e.Actionable {
			r.CoveringTag, r.CoveringRole = ptr(e.CoverTag), ptr(e.CoverRole)
		}
	case e.ProbeWhy != "":
		r.ActionableSkipped = e.ProbeWhy
	default:
		r.ActionableSkipped = NotCandidate
	}
}

// NotCandidate is the oracle table's actionable_skipped for an element
// the probe did not ask about: off screen under the viewport probe.
const NotCandidate = "not_candidate"
