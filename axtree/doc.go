// Package axtree holds the stored records of a page state that come from
// the browser itself rather than from our capture script: Chromium's
// accessibility tree and Playwright's AI snapshot. Both are taken right
// after the capture, on the same page state, and stored beside it, so that
// the oracle (package oracle) and the peer formats (package render) work
// offline, years later, without a browser.
//
// The model:
//
//   - [Record] is the accessibility tree of the main frame and every frame
//     in it, flattened into one pre-order list of [Node]s in which a frame's
//     root hangs below its Iframe node, as the capture hangs a frame's
//     elements below its iframe element. Every node keeps its role, name,
//     value, the accessibility properties Chromium reported (focusable,
//     disabled, hidden, checked, expanded, level …), whether it is ignored,
//     its backend DOM node and that node's tag, tabindex attribute and
//     border box in page coordinates (CSS pixels), the frame it belongs to,
//     and the index of the capture element it is (DOM identity, resolved in
//     the browser), or -1.
//   - [Frame] says where each frame's viewport sits in the page, so that
//     viewport-relative boxes (the AI snapshot's) can be placed.
//   - [Snapshot] is Playwright's AI snapshot text with the scroll offsets it
//     was taken at; [ParseSnapshot] reads its lines into [SnapNode]s.
//
// Everything here is pure: decoding, checking, tree helpers. The code that
// takes these records in a browser lives in the browser adapter.
package axtree
