package metrics

import (
	"unicode"
	"unicode/utf8"
)

// The pre-splitting of tiktoken: before byte-pair merging, a text is cut
// into pieces by a regular expression, and no token crosses a piece's
// bounds. The expressions, as tiktoken gives them:
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// tiktoken runs them with a backtracking engine (Rust's fancy-regex):
// pieces are the successive leftmost matches, each alternative tried in
// order, each quantifier greedy and given back one character at a time
// until the rest matches. Unicode classes follow Rust's regex: \s is the
// White_Space property, \p{L}, \p{N}, \p{M} and the letter categories are
// general categories, and (?i:…) folds case the simple Unicode way, so
// 's also matches 'S and 'ſ (U+017F).
//
// nextCL100K and nextO200K compute the match at a position directly, as
// the first alternative that matches and the length the backtracking
// would give it, from runs of characters of one class. A piece is found by
// scanning at most a few runs from its start, and what a piece scans
// without taking (the rest of a white-space run after its last newline,
// the capitals after a word's last caseless letter) the next piece or the
// one after takes, so each character is read a bounded number of times: a
// text is split in time linear in its length, where the regular
// expression engines take time quadratic in the length of some
// white-space runs. Character classes come from Go's unicode tables; a
// character assigned in a later Unicode version than theirs could be
// classed otherwise than by tiktoken's engine.

// class is what the expressions tell apart about a character.
type class uint8

const (
	// classOther is a character that is neither white space, a letter, a
	// number nor a mark: punctuation, symbols, controls, unassigned.
	classOther class = iota
	// classSpace is white space other than \r and \n.
	classSpace
	// classNewline is \r or \n.
	classNewline
	// classUpper is an upper-case or title-case letter (Lu, Lt).
	classUpper
	// classLower is a lower-case letter (Ll).
	classLower
	// classCaseless is a modifier or other letter (Lm, Lo): in both of
	// o200k_base's letter classes.
	classCaseless
	// classMark is a combining mark (M): not a letter, but in both of
	// o200k_base's letter classes.
	classMark
	// classNumber is a number (N).
	classNumber
)

// asciiClass is the class of each ASCII character.
var asciiClass = func() (t [utf8.RuneSelf]class) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = classOfRune(r)
	}
	return t
}()

// classOfRune returns r's class.
func classOfRune(r rune) class {
	switch {
	case r == '\r' || r == '\n':
		return classNewline
	case unicode.IsSpace(r):
		return classSpace
	case unicode.IsLetter(r):
		switch {
		case unicode.Is(unicode.Ll, r):
			return classLower
		case unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r):
			return classUpper
		}
		return classCaseless
	case unicode.IsMark(r):
		return classMark
	case unicode.IsNumber(r):
		return classNumber
	}
	return classOther
}

// classAt returns the class of the character at byte i of text (i <
// len(text)) and its length in bytes.
func classAt(text string, i int) (class, int) {
	if b := text[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRuneInString(text[i:])
	return classOfRune(r), n
}

// Sets of classes, as the expressions name them.
func (c class) letter() bool   { return c == classUpper || c == classLower || c == classCaseless } // \p{L}
func (c class) space() bool    { return c == classSpace || c == classNewline }                     // \s
func (c class) prefix() bool   { return c == classOther || c == classSpace || c == classMark }     // [^\r\n\p{L}\p{N}]
func (c class) symbol() bool   { return c == classOther || c == classMark }                        // [^\s\p{L}\p{N}]
func (c class) upperish() bool { return c == classUpper || c == classCaseless || c == classMark }  // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
func (c class) lowerish() bool { return c == classLower || c == classCaseless || c == classMark }  // [\p{Ll}\p{Lm}\p{Lo}\p{M}]

// runEnd returns the end of the run of characters from byte i of text
// whose class is in the set in.
func runEnd(text string, i int, in func(class) bool) int {
	for i < len(text) {
		c, n := classAt(text, i)
		if !in(c) {
			break
		}
		i += n
	}
	return i
}

// contraction returns the end of the match of (?i:'s|'t|'re|'ve|'m|'ll|'d)
// at byte i of text, or -1 when it does not match there.
func contraction(text string, i int) int {
	if i+1 >= len(text) || text[i] != '\'' {
		return -1
	}
	switch text[i+1] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return i + 2
	case 0xc5: // ſ (U+017F) folds to s
		if i+2 < len(text) && text[i+2] == 0xbf {
			return i + 3
		}
		return -1
	}
	if i+2 >= len(text) {
		return -1
	}
	switch a, b := text[i+1]|0x20, text[i+2]|0x20; {
	case a == 'r' && b == 'e', a == 'v' && b == 'e', a == 'l' && b == 'l':
		return i + 3
	}
	return -1
}

// numberEnd returns the end of \p{N}{1,3} at byte i, where a number is.
func numberEnd(text string, i int) int {
	for k := 0; k < 3 && i < len(text); k++ {
		c, n := classAt(text, i)
		if c != classNumber {
			break
		}
		i += n
	}
	return i
}

