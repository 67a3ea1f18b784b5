package cli

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/schollz/progressbar/v3"
)

// ProgressEvery is how often a Progress without a terminal logs a line.
const ProgressEvery = 10 * time.Second

// Progress reports how far a job is, on stderr: a bar (done/total,
// errors, items/s, ETA) on a terminal; otherwise a log line every
// ProgressEvery and one at the end. Its lines do not depend on
// --log-level, so a crawl at the default level still shows progress. Call
// Add from one goroutine.
type Progress struct {
	name                string
	unit                string
	total, done, failed int
	start, last         time.Time
	every               time.Duration
	bar                 *progressbar.ProgressBar
	log                 *slog.Logger
}

// NewProgress starts reporting job name (such as "crawl") of total items,
// counted in unit (such as "pages"), on w: a bar when terminal is true,
// log lines otherwise.
func NewProgress(w io.Writer, terminal bool, name, unit string, total int) *Progress {
	p := &Progress{name: name, unit: unit, total: total, start: time.Now(), every: ProgressEvery}
	p.last = p.start
	if terminal {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(name),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	} else {
		p.log = slog.New(slog.NewTextHandler(w, nil))
	}
	return p
}

// Add records n finished items, failed of which failed.
func (p *Progress) Add(n, failed int) {
	p.done += n
	p.failed += failed
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("%s (%d errors)", p.name, p.failed))
		_ = p.bar.Add(n)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.every || p.done == p.total {
		p.last = now
		p.log.Info("progress", "job", p.name, "done", p.done, "total", p.total, "errors", p.failed,
			p.unit+"_per_s", fmt.Sprintf("%.2f", p.rate()), "eta", p.eta().Round(time.Second).String())
	}
}

// Finish ends the bar.
func (p *Progress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

func (p *Progress) rate() float64 {
	s := time.Since(p.start).Seconds()
	if s <= 0 {
		return 0
	}
	return float64(p.done) / s
}

func (p *Progress) eta() time.Duration {
	r := p.rate()
	if r == 0 {
		return 0
	}
	return time.Duration(float64(p.total-p.done) / r * float64(time.Second))
}
