package axtree

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"actionspace/dom"
)

// Snapshot is Playwright's AI snapshot of a page state
// (page.ariaSnapshot({mode: "ai", boxes: true})): YAML-like lines such as
// `- button "Submit" [ref=e12] [box=10,20,80,30]`, iframes' snapshots
// nested below their iframe line.
type Snapshot struct {
	Version int `json:"version"`
	// ScrollX and ScrollY are the main frame's scroll offsets when the
	// snapshot was taken: its boxes are relative to the viewport of the
	// node's frame (getBoundingClientRect), so a main-frame box moves by
	// them into page coordinates.
	ScrollX float64 `json:"sx"`
	ScrollY float64 `json:"sy"`
	// Text is the snapshot as Playwright returned it.
	Text string `json:"text"`
}

// ParseSnapshotRecord decodes and checks a stored snapshot.
func ParseSnapshotRecord(data []byte) (*Snapshot, error) {
	s := &Snapshot{}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("decode AI snapshot: %w", err)
	}
	if s.Version != Version {
		return nil, fmt.Errorf("%w: AI snapshot version %d, want %d", ErrMalformed, s.Version, Version)
	}
	return s, nil
}

// DecodeSnapshot reads and parses a stored snapshot.
func DecodeSnapshot(rd io.Reader) (*Snapshot, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read AI snapshot: %w", err)
	}
	return ParseSnapshotRecord(data)
}

// Encode writes s as JSON.
func (s *Snapshot) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("encode AI snapshot: %w", err)
	}
	return nil
}

// SnapKind says what a snapshot line is.
type SnapKind int

// Kinds of snapshot lines.
const (
	// SnapElement is a node: `- role "name" [attrs]`, maybe with inline
	// text or children.
	SnapElement SnapKind = iota
	// SnapText is a text child: `- text: …`.
	SnapText
	// SnapProp is a property of its parent: `- /url: …`, `- /placeholder: …`.
	SnapProp
)

// SnapNode is one line of a snapshot.
type SnapNode struct {
	Kind SnapKind
	// Depth is the indentation level (two spaces each); Parent the index of
	// the line this one is nested in, -1 at the top.
	Depth, Parent int
	// Role and Name of an element line ("" when it has no name); for a
	// property line, Role is the property's name ("url").
	Role, Name string
	// Ref is the element's handle ("e12", "f1e3" inside frames); empty
	// when it has none.
	Ref string
	// Box is the element's box as printed: CSS pixels, relative to the
	// viewport of the frame it is in; nil when none was printed.
	Box *dom.Rect
	// Attrs are the other bracketed attributes, as written without the
	// brackets ("checked", "level=2", "cursor=pointer").
	Attrs []string
	// Text is the inline text of an element line, a text line's text or a
	// property's value, unescaped.
	Text string
}

// ParseSnapshot reads the lines of a snapshot text. Line i of the text is
// node i of the result (empty lines excepted: the text has none).
func ParseSnapshot(text string) ([]SnapNode, error) {
	if text == "" {
		return nil, nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	out := make([]SnapNode, 0, len(lines))
	var stack []int // indices of the open lines, by depth
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		spaces := len(line) - len(trimmed)
		if spaces%2 != 0 || !strings.HasPrefix(trimmed, "- ") {
			return nil, fmt.Errorf("%w: AI snapshot line %d: %q", ErrMalformed, i+1, line)
		}
		depth := spaces / 2
		if depth > len(stack) {
			return nil, fmt.Errorf("%w: AI snapshot line %d is nested too deep", ErrMalformed, i+1)
		}
		stack = stack[:depth]
		n := SnapNode{Depth: depth, Parent: -1}
		if depth > 0 {
			n.Parent = stack[depth-1]
		}
		if err := parseSnapLine(trimmed[2:], &n); err != nil {
			return nil, fmt.Errorf("%w: AI snapshot line %d: %v", ErrMalformed, i+1, err)
		}
		out = append(out, n)
		stack = append(stack, i)
	}
	return out, nil
}

