// Package space owns "a rendered space and its measurements", the one
// notion crawl and bench share.
//
// The model: a [Renderer] turns a [dom.View] (a page's capture seen
// through one window and text policy) into a [Rendered] space — the
// action-space text, its perception text, the structured actions and, in
// deep mode, what the LLM calls cost. A [Meter] then measures it the same
// way wherever it was rendered: ID counts, bytes, exact tokens per
// encoding, the compression ratio against the page's HTML, timings (see
// [MS]) and the deep-mode figures, into a [dataset.SpaceMetrics], the
// struct both the spaces table and the bench's cells table embed. Mode
// names ([ModeFast], [ModeDeep]) live here too.
//
// A page's life of steps: [Page.SetPrevious] links the state after an
// agent's step to the state before it, and the sweep then compares every
// fixed cell with the same cell of that state (handles kept, same,
// re-pointed, new and removed, and the tokens of a delta between the two
// texts; docs/handles.md).
//
// The package is offline: it links no browser.
package space