// symbolsEnd returns the end of ` ?[^\s\p{L}\p{N}]+` followed by a run of
// the characters trail accepts, at byte i, or -1 when it does not match.
func symbolsEnd(text string, i int, trail func(byte) bool) int {
	j := i
	if text[j] == ' ' {
		j++
	}
	if j >= len(text) {
		return -1
	}
	if c, _ := classAt(text, j); !c.symbol() {
		return -1
	}
	j = runEnd(text, j, class.symbol)
	for j < len(text) && trail(text[j]) {
		j++
	}
	return j
}

func isCRLF(b byte) bool      { return b == '\r' || b == '\n' }
func isCRLFSlash(b byte) bool { return b == '\r' || b == '\n' || b == '/' }

// spaceEnd returns the end of `\s*[\r\n]+|\s+(?!\S)|\s+` at byte i,
// where white space is. The first alternative ends after the run's last
// \r or \n; the second, when the run has none, at the end of the text or
// before the run's last character, which is left to start the next
// piece; the third takes a run of one character before a non-space.
func spaceEnd(text string, i int) int {
	j, lastNewline, lastStart := i, -1, i
	for j < len(text) {
		c, n := classAt(text, j)
		if !c.space() {
			break
		}
		if c == classNewline {
			lastNewline = j
		}
		lastStart = j
		j += n
	}
	switch {
	case lastNewline >= 0:
		return lastNewline + 1
	case j == len(text) || lastStart == i:
		return j
	}
	return lastStart
}

// nextCL100K returns the end of the cl100k_base piece that starts at byte i
// of text (i < len(text); text valid UTF-8).
func nextCL100K(text string, i int) int {
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if e := contraction(text, i); e >= 0 {
		return e
	}
	c, n := classAt(text, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+: with the optional character if the next
	// is a letter, else without it, which needs c to be a letter.
	if c.prefix() && i+n < len(text) {
		if next, m := classAt(text, i+n); next.letter() {
			return runEnd(text, i+n+m, class.letter)
		}
	}
	if c.letter() {
		return runEnd(text, i+n, class.letter)
	}
	// \p{N}{1,3}
	if c == classNumber {
		return numberEnd(text, i)
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	if e := symbolsEnd(text, i, isCRLF); e >= 0 {
		return e
	}
	// Only white space is left.
	return spaceEnd(text, i)
}

// nextO200K returns the end of the o200k_base piece that starts at byte i
// of text (i < len(text); text valid UTF-8).
func nextO200K(text string, i int) int {
	c, n := classAt(text, i)
	// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:…)?
	// with the optional character, then without it.
	if c.prefix() {
		if e := o200kLowerEnd(text, i+n); e >= 0 {
			return e
		}
	}
	if c.upperish() || c.lowerish() {
		if e := o200kLowerEnd(text, i); e >= 0 {
			return e
		}
	}
	// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:…)?
	if c.prefix() {
		if e := o200kUpperEnd(text, i+n); e >= 0 {
			return e
		}
	}
	if c.upperish() {
		if e := o200kUpperEnd(text, i); e >= 0 {
			return e
		}
	}
	// \p{N}{1,3}
	if c == classNumber {
		return numberEnd(text, i)
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n/]*
	if e := symbolsEnd(text, i, isCRLFSlash); e >= 0 {
		return e
	}
	// Only white space is left.
	return spaceEnd(text, i)
}

// o200kLowerEnd returns the end of
// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
// at byte i, or -1 when it does not match there. The first loop takes the
// whole run of its class; if a lower-case letter follows, the second takes
// its run. Else the first loop gives back characters until the second can
// take one: the run's last Lm, Lo or M character, which is the piece's
// last (what follows it is Lu, Lt or outside both classes).
func o200kLowerEnd(text string, i int) int {
	j, lastBoth := i, -1
	for j < len(text) {
		c, n := classAt(text, j)
		if !c.upperish() {
			break
		}
		j += n
		if c != classUpper {
			lastBoth = j
		}
	}
	var end int
	if c, _ := classAtEnd(text, j); c == classLower {
		end = runEnd(text, j, class.lowerish)
	} else if lastBoth >= 0 {
		end = lastBoth
	} else {
		return -1
	}
	if e := contraction(text, end); e >= 0 {
		return e
	}
	return end
}

// o200kUpperEnd returns the end of
// [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
// at byte i, or -1 when it does not match there.
func o200kUpperEnd(text string, i int) int {
	j := runEnd(text, i, class.upperish)
	if j == i {
		return -1
	}
	j = runEnd(text, j, class.lowerish)
	if e := contraction(text, j); e >= 0 {
		return e
	}
	return j
}

// classAtEnd is classAt that gives classOther past the end of text.
func classAtEnd(text string, i int) (class, int) {
	if i >= len(text) {
		return classOther, 0
	}
	return classAt(text, i)
}
