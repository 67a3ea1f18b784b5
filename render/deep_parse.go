package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// ErrUnparseable is returned (wrapped) when a model reply holds neither a
// JSON object of the expected shape nor any tagged-text line.
var ErrUnparseable = errors.New("unparseable model reply")

// Caps on the strings taken from a reply, in characters.
const (
	maxSummary     = 1200
	maxDescription = 200
	maxCategory    = 40
	maxParams      = 160
)

// tagEntry is one described action as read from a reply.
type tagEntry struct {
	ID, Description, Category, Params string
}

// tagReply is a parsed tagging reply.
type tagReply struct {
	Summary string
	Entries []tagEntry
	// Dropped counts entries that could not be used: no usable ID, no
	// description, or a repeat of an ID earlier in the same reply.
	Dropped int
	// Format is "json" or "text".
	Format string
	// Truncated is set when the JSON stopped early (a cut-off reply);
	// the complete entries before the cut are kept.
	Truncated bool
}

// parseTagging reads a tagging reply. It accepts, in this order:
//
//  1. a JSON object {"summary": string, "actions": [{"id", "description",
//     "category", "params"}]}, possibly inside ``` fences, after or before
//     other text, or cut off (the complete entries are kept); "actions"
//     may also be an object keyed by ID; params may be a string, a list
//     or an object;
//  2. tagged text: a "SUMMARY: …" line and lines "ID | category |
//     description | params" (a leading "-", "*" or brackets around the
//     ID are tolerated; "ID: description" is read as an uncategorised
//     entry).
//
// A reasoning block (<think>…</think>) that some local models put before
// the answer is skipped. Entry strings are trimmed, whitespace is
// collapsed and lengths capped; IDs are upper-cased. Whether an ID exists
// on the page is the caller's check. It returns an error wrapping
// ErrUnparseable when neither form is found.
func parseTagging(content string) (tagReply, error) {
	s := stripThinking(content)
	if s == "" {
		return tagReply{}, fmt.Errorf("%w: empty reply", ErrUnparseable)
	}
	for _, cand := range jsonCandidates(s) {
		if r, ok := parseTagJSON(cand); ok {
			return r, nil
		}
	}
	if r, ok := parseTagText(s); ok {
		return r, nil
	}
	return tagReply{}, fmt.Errorf("%w: no JSON object with summary/actions and no tagged lines in %d characters", ErrUnparseable, len(content))
}

// jsonCandidates returns the texts worth trying as JSON: the contents of
// ``` fences first, then the reply from each of its first few '{'.
func jsonCandidates(s string) []string {
	var out []string
	rest := s
	for {
		i := strings.Index(rest, "```")
		if i < 0 {
			break
		}
		body := rest[i+3:]
		// Skip a language tag on the fence line.
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], "{[") {
			body = body[nl+1:]
		}
		end := strings.Index(body, "```")
		if end < 0 {
			out = append(out, body) // an unclosed fence: a cut-off reply
			break
		}
		out = append(out, body[:end])
		rest = body[end+3:]
	}
	from := 0
	for n := 0; n < 5; n++ {
		i := strings.IndexByte(s[from:], '{')
		if i < 0 {
			break
		}
		out = append(out, s[from+i:])
		from += i + 1
	}
	return out
}

// parseTagJSON reads one JSON object from the start of s (after leading
// space), ignoring what follows it. ok is false when s does not start
// with an object that has a "summary" or "actions" key.
func parseTagJSON(s string) (r tagReply, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return r, false
	}
	r.Format = "json"
	dec := json.NewDecoder(strings.NewReader(s))
	if _, err := dec.Token(); err != nil {
		return r, false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			r.Truncated = true
			break
		}
		key, _ := tok.(string)
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "summary":
			ok = true
			var v any
			if err := dec.Decode(&v); err != nil {
				r.Truncated = true
				return r, ok
			}
			r.Summary = clean(str(v), maxSummary)
		case "actions":
			ok = true
			if !readActions(dec, &r, seen) {
				r.Truncated = true
				return r, ok
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				r.Truncated = true
				return r, ok
			}
		}
	}
	return r, ok
}

// readActions reads the value of "actions": a list of entry objects or an
// object keyed by ID. It returns false when the JSON ends early.
func readActions(dec *json.Decoder, r *tagReply, seen map[string]bool) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	delim, _ := tok.(json.Delim)
	switch delim {
	case '[':
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				return false
			}
			m, _ := v.(map[string]any)
			r.add(entryFromMap(m, ""), seen)
		}
	case '{':
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return false
			}
			id, _ := kt.(string)
			var v any
			if err := dec.Decode(&v); err != nil {
				return false
			}
			if m, isMap := v.(map[string]any); isMap {
				r.add(entryFromMap(m, id), seen)
			} else {
				r.add(tagEntry{ID: normID(id), Description: clean(str(v), maxDescription)}, seen)
			}
		}
	default:
		// null or a scalar: no actions.
		return true
	}
	_, err = dec.Token() // the closing delimiter
	return err == nil
}

// entryFromMap reads an entry object, keys compared case-insensitively.
func entryFromMap(m map[string]any, id string) tagEntry {
	get := func(names ...string) any {
		for k, v := range m {
			if slices.Contains(names, strings.ToLower(k)) {
				return v
			}
		}
		return nil
	}
	if s := str(get("id")); s != "" {
		id = s
	}
	return tagEntry{
		ID:          normID(id),
		Description: clean(str(get("description", "desc")), maxDescription),
		Category:    clean(str(get("category")), maxCategory),
		Params:      clean(params(get("params", "parameters")), maxParams),
	}
}

