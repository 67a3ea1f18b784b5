package dom

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Layout says whether each ID's line carries a coarse position.
type Layout string

// Layouts. LayoutNone (the default) adds nothing; LayoutCoarse ends each
// ID's line with the centre of the element's box in hundreds of CSS
// pixels of page coordinates ("@3,12": near x=300, y=1200), so that an
// agent can tell twin controls apart by where they are.
const (
	LayoutNone   Layout = "none"
	LayoutCoarse Layout = "coarse"
)

// ParseLayout validates a layout name.
func ParseLayout(s string) (Layout, error) {
	switch l := Layout(s); l {
	case LayoutNone, LayoutCoarse:
		return l, nil
	}
	return "", fmt.Errorf("unknown layout %q (want none or coarse)", s)
}

// Filter keeps only the IDs of some element kinds: a "+"-joined list of
// kinds (FilterKinds), in that order, e.g. "links+buttons+inputs". The
// zero value and FilterAll keep every kind. Elements a filter drops get no
// ID; their text becomes context text like any other text.
type Filter string

// FilterAll keeps every kind: no filter.
const FilterAll Filter = "all"

// filterKinds maps each kind a filter can name to the ID letter of its
// role family (see LetterOf), in the order a filter lists them.
var filterKinds = []struct {
	name   string
	letter byte
}{
	{"links", LetterLink}, {"buttons", LetterButton}, {"inputs", LetterInput},
	{"images", LetterImage}, {"options", LetterOption}, {"other", LetterOther},
}

// FilterKinds returns the kinds a filter can name, in order.
func FilterKinds() []string {
	out := make([]string, len(filterKinds))
	for i, k := range filterKinds {
		out[i] = k.name
	}
	return out
}

// ParseFilter reads a filter: "all" (or empty), or kinds joined by "+"
// (or spaces), each known, none twice. The result lists the kinds in
// FilterKinds order, so that one set of kinds has one spelling.
func ParseFilter(s string) (Filter, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == string(FilterAll) {
		return FilterAll, nil
	}
	var names []string
	for _, k := range strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ' ' }) {
		if !slices.Contains(FilterKinds(), k) {
			return "", fmt.Errorf("unknown element kind %q in filter %q (want %s, or all)", k, s, strings.Join(FilterKinds(), ", "))
		}
		if slices.Contains(names, k) {
			return "", fmt.Errorf("element kind %s listed twice in filter %q", k, s)
		}
		names = append(names, k)
	}
	if len(names) == 0 {
		return "", fmt.Errorf("filter %q names no kind", s)
	}
	slices.SortFunc(names, func(a, b string) int {
		return slices.Index(FilterKinds(), a) - slices.Index(FilterKinds(), b)
	})
	return Filter(strings.Join(names, "+")), nil
}

// Keeps reports whether the filter keeps elements of the given role.
func (f Filter) Keeps(role string) bool {
	if f == "" || f == FilterAll {
		return true
	}
	letter := LetterOf(role)
	for _, k := range strings.Split(string(f), "+") {
		for _, fk := range filterKinds {
			if fk.name == k && fk.letter == letter {
				return true
			}
		}
	}
	return false
}

// Strategy is how a view compresses the action space beyond its window
// and text policy: the strategies of docs/strategies.md. Its zero value
// is none of them, the plain action space.
type Strategy struct {
	// Group folds runs of at least Group siblings of the same shape into
	// one header line plus one line per sibling (render.Fast); 0 is off.
	Group int
	// Layout says whether each ID's line carries a coarse position; the
	// zero value means LayoutNone.
	Layout Layout
	// Only keeps the IDs of some element kinds; the zero value means
	// FilterAll.
	Only Filter
}

// Plain reports whether s is no strategy at all: its fields zero or
// their defaults.
func (s Strategy) Plain() bool { return s.Normal() == Strategy{} }

