package metrics

import (
	"context"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Bounds of [Counter.CountContext].
const (
	// MaxStretch is the longest stretch of text without a split point
	// (see CountContext) that CountContext hands the tokenizer. The
	// tokenizer's pre-splitting is quadratic in the length of some
	// stretches (a run of " \n" pairs: 64 KiB took 5.7 s, 256 KiB 94 s on
	// the development machine), so a stretch of this length costs it at
	// most about 1.5 s; a longer one is not counted.
	MaxStretch = 32 << 10
	// chunkBytes is how much text CountContext hands the tokenizer at once
	// when split points allow: between two checks of the context.
	chunkBytes = 16 << 10
)

// ErrUnsplittable is the error of CountContext for a text that holds a
// stretch of more than MaxStretch bytes without a split point.
var ErrUnsplittable = errors.New("a stretch of text too long to count in bounded time")

// CountContext counts the tokens of text in encoding enc, exactly as Count
// does, but in chunks, checking ctx between them: it returns ctx's error
// once ctx is done, so that a count can be held to a time limit. A chunk
// ends only where the tokenizer's own pre-splitting always ends a piece, so
// the chunks' counts add up to Count's: after an ASCII or Unicode letter or
// number and before a character that is neither a letter, a number, a
// combining mark nor an apostrophe (a space, a newline, "<", "." …). Both
// encodings' split expressions end a piece there whatever follows, and
// decide the pieces before it without looking past it. A text holding more
// than MaxStretch bytes between two such points (a long run of white space,
// a word of a million letters) fails with ErrUnsplittable at once, before
// anything is counted.
func (c *Counter) CountContext(ctx context.Context, enc Encoding, text string) (int64, error) {
	if _, ok := c.codecs[enc]; !ok {
		return c.Count(enc, "") // the error naming the encodings loaded
	}
	chunks, err := splitForCount(text)
	if err != nil {
		return 0, fmt.Errorf("count %s tokens of %d bytes: %w", enc, len(text), err)
	}
	var total int64
	for _, ch := range chunks {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("count %s tokens of %d bytes: stopped after %d: %w", enc, len(text), ch[0], err)
		}
		n, err := c.Count(enc, text[ch[0]:ch[1]])
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// splitForCount cuts text into chunks of about chunkBytes that end at split
// points (see CountContext), as [start, end) byte offsets.
func splitForCount(text string) ([][2]int, error) {
	var chunks [][2]int
	start, last := 0, 0 // the chunk being built; the last split point in it (0: none yet)
	var prev rune = -1
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if i > start && splitsBefore(prev, r, size) {
			last = i
		}
		if i-start >= chunkBytes && last > start {
			chunks = append(chunks, [2]int{start, last})
			start = last
		}
		if i-start > MaxStretch && last <= start {
			return nil, fmt.Errorf("%w: %d bytes from byte %d", ErrUnsplittable, i-start, start)
		}
		prev = r
		i += size
	}
	if len(text)-start > MaxStretch && last <= start {
		return nil, fmt.Errorf("%w: %d bytes from byte %d", ErrUnsplittable, len(text)-start, start)
	}
	if start < len(text) {
		chunks = append(chunks, [2]int{start, len(text)})
	}
	return chunks, nil
}

// splitsBefore reports whether the tokenizers always end a piece between
// prev and r (r's encoding is size bytes long; a size of 1 with
// utf8.RuneError is an invalid byte).
func splitsBefore(prev, r rune, size int) bool {
	if prev < 0 || !(unicode.IsLetter(prev) || unicode.IsNumber(prev)) {
		return false
	}
	if r == utf8.RuneError && size == 1 {
		return false
	}
	return r != '\'' && !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
}
