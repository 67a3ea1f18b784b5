package pipeline

import "time"

// Settle rules of [PageConfig].Settle.
const (
	// SettleQuietRule captures once the DOM has gone PageConfig.SettleQuiet
	// without a mutation.
	SettleQuietRule = "quiet"
	// SettleEvidence captures as soon as the page is quiet by every signal
	// the browser gives: its fonts loaded, no request of the page's own
	// origin pending, no timer of the page pending that is due within
	// PageConfig.SettleQuiet (the quiet rule would have seen what it
	// does; pollers and long chains of timers do not count), its layout
	// the same size over consecutive checks, and no DOM mutation for
	// EvidenceQuiet since the last one. It is the default: on the corpus
	// and on saved public pages it gives the quiet rule's rows, sooner.
	SettleEvidence = "evidence"
)

// EvidenceQuiet is how long the DOM must go without a mutation under
// SettleEvidence, whose other signals say the page is done loading: long
// enough for a script's next step after a response or a timer of 0.
const EvidenceQuiet = 100 * time.Millisecond
