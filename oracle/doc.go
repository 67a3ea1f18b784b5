// Package oracle says which elements of a page state an agent can act on,
// without our capture's rules, and how many of them a rendered space gave
// a handle.
//
// The model:
//
//   - [New] takes the accessibility tree of the page state (package
//     axtree) and keeps the nodes with a widget role (button, link,
//     textbox, searchbox, combobox, listbox, option, checkbox, radio,
//     switch, tab, menuitem, menuitemcheckbox, menuitemradio, slider,
//     spinbutton, treeitem) or that are keyboard-focusable (focusable, and
//     not taken out of the tab order by a negative tabindex: a
//     tabindex=-1 landmark, heading or container is focusable by script
//     only and is not an action), that are not ignored, hidden or
//     disabled, and have a non-empty box. Document and frame roots never
//     count. These are the [Element]s.
//   - Each element is tied to the capture's element it is: by DOM identity
//     where the browser resolved it (axtree.Node.Capture), otherwise by
//     geometry: the capture element in the same frame depth whose box
//     overlaps most (intersection over union at least [MinOverlap]), an
//     element whose role agrees first.
//   - A rendered space is scored against the elements whose box meets its
//     window ([Score]): oracle_in_window, recall (the share of them with a
//     handle) and extra_handles (handles that stand for no element). For
//     an actionspace view, [Oracle.View] also lists each miss with the
//     view's reason (outside_window, occluded, modal_backdrop, nested,
//     hidden, disabled, not_interactive, or not_captured) and each extra
//     handle with the signal that made it (tag, role, tabindex, handler,
//     cursor, haspopup, label …), as rows a table can hold.
//   - When the record holds an actionable-now probe (axtree.Probe), each
//     element carries its answer ([Element.Actionable]: a pointer event
//     at its centre reaches it, or what covers it), and
//     [Oracle.Actionable] scores a space against the elements reached
//     ([ActionableScore]): actionable_in_window and actionable_recall.
//
// Everything here is pure: it reads stored records and never a browser.
package oracle
