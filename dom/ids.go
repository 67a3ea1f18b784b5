package dom

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// IDPolicy says how a view numbers its IDs (docs/handles.md).
type IDPolicy string

// ID policies. IDsPositional is the default: one counter per letter in
// document order over the view's IDs, recomputed for every capture and
// every window, so an inserted element shifts the IDs after it. IDsStable
// gives an element the same ID for the life of its document, in every
// window and at every step: the IDs of a page's first capture are
// numbered over the whole page, in document order, whatever the window;
// an element met later gets the next number of its letter; an ID is never
// given to another element.
const (
	IDsPositional IDPolicy = "positional"
	IDsStable     IDPolicy = "stable"
)

// ParseIDPolicy validates an ID policy name.
func ParseIDPolicy(s string) (IDPolicy, error) {
	switch p := IDPolicy(s); p {
	case IDsPositional, IDsStable:
		return p, nil
	}
	return "", fmt.Errorf("unknown ID policy %q (want positional or stable)", s)
}

// ElementKey is an element's identity across the captures of a page: its
// document (PageInfo.Doc, or Node.KeyDoc for a stitched frame) and its key
// in that document (Node.Key). Two captures' elements with equal keys are
// the same DOM element.
type ElementKey struct {
	Doc string
	Key int
}

// Identity returns the identity of element i, and false when the capture
// gives it none (text nodes, captures made before keys existed).
func (t *Tree) Identity(i int) (ElementKey, bool) {
	nd := &t.Capture.Nodes[i]
	if nd.Kind != ElementNode || nd.Key <= 0 {
		return ElementKey{}, false
	}
	doc := nd.KeyDoc
	if doc == "" {
		doc = t.Capture.Page.Doc
	}
	return ElementKey{Doc: doc, Key: nd.Key}, true
}

// MaxRemovedListed caps the IDs the removed line of a perception text
// names (View.Removed): a page that drops thousands of elements at once
// gets the first MaxRemovedListed and a count of the rest.
const MaxRemovedListed = 100

// stableIDs is the stable numbering of one capture: the ID of every
// element that can get one in some view, and what the numbering of the
// page's next capture continues from.
type stableIDs struct {
	// ids[i] is element i's stable ID, "" for nodes that never get one.
	ids []string
	// known holds every ID given in the page's life, by element and
	// letter (an element whose letter changes gets a new ID).
	known map[stableKey]string
	// next is the last number given per letter.
	next map[byte]int
	// removed are the IDs of the previous capture that no element of
	// this one holds, by letter (in Letters order), then number.
	removed []string
}

type stableKey struct {
	ElementKey
	letter byte
}

// idState holds a tree's stable numbering, made once on first use (or by
// Follow).
type idState struct {
	once sync.Once
	s    *stableIDs
}

// ErrNumbered is returned by Tree.Follow when the tree's stable IDs were
// already numbered (a view with stable IDs was selected, or Follow was
// called before): the numbering cannot change once views have used it.
var ErrNumbered = errors.New("stable IDs already numbered")

// Follow makes t the capture that follows prev in a page's life (the
// state after an agent's step): t's stable IDs continue prev's, so an
// element of the same document keeps its ID, a new one gets the next
// number of its letter, and no ID is given twice. prev's own numbering is
// made first if it is not yet (from its own predecessor, if Follow linked
// one). Call it once, before any view of t is selected with IDsStable; t
// keeps no reference to prev. It returns ErrNumbered when t was numbered
// already.
//
// The numbering is a pure function of the sequence of captures: step k's
// IDs follow from the captures of steps 0 to k, so a stored sequence
// renders the same IDs offline.
func (t *Tree) Follow(prev *Tree) error {
	if prev == nil {
		return errors.New("follow: no previous tree")
	}
	base := prev.stable()
	done := false
	t.ids.once.Do(func() {
		t.ids.s = t.numberStable(base)
		done = true
	})
	if !done {
		return ErrNumbered
	}
	return nil
}

// stable returns t's stable numbering, making it (as a page's first
// capture) on first use.
func (t *Tree) stable() *stableIDs {
	t.ids.once.Do(func() { t.ids.s = t.numberStable(nil) })
	return t.ids.s
}

// StableID returns the ID element i holds under IDsStable in every view
// that gives it one, "" for a node that no view gives an ID.
func (t *Tree) StableID(i int) string { return t.stable().ids[i] }

// numberStable numbers the capture's elements that can get an ID in some
// view (candidates that are not nested: whether a window, occlusion, a
// label rule or a modal dialog then gives them one does not change their
// number), in document order, continuing prev (nil for a page's first
// capture).
func (t *Tree) numberStable(prev *stableIDs) *stableIDs {
	nodes := t.Capture.Nodes
	s := &stableIDs{ids: make([]string, len(nodes)), known: map[stableKey]string{}, next: map[byte]int{}}
	if prev != nil {
		for k, v := range prev.known {
			s.known[k] = v
		}
		for l, n := range prev.next {
			s.next[l] = n
		}
	}
	used := map[string]bool{}
	for i := range nodes {
		if !t.candidate[i] || t.Nested(i) {
			continue
		}
		letter := LetterOf(t.roles[i])
		id, hasKey := t.Identity(i)
		k := stableKey{id, letter}
		if v, ok := s.known[k]; hasKey && ok && !used[v] {
			s.ids[i], used[v] = v, true
			continue
		}
		s.next[letter]++
		v := string(letter) + strconv.Itoa(s.next[letter])
		s.ids[i], used[v] = v, true
		if hasKey {
			s.known[k] = v
		}
	}
	if prev != nil {
		for _, v := range prev.ids {
			if v != "" && !used[v] {
				s.removed = append(s.removed, v)
			}
		}
		sortedIDs(s.removed)
	}
	return s
}

// removedLine is the perception text's line naming the IDs removed since
// the previous step (docs/handles.md), "" when there are none.
func removedLine(removed []string) string {
	if len(removed) == 0 {
		return ""
	}
	shown := removed[:min(len(removed), MaxRemovedListed)]
	line := "Removed since the last step: " + strings.Join(shown, " ")
	if rest := len(removed) - len(shown); rest > 0 {
		line += " (+" + strconv.Itoa(rest) + " more)"
	}
	return line
}

// RemovedLine returns the line a perception text of v holds between its
// header and its action space, naming the IDs of the previous step that
// no element holds any more; "" when there are none, and under
// IDsPositional (whose IDs have no identity to lose).
func (v *View) RemovedLine() string { return removedLine(v.Removed) }

// sortedIDs sorts IDs by letter (in Letters order), then number.
func sortedIDs(ids []string) {
	slices.SortFunc(ids, func(a, b string) int {
		if la, lb := strings.IndexByte(Letters, a[0]), strings.IndexByte(Letters, b[0]); la != lb {
			return la - lb
		}
		na, _ := strconv.Atoi(a[1:])
		nb, _ := strconv.Atoi(b[1:])
		return na - nb
	})
}
