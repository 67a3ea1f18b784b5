package axtree

// Probe modes: what the actionable-now probe tests (crawl
// --actionable-probe).
const (
	// ProbeViewport tests the oracle elements whose box meets the
	// viewport, at the capture's scroll position: the page does not move.
	ProbeViewport = "viewport"
	// ProbeAll tests every oracle element, scrolling each into view
	// first; it runs after every other record was taken, since it moves
	// the page.
	ProbeAll = "all"
	// ProbeNone takes no probe.
	ProbeNone = "none"
)

// Why a probed element has no answer (Hit.Why).
const (
	// HitOffscreen: no part of the element's box was inside its
	// document's viewport, or its point was outside an enclosing frame's,
	// so no pointer event can reach it without scrolling.
	HitOffscreen = "offscreen"
	// HitGone: the element was no longer in the document, or its DOM node
	// was not the capture's (another tag).
	HitGone = "gone"
	// HitNotCaptured: the element has no capture element tied to it by
	// DOM identity, so the probe could not find it in the capture's world
	// (a closed shadow root, a frame not captured, a node budget spent).
	HitNotCaptured = "not_captured"
	// HitCapped: the element came after the probe's cap on candidates
	// (crawl --max-actionable-probe).
	HitCapped = "capped"
	// HitDeadline: the probe's time ran out before the element.
	HitDeadline = "deadline"
)

// Probe is the actionable-now probe of the record's page state: for each
// oracle element tested, whether a pointer event at the centre of the
// visible part of its box reaches it (the element, a descendant, a
// label of it) or what covers it. It is taken in the browser after the
// capture and every other record, in the capture's isolated world, and
// stored with the record so that offline measures can be recomputed.
type Probe struct {
	// Mode is ProbeViewport or ProbeAll.
	Mode string `json:"mode"`
	// Candidates is the number of oracle elements the mode asked about
	// (for viewport, those whose box meets the viewport), before the cap.
	Candidates int `json:"candidates"`
	// Capped is set when there were more candidates than the cap: those
	// past it have Why HitCapped.
	Capped bool `json:"capped,omitempty"`
	// Late is set when the probe's time ran out: the elements not reached
	// have Why HitDeadline.
	Late bool `json:"late,omitempty"`
	// Hits are the answers, one per candidate, in node order.
	Hits []Hit `json:"hits"`
}

// Hit is the probe's answer for one oracle element.
type Hit struct {
	// Node is the element's index in Record.Nodes.
	Node int `json:"n"`
	// Reached is true when the pointer event reaches the element, false
	// when another element covers it, nil when it was not tested (Why).
	Reached *bool `json:"ok,omitempty"`
	// Why says why Reached is nil (Hit* constants).
	Why string `json:"why,omitempty"`
	// Tag and Role are the covering element's, when Reached is false:
	// the element the event reaches instead (its lower-case tag, and its
	// role, explicit or implicit; "" when it has none).
	Tag  string `json:"tag,omitempty"`
	Role string `json:"role,omitempty"`
}
