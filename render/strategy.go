package render

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"actionspace/dom"
)

// This file holds the rendering strategies a view's options switch on
// (docs/strategies.md): grouping runs of same-shaped siblings
// (dom.Options.Group) and coarse positions (dom.Options.Layout). Neither
// changes which elements get IDs, nor the IDs: only the text.

// strategic reports whether the view's options ask for a strategy that
// changes how lines are written.
func strategic(o dom.Options) bool { return o.Group > 0 || o.Layout == dom.LayoutCoarse }

// writeStrategic writes the view's lines as writeLines does, with the
// groups of o.Group folded and, under dom.LayoutCoarse, each ID's
// position.
func writeStrategic(b *strings.Builder, v *dom.View) {
	nodes := v.Tree.Capture.Nodes
	var groups []dom.Group
	if v.Options.Group > 0 {
		groups = v.Groups(v.Options.Group, func(it dom.Item) string { return lineKey(&nodes[it.Node], it) })
	}
	coarse := v.Options.Layout == dom.LayoutCoarse
	for k, g := 0, 0; k < len(v.Items); {
		if g < len(groups) {
			if from, to := groups[g].Span(); from == k {
				// A group folds only when that is shorter than its
				// lines written plain (a run of two short links is not).
				var folded, plain strings.Builder
				writeGroup(&folded, v, groups[g], coarse)
				for _, it := range v.Items[from:to] {
					writeItem(&plain, nodes, it, defaultCaps, coarse)
				}
				if folded.Len() < plain.Len() {
					b.WriteString(folded.String())
				} else {
					b.WriteString(plain.String())
				}
				k, g = to, g+1
				continue
			}
		}
		writeItem(b, nodes, v.Items[k], defaultCaps, coarse)
		k++
	}
}

// lineKey is what a line's kind is to grouping: a context line is text;
// an action is its role, tag and the names of the attributes its line
// shows. Two siblings whose lines have the same keys (and tag paths) are
// of the same shape.
func lineKey(nd *dom.Node, it dom.Item) string {
	if !it.IsAction() {
		return "text"
	}
	var b strings.Builder
	b.WriteString(it.Role)
	b.WriteByte(' ')
	b.WriteString(nd.Tag)
	for _, name := range keptAttrs {
		if _, ok := attrValue(nd, name); ok {
			b.WriteByte(' ')
			b.WriteString(name)
		}
	}
	return b.String()
}

// slot is one line of a group's template: the k-th line of every sibling.
type slot struct {
	action bool
	// tag and names are an action's tag and shown attribute names.
	tag   string
	names []string
	// values[i][a] is sibling i's value of attribute a; texts[i] its text
	// (an action's text, or the context line).
	values [][]string
	texts  []string
}

// copies reports whether the attribute a (-1: the text) of slot s holds,
// in every sibling, the value of the same attribute (or the text) of
// slot p, the previous action slot: it is then written "^" and left out
// of the item lines.
func (s *slot) copies(p *slot, a int) bool {
	if p == nil {
		return false
	}
	pa := -1
	if a >= 0 {
		pa = slices.Index(p.names, s.names[a])
		if pa < 0 {
			return false
		}
	}
	for i := range s.texts {
		if a < 0 && s.texts[i] != p.texts[i] || a >= 0 && s.values[i][a] != p.values[i][pa] {
			return false
		}
	}
	return true
}

// varies reports whether the attribute a (-1: the text) differs between
// siblings.
func (s *slot) varies(a int) bool {
	for i := 1; i < len(s.texts); i++ {
		if a < 0 && s.texts[i] != s.texts[0] || a >= 0 && s.values[i][a] != s.values[0][a] {
			return true
		}
	}
	return false
}