// parseSnapLine reads what follows "- " on a line.
func parseSnapLine(s string, n *SnapNode) error {
	key, rest, err := splitKey(s)
	if err != nil {
		return err
	}
	value := ""
	switch {
	case rest == "" || rest == ":":
	case strings.HasPrefix(rest, ": "):
		if value, err = unescapeValue(rest[2:]); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unexpected %q after the key", rest)
	}
	switch {
	case key == "text":
		n.Kind, n.Text = SnapText, value
		return nil
	case strings.HasPrefix(key, "/"):
		n.Kind, n.Role, n.Text = SnapProp, key[1:], value
		return nil
	}
	n.Kind, n.Text = SnapElement, value
	role, attrs, _ := strings.Cut(key, " ")
	n.Role = role
	attrs = strings.TrimLeft(attrs, " ")
	if strings.HasPrefix(attrs, `"`) {
		end := jsonStringEnd(attrs)
		if end < 0 {
			return fmt.Errorf("unterminated name in %q", key)
		}
		if err := json.Unmarshal([]byte(attrs[:end]), &n.Name); err != nil {
			return fmt.Errorf("name in %q: %v", key, err)
		}
		attrs = strings.TrimLeft(attrs[end:], " ")
	}
	for attrs != "" {
		if attrs[0] != '[' {
			return fmt.Errorf("unexpected %q in %q", attrs, key)
		}
		end := strings.IndexByte(attrs, ']')
		if end < 0 {
			return fmt.Errorf("unterminated attribute in %q", key)
		}
		a := attrs[1:end]
		attrs = strings.TrimLeft(attrs[end+1:], " ")
		switch {
		case strings.HasPrefix(a, "ref="):
			n.Ref = a[len("ref="):]
		case strings.HasPrefix(a, "box="):
			b, err := parseBox(a[len("box="):])
			if err != nil {
				return err
			}
			n.Box = &b
		default:
			n.Attrs = append(n.Attrs, a)
		}
	}
	return nil
}

// splitKey splits a line's content into its key (unquoted) and the rest
// ("", ":" or ": value"). A key that needs quoting is single-quoted, with
// ” for a quote; otherwise it cannot hold ": " nor end in ":".
func splitKey(s string) (key, rest string, err error) {
	if strings.HasPrefix(s, "'") {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] != '\'' {
				b.WriteByte(s[i])
				continue
			}
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), s[i+1:], nil
		}
		return "", "", fmt.Errorf("unterminated quoted key %q", s)
	}
	if i := strings.Index(s, ": "); i >= 0 {
		return s[:i], s[i:], nil
	}
	if k, ok := strings.CutSuffix(s, ":"); ok {
		return k, ":", nil
	}
	return s, "", nil
}

// jsonStringEnd returns the index just past the JSON string that s starts
// with, or -1.
func jsonStringEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// unescapeValue undoes Playwright's YAML value escaping: a double-quoted
// string with backslash escapes (\\ \" \b \f \n \r \t \xNN), or the bare
// value.
func unescapeValue(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	if len(s) < 2 || !strings.HasSuffix(s, `"`) {
		return "", fmt.Errorf("unterminated value %q", s)
	}
	s = s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			return "", fmt.Errorf("dangling escape in %q", s)
		}
		i++
		switch s[i] {
		case '\\', '"':
			b.WriteByte(s[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'x':
			if i+2 >= len(s) {
				return "", fmt.Errorf("short \\x escape in %q", s)
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("bad \\x escape in %q", s)
			}
			b.WriteRune(rune(v)) // a code point below 0x100, as JavaScript meant it
			i += 2
		default:
			return "", fmt.Errorf("unknown escape \\%c in %q", s[i], s)
		}
	}
	if !utf8.ValidString(b.String()) {
		return "", fmt.Errorf("invalid UTF-8 in %q", s)
	}
	return b.String(), nil
}

// parseBox reads "x,y,w,h".
func parseBox(s string) (dom.Rect, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return dom.Rect{}, fmt.Errorf("box %q: want x,y,width,height", s)
	}
	var r dom.Rect
	for i, p := range parts {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return dom.Rect{}, fmt.Errorf("box %q: %q is not a number", s, p)
		}
		r[i] = v
	}
	return r, nil
}

// SnapDepths returns how many frames deep each node is: 0 in the main
// frame's snapshot, one more below each iframe line.
func SnapDepths(nodes []SnapNode) []int {
	depth := make([]int, len(nodes))
	for i := range nodes {
		if p := nodes[i].Parent; p >= 0 {
			depth[i] = depth[p]
			if nodes[p].Kind == SnapElement && nodes[p].Role == "iframe" {
				depth[i]++
			}
		}
	}
	return depth
}

