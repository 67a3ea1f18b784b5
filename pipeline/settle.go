package pipeline

import "time"

// Settle rules of [PageConfig].Settle.
const (
	// SettleQuietRule captures once the DOM has gone PageConfig.SettleQuiet
	// without a mutation.
	SettleQuietRule = "quiet"
	// SettleEvidence captures as soon as the page is quiet by every signal
	// the browser gives: its fonts loaded, no request of the page's own
	// origin pending, its layout the same size over consecutive checks,
	// and no DOM mutation for EvidenceQuiet.
	SettleEvidence = "evidence"
)

// EvidenceQuiet is how long the DOM must go without a mutation under
// SettleEvidence, whose other signals say the page is done loading: long
// enough for a script's next step after a response or a timer of 0.
const EvidenceQuiet = 100 * time.Millisecond