// add appends an entry or counts it as dropped.
func (r *tagReply) add(e tagEntry, seen map[string]bool) {
	if e.ID == "" || e.Description == "" || seen[e.ID] {
		r.Dropped++
		return
	}
	seen[e.ID] = true
	r.Entries = append(r.Entries, e)
}

// params renders a params value: a string as is, a list joined with ", ",
// an object as "key: value" pairs in key order.
func params(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			if s := params(e); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, 0, len(x))
		for _, k := range keys {
			if s := params(x[k]); s != "" {
				parts = append(parts, k+": "+s)
			} else {
				parts = append(parts, k)
			}
		}
		return strings.Join(parts, ", ")
	}
	return str(v)
}

// str renders a scalar JSON value as text ("" for null, lists, objects).
func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64, bool:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return ""
}

// parseTagText reads the tagged-text form. ok is false when no SUMMARY
// line and no entry line is found.
func parseTagText(s string) (r tagReply, ok bool) {
	r.Format = "text"
	seen := map[string]bool{}
	var summary []string
	inSummary := false
	for raw := range strings.SplitSeq(s, "\n") {
		line := strings.TrimSpace(raw)
		line = strings.TrimSpace(strings.TrimLeft(line, "-*•>` "))
		if line == "" {
			inSummary = false
			continue
		}
		if rest, found := cutPrefixFold(line, "SUMMARY:"); found {
			ok, inSummary = true, true
			summary = append(summary, rest)
			continue
		}
		if e, isEntry := textEntry(line); isEntry {
			ok, inSummary = true, false
			r.add(e, seen)
			continue
		}
		if inSummary {
			summary = append(summary, line)
		}
	}
	r.Summary = clean(strings.Join(summary, " "), maxSummary)
	return r, ok
}

// textEntry reads "ID | category | description | params" (or with two
// fields "ID | description", or "ID: description"). isEntry is false when
// the line does not start with an ID.
func textEntry(line string) (e tagEntry, isEntry bool) {
	if strings.Contains(line, "|") {
		f := strings.Split(line, "|")
		id := normID(f[0])
		if id == "" {
			return e, false
		}
		e.ID = id
		switch {
		case len(f) == 2:
			e.Description = f[1]
		case len(f) >= 3:
			e.Category, e.Description = f[1], f[2]
			if len(f) >= 4 {
				e.Params = strings.Join(f[3:], "|")
			}
		}
	} else {
		head, tail, found := strings.Cut(line, ":")
		if !found {
			return e, false
		}
		id := normID(head)
		if id == "" {
			return e, false
		}
		e.ID, e.Description = id, tail
	}
	e.Description = clean(e.Description, maxDescription)
	e.Category = clean(e.Category, maxCategory)
	e.Params = clean(e.Params, maxParams)
	return e, true
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return strings.TrimSpace(s[len(prefix):]), true
	}
	return s, false
}

// normID returns an ID in canonical form ("B12") or "" when s is not one:
// one letter and digits, optionally in brackets or quotes, any case.
func normID(s string) string {
	s = strings.Trim(strings.TrimSpace(s), "[]\"'`*")
	s = strings.TrimSpace(s)
	if len(s) < 2 || len(s) > 8 {
		return ""
	}
	c := s[0] &^ 0x20 // upper-case ASCII
	if c < 'A' || c > 'Z' {
		return ""
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return ""
		}
	}
	if s[1] == '0' {
		return ""
	}
	return string(c) + s[1:]
}

// clean collapses whitespace, trims and caps s at max characters.
func clean(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = strings.TrimSpace(string([]rune(s)[:max])) + "..."
	}
	return s
}

// parseCategory reads a classification reply: {"category": "…"} (also in
// fences or among other text), a "CATEGORY: …" line, or a reply that is
// just one of PageCategories. The value must be one of PageCategories
// (case and surrounding punctuation ignored).
func parseCategory(content string) (string, error) {
	s := stripThinking(content)
	var cands []string
	for _, c := range jsonCandidates(s) {
		var v map[string]any
		dec := json.NewDecoder(strings.NewReader(strings.TrimSpace(c)))
		if dec.Decode(&v) == nil {
			for k, x := range v {
				if strings.EqualFold(k, "category") {
					cands = append(cands, str(x))
				}
			}
		}
	}
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*• "))
		if rest, ok := cutPrefixFold(line, "CATEGORY:"); ok {
			cands = append(cands, rest)
		}
	}
	cands = append(cands, s)
	for _, c := range cands {
		c = strings.ToLower(strings.Trim(strings.TrimSpace(c), ".\"'`*"))
		c = strings.Join(strings.Fields(c), " ")
		if slices.Contains(PageCategories, c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w: no page category (one of %s) found", ErrUnparseable, strings.Join(PageCategories, ", "))
}

// stripThinking drops a reasoning block ending in </think> from the start
// of a reply and trims it.
func stripThinking(content string) string {
	if i := strings.LastIndex(content, "</think>"); i >= 0 {
		content = content[i+len("</think>"):]
	}
	return strings.TrimSpace(content)
}
