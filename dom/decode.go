package dom

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeFast decodes a capture record written the way the capture script
// (JSON.stringify) and json.Marshal of a Capture write it: the known keys,
// in any order, with values of the expected types. It is several times
// faster than encoding/json, which matters for pages of a hundred thousand
// nodes. ok is false for anything else (an unknown or differently cased
// key, a null, a number where an integer belongs, malformed JSON); the
// caller then decodes with encoding/json, so the result is always what
// encoding/json would give.
func decodeFast(data []byte) (c *Capture, ok bool) {
	d := &decoder{data: data, intern: make(map[string]string, 64)}
	c = &Capture{}
	if !d.object(func(key []byte) bool {
		switch string(key) {
		case "version":
			return d.int(&c.Version)
		case "page":
			return d.page(&c.Page)
		case "nodes":
			return d.nodes(&c.Nodes)
		}
		return false
	}) {
		return nil, false
	}
	d.ws()
	if d.i != len(d.data) {
		return nil, false
	}
	return c, true
}

// decoder reads JSON from data at i. Its methods return false when the
// input is not what they expect; the position is then meaningless.
type decoder struct {
	data []byte
	i    int
	// intern holds strings seen before (tag and attribute names, signals),
	// so that a large page does not allocate each of them again.
	intern map[string]string
}

func (d *decoder) ws() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and consumes b.
func (d *decoder) next(b byte) bool {
	d.ws()
	if d.i < len(d.data) && d.data[d.i] == b {
		d.i++
		return true
	}
	return false
}

// object reads {"key": value, ...}, calling field for each key with the
// position at its value.
func (d *decoder) object(field func(key []byte) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		d.ws()
		key, ok := d.rawKey()
		if !ok || !d.next(':') {
			return false
		}
		if !field(key) {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next('}')
	}
}

// array reads [value, ...], calling elem with the position at each value.
func (d *decoder) array(elem func() bool) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next(']')
	}
}

