package render

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"actionspace/axtree"
	"actionspace/dom"
)

// A delta turns the text an agent read at the previous step into this
// step's, line by line (docs/handles.md). Both texts are split at every
// "\n" (a text that ends in a newline has an empty last line, which is a
// line like any other). The delta is one operation per line, applied to
// the previous text's lines in order, from its first:
//
//	=N         the next N lines stay
//	-N H1 H2   the next N lines go; H1 H2 … are the handles they held
//	           (IDs, refs, node ids: letters, digits, "-" and "_"),
//	           none when they held none
//	+LINE      LINE (everything after the "+") is inserted here
//
// After the last operation the remaining lines stay, so an unchanged text
// has an empty delta. Applying the delta to the previous text gives the
// new one exactly ([ApplyDelta]).

// MaxDeltaEdits bounds the search for a shortest delta: past this many
// inserted and removed lines, the delta keeps the lines the two texts
// share at their start and end and replaces everything between. A page
// that changes wholesale then costs what it is (a delta about as long as
// both texts), and a hostile one cannot make the search slow.
const MaxDeltaEdits = 1000

// Delta returns the delta from prev to next (see the format above).
// handle returns the handle a line holds ("" for none); nil means lines
// hold none. The delta is a shortest one (fewest inserted and removed
// lines) up to MaxDeltaEdits.
func Delta(prev, next string, handle func(line string) string) string {
	return delta(prev, next, handle, MaxDeltaEdits)
}

// edit kinds of a line-level edit script.
const (
	editKeep = iota
	editDel
	editIns
)

func delta(prev, next string, handle func(string) string, maxEdits int) string {
	if prev == next {
		return ""
	}
	a, b := strings.Split(prev, "\n"), strings.Split(next, "\n")
	// The lines both texts start and end with stay.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	mid := shortestEdits(a[pre:len(a)-suf], b[pre:len(b)-suf], maxEdits)
	script := make([]int, 0, pre+len(mid)+suf)
	for range pre {
		script = append(script, editKeep)
	}
	script = append(script, mid...)

	var out strings.Builder
	i, j := 0, 0 // positions in a and b
	for k := 0; k < len(script); {
		switch script[k] {
		case editKeep:
			n := editRun(script, k, editKeep)
			out.WriteString("=" + strconv.Itoa(n) + "\n")
			i, j, k = i+n, j+n, k+n
		default:
			// A change: its removed lines first, then its inserted ones.
			end := k
			for end < len(script) && script[end] != editKeep {
				end++
			}
			dels := 0
			for _, e := range script[k:end] {
				if e == editDel {
					dels++
				}
			}
			if dels > 0 {
				out.WriteString("-" + strconv.Itoa(dels))
				for _, line := range a[i : i+dels] {
					if handle == nil {
						break
					}
					if h := handle(line); plainHandle(h) {
						out.WriteString(" " + h)
					}
				}
				out.WriteByte('\n')
			}
			ins := end - k - dels
			for _, line := range b[j : j+ins] {
				out.WriteString("+" + line + "\n")
			}
			i, j, k = i+dels, j+ins, end
		}
	}
	return out.String()
}

// plainHandle reports whether h can be listed in a removal: not empty,
// letters, digits, "-" and "_" only (every format's handles are; a line
// that only looks like it holds one is not listed).
func plainHandle(h string) bool {
	if h == "" {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// editRun returns the length of the run of kind e in script from k.
func editRun(script []int, k, e int) int {
	n := 0
	for k+n < len(script) && script[k+n] == e {
		n++
	}
	return n
}

// shortestEdits returns an edit script from a to b with the fewest
// removed and inserted lines (Myers' O(ND) search), or, past maxEdits of
// them, every line of a removed and every line of b inserted.
func shortestEdits(a, b []string, maxEdits int) []int {
	n, m := len(a), len(b)
	replace := func() []int {
		out := make([]int, 0, n+m)
		for range n {
			out = append(out, editDel)
		}
		for range m {
			out = append(out, editIns)
		}
		return out
	}
	if n == 0 || m == 0 {
		return replace()
	}
	// Lines as numbers: comparing them is then cheap.
	ids := map[string]int{}
	num := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x1, y1 := num(a), num(b)
	limit := min(maxEdits, n+m)
	off := limit + 1
	v := make([]int, 2*limit+3)
	// trace[d] is v at the start of round d, for k in [-d, d].
	var trace [][]int
	for d := 0; d <= limit; d++ {
		snap := make([]int, 2*d+1)
		copy(snap, v[off-d:off+d+1])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && x1[x] == y1[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, d)
			}
		}
	}
	return replace()
}