// PageBoxes places the snapshot's boxes in page coordinates. A box of the
// main frame moves by the snapshot's scroll offsets; a box inside an
// iframe's snapshot moves by that frame's viewport origin, found in rec by
// the iframe line's own box (the frame whose element box overlaps it
// most). Without rec, or when no frame matches, the iframe's own box
// corner stands in for the origin. Lines without a box get nil.
func PageBoxes(nodes []SnapNode, snap *Snapshot, rec *Record) []*dom.Rect {
	out := make([]*dom.Rect, len(nodes))
	// origin[i] is the page position of the viewport node i's box is
	// relative to; frame[i] the record frame it is in (-1 unknown).
	origin := make([][2]float64, len(nodes))
	frame := make([]int, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		if n.Parent < 0 {
			origin[i] = [2]float64{snap.ScrollX, snap.ScrollY}
			frame[i] = 0
			if rec == nil || len(rec.Frames) == 0 {
				frame[i] = -1
			}
		} else {
			origin[i], frame[i] = origin[n.Parent], frame[n.Parent]
			if p := &nodes[n.Parent]; p.Kind == SnapElement && p.Role == "iframe" {
				// n is in the iframe's own snapshot.
				origin[i], frame[i] = childOrigin(rec, out[n.Parent], frame[n.Parent])
			}
		}
		if n.Box != nil {
			b := dom.Rect{n.Box[0] + origin[i][0], n.Box[1] + origin[i][1], n.Box[2], n.Box[3]}
			out[i] = &b
		}
	}
	return out
}

// childOrigin finds the frame of rec, child of frame parent, whose element
// box best overlaps box, and returns its origin and index; without one,
// box's corner and -1.
func childOrigin(rec *Record, box *dom.Rect, parent int) ([2]float64, int) {
	if box == nil {
		return [2]float64{}, -1
	}
	best, bestArea := -1, 0.0
	if rec != nil && parent >= 0 {
		for i, f := range rec.Frames {
			if f.Parent != parent || f.Box == nil {
				continue
			}
			if a := overlap(*f.Box, *box); a > bestArea {
				best, bestArea = i, a
			}
		}
	}
	if best < 0 {
		return [2]float64{box[0], box[1]}, -1
	}
	return rec.Frames[best].Origin, best
}

// overlap is the area two rects share.
func overlap(a, b dom.Rect) float64 {
	w := math.Min(a[0]+a[2], b[0]+b[2]) - math.Max(a[0], b[0])
	h := math.Min(a[1]+a[3], b[1]+b[3]) - math.Max(a[1], b[1])
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// DropValues returns the snapshot text with the values of the element
// lines marked in drop taken out: a line's inline value (`- textbox
// "Password" [ref=e7]: hunter2` keeps `- textbox "Password" [ref=e7]`)
// and its text lines (`- text: …` nested right below it). nodes are the
// text's lines as [ParseSnapshot] read them; drop[i] marks node i. It
// returns the text and how many values it took out; every other line is
// kept byte for byte.
func DropValues(text string, nodes []SnapNode, drop []bool) (string, int) {
	if text == "" {
		return text, 0
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != len(nodes) {
		return text, 0
	}
	removed := 0
	gone := make([]bool, len(lines))
	for i := range nodes {
		n := &nodes[i]
		if p := n.Parent; n.Kind == SnapText && p >= 0 && p < len(drop) && drop[p] {
			gone[i] = true
			removed++
			continue
		}
		if i >= len(drop) || !drop[i] || n.Kind != SnapElement {
			continue
		}
		trimmed := strings.TrimLeft(lines[i], " ")
		indent := lines[i][:len(lines[i])-len(trimmed)]
		content := strings.TrimPrefix(trimmed, "- ")
		_, rest, err := splitKey(content)
		if err != nil || !strings.HasPrefix(rest, ": ") {
			continue
		}
		lines[i] = indent + "- " + content[:len(content)-len(rest)]
		removed++
	}
	var b strings.Builder
	for i, l := range lines {
		if gone[i] {
			continue
		}
		// A line whose children all went no longer ends in ":".
		if strings.HasSuffix(l, ":") && i < len(drop) && drop[i] && !hasKept(nodes, gone, i) {
			l = strings.TrimSuffix(l, ":")
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	out := b.String()
	if !strings.HasSuffix(text, "\n") {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, removed
}

// hasKept reports whether node p has a child line that is not gone.
func hasKept(nodes []SnapNode, gone []bool, p int) bool {
	for j := p + 1; j < len(nodes); j++ {
		if nodes[j].Parent == p && !gone[j] {
			return true
		}
		if nodes[j].Depth <= nodes[p].Depth {
			break
		}
	}
	return false
}