// writeGroup writes a group: a header line naming the siblings' shape
// once, each attribute value and text that differs between them written
// "*" ("^" when it repeats, in every sibling, the same attribute or text
// of the previous action slot), then one line per sibling holding, in
// template order, the ID of each of its actions and the values written
// "*" (docs/strategies.md, "Grouping").
func writeGroup(b *strings.Builder, v *dom.View, g dom.Group, coarse bool) {
	nodes := v.Tree.Capture.Nodes
	n := g.Items[0][1] - g.Items[0][0]
	slots := make([]slot, n)
	for s := range slots {
		first := v.Items[g.Items[0][0]+s]
		sl := &slots[s]
		sl.action = first.IsAction()
		if sl.action {
			nd := &nodes[first.Node]
			sl.tag = nd.Tag
			for _, name := range keptAttrs {
				if _, ok := attrValue(nd, name); ok {
					sl.names = append(sl.names, name)
				}
			}
		}
		for _, r := range g.Items {
			it := v.Items[r[0]+s]
			if !sl.action {
				sl.texts = append(sl.texts, truncate(it.Text, MaxText))
				continue
			}
			nd := &nodes[it.Node]
			vals := make([]string, len(sl.names))
			for a, name := range sl.names {
				val, _ := attrValue(nd, name)
				vals[a] = strings.ReplaceAll(truncate(val, MaxAttrValue), `"`, "&quot;")
			}
			sl.values = append(sl.values, vals)
			if nd.Tag == "select" {
				sl.texts = append(sl.texts, selectText(nd))
			} else {
				sl.texts = append(sl.texts, truncate(it.Text, MaxText))
			}
		}
	}
	// prev[s] is the action slot before slot s (nil for none).
	prev := make([]*slot, len(slots))
	var last *slot
	for s := range slots {
		prev[s] = last
		if slots[s].action {
			last = &slots[s]
		}
	}
	// own reports whether slot s writes attribute a (-1: the text) per
	// item: it differs between siblings and copies no earlier slot.
	own := func(s, a int) bool { return slots[s].varies(a) && !slots[s].copies(prev[s], a) }
	// The header.
	b.WriteString("=[:]")
	b.WriteString(strconv.Itoa(len(g.Children)))
	b.WriteString(" × <")
	b.WriteString(nodes[g.Children[0]].Tag)
	b.WriteString(">:")
	for s := range slots {
		sl := &slots[s]
		if s > 0 {
			b.WriteString(" |")
		}
		b.WriteByte(' ')
		field := func(a int) string {
			switch {
			case sl.varies(a) && sl.copies(prev[s], a):
				return "^"
			case sl.varies(a):
				return "*"
			}
			if a < 0 {
				return sl.texts[0]
			}
			return sl.values[0][a]
		}
		if !sl.action {
			b.WriteString(field(-1))
			continue
		}
		b.WriteByte('<')
		b.WriteString(sl.tag)
		for a, name := range sl.names {
			b.WriteByte(' ')
			b.WriteString(name)
			if sl.values[0][a] == "" && !sl.varies(a) && (name == "checked" || name == "selected") {
				continue
			}
			b.WriteString(`="`)
			b.WriteString(field(a))
			b.WriteByte('"')
		}
		b.WriteByte('>')
		b.WriteString(field(-1))
		b.WriteString("</")
		b.WriteString(sl.tag)
		b.WriteByte('>')
	}
	b.WriteByte('\n')
	// One line per sibling.
	for i, r := range g.Items {
		first := true
		for s := range slots {
			sl := &slots[s]
			var parts []string
			if sl.action {
				it := v.Items[r[0]+s]
				id := it.ID
				if coarse {
					id += position(&nodes[it.Node])
				}
				parts = append(parts, id)
				for a := range sl.names {
					if own(s, a) {
						parts = append(parts, shown(sl.values[i][a]))
					}
				}
			}
			if own(s, -1) {
				parts = append(parts, shown(sl.texts[i]))
			}
			if len(parts) == 0 {
				continue
			}
			if !first {
				b.WriteString(" | ")
			}
			first = false
			b.WriteString(strings.Join(parts, " "))
		}
		b.WriteByte('\n')
	}
}

// shown is how an item line writes a value that differs: as it is, or
// "" when it is empty (so that the slots stay countable).
func shown(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// position is the coarse position dom.LayoutCoarse adds to an ID: the
// centre of the element's box in hundreds of CSS pixels of page
// coordinates, " @x,y".
func position(nd *dom.Node) string {
	r := nd.Rect
	x := int(math.Round((r[0] + r[2]/2) / 100))
	y := int(math.Round((r[1] + r[3]/2) / 100))
	return " @" + strconv.Itoa(x) + "," + strconv.Itoa(y)
}

// strategyNote is what the perception wrapper's viewport line adds for
// the strategies in o: nothing for the defaults.
func strategyNote(o dom.Options) string {
	var s string
	if o.Group > 0 {
		s += ", group " + strconv.Itoa(o.Group)
	}
	if o.Layout == dom.LayoutCoarse {
		s += ", layout coarse"
	}
	if o.Only != "" && o.Only != dom.FilterAll {
		s += ", only " + string(o.Only)
	}
	return s
}
