package dom

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// DefaultMaxHTMLBytes is the default cap of the HTML a crawl stores and
// counts tokens of, per page (see [CutHTML]).
const DefaultMaxHTMLBytes = 4 << 20

// CutHTML returns the first maxBytes bytes of src, or fewer so that the
// cut does not split a UTF-8 encoded character, and whether it cut
// anything. A negative maxBytes means no cap. The cut may fall inside a
// tag: the result is a prefix of the page's HTML, not a document.
func CutHTML(src string, maxBytes int) (string, bool) {
	if maxBytes < 0 || len(src) <= maxBytes {
		return src, false
	}
	cut := maxBytes
	// src[cut] is the first byte left out: step back over the bytes of
	// the character it continues (at most UTFMax-1 of them).
	for k := 0; k < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(src[cut]); k++ {
		cut--
	}
	return src[:cut], true
}

// RedactSecrets returns src with the value attributes of password and
// hidden inputs (passwords; CSRF tokens and the like) taken out, each with
// the white space before it, and how many it took out; every other byte of
// src is kept. An input's type is its first type attribute, in any letter
// case (character references decoded), as a browser decides; the tags are
// found by the HTML tokenizer, so text, comments and the contents of
// script, style and textarea elements are left alone.
func RedactSecrets(src string) (string, int) {
	z := html.NewTokenizer(strings.NewReader(src))
	var b strings.Builder
	done, pos, removed := 0, 0, 0 // src[:done] is in b; src[:pos] is read
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		start := pos
		pos += len(raw)
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		if name, hasAttr := z.TagName(); !hasAttr || string(name) != "input" {
			continue
		}
		// (the tokenizer keeps the first of repeated attributes, as a
		// browser does)
		secret, typed := false, false
		for more := true; more; {
			var key, val []byte
			key, val, more = z.TagAttr()
			if string(key) == "type" && !typed {
				t := asciiLower(string(val))
				secret, typed = t == "password" || t == "hidden", true
			}
		}
		if !secret {
			continue
		}
		for _, a := range attrSpans(raw) {
			if asciiLower(string(raw[a.name:a.nameEnd])) != "value" {
				continue
			}
			b.WriteString(src[done : start+a.cut])
			done = start + a.end
			removed++
		}
	}
	if removed == 0 {
		return src, 0
	}
	b.WriteString(src[done:])
	return b.String(), removed
}

// attrSpan locates one attribute in a raw start tag: the white space
// before it begins at cut, its name runs from name to nameEnd, and the
// attribute (with its value) ends at end.
type attrSpan struct {
	cut, name, nameEnd, end int
}

// attrSpans finds the attributes of a raw start tag ("<input a=1 b>")
// the way the HTML tokenizer reads them: names end at white space, "/",
// ">" or "="; values are quoted with " or ', or run to white space or ">".
func attrSpans(raw []byte) []attrSpan {
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
	i := 1 // past "<"
	for i < len(raw) && !space(raw[i]) && raw[i] != '/' && raw[i] != '>' {
		i++ // the tag name
	}
	var out []attrSpan
	for i < len(raw) {
		cut := i
		for i < len(raw) && (space(raw[i]) || raw[i] == '/') {
			if raw[i] == '/' {
				cut = i + 1 // keep a "/" (it may close the tag)
			}
			i++
		}
		if i >= len(raw) || raw[i] == '>' {
			break
		}
		a := attrSpan{cut: cut, name: i}
		i++ // a name's first character may be "="
		for i < len(raw) && !space(raw[i]) && raw[i] != '/' && raw[i] != '>' && raw[i] != '=' {
			i++
		}
		a.nameEnd = i
		a.end = i
		j := i
		for j < len(raw) && space(raw[j]) {
			j++
		}
		if j < len(raw) && raw[j] == '=' {
			j++
			for j < len(raw) && space(raw[j]) {
				j++
			}
			switch {
			case j >= len(raw) || raw[j] == '>':
				// "a= >": an empty value
			case raw[j] == '"' || raw[j] == '\'':
				q := raw[j]
				j++
				for j < len(raw) && raw[j] != q {
					j++
				}
				if j < len(raw) {
					j++
				}
			default:
				for j < len(raw) && !space(raw[j]) && raw[j] != '>' {
					j++
				}
			}
			a.end = j
			i = j
		}
		out = append(out, a)
	}
	return out
}

// asciiLower lower-cases the ASCII letters of s, as HTML compares
// keywords.
func asciiLower(s string) string {
	b := []byte(s)
	for k, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[k] = c + 'a' - 'A'
		}
	}
	return string(b)
}
