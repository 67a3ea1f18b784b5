package cli

import (
	"flag"
	"strings"

	"actionspace/dom"
	"actionspace/space"
)

// strategyFlags are the flags of actionspace's compression strategies
// (--group, --layout, --only), each a LIST the matrix crosses.
type strategyFlags struct{ groups, layouts, onlys string }

// bind binds the strategy flags on fs, with m's lists as the defaults.
func (s *strategyFlags) bind(fs *flag.FlagSet, m *space.Matrix) {
	s.groups = FormatInts(m.Groups)
	if s.groups == "" {
		s.groups = "0"
	}
	s.layouts, s.onlys = string(dom.LayoutNone), string(dom.FilterAll)
	if len(m.Layouts) > 0 {
		s.layouts = joinStrings(m.Layouts)
	}
	if len(m.Onlys) > 0 {
		s.onlys = joinStrings(m.Onlys)
	}
	fs.StringVar(&s.groups, "group", s.groups, "actionspace grouping (`LIST`): fold runs of at least N siblings of the same shape into a header line plus one line per sibling; 0 = off (docs/strategies.md)")
	fs.StringVar(&s.layouts, "layout", s.layouts, "actionspace layout cues (`LIST` of none, coarse: each ID's line ends with its box centre in hundreds of CSS pixels)")
	fs.StringVar(&s.onlys, "only", s.onlys, "actionspace element filters (`LIST` of all, or kinds joined by +: "+strings.Join(dom.FilterKinds(), ", ")+"; e.g. links+buttons+inputs)")
}

// parse reads the strategy flags into m's lists.
func (s *strategyFlags) parse(m *space.Matrix) error {
	var err error
	if m.Groups, err = ParseInts(s.groups); err != nil {
		return Usagef("--group: %v", err)
	}
	for _, v := range SplitList(s.layouts) {
		l, err := dom.ParseLayout(v)
		if err != nil {
			return Usagef("--layout: %v", err)
		}
		m.Layouts = append(m.Layouts, l)
	}
	for _, v := range SplitList(s.onlys) {
		f, err := dom.ParseFilter(v)
		if err != nil {
			return Usagef("--only: %v", err)
		}
		m.Onlys = append(m.Onlys, f)
	}
	return nil
}

// joinStrings joins a list of string-like values with commas.
func joinStrings[T ~string](list []T) string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return strings.Join(out, ",")
}