// backtrack reads the edit script of a search that reached (n, m) in
// round dEnd, from the snapshots of v.
func backtrack(trace [][]int, n, m, dEnd int) []int {
	var rev []int
	x, y := n, m
	for d := dEnd; d > 0; d-- {
		vd := trace[d] // v at the start of round d: index k+d
		at := func(k int) int { return vd[k+d] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			rev = append(rev, editKeep)
			x, y = x-1, y-1
		}
		if x == prevX {
			rev = append(rev, editIns)
		} else {
			rev = append(rev, editDel)
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		rev = append(rev, editKeep)
		x, y = x-1, y-1
	}
	out := make([]int, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}

// ErrBadDelta is returned by ApplyDelta for a delta that is not one of
// the previous text.
var ErrBadDelta = errors.New("bad delta")

// ApplyDelta applies delta to the previous step's text prev and returns
// the new text.
func ApplyDelta(prev, delta string) (string, error) {
	old := strings.Split(prev, "\n")
	if delta == "" {
		return prev, nil
	}
	if !strings.HasSuffix(delta, "\n") {
		return "", fmt.Errorf("%w: it does not end in a newline", ErrBadDelta)
	}
	var out []string
	pos := 0
	for k, op := range strings.Split(strings.TrimSuffix(delta, "\n"), "\n") {
		if op == "" {
			return "", fmt.Errorf("%w: line %d is empty", ErrBadDelta, k+1)
		}
		switch op[0] {
		case '+':
			out = append(out, op[1:])
			continue
		case '=', '-':
		default:
			return "", fmt.Errorf("%w: line %d starts with %q", ErrBadDelta, k+1, op[0])
		}
		count, _, _ := strings.Cut(op[1:], " ")
		nl, err := strconv.Atoi(count)
		if err != nil || nl <= 0 || nl > len(old)-pos {
			return "", fmt.Errorf("%w: line %d: %q lines of %d left", ErrBadDelta, k+1, count, len(old)-pos)
		}
		if op[0] == '=' {
			out = append(out, old[pos:pos+nl]...)
		}
		pos += nl
	}
	out = append(out, old[pos:]...)
	return strings.Join(out, "\n"), nil
}

// ActionSpaceHandle returns the ID an action-space line starts with
// ("B3" of "B3[:]<button>…"), "" for a context line ("_[:]…") and for
// anything else.
func ActionSpaceHandle(line string) string {
	id, _, ok := strings.Cut(line, "[:]")
	if !ok || len(id) < 2 || !strings.Contains(dom.Letters, id[:1]) {
		return ""
	}
	for _, c := range id[1:] {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return id
}

// AISnapshotHandle returns the ref of an AI snapshot line ("e12" of
// `- button "Submit" [ref=e12]`, read as axtree.ParseSnapshot reads it,
// so a name that holds "[ref=" is not taken for one), "" when it has
// none.
func AISnapshotHandle(line string) string {
	nodes, err := axtree.ParseSnapshot(strings.TrimLeft(line, " "))
	if err != nil || len(nodes) != 1 {
		return ""
	}
	return nodes[0].Ref
}

// AXTreeHandle returns the node id of an axtree line ("123" of
// "\t[123] button 'Submit'"), "" when it has none.
func AXTreeHandle(line string) string {
	return bracketNumber(strings.TrimLeft(line, "\t"), " ")
}

// BrowserUseHandle returns the index of a browser-use line ("12" of
// "\t[12]<button />", also after "|SHADOW(open)|"), "" when it has none.
func BrowserUseHandle(line string) string {
	return bracketNumber(strings.TrimPrefix(strings.TrimLeft(line, "\t"), "|SHADOW(open)|"), "<")
}

// bracketNumber returns N when line starts with "[N]" followed by after,
// N a number; "" otherwise.
func bracketNumber(line, after string) string {
	if !strings.HasPrefix(line, "[") {
		return ""
	}
	id, _, ok := strings.Cut(line[1:], "]"+after)
	if !ok {
		return ""
	}
	if _, err := strconv.Atoi(id); err != nil {
		return ""
	}
	return id
}
