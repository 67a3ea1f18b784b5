package space

import (
	"fmt"

	"actionspace/dataset"
	"actionspace/dom"
)

// Strategies returns the compression strategies the matrix renders every
// fixed-window actionspace cell in: the combinations of Groups, Layouts
// and Onlys (each empty list its default alone), by group, then layout,
// then filter, each in the order listed. Defaults are normalised to zero
// values (dom.Strategy.Normal), so the plain strategy is the zero value.
func (m Matrix) Strategies() []dom.Strategy {
	groups, layouts, onlys := m.Groups, m.Layouts, m.Onlys
	if len(groups) == 0 {
		groups = []int{0}
	}
	if len(layouts) == 0 {
		layouts = []dom.Layout{dom.LayoutNone}
	}
	if len(onlys) == 0 {
		onlys = []dom.Filter{dom.FilterAll}
	}
	var out []dom.Strategy
	for _, g := range groups {
		for _, l := range layouts {
			for _, f := range onlys {
				out = append(out, dom.Strategy{Group: g, Layout: l, Only: f}.Normal())
			}
		}
	}
	return out
}

// validStrategies checks Groups, Layouts and Onlys: each value valid,
// none twice (an empty list is its default); errors start with the flag
// that sets the list (group, layout, only).
func (m Matrix) validStrategies() error {
	if len(m.Groups) > 0 {
		if err := listed("group", m.Groups, func(g int) error { return dom.Strategy{Group: g}.Validate() }); err != nil {
			return err
		}
	}
	if len(m.Layouts) > 0 {
		if err := listed("layout", m.Layouts, func(l dom.Layout) error {
			_, err := dom.ParseLayout(string(l))
			return err
		}); err != nil {
			return err
		}
	}
	if len(m.Onlys) > 0 {
		if err := listed("only", m.Onlys, func(f dom.Filter) error {
			p, err := dom.ParseFilter(string(f))
			if err == nil && p != f {
				err = fmt.Errorf("filter %q: write it %q", f, p)
			}
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// Columns returns the strategy columns of a row rendered in setting s:
// for a fixed-window actionspace row its strategy, the defaults written
// out (0, "none", "all"); null for the other formats and for budget rows
// (budget is set), which are rendered plain.
func (s Setting) Columns(budget bool) dataset.StrategyColumns {
	if s.Format != FormatActionSpace || budget {
		return dataset.StrategyColumns{}
	}
	st := s.Options.Strategy
	layout, only := string(st.Layout), string(st.Only)
	if layout == "" {
		layout = string(dom.LayoutNone)
	}
	if only == "" {
		only = string(dom.FilterAll)
	}
	return dataset.StrategyColumns{GroupMinRun: ptr(int64(st.Group)), Layout: &layout, ElementFilter: &only}
}

// Cuttable reports whether format has handles on lines, so that its
// whole-page text cut from the end is a baseline for a token budget:
// browser-use, playwright-ai and axtree.
func Cuttable(format string) bool {
	return format == FormatBrowserUse || format == FormatPlaywrightAI || format == FormatAXTree
}
