package space

import (
	"fmt"
	"slices"
	"strings"

	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
)

// Matrix is what a crawl or a sweep renders per page: the formats, the
// actionspace modes, the viewport expansions, the text policies, the
// encodings every text is counted in and the token budgets. It is the
// one declaration of these settings: pipeline.Config and bench.Config
// embed it, the commands bind it to the same flags (internal/cli), and
// Cells expands it into what each page is rendered in.
type Matrix struct {
	// Formats lists the formats rendered, in order (see Formats). A
	// format needs its record among the page's: a page without it gets
	// no cell of that format.
	Formats []string
	// Modes lists the actionspace renderers: ModeFast and/or ModeDeep.
	Modes []string
	// Expansions lists the viewport_expansion values; dom.WholePage (-1)
	// is the whole page.
	Expansions []int
	// Texts lists actionspace's context-text policies.
	Texts []dom.TextPolicy
	// Groups, Layouts and Onlys list actionspace's compression strategies
	// (docs/strategies.md): grouping's least run (0 = off), the layout
	// cues and the element filters. Each empty list means its default
	// alone (0, dom.LayoutNone, dom.FilterAll); every fixed-window
	// actionspace cell is rendered in each of their combinations
	// (Strategies). Budget cells are plain.
	Groups  []int
	Layouts []dom.Layout
	Onlys   []dom.Filter
	// Encodings are the tokenizers every text is counted with; the first
	// leads reports, and budgets are counted in it.
	Encodings []metrics.Encoding
	// Budgets lists token budgets: per text policy and budget, one more
	// cell, the fast action space that fits in that many tokens of the
	// first encoding, perception wrapper included (render.FitBudget);
	// and, with Cuts, per budget the cut-from-the-end baselines. Empty for
	// none.
	Budgets []int64
	// IDs lists actionspace's ID policies (dom.IDsPositional,
	// dom.IDsStable; see docs/handles.md); empty means positional only
	// (Options.IDs ""). Budget cells number positionally.
	IDs []dom.IDPolicy
	// Cuts adds, per budget, the cut-from-the-end baseline of every
	// format with handles on lines (browser-use, playwright-ai and axtree,
	// when listed; Cuttable): the format's whole-page text cut to the budget
	// (Meter.CutFormat), what users do today. Bench sets it; a crawl
	// leaves it off, so the spaces table has no baseline rows.
	Cuts bool
}

// Validate reports the first invalid setting; its error starts with the
// name of the flag that sets it (formats, mode, viewport-expansion, text,
// encodings, ids, token-budget). Whether deep mode has a renderer is the
// caller's to check.
func (m Matrix) Validate() error {
	if err := listed("formats", m.Formats, func(f string) error {
		if !slices.Contains(Formats(), f) {
			return fmt.Errorf("unknown format %q (want %s)", f, strings.Join(Formats(), ", "))
		}
		return nil
	}); err != nil {
		return err
	}
	if err := listed("mode", m.Modes, func(mode string) error {
		if mode != ModeFast && mode != ModeDeep {
			return fmt.Errorf("unknown mode %q (want fast, deep)", mode)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := listed("viewport-expansion", m.Expansions, func(e int) error {
		return dom.Options{Expansion: e}.Validate()
	}); err != nil {
		return err
	}
	if err := listed("text", m.Texts, func(t dom.TextPolicy) error {
		_, err := dom.ParseTextPolicy(string(t))
		return err
	}); err != nil {
		return err
	}
	if err := m.validStrategies(); err != nil {
		return err
	}
	if err := listed("encodings", m.Encodings, func(e metrics.Encoding) error {
		if !e.Valid() {
			return fmt.Errorf("unknown encoding %q", e)
		}
		return nil
	}); err != nil {
		return err
	}
	if len(m.IDs) > 0 {
		if err := listed("ids", m.IDs, func(p dom.IDPolicy) error {
			_, err := dom.ParseIDPolicy(string(p))
			return err
		}); err != nil {
			return err
		}
	}
	if err := render.ValidateBudgets(m.Budgets); err != nil {
		return fmt.Errorf("token-budget: %w", err)
	}
	return nil
}

// listed checks a list of the matrix: not empty, each value valid, none
// twice; its errors start with name.
func listed[T comparable](name string, list []T, valid func(T) error) error {
	if len(list) == 0 {
		return fmt.Errorf("%s: empty list", name)
	}
	for i, v := range list {
		if err := valid(v); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if slices.Index(list, v) != i {
			return fmt.Errorf("%s: %v listed twice", name, v)
		}
	}
	return nil
}

// Cell is one rendering of a page the matrix asks for: a Setting, or with
// Budget set a budget cell.
type Cell struct {
	Setting
	// Budget is the token budget of a budget cell, 0 otherwise. An
	// actionspace budget cell is fast mode in Options.Text, its window
	// decided by fitting (Options.Expansion is 0 until then); another
	// format's is its whole-page text cut from the end (Options.Expansion
	// dom.WholePage).
	Budget int64
}

// Cut reports whether c is a cut-from-the-end baseline.
func (c Cell) Cut() bool { return c.Budget > 0 && c.Format != FormatActionSpace }

// idPolicies is IDs, or the default policy ("": positional) when empty.
func (m Matrix) idPolicies() []dom.IDPolicy {
	if len(m.IDs) == 0 {
		return []dom.IDPolicy{""}
	}
	return m.IDs
}

// Cells expands the matrix into the cells each page is rendered in, in
// the order of the spaces table's rows: per format (in Formats order),
// actionspace in every expansion × mode × text policy × strategy × ID policy,
// browser-use, playwright-ai and axtree in every expansion, html once at
// the whole page (whether or not -1 is among the expansions); then, when
// actionspace is listed, its budget cells by text policy, then budget;
// then, with Cuts, the baselines of the Cuttable formats (when listed)
// by budget.
func (m Matrix) Cells() []Cell {
	var out []Cell
	for _, f := range m.Formats {
		switch f {
		case FormatActionSpace:
			for _, e := range m.Expansions {
				for _, mode := range m.Modes {
					for _, t := range m.Texts {
						for _, st := range m.Strategies() {
							for _, ids := range m.idPolicies() {
								out = append(out, Cell{Setting: Setting{Format: f, Mode: mode, Options: dom.Options{Expansion: e, Text: t, Strategy: st, IDs: ids}}})
							}
						}
					}
				}
			}
		case FormatHTML:
			out = append(out, Cell{Setting: Setting{Format: f, Options: dom.Options{Expansion: dom.WholePage}}})
		default:
			for _, e := range m.Expansions {
				out = append(out, Cell{Setting: Setting{Format: f, Options: dom.Options{Expansion: e}}})
			}
		}
	}
	if slices.Contains(m.Formats, FormatActionSpace) {
		for _, t := range m.Texts {
			for _, n := range m.Budgets {
				out = append(out, Cell{Setting: Setting{Format: FormatActionSpace, Mode: ModeFast, Options: dom.Options{Text: t}}, Budget: n})
			}
		}
	}
	if m.Cuts {
		for _, f := range m.Formats {
			if !Cuttable(f) {
				continue
			}
			for _, n := range m.Budgets {
				out = append(out, Cell{Setting: Setting{Format: f, Options: dom.Options{Expansion: dom.WholePage}}, Budget: n})
			}
		}
	}
	return out
}
