package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"actionspace/space"
)

// pageTiming is the timing pass's result for one page.
type pageTiming struct {
	// decode is the time to decompress and parse the capture and build
	// the tree.
	decode time.Duration
	// calibration is the fastest run of the reference workload.
	calibration time.Duration
	// cells holds, per cell of sweeper.cells, the fast-mode timing; deep
	// cells are left zero.
	cells []cellTiming
	// failed is set when the capture does not decode.
	failed bool
}

// cellTiming is one fast-mode cell's timing on one page.
type cellTiming struct {
	best  time.Duration // the fastest run
	spent time.Duration // every run together
	runs  int
	hash  string // SHA-256 of the action space, checked by the main pass
	err   error
}

// time is the timing pass over one page: it decodes the page's records
// and renders every fast-mode cell and every cell of another format (of
// a fixed expansion) Config.Repeat times, run 1 of every cell,
// then run 2, and so on, so that one stall cannot hit all of a cell's
// runs. Deep-mode cells are timed in the main pass: they may call an LLM;
// so are budget cells: fitting a budget counts tokens, which the timing
// pass keeps away from the renders it times.
func (s *sweeper) time(ctx context.Context, _ int, p pageColumns) pageTiming {
	pg, decodeTime, err := s.load(p, false)
	t := pageTiming{decode: decodeTime, cells: make([]cellTiming, len(s.cells))}
	if err != nil {
		t.failed = true
		return t
	}
	rds := make([]rendered, len(s.cells))
	for range s.cfg.Repeat {
		if d := calibrate(); t.calibration == 0 || d < t.calibration {
			t.calibration = d
		}
		for i, c := range s.cells {
			if ctx.Err() != nil || c.Budget > 0 || !pg.Has(c.format()) {
				continue
			}
			switch {
			case c.actionSpace() && c.Mode == space.ModeFast:
				// Select and render, as render_ms has always measured the
				// action space: scoring against the oracle is not timed.
				s.renderRun(c, &rds[i], func() (space.Rendered, error) {
					return s.renderers[c.Mode].Render(ctx, pg.Tree.Select(c.setting().Options))
				})
			case !c.actionSpace():
				// The other formats' renders tie their handles to the
				// oracle's elements as they go: that is timed.
				s.renderRun(c, &rds[i], func() (space.Rendered, error) { return pg.Render(ctx, c.setting(), nil) })
			}
		}
	}
	for i, rd := range rds {
		if rd.runs == 0 {
			continue
		}
		t.cells[i] = cellTiming{best: rd.best, spent: rd.spent, runs: rd.runs, err: rd.err}
		if rd.err == nil {
			t.cells[i].hash = hash(rd.space.ActionSpace)
		}
	}
	return t
}

// rendered is one cell's space with its timing.
type rendered struct {
	space space.Rendered
	best  time.Duration // the fastest run
	spent time.Duration // every run together
	runs  int
	err   error
}

// renderRun renders one cell once into rd with render, timing it: it
// keeps the first run's space and the fastest run's time, and checks that
// every run gives the same text.
func (s *sweeper) renderRun(c Cell, rd *rendered, render func() (space.Rendered, error)) {
	if rd.err != nil {
		return
	}
	start := time.Now()
	got, err := render()
	d := time.Since(start)
	rd.spent += d
	rd.runs++
	switch {
	case err != nil:
		rd.err = fmt.Errorf("render %s: %w", c.Key(), err)
		if rd.runs == 1 {
			rd.space = got // a failed render may still account for its work
		}
	case rd.runs == 1:
		rd.space, rd.best = got, d
	case got.ActionSpace != rd.space.ActionSpace || got.Perception != rd.space.Perception:
		rd.err = fmt.Errorf("render %s: not deterministic: run %d differs from run 1", c.Key(), rd.runs)
	default:
		rd.best = min(rd.best, d)
	}
}

// calibrationWords feed the reference workload.
var calibrationWords = strings.Fields(`Sign in to your account Email address Password Forgot your
password Create an account Products Search the catalogue Add to cart Checkout Shipping
Returns Contact us About Careers Privacy Terms Accept all cookies Manage preferences`)

// calibrate runs a fixed reference workload shaped like a render (build
// lines of text, split them into words, count them in a map) and returns
// its time: a measure of the machine's speed at that moment (see
// Speed.CalibrationMS).
func calibrate() time.Duration {
	start := time.Now()
	var b strings.Builder
	counts := make(map[string]int)
	for i := range 400 {
		w := calibrationWords[i%len(calibrationWords)]
		b.WriteString("B")
		b.WriteString(strconv.Itoa(i))
		b.WriteString("[:]<button>")
		b.WriteString(w)
		b.WriteString("</button>\n")
		counts[w]++
	}
	n := 0
	for _, f := range strings.Fields(b.String()) {
		n += len(f) + counts[f]
	}
	d := time.Since(start)
	if n < 0 { // uses n, so that the work is not optimised away
		return 0
	}
	return d
}
