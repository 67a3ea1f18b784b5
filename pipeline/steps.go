package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"actionspace/axtree"
)

// The actions of a page's steps (crawl --steps), performed in order on
// the page after its first capture, each followed by a capture of the
// state it left (see docs/steps.md).
const (
	// StepScroll scrolls the document down by one viewport height.
	StepScroll = "scroll"
	// StepExpand clicks the first visible collapsed control in the
	// viewport: aria-expanded="false", the summary of a closed <details>,
	// or aria-haspopup (not expanded).
	StepExpand = "expand"
	// StepType clicks the first visible empty text input in the viewport
	// and types StepTypeText into it, key by key.
	StepType = "type"
	// StepWait acts on nothing: it pauses for PageConfig.SettleMax, then
	// the capture settles as every capture does (tickers, carousels, late
	// scripts).
	StepWait = "wait"
	// StepBack goes back in the page's history when a step before it
	// changed the page's URL (a navigation, or a pushState); skipped
	// otherwise.
	StepBack = "back"
)

// StepTypeText is the fixed string the type step types. It is not a
// secret, and the step never types into a password field.
const StepTypeText = "actionspace"

// MaxSteps caps the steps of a page (crawl --steps): each step costs a
// capture and its extras.
const MaxSteps = 16

// StepActions lists the step actions, in the order the docs give them.
func StepActions() []string {
	return []string{StepScroll, StepExpand, StepType, StepWait, StepBack}
}

// ParseSteps parses a comma-separated list of step actions (crawl
// --steps); "" and "none" give no steps.
func ParseSteps(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return nil, nil
	}
	var steps []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if !slices.Contains(StepActions(), a) {
			return nil, fmt.Errorf("unknown step %q (want %s)", a, strings.Join(StepActions(), ", "))
		}
		steps = append(steps, a)
	}
	if len(steps) > MaxSteps {
		return nil, fmt.Errorf("%d steps, at most %d", len(steps), MaxSteps)
	}
	return steps, nil
}

// StepState is what one step of a page did (see PageConfig.Steps): the
// action, its target, how it ended and, when it left a state to read, that
// state's records (State, a Load of its own).
type StepState struct {
	// Step is the step's number, from 1 (0 is the first capture, the Load
	// that holds the steps).
	Step int
	// Action is one of StepScroll, StepExpand, StepType, StepWait and
	// StepBack.
	Action string
	// Target describes what the step acted on, for a person (a tag, a
	// role, a name from the page, the rule that picked it, or the scroll
	// offsets), at most MaxStepTarget bytes; never the value typed, which
	// is StepTypeText anyway. Empty for wait; for a skipped step, why it
	// was skipped.
	Target string
	// Status is dataset.StepOK, StepNavigated, StepSkipped, StepFailed or
	// StepTimeout.
	Status string
	// ErrorKind and Error say why a failed or timed-out step failed.
	ErrorKind ErrorKind
	Error     string
	// Duration is the step's wall time: the action and the capture of
	// the state it left.
	Duration time.Duration
	// State is the page state after the step, captured with the same
	// settling and the same extras as the first state (its FinalURL,
	// Capture, HTML, AXTree, AISnapshot, their skip reasons and timings);
	// nil for a step that was skipped, failed or timed out.
	State *Load
}

// MaxStepTarget caps StepState.Target, in bytes.
const MaxStepTarget = 200

// Captured reports whether the step left a state (ok or navigated).
func (s StepState) Captured() bool { return s.State != nil }

// validateSteps reports an unknown step action or a negative step time
// limit.
func (c PageConfig) validateSteps() error {
	if c.StepTimeout < 0 {
		return fmt.Errorf("step timeout: %v, want >= 0", c.StepTimeout)
	}
	if len(c.Steps) > MaxSteps {
		return fmt.Errorf("steps: %d, at most %d", len(c.Steps), MaxSteps)
	}
	for _, a := range c.Steps {
		if !slices.Contains(StepActions(), a) {
			return fmt.Errorf("steps: unknown step %q (want %s)", a, strings.Join(StepActions(), ", "))
		}
	}
	if len(c.Steps) > 0 && c.Extras.ActionableProbe == axtree.ProbeAll {
		// Its scrolls fire the page's scroll listeners (an infinite feed
		// grows): each step would start from a state nobody captured.
		return fmt.Errorf("steps: the actionable probe %q scrolls the page between its states; use %q with steps", axtree.ProbeAll, axtree.ProbeViewport)
	}
	return nil
}

// stepsBrokePage reports whether a step of ld ended as a failed load
// that leaves its page unusable does (a crashed or stuck page): the
// worker then closes the page, as after such a load.
func stepsBrokePage(ld *Load) bool {
	for _, s := range ld.Steps {
		if s.ErrorKind == KindBrowser || s.ErrorKind == KindTimeout {
			return true
		}
	}
	return false
}
