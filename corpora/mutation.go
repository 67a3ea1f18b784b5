package corpora

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// MutationPrefix is the path under which [Handler] serves the mutation
// corpus: pages whose steps (crawl --steps) change the DOM in a known
// way. They are not in the default crawl list.
const MutationPrefix = "/mutation/"

// TruthAttr is the attribute that names, on every actionable element of a
// mutation page, what the element is: the same name for the same element
// in every state, another name for another element, even a look-alike.
const TruthAttr = "data-truth"

// The step pages of the mutation corpus that are not mutation cases: the
// browser's tests use them for the statuses of steps that go wrong.
const (
	// StepBrokenPath's expand step goes to the URL of its ?to= parameter,
	// by default to a page that does not exist (404): the step fails.
	StepBrokenPath = "/mutation/broken.html"
	// StepBusyPath's expand step keeps the page's thread busy for ?ms=
	// milliseconds (3000 by default): the capture after it runs out of
	// time.
	StepBusyPath = "/mutation/busy.html"
)

// mutationFiles holds the hand-labeled truth of the mutation pages, one
// file per page.
//
//go:embed mutation/*.json
var mutationFiles embed.FS

// mutationPaths lists the mutation pages in a stable order.
var mutationPaths = []string{
	"/mutation/insert.html",
	"/mutation/remove.html",
	"/mutation/reorder.html",
	"/mutation/rename.html",
	"/mutation/lookalike.html",
	"/mutation/modal.html",
	"/mutation/infinite.html",
	"/mutation/tabs.html",
	"/mutation/pushstate.html",
	"/mutation/crossdoc.html",
}

// MutationPaths returns the paths of the mutation pages, one per change:
//
//   - insert.html: expand inserts a button before the others;
//   - remove.html: expand removes a link from a list;
//   - reorder.html: expand moves the same three buttons into the reverse
//     order;
//   - rename.html: type changes a button's text;
//   - lookalike.html: expand replaces a button with a new one that looks
//     the same;
//   - modal.html: expand opens a modal dialog, which closes by itself
//     2.5 s later (during wait);
//   - infinite.html: each scroll appends five stories;
//   - tabs.html: expand selects another tab, whose panel replaces the
//     first;
//   - pushstate.html: expand pushes a history entry and swaps the
//     results; back puts the first results (the same nodes) back;
//   - crossdoc.html: expand goes to another document (crossdoc-next.html),
//     back returns.
//
// Each page's truth ([MutationTruthFor]) gives its steps and, per state,
// which truth names get a handle and which must keep theirs.
func MutationPaths() []string { return slices.Clone(mutationPaths) }

// MutationURLs returns base joined with each of [MutationPaths].
func MutationURLs(base string) []string { return joinURLs(base, mutationPaths) }

// StepTruth is the hand-labeled truth of one mutation page: the steps that
// drive its change and what each state holds, by the truth names of its
// elements ([TruthAttr]).
type StepTruth struct {
	// Page is the page's path, as in [MutationPaths].
	Page string `json:"page"`
	// Change names the DOM change the page's steps perform.
	Change string `json:"change"`
	// Note says what is subtle about the page.
	Note string `json:"note,omitempty"`
	// Steps are the page's steps, in order, as crawl --steps takes them.
	Steps []string `json:"steps"`
	// States are the states of the page: step 0 (after load), then one per
	// step, in order.
	States []StateTruth `json:"states"`
}

// StateTruth is what one state of a mutation page holds.
type StateTruth struct {
	// Step is the state's step: 0 after load, k after step k.
	Step int `json:"step"`
	// Status is how step Step ends (the steps table's status: ok or
	// navigated); empty for step 0.
	Status string `json:"status,omitempty"`
	// Present are the truth names of the elements that get a handle in
	// the whole page's action space of the state (fast mode,
	// viewport_expansion -1), in document order.
	Present []string `json:"present"`
	// Keep are the truth names that must keep their handle: the one they
	// had in the last state of the same document that gave them one. An
	// element of a new document keeps nothing, and neither does a
	// look-alike that replaced another.
	Keep []string `json:"keep,omitempty"`
}

// MutationTruthFor returns the truth of a mutation page, by its path
// ("/mutation/insert.html").
func MutationTruthFor(pagePath string) (*StepTruth, error) {
	if !slices.Contains(mutationPaths, pagePath) {
		return nil, fmt.Errorf("%w for %s: not a mutation page", ErrNoTruth, pagePath)
	}
	name := strings.TrimSuffix(path.Base(pagePath), path.Ext(pagePath))
	data, err := mutationFiles.ReadFile("mutation/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("%w for %s", ErrNoTruth, pagePath)
	}
	t := &StepTruth{}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(t); err != nil {
		return nil, fmt.Errorf("mutation truth of %s: %w", pagePath, err)
	}
	if err := t.check(pagePath); err != nil {
		return nil, fmt.Errorf("mutation truth of %s: %w", pagePath, err)
	}
	return t, nil
}

// check validates a truth: one state per step and step 0, statuses on
// steps only, and kept names that the state and an earlier one present.
func (t *StepTruth) check(pagePath string) error {
	if t.Page != pagePath {
		return fmt.Errorf("file is for page %q", t.Page)
	}
	if len(t.Steps) == 0 || strings.TrimSpace(t.Change) == "" {
		return errors.New("no steps or no change")
	}
	if len(t.States) != len(t.Steps)+1 {
		return fmt.Errorf("%d states for %d steps, want one more", len(t.States), len(t.Steps))
	}
	seen := map[string]bool{}
	for i, s := range t.States {
		switch {
		case s.Step != i:
			return fmt.Errorf("state %d: step %d", i, s.Step)
		case i == 0 && s.Status != "":
			return errors.New("state 0: a status")
		case i > 0 && s.Status != "ok" && s.Status != "navigated":
			return fmt.Errorf("state %d: status %q, want ok or navigated", i, s.Status)
		case len(s.Present) == 0:
			return fmt.Errorf("state %d: nothing present", i)
		}
		for _, k := range s.Keep {
			if !slices.Contains(s.Present, k) || !seen[k] {
				return fmt.Errorf("state %d: keeps %q, which it or no earlier state presents", i, k)
			}
		}
		for _, p := range s.Present {
			seen[p] = true
		}
	}
	return nil
}
