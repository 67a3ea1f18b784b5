// Package docblock keeps measured figures in the docs: a tool writes its
// table into a file under results/ and between a named pair of markers in
// a docs page, and a test checks that the two still agree, so that no
// figure in the docs is typed by hand.
package docblock

import (
	"fmt"
	"strings"
)

// Markers returns the begin and end markers of the block name.
func Markers(name string) (begin, end string) {
	return "<!-- " + name + ":begin -->", "<!-- " + name + ":end -->"
}

// Replace puts text between the markers of block name in doc.
func Replace(doc, name, text string) (string, error) {
	begin, end := Markers(name)
	before, rest, ok := strings.Cut(doc, begin)
	_, after, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		return "", fmt.Errorf("no %s … %s block", begin, end)
	}
	return before + begin + "\n" + text + end + after, nil
}

// Get returns what doc holds between the markers of block name.
func Get(doc, name string) (string, bool) {
	begin, end := Markers(name)
	_, rest, ok := strings.Cut(doc, begin+"\n")
	text, _, ok2 := strings.Cut(rest, end)
	return text, ok && ok2
}
