package bench

import (
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
	"actionspace/space"
)

// Defaults of Config.
const (
	// DefaultRepeat is how many times a fast-mode cell is rendered per page
	// to time it; the fastest run is kept (see Config.Repeat). Ten runs
	// keep the per-cell median render time within about 10% from run to
	// run on a loaded two-core machine; three runs do not.
	DefaultRepeat = 10
)

// DefaultExpansions are the viewport_expansion values swept by default:
// the screen, three growing windows and the whole page.
func DefaultExpansions() []int { return []int{0, 250, 500, 1000, dom.WholePage} }

// DefaultBudgets are the token budgets swept by default (--token-budget).
func DefaultBudgets() []int64 { return []int64{1000, 2000, 4000, 8000} }

// Config holds the settings of a sweep. Start from DefaultConfig.
type Config struct {
	// RunID names the run in every row and file.
	RunID string
	// Modes lists the renderers swept, in order: space.ModeFast and/or space.ModeDeep.
	Modes []string
	// Expansions lists the viewport_expansion values swept, in order;
	// dom.WholePage (-1) is the whole page.
	Expansions []int
	// Texts lists the context-text policies swept, in order.
	Texts []dom.TextPolicy
	// Encodings are the tokenizers every space is counted with; the first
	// one is the report's headline encoding, and the one budgets count in.
	Encodings []metrics.Encoding
	// Budgets lists the token budgets swept, in order: per text policy and
	// budget, one more cell, the fast action space fitted into that many
	// tokens (render.FitBudget). Empty for none.
	Budgets []int64
	// Workers is the number of pages rendered at once.
	Workers int
	// Repeat is how many times each fast-mode cell is rendered per page;
	// render_ms is the fastest of them, which keeps one-off stalls (GC,
	// scheduling on a shared machine) out of the figures. Deep mode always
	// renders once: it may call an LLM. 1 renders once.
	Repeat int
	// Deep renders space.ModeDeep; nil means deep mode is not available
	// and Validate rejects a Modes list that names it.
	Deep space.Renderer
	// Prices is the price table the summary's cost estimates use; the
	// zero value means no cost estimates.
	Prices Prices
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
	// OnPage, if set, is called after each page of each pass of the
	// sweep, from one goroutine, in input order (for progress).
	OnPage func(PageDone)
}

// DefaultConfig returns the settings a sweep starts from: fast mode (deep
// mode needs Deep set), every default expansion, both text policies worth
// comparing, both encodings.
func DefaultConfig() Config {
	return Config{
		Modes:      []string{space.ModeFast},
		Expansions: DefaultExpansions(),
		Texts:      []dom.TextPolicy{dom.TextViewport, dom.TextAll},
		Encodings:  []metrics.Encoding{metrics.CL100K, metrics.O200K},
		Budgets:    DefaultBudgets(),
		Workers:    runtime.GOMAXPROCS(0),
		Repeat:     DefaultRepeat,
	}
}

// Validate reports the first invalid setting, naming it.
func (c Config) Validate() error {
	switch {
	case len(c.Modes) == 0:
		return fmt.Errorf("modes: empty list")
	case len(c.Expansions) == 0:
		return fmt.Errorf("viewport-expansion: empty list")
	case len(c.Texts) == 0:
		return fmt.Errorf("text: empty list")
	case len(c.Encodings) == 0:
		return fmt.Errorf("encodings: empty list")
	case c.Workers < 1:
		return fmt.Errorf("workers: %d, want at least 1", c.Workers)
	case c.Repeat < 1:
		return fmt.Errorf("repeat: %d, want at least 1", c.Repeat)
	}
	for i, m := range c.Modes {
		switch m {
		case space.ModeFast:
		case space.ModeDeep:
			if c.Deep == nil {
				return fmt.Errorf("modes: deep mode is not available in this build")
			}
		default:
			return fmt.Errorf("modes: unknown mode %q (want fast or deep)", m)
		}
		if slices.Index(c.Modes, m) != i {
			return fmt.Errorf("modes: %s listed twice", m)
		}
	}
	for i, e := range c.Expansions {
		if err := (dom.Options{Expansion: e}).Validate(); err != nil {
			return fmt.Errorf("viewport-expansion: %w", err)
		}
		if slices.Index(c.Expansions, e) != i {
			return fmt.Errorf("viewport-expansion: %d listed twice", e)
		}
	}
	for i, t := range c.Texts {
		if _, err := dom.ParseTextPolicy(string(t)); err != nil {
			return fmt.Errorf("text: %w", err)
		}
		if slices.Index(c.Texts, t) != i {
			return fmt.Errorf("text: %s listed twice", t)
		}
	}
	for i, e := range c.Encodings {
		if !e.Valid() {
			return fmt.Errorf("encodings: unknown encoding %q", e)
		}
		if slices.Index(c.Encodings, e) != i {
			return fmt.Errorf("encodings: %s listed twice", e)
		}
	}
	if err := render.ValidateBudgets(c.Budgets); err != nil {
		return fmt.Errorf("token-budget: %w", err)
	}
	return c.Prices.Validate()
}

