package render

import (
	"fmt"
	"strings"

	"actionspace/metrics"
)

// Cut is a text cut from the end to fit a token budget.
type Cut struct {
	// Text is the kept leading lines, each with its newline (the last one
	// without, when the text had none).
	Text string
	// Lines is the number of lines kept; TotalLines the number the text
	// had (a last line without a newline counts).
	Lines, TotalLines int
	// Tokens is the exact token count of Text.
	Tokens int64
}

// CutFromEnd is the baseline a budgeted render is measured against: what
// users do today with a snapshot that is too long (AgentLab deletes its
// trailing lines). It keeps the longest run of leading lines of text whose
// exact token count in enc fits in budget, in order, whatever the format:
// the probes are counted prefixes in a binary search over the line count,
// so the kept text fits and one more line would not. Lines are never cut
// in half; when not even the first line fits, nothing is kept.
func CutFromEnd(c *metrics.Counter, enc metrics.Encoding, text string, budget int64) (Cut, error) {
	if budget < 0 {
		return Cut{}, fmt.Errorf("cut to %d tokens: budget is negative", budget)
	}
	// ends[k] is the byte offset just past line k.
	var ends []int
	for off := 0; off < len(text); {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			off = len(text)
		} else {
			off += i + 1
		}
		ends = append(ends, off)
	}
	prefix := func(k int) string {
		if k == 0 {
			return ""
		}
		return text[:ends[k-1]]
	}
	count := func(k int) (int64, error) {
		n, err := c.Count(enc, prefix(k))
		if err != nil {
			return 0, fmt.Errorf("cut to %d tokens: %w", budget, err)
		}
		return n, nil
	}
	total := len(ends)
	n, err := count(total)
	if err != nil {
		return Cut{}, err
	}
	if n <= budget {
		return Cut{Text: text, Lines: total, TotalLines: total, Tokens: n}, nil
	}
	// No lines fit (0 tokens); all of them do not.
	tokens := map[int]int64{0: 0}
	lo, _, err := boundary(0, total, true, func(k int) (bool, error) {
		n, err := count(k)
		tokens[k] = n
		return n <= budget, err
	})
	if err != nil {
		return Cut{}, err
	}
	return Cut{Text: prefix(lo), Lines: lo, TotalLines: total, Tokens: tokens[lo]}, nil
}
