package bench

import (
	"cmp"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"actionspace/dom"
	"actionspace/metrics"
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
	// Matrix is what every page is swept in (see Cells): the action
	// space in every mode × expansion × text policy; playwright-ai and
	// axtree in every expansion; html once, for the whole page; per text
	// policy and budget the fast action space fitted into that many
	// tokens (render.FitBudget), and with Cuts (the default) per budget
	// the baseline users have today for playwright-ai and axtree: the
	// format's whole-page text cut from the end to that many tokens
	// (space.Meter.CutFormat). A page whose crawl did not store a
	// format's record gets no row in that format's cells
	// (CellSummary.NoRecordPages counts them).
	space.Matrix
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
		Matrix: space.Matrix{
			Formats:    space.Formats(),
			Modes:      []string{space.ModeFast},
			Expansions: DefaultExpansions(),
			Texts:      []dom.TextPolicy{dom.TextViewport, dom.TextAll},
			Encodings:  []metrics.Encoding{metrics.CL100K, metrics.O200K},
			Budgets:    DefaultBudgets(),
			Cuts:       true,
		},
		Workers: runtime.GOMAXPROCS(0),
		Repeat:  DefaultRepeat,
	}
}

// Validate reports the first invalid setting, naming it.
func (c Config) Validate() error {
	if err := c.Matrix.Validate(); err != nil {
		return err
	}
	switch {
	case c.Workers < 1:
		return fmt.Errorf("workers: %d, want at least 1", c.Workers)
	case c.Repeat < 1:
		return fmt.Errorf("repeat: %d, want at least 1", c.Repeat)
	case slices.Contains(c.Modes, space.ModeDeep) && c.Deep == nil:
		return fmt.Errorf("mode: deep mode is not available in this build")
	}
	return c.Prices.Validate()
}

func (c Config) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// Cell is one setting of the sweep: a format and, for actionspace, a
// mode and a text policy; a viewport expansion or a token budget. Every
// page is rendered under every cell (that its records allow).
type Cell struct {
	// Format is one of space.Formats(); "" means actionspace.
	Format string
	// Mode is the actionspace renderer; "" for the other formats.
	Mode      string
	Expansion int
	// Text is actionspace's context-text policy; "" for the other
	// formats.
	Text dom.TextPolicy
	// Budget is the token budget of a budget cell (for actionspace the
	// mode is then fast and Expansion unused: the budget decides the
	// window; for playwright-ai and axtree the whole-page text cut from
	// the end); 0 for a cell of a fixed expansion.
	Budget int64
}

// format returns the cell's format, actionspace for "".
func (c Cell) format() string {
	if c.Format == "" {
		return space.FormatActionSpace
	}
	return c.Format
}

// actionSpace reports whether the cell renders the action space.
func (c Cell) actionSpace() bool { return c.format() == space.FormatActionSpace }

// Key names the cell in reports and in the regression gate. An
// actionspace cell is MODE/E<expansion>/TEXT, e.g. "fast/E500/viewport",
// "deep/E-1/all", or MODE/B<budget>/TEXT for a budget cell,
// "fast/B1000/viewport"; another format's is FORMAT/E<expansion>, e.g.
// "playwright-ai/E0", "html/E-1", or FORMAT/B<budget> for a cut-from-the-end
// baseline, "axtree/B1000".
func (c Cell) Key() string {
	dim := "E" + strconv.Itoa(c.Expansion)
	if c.Budget > 0 {
		dim = "B" + strconv.FormatInt(c.Budget, 10)
	}
	if !c.actionSpace() {
		return c.Format + "/" + dim
	}
	return c.Mode + "/" + dim + "/" + string(c.Text)
}

// ParseCellKey is the inverse of Cell.Key.
func ParseCellKey(key string) (Cell, error) {
	parts := strings.Split(key, "/")
	var c Cell
	switch len(parts) {
	case 3:
		c = Cell{Format: space.FormatActionSpace, Mode: parts[0], Text: dom.TextPolicy(parts[2])}
	case 2:
		c = Cell{Format: parts[0]}
		if !slices.Contains(space.Formats(), c.Format) || c.Format == space.FormatActionSpace {
			return Cell{}, fmt.Errorf("cell %q: unknown format %q", key, c.Format)
		}
	default:
		return Cell{}, fmt.Errorf("cell %q: want MODE/E<expansion>/TEXT, MODE/B<budget>/TEXT, FORMAT/E<expansion> or FORMAT/B<budget>", key)
	}
	dim := parts[1]
	if len(dim) < 2 || (dim[0] != 'E' && dim[0] != 'B') {
		return Cell{}, fmt.Errorf("cell %q: want E<expansion> or B<budget>, not %q", key, dim)
	}
	if dim[0] == 'B' {
		n, err := strconv.ParseInt(dim[1:], 10, 64)
		if err != nil || n < 1 {
			return Cell{}, fmt.Errorf("cell %q: token budget %q: want a positive integer", key, dim[1:])
		}
		c.Budget = n
		return c, nil
	}
	e, err := strconv.Atoi(dim[1:])
	if err != nil {
		return Cell{}, fmt.Errorf("cell %q: expansion: %w", key, err)
	}
	c.Expansion = e
	return c, nil
}

// Cells returns the sweep's cells in report order: actionspace by mode,
// then text policy, then expansion, each in the order configured; the
// other formats in the order space.Matrix.Cells gives them (playwright-ai
// and axtree per expansion, html once at -1); then the budget cells:
// actionspace (fast mode) by text policy, then budget; playwright-ai and
// axtree cut from the end, by budget.
func (c Config) Cells() []Cell {
	cells, _ := c.cells()
	return cells
}

// cells returns the sweep's cells in report order (see Cells), each with
// the space cell it renders.
func (c Config) cells() ([]Cell, []space.Cell) {
	sc := c.Matrix.Cells()
	// group orders the kinds of cells; within actionspace's fixed cells,
	// mode, text and expansion order them; the others keep
	// space.Matrix.Cells' order.
	group := func(x space.Cell) int {
		switch {
		case x.Budget > 0 && x.Format == space.FormatActionSpace:
			return 2
		case x.Budget > 0:
			return 3
		case x.Format == space.FormatActionSpace:
			return 0
		}
		return 1
	}
	slices.SortStableFunc(sc, func(a, b space.Cell) int {
		if d := cmp.Compare(group(a), group(b)); d != 0 || group(a) != 0 {
			return d
		}
		return cmp.Or(cmp.Compare(slices.Index(c.Modes, a.Mode), slices.Index(c.Modes, b.Mode)),
			cmp.Compare(slices.Index(c.Texts, a.Options.Text), slices.Index(c.Texts, b.Options.Text)),
			cmp.Compare(slices.Index(c.Expansions, a.Options.Expansion), slices.Index(c.Expansions, b.Options.Expansion)))
	})
	cells := make([]Cell, len(sc))
	for i, x := range sc {
		cells[i] = Cell{Format: x.Format, Mode: x.Mode, Expansion: x.Options.Expansion, Text: x.Options.Text, Budget: x.Budget}
		if x.Budget > 0 {
			cells[i].Expansion = 0 // the budget decides the window; a cut has the whole page's
		}
	}
	return cells, sc
}

// ExpansionLabel is how reports show an expansion: "whole page" for -1,
// the number of pixels otherwise.
func ExpansionLabel(e int) string {
	if e == dom.WholePage {
		return "page"
	}
	return strconv.Itoa(e)
}