func (c Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// Cell is one setting of the sweep: a mode, a viewport expansion and a
// text policy, or a token budget and a text policy. Every page is
// rendered under every cell.
type Cell struct {
	Mode      string
	Expansion int
	Text      dom.TextPolicy
	// Budget is the token budget of a budget cell (Mode is then fast and
	// Expansion unused: the budget decides the window); 0 for a cell of a
	// fixed expansion.
	Budget int64
}

// Key names the cell in reports and in the regression gate, e.g.
// "fast/E500/viewport", "deep/E-1/all", or "fast/B1000/viewport" for a
// budget cell.
func (c Cell) Key() string {
	if c.Budget > 0 {
		return c.Mode + "/B" + strconv.FormatInt(c.Budget, 10) + "/" + string(c.Text)
	}
	return c.Mode + "/E" + strconv.Itoa(c.Expansion) + "/" + string(c.Text)
}

// ParseCellKey is the inverse of Cell.Key.
func ParseCellKey(key string) (Cell, error) {
	parts := strings.Split(key, "/")
	if len(parts) != 3 || len(parts[1]) < 2 || (parts[1][0] != 'E' && parts[1][0] != 'B') {
		return Cell{}, fmt.Errorf("cell %q: want MODE/E<expansion>/TEXT or MODE/B<budget>/TEXT", key)
	}
	c := Cell{Mode: parts[0], Text: dom.TextPolicy(parts[2])}
	if parts[1][0] == 'B' {
		n, err := strconv.ParseInt(parts[1][1:], 10, 64)
		if err != nil || n < 1 {
			return Cell{}, fmt.Errorf("cell %q: token budget %q: want a positive integer", key, parts[1][1:])
		}
		c.Budget = n
		return c, nil
	}
	e, err := strconv.Atoi(parts[1][1:])
	if err != nil {
		return Cell{}, fmt.Errorf("cell %q: expansion: %w", key, err)
	}
	c.Expansion = e
	return c, nil
}

// Cells returns the sweep's cells in report order: mode, then text
// policy, then expansion, each in the order configured; then the budget
// cells (fast mode), by text policy, then budget.
func (c Config) Cells() []Cell {
	cells := make([]Cell, 0, len(c.Modes)*len(c.Texts)*len(c.Expansions)+len(c.Texts)*len(c.Budgets))
	for _, m := range c.Modes {
		for _, t := range c.Texts {
			for _, e := range c.Expansions {
				cells = append(cells, Cell{Mode: m, Expansion: e, Text: t})
			}
		}
	}
	for _, t := range c.Texts {
		for _, n := range c.Budgets {
			cells = append(cells, Cell{Mode: space.ModeFast, Text: t, Budget: n})
		}
	}
	return cells
}

// ExpansionLabel is how reports show an expansion: "whole page" for -1,
// the number of pixels otherwise.
func ExpansionLabel(e int) string {
	if e == dom.WholePage {
		return "page"
	}
	return strconv.Itoa(e)
}
