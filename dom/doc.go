// Package dom turns one capture of a live page into the set of actions an
// agent can take, for any viewport_expansion, without a browser.
//
// The model has three steps:
//
//   - Capture: [Script] runs once in the page and records every rendered
//     element and text node in document (flat-tree) order: attributes,
//     geometry in page coordinates, visibility, interactivity signals,
//     disabled state, occlusion where measurable, form state, and the page's
//     viewport and scroll offsets. [Parse] decodes that record into a
//     [Capture].
//   - Tree: [NewTree] derives what every setting shares (subtree ranges,
//     block ancestors, roles, locators) once per capture.
//   - View: [Tree.Select] applies one setting ([Options]): the viewport
//     window grown by the expansion, occlusion, the nested-control rule,
//     labels, modal dialogs and the text policy, and assigns IDs (B1, I1,
//     L1 …) in document order with one counter per letter; or, under
//     [IDsStable], the ID each element keeps for the life of its document
//     ([Tree.Follow] continues the numbering of the capture before, by
//     the element keys the capture script keeps: [Node.Key]).
//
// A view changes only where a node enters the window:
// [Tree.EntryExpansion] and [Tree.Expansions] list those expansions, so a
// search over windows (a token budget) renders only views that differ.
//
// Every size the page decides is bounded in the capture ([ScriptOptions]:
// nodes, characters, title, URL, attributes per element, names, values,
// texts, options), and [PageInfo.Capped] says which bounds a capture hit.
// Password values and the values of hidden inputs (CSRF tokens) never
// leave the page.
//
// Each element has a short locator ([Tree.Locator]): XPath segments, one
// per document or shadow root, anchored at unique ids where there are
// some, at most [DefaultMaxLocator] bytes.
//
// Everything after the capture is pure and deterministic: the same capture
// and options always give the same view, so a stored capture can be
// re-rendered years later, byte for byte.
package dom