// Normal returns s with its defaults written as zero values (LayoutNone
// and FilterAll as ""), so that equal strategies compare equal.
func (s Strategy) Normal() Strategy {
	if s.Layout == LayoutNone {
		s.Layout = ""
	}
	if s.Only == FilterAll {
		s.Only = ""
	}
	return s
}

// Key names a strategy in a bench cell's key: "" for none, otherwise its
// parts joined by ",": "g<N>" for grouping, "coarse" for the layout and
// the filter's kinds ("links+buttons"), e.g. "g3,coarse,links+buttons".
func (s Strategy) Key() string {
	s = s.Normal()
	var parts []string
	if s.Group > 0 {
		parts = append(parts, "g"+strconv.Itoa(s.Group))
	}
	if s.Layout != "" {
		parts = append(parts, string(s.Layout))
	}
	if s.Only != "" {
		parts = append(parts, string(s.Only))
	}
	return strings.Join(parts, ",")
}

// ParseStrategyKey is the inverse of Strategy.Key.
func ParseStrategyKey(key string) (Strategy, error) {
	var s Strategy
	if key == "" {
		return s, nil
	}
	for _, p := range strings.Split(key, ",") {
		switch {
		case len(p) > 1 && p[0] == 'g' && p[1] >= '0' && p[1] <= '9':
			n, err := strconv.Atoi(p[1:])
			if err != nil {
				return Strategy{}, fmt.Errorf("strategy %q: group %q: %w", key, p[1:], err)
			}
			s.Group = n
		case p == string(LayoutCoarse) || p == string(LayoutNone):
			s.Layout = Layout(p)
		default:
			f, err := ParseFilter(p)
			if err != nil {
				return Strategy{}, fmt.Errorf("strategy %q: %w", key, err)
			}
			s.Only = f
		}
	}
	return s.Normal(), s.Validate()
}

// Validate reports an invalid strategy, naming the setting.
func (o Strategy) Validate() error {
	if o.Group < 0 {
		return fmt.Errorf("group %d: want 0 (off) or at least 2", o.Group)
	}
	if o.Group == 1 {
		return fmt.Errorf("group 1: a run needs at least 2 siblings (0 turns grouping off)")
	}
	if o.Layout != "" {
		if _, err := ParseLayout(string(o.Layout)); err != nil {
			return err
		}
	}
	if o.Only != "" {
		f, err := ParseFilter(string(o.Only))
		if err != nil {
			return err
		}
		if f != o.Only {
			return fmt.Errorf("filter %q: write it %q", o.Only, f)
		}
	}
	return nil
}

// kindRole is the role an element filter judges element i by: a label's
// control's role (a label with an ID stands for its control), the
// element's own otherwise.
func (t *Tree) kindRole(i int) string {
	if nd := &t.Capture.Nodes[i]; nd.Tag == "label" && nd.LabelFor > 0 {
		return t.roles[nd.LabelFor]
	}
	return t.roles[i]
}

// SalientNode reports whether text node i holds salient text (Salient):
// what the TextSalient policy keeps as context.
func (t *Tree) SalientNode(i int) bool { return t.SalientPart(i) != "" }

// SalientPart is the salient text of text node i that the TextSalient
// policy keeps ("" for none): the node's text when it is part of a
// heading, a live region or an error message, otherwise the prices found
// in it, joined by spaces (a price in a paragraph keeps the price, not
// the paragraph). The page's salient text is found once per tree, on
// first use; safe for concurrent use.
func (t *Tree) SalientPart(i int) string {
	t.salientOnce.Do(func() {
		t.salient = make([]string, len(t.Capture.Nodes))
		whole := make([]bool, len(t.Capture.Nodes))
		for _, it := range Salient(t).Items {
			for k, j := range it.Texts {
				switch {
				case it.Kind != SalientPrice && !whole[j]:
					t.salient[j], whole[j] = it.Parts[k], true
				case it.Kind == SalientPrice && !whole[j]:
					if t.salient[j] != "" {
						t.salient[j] += " "
					}
					t.salient[j] += it.Parts[k]
				}
			}
		}
	})
	return t.salient[i]
}
