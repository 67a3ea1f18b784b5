package metrics

import (
	"fmt"
	"slices"
	"strings"
)

// Encoding names a tiktoken byte-pair encoding by its tiktoken name, the
// value used in flags, column names and reports.
type Encoding string

// The supported encodings.
const (
	// CL100K is cl100k_base, the encoding of GPT-4 and GPT-3.5.
	CL100K Encoding = "cl100k_base"
	// O200K is o200k_base, the encoding of GPT-4o, GPT-4.1 and the o-series.
	O200K Encoding = "o200k_base"
)

// Encodings returns every supported encoding, in a fixed order.
func Encodings() []Encoding {
	return []Encoding{CL100K, O200K}
}

// Valid reports whether e is a supported encoding.
func (e Encoding) Valid() bool {
	switch e {
	case CL100K, O200K:
		return true
	}
	return false
}

// ParseEncodings parses a comma-separated list of encoding names, as given to
// an --encodings flag, e.g. "cl100k_base,o200k_base". Spaces around names are
// ignored and repeated names are kept once, in first-seen order. An unknown
// name or an empty list is an error that names the offending value.
func ParseEncodings(list string) ([]Encoding, error) {
	var encs []Encoding
	for name := range strings.SplitSeq(list, ",") {
		e := Encoding(strings.TrimSpace(name))
		if e == "" {
			return nil, fmt.Errorf("encoding list %q: empty name", list)
		}
		if !e.Valid() {
			return nil, fmt.Errorf("unknown encoding %q (supported: %s)", string(e), joinEncodings(Encodings()))
		}
		if !slices.Contains(encs, e) {
			encs = append(encs, e)
		}
	}
	return encs, nil
}

func joinEncodings(encs []Encoding) string {
	names := make([]string, len(encs))
	for i, e := range encs {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

// Counter counts tokens in one or more encodings. It holds the loaded
// vocabularies and never changes after NewCounter returns, so one Counter is
// safe for concurrent use by any number of goroutines.
type Counter struct {
	codecs map[Encoding]*encoder
}

// NewCounter loads the given encodings, or every supported encoding when
// called with none. An unsupported encoding is an error.
func NewCounter(encs ...Encoding) (*Counter, error) {
	if len(encs) == 0 {
		encs = Encodings()
	}
	c := &Counter{codecs: make(map[Encoding]*encoder, len(encs))}
	for _, e := range encs {
		if !e.Valid() {
			return nil, fmt.Errorf("load encoding %q: unsupported (supported: %s)", string(e), joinEncodings(Encodings()))
		}
		if _, ok := c.codecs[e]; ok {
			continue
		}
		enc, err := loadEncoder(e)
		if err != nil {
			return nil, err
		}
		c.codecs[e] = enc
	}
	return c, nil
}

// Encodings returns the encodings c was built with, in the supported order.
func (c *Counter) Encodings() []Encoding {
	var encs []Encoding
	for _, e := range Encodings() {
		if _, ok := c.codecs[e]; ok {
			encs = append(encs, e)
		}
	}
	return encs
}

// Count returns the number of tokens text has in encoding enc, exactly as
// tiktoken's encode_ordinary gives them, without building the tokens. It
// takes time linear in the length of text, whatever the text (see the
// package documentation). Special-token text is counted as ordinary text.
// It fails only when enc was not loaded by NewCounter.
func (c *Counter) Count(enc Encoding, text string) (int64, error) {
	e, ok := c.codecs[enc]
	if !ok {
		return 0, fmt.Errorf("count %s tokens: encoding not loaded (loaded: %s)", enc, joinEncodings(c.Encodings()))
	}
	return int64(e.count(text)), nil
}

// Ratio returns the compression ratio of an action space against the page's
// raw HTML: htmlTokens / spaceTokens, in the same encoding. A ratio of 40
// means the action space costs a fortieth of the HTML. ok is false when
// spaceTokens is not positive (an empty action space has no ratio) or
// htmlTokens is negative.
func Ratio(htmlTokens, spaceTokens int64) (ratio float64, ok bool) {
	if spaceTokens <= 0 || htmlTokens < 0 {
		return 0, false
	}
	return float64(htmlTokens) / float64(spaceTokens), true
}