// rawKey reads a key without escapes and returns its bytes.
func (d *decoder) rawKey() ([]byte, bool) {
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return nil, false
	}
	start := d.i + 1
	for j := start; j < len(d.data); j++ {
		switch c := d.data[j]; {
		case c == '"':
			d.i = j + 1
			return d.data[start:j], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// str reads a string value; interned strings are shared.
func (d *decoder) str(interned bool) (string, bool) {
	d.ws()
	if d.i >= len(d.data) || d.data[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.data); j++ {
		c := d.data[j]
		switch {
		case c == '"':
			d.i = j + 1
			raw := d.data[start:j]
			if !ascii && !utf8.Valid(raw) {
				return "", false
			}
			if interned {
				if s, ok := d.intern[string(raw)]; ok {
					return s, true
				}
				s := string(raw)
				d.intern[s] = s
				return s, true
			}
			return string(raw), true
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// escaped reads the rest of a string that holds escapes, from start (just
// after the opening quote), decoding them as encoding/json does: a lone
// surrogate becomes U+FFFD.
func (d *decoder) escaped(start int) (string, bool) {
	buf := make([]byte, 0, 64)
	j := start
	for j < len(d.data) {
		c := d.data[j]
		switch {
		case c == '"':
			d.i = j + 1
			if !utf8.Valid(buf) {
				return "", false
			}
			return string(buf), true
		case c < 0x20:
			return "", false
		case c != '\\':
			buf = append(buf, c)
			j++
			continue
		}
		if j+1 >= len(d.data) {
			return "", false
		}
		switch e := d.data[j+1]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(d.data, j+2)
			if !ok {
				return "", false
			}
			j += 6
			if utf16.IsSurrogate(r) {
				if r2, ok := hex4(d.data, j+2); ok && j+1 < len(d.data) && d.data[j] == '\\' && d.data[j+1] == 'u' {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						buf = utf8.AppendRune(buf, dec)
						j += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}

// hex4 reads four hex digits at i.
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// number returns the bytes of a JSON number.
func (d *decoder) number() ([]byte, bool) {
	d.ws()
	start := d.i
	j := start
	if j < len(d.data) && d.data[j] == '-' {
		j++
	}
	digits := j
	for j < len(d.data) && d.data[j] >= '0' && d.data[j] <= '9' {
		j++
	}
	if j == digits || (d.data[digits] == '0' && j-digits > 1) {
		return nil, false
	}
	if j < len(d.data) && d.data[j] == '.' {
		j++
		frac := j
		for j < len(d.data) && d.data[j] >= '0' && d.data[j] <= '9' {
			j++
		}
		if j == frac {
			return nil, false
		}
	}
	if j < len(d.data) && (d.data[j] == 'e' || d.data[j] == 'E') {
		j++
		if j < len(d.data) && (d.data[j] == '+' || d.data[j] == '-') {
			j++
		}
		exp := j
		for j < len(d.data) && d.data[j] >= '0' && d.data[j] <= '9' {
			j++
		}
		if j == exp {
			return nil, false
		}
	}
	d.i = j
	return d.data[start:j], true
}

func (d *decoder) float(f *float64) bool {
	b, ok := d.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return false
	}
	*f = v
	return true
}

// int reads an integer; a fraction or an exponent is not one.
func (d *decoder) int(n *int) bool {
	b, ok := d.number()
	if !ok || len(b) > 18 {
		return false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
		v = v*10 + int(c-'0')
	}
	if neg {
		v = -v
	}
	*n = v
	return true
}

func (d *decoder) bool(v *bool) bool {
	d.ws()
	switch {
	case len(d.data)-d.i >= 4 && string(d.data[d.i:d.i+4]) == "true":
		*v = true
		d.i += 4
		return true
	case len(d.data)-d.i >= 5 && string(d.data[d.i:d.i+5]) == "false":
		*v = false
		d.i += 5
		return true
	}
	return false
}

func (d *decoder) rect(r *Rect) bool {
	k := 0
	return d.array(func() bool {
		if k == 4 {
			return false
		}
		k++
		return d.float(&r[k-1])
	}) && k == 4
}

func (d *decoder) rectPtr(r **Rect) bool {
	*r = new(Rect)
	return d.rect(*r)
}

func (d *decoder) intPtr(n **int) bool {
	*n = new(int)
	return d.int(*n)
}

func (d *decoder) strings(out *[]string, interned bool) bool {
	s := make([]string, 0, 2)
	if !d.array(func() bool {
		v, ok := d.str(interned)
		s = append(s, v)
		return ok
	}) {
		return false
	}
	*out = s
	return true
}

func (d *decoder) ints(out *[]int) bool {
	s := make([]int, 0, 1)
	if !d.array(func() bool {
		var v int
		s = append(s, 0)
		if !d.int(&v) {
			return false
		}
		s[len(s)-1] = v
		return true
	}) {
		return false
	}
	*out = s
	return true
}

func (d *decoder) attrs(out *[][2]string) bool {
	s := make([][2]string, 0, 4)
	if !d.array(func() bool {
		var a [2]string
		k := 0
		ok := d.array(func() bool {
			if k == 2 {
				return false
			}
			v, ok := d.str(k == 0)
			a[k] = v
			k++
			return ok
		})
		s = append(s, a)
		return ok && k == 2
	}) {
		return false
	}
	*out = s
	return true
}

func (d *decoder) page(p *PageInfo) bool {
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "url":
			v, ok := d.str(false)
			p.URL = v
			return ok
		case "title":
			v, ok := d.str(false)
			p.Title = v
			return ok
		case "vw":
			return d.float(&p.ViewportWidth)
		case "vh":
			return d.float(&p.ViewportHeight)
		case "sx":
			return d.float(&p.ScrollX)
		case "sy":
			return d.float(&p.ScrollY)
		case "dw":
			return d.float(&p.DocWidth)
		case "dh":
			return d.float(&p.DocHeight)
		case "dpr":
			return d.float(&p.DPR)
		case "quirks":
			return d.bool(&p.Quirks)
		case "elements":
			return d.int(&p.Elements)
		case "texts":
			return d.int(&p.Texts)
		case "truncated":
			return d.bool(&p.Truncated)
		case "chars":
			return d.int(&p.Chars)
		case "capped":
			return d.strings(&p.Capped, true)
		case "frames":
			return d.int(&p.CrossOriginFrames)
		case "stitched":
			return d.int(&p.FramesStitched)
		case "doc":
			v, ok := d.str(false)
			p.Doc = v
			return ok
		case "time":
			return d.float(&p.Time)
		case "ms":
			return d.float(&p.ScriptMs)
		}
		return false
	})
}

func (d *decoder) nodes(out *[]Node) bool {
	nodes := make([]Node, 0, len(d.data)/100)
	if !d.array(func() bool {
		nodes = append(nodes, Node{})
		return d.node(&nodes[len(nodes)-1])
	}) {
		return false
	}
	*out = nodes
	return true
}

func (d *decoder) node(n *Node) bool {
	return d.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "k":
			return d.int(&n.Kind)
		case "p":
			return d.int(&n.Parent)
		case "tag":
			n.Tag, ok = d.str(true)
			return ok
		case "tc":
			return d.int(&n.TagCut)
		case "x":
			return d.int(&n.Foreign)
		case "u":
			return d.int(&n.UniqueID)
		case "hs":
			return d.int(&n.ShadowHost)
		case "lp":
			return d.int(&n.LightParent)
		case "lk":
			return d.int(&n.LightPos)
		case "ti":
			return d.int(&n.TreeIndex)
		case "a":
			return d.attrs(&n.Attrs)
		case "t":
			n.Text, ok = d.str(false)
			return ok
		case "r":
			return d.rect(&n.Rect)
		case "cr":
			return d.rectPtr(&n.ClipRect)
		case "v":
			return d.bool(&n.Visible)
		case "h":
			return d.int(&n.HiddenTree)
		case "ah":
			return d.int(&n.AriaHidden)
		case "s":
			return d.strings(&n.Signals, true)
		case "d":
			n.Disabled, ok = d.str(true)
			return ok
		case "o":
			return d.intPtr(&n.Topmost)
		case "f":
			return d.int(&n.Frame)
		case "sh":
			return d.int(&n.Shadow)
		case "b":
			return d.int(&n.Block)
		case "lc":
			return d.int(&n.LabelFor)
		case "m":
			return d.int(&n.Modal)
		case "c":
			return d.intPtr(&n.Checked)
		case "val":
			n.Value, ok = d.str(false)
			return ok
		case "on":
			return d.int(&n.OptionCount)
		case "os":
			return d.strings(&n.Options, false)
		case "si":
			return d.ints(&n.Selected)
		case "fx":
			return d.int(&n.CrossOrigin)
		case "fb":
			return d.rectPtr(&n.FrameBox)
		case "fc":
			return d.rectPtr(&n.FrameClip)
		case "key":
			return d.int(&n.Key)
		case "kd":
			n.KeyDoc, ok = d.str(true)
			return ok
		}
		return false
	})
}
