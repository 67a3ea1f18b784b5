// Package render turns a [dom.View] into the text an agent reads.
//
// Fast mode ([Fast]) is plain code: one line per action or context text, in
// document order, wrapped in the perception text (page metadata, the
// pixels above/below markers, start and end markers). It is pure and
// deterministic, so a stored capture re-renders byte for byte.
package render
