package render

import (
	"strconv"
	"strings"

	"actionspace/axtree"
	"actionspace/dom"
	"actionspace/oracle"
)

// axIgnoredProps are the accessibility properties the axtree format does
// not print, as WebArena and BrowserGym leave them out.
var axIgnoredProps = map[string]bool{
	"focusable": true, "editable": true, "readonly": true, "level": true,
	"settable": true, "multiline": true, "invalid": true,
}

// axFlagProps are printed by name alone when true, and not at all when
// false.
var axFlagProps = map[string]bool{"focused": true, "required": true, "atomic": true}

// AXTree renders the axtree format: the accessibility tree flattened the
// way WebArena and BrowserGym show it to agents, one node per line,
// indented by a tab per level:
//
//	[id] role 'name', value='…', prop=value, flag
//
// The id is the node's backend DOM node id, on every node that is an
// element (text and the document root have none). Ignored nodes, and
// generic nodes without a name, are not printed (their children move up);
// a StaticText node is left out when its parent's name already holds its
// text. The tree is restricted to the window win like the AI snapshot: a
// node is printed when its box meets the window, with its printed
// ancestors for structure; a node without a box goes with its parent.
// With an oracle o, Handled marks the oracle elements whose node got an
// id.
func AXTree(rec *axtree.Record, o *oracle.Oracle, win dom.Rect) FormatSpace {
	nodes := rec.Nodes
	n := len(nodes)
	// show[i]: the node is printed, if it is kept; up[i]: the nearest
	// printed ancestor.
	show := make([]bool, n)
	up := make([]int, n)
	for i := range nodes {
		nd := &nodes[i]
		up[i] = -1
		if p := nd.Parent; p >= 0 {
			if show[p] {
				up[i] = p
			} else {
				up[i] = up[p]
			}
		}
		show[i] = !nd.Ignored && !(nd.Role == "generic" && strings.TrimSpace(nd.Name) == "") && nd.Role != "none"
		if nd.Role == "StaticText" && up[i] >= 0 && strings.Contains(nodes[up[i]].Name, strings.TrimSpace(nd.Name)) {
			show[i] = false
		}
	}
	keep := make([]bool, n)
	for i := range nodes {
		if nodes[i].Box == nil || !show[i] || !nodes[i].Box.Intersects(win) {
			continue
		}
		for j := i; j >= 0 && !keep[j]; j = up[j] {
			keep[j] = true
		}
	}
	for i := range nodes {
		if show[i] && nodes[i].Box == nil && (up[i] < 0 || keep[up[i]]) {
			keep[i] = true
		}
	}
	depth := make([]int, n)
	isOracle := make([]int, n)
	for i := range isOracle {
		isOracle[i] = -1
	}
	var sp FormatSpace
	if o != nil {
		sp.Handled = make([]bool, len(o.Elements))
		sp.HandledLine = make([]int, len(o.Elements))
		for k, e := range o.Elements {
			isOracle[e.Node] = k
			sp.HandledLine[k] = -1
		}
	}
	var b strings.Builder
	written := 0 // lines written
	for i := range nodes {
		nd := &nodes[i]
		if up[i] >= 0 {
			depth[i] = depth[up[i]] + 1
		}
		if !keep[i] {
			continue
		}
		for range depth[i] {
			b.WriteByte('\t')
		}
		if nd.Backend != 0 && nd.Tag != "" && nd.Tag != "#text" && nd.Tag != "#document" {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(nd.Backend))
			b.WriteString("] ")
			sp.Handles++
			sp.HandleLines = append(sp.HandleLines, written)
			sp.HandleNodes = append(sp.HandleNodes, i)
			if k := isOracle[i]; k >= 0 {
				sp.Handled[k] = true
				sp.HandledLine[k] = written
				sp.Matched++
			}
		}
		b.WriteString(nd.Role)
		b.WriteByte(' ')
		b.WriteString(pyQuote(strings.TrimSpace(nd.Name)))
		if nd.Value != "" {
			b.WriteString(", value=")
			b.WriteString(pyQuote(nd.Value))
		}
		for _, p := range nd.Props {
			switch {
			case axIgnoredProps[p[0]]:
			case axFlagProps[p[0]]:
				if p[1] == "true" {
					b.WriteString(", ")
					b.WriteString(p[0])
				}
			default:
				b.WriteString(", ")
				b.WriteString(p[0])
				b.WriteByte('=')
				b.WriteString(propValue(p[1]))
			}
		}
		b.WriteByte('\n')
		written++
	}
	sp.Text = b.String()
	return sp
}

// pyQuote quotes s the way Python's repr quotes a string (which is how
// WebArena and BrowserGym print names): single quotes, or double quotes
// when s holds a single quote and no double quote; backslashes, the
// chosen quote and control characters escaped.
func pyQuote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatInt(int64(r)+0x100, 16)[1:])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// propValue prints a property value as Python would print the value
// BrowserGym reads: True and False for booleans, numbers bare, strings
// quoted.
func propValue(v string) string {
	switch v {
	case "true":
		return "True"
	case "false":
		return "False"
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return v
	}
	return pyQuote(v)
}
