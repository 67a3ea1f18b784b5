package dom

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Kinds of the values [SecretsGlobal] lists.
const (
	SecretPassword = "p" // the value of a password input
	SecretHidden   = "h" // the value of a hidden input (CSRF tokens and the like)
)

// The shortest values the scrub replaces, in characters. Shorter ones are
// left to the structural rules (the capture, the HTML and the
// accessibility records leave password values out wherever they are):
// replacing every "en" or "1" of a page, the values hidden inputs often
// hold, would wreck its text.
const (
	MinPasswordScrub = 4
	MinHiddenScrub   = 8
)

// Redacted is what the scrub writes in place of a value.
const Redacted = "[redacted]"

// SecretsRecord is what [SecretsGlobal] holds after a capture.
type SecretsRecord struct {
	// Values are [kind, value] pairs: SecretPassword or SecretHidden, and
	// a value an input held, live or as its value attribute.
	Values [][2]string `json:"values"`
	// Passwords is not zero when the capture met a password input.
	Passwords int `json:"passwords"`
}

// Secrets scrubs the values a page's password and hidden inputs held
// from text stored about the page: every occurrence of such a value, as
// written in plain text, in JSON or in HTML, is replaced by [Redacted].
// It is the belt to the structural braces (the capture never records
// those values, [RedactSecrets] takes them out of the HTML, the browser
// adapter out of the accessibility records): a value the page also wrote
// somewhere else — a text, an attribute, a label, a URL — goes too. The
// zero value (or nil) scrubs nothing.
type Secrets struct {
	// forms are the written forms of every value long enough, longest
	// first, each once; values holds them by value.
	forms  []string
	values [][]string
}

// NewSecrets returns the scrub of values ([kind, value] pairs, as
// [SecretsRecord] holds them). Values shorter than MinPasswordScrub
// (passwords) or MinHiddenScrub (hidden values) characters are left out.
func NewSecrets(values [][2]string) *Secrets {
	seen := map[string]bool{}
	s := &Secrets{}
	for _, kv := range values {
		least := MinHiddenScrub
		if kv[0] == SecretPassword {
			least = MinPasswordScrub
		}
		if utf8.RuneCountInString(kv[1]) < least {
			continue
		}
		forms := writtenForms(kv[1])
		s.values = append(s.values, forms)
		for _, f := range forms {
			if !seen[f] {
				seen[f] = true
				s.forms = append(s.forms, f)
			}
		}
	}
	slices.SortStableFunc(s.forms, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return s
}

// Empty reports whether s scrubs nothing.
func (s *Secrets) Empty() bool { return s == nil || len(s.forms) == 0 }

// Contains reports whether text holds a value s scrubs.
func (s *Secrets) Contains(text string) bool {
	if s == nil {
		return false
	}
	for _, f := range s.forms {
		if strings.Contains(text, f) {
			return true
		}
	}
	return false
}

// maxScrubRounds bounds the rounds of [Secrets.Scrub]: a replacement can
// only make a new occurrence of a value when values overlap each other
// or the marker, which takes a page built for it.
const maxScrubRounds = 3

// Scrub returns text with every value of s replaced by [Redacted], and
// how many replacements it made. Longer values go first, so a value that
// holds another is replaced whole.
func (s *Secrets) Scrub(text string) (string, int) {
	if s.Empty() {
		return text, 0
	}
	n := 0
	for range maxScrubRounds {
		changed := false
		for _, f := range s.forms {
			if k := strings.Count(text, f); k > 0 {
				text = strings.ReplaceAll(text, f, Redacted)
				n += k
				changed = true
			}
		}
		if !changed || !s.Contains(text) {
			break
		}
	}
	return text, n
}

// RedactHTML takes the values of password and hidden inputs out of a
// page's serialized HTML: their value attributes by structure
// ([RedactSecrets]), then every other occurrence of the values of s. It
// returns the HTML and how many attributes and occurrences it took out.
func (s *Secrets) RedactHTML(src string) (string, int) {
	src, n := RedactSecrets(src)
	src, k := s.Scrub(src)
	return src, n + k
}

// ScrubJSON returns a JSON document (a capture record) with the values of
// s replaced inside its string values, and how many it replaced. Object
// keys are left alone, so the document keeps its shape; a string holding
// a value is decoded, scrubbed and written again (without HTML escaping,
// as the capture script writes). Bytes that are not valid JSON strings
// are copied as they are.
func (s *Secrets) ScrubJSON(data []byte) ([]byte, int) {
	if s.Empty() {
		return data, 0
	}
	// Only the values one of whose written forms occurs somewhere can be
	// in a string of the document: the others cost nothing more.
	var live [][2]string
	for _, forms := range s.values {
		for _, f := range forms {
			if bytes.Contains(data, []byte(f)) {
				live = append(live, [2]string{SecretPassword, forms[0]})
				break
			}
		}
	}
	if len(live) == 0 {
		return data, 0
	}
	sub := NewSecrets(live)
	var out bytes.Buffer
	done, n := 0, 0
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		end := stringEnd(data, i)
		if end < 0 {
			break
		}
		start := i
		lit := data[start:end]
		j := end
		for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j++
		}
		key := j < len(data) && data[j] == ':'
		i = end - 1
		if key || !sub.Contains(string(lit)) {
			continue
		}
		var str string
		if err := json.Unmarshal(lit, &str); err != nil {
			continue
		}
		clean, k := sub.Scrub(str)
		if k == 0 {
			continue
		}
		enc, err := marshalNoEscape(clean)
		if err != nil {
			continue
		}
		out.Write(data[done:start])
		out.Write(enc)
		done = end
		n += k
	}
	if n == 0 {
		return data, 0
	}
	out.Write(data[done:])
	return out.Bytes(), n
}

// stringEnd returns the index just past the JSON string literal that
// starts at data[i] ('"'), or -1 when it does not end.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// marshalNoEscape writes s as a JSON string without HTML escaping.
func marshalNoEscape(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode a scrubbed string: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// writtenForms returns the ways v can be written in what is stored about
// a page: as it is; inside a JSON string (as JavaScript's JSON.stringify
// and Go's encoder write it, with and without HTML escaping); inside an
// HTML attribute or text (as Chromium serializes them: &amp; &quot;
// &nbsp; and, in newer versions, &lt; &gt; in attributes too).
func writtenForms(v string) []string {
	forms := []string{v, jsJSON(v)}
	for _, html := range []bool{false, true} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(v) == nil {
			q := strings.TrimSuffix(b.String(), "\n")
			forms = append(forms, q[1:len(q)-1])
		}
	}
	attr := strings.NewReplacer("&", "&amp;", "\"", "&quot;", "\u00a0", "&nbsp;")
	attrLT := strings.NewReplacer("&", "&amp;", "\"", "&quot;", "\u00a0", "&nbsp;", "<", "&lt;", ">", "&gt;")
	text := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\u00a0", "&nbsp;")
	forms = append(forms, attr.Replace(v), attrLT.Replace(v), text.Replace(v))
	out := forms[:0]
	for _, f := range forms {
		if f != "" && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// jsJSON writes v inside a JSON string as JSON.stringify does: \" \\
// \b \f \n \r \t, other control characters as \u00XX, the rest as it is.
func jsJSON(v string) string {
	var b strings.Builder
	for _, r := range v {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}
