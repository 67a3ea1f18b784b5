package pipeline

import (
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/schollz/progressbar/v3"

	"actionspace/dataset"
)

// DefaultProgressEvery is how often Progress logs a line when it has no
// terminal to draw a bar on.
const DefaultProgressEvery = 10 * time.Second

// Progress reports a crawl's progress on stderr: a bar (done/total, errors,
// pages/s, ETA) on a terminal, a periodic log line otherwise. Call Add from
// one goroutine (Run's emit callback is one).
type Progress struct {
	total, done, failed int
	start, last         time.Time
	bar                 *progressbar.ProgressBar
	log                 *slog.Logger
	every               time.Duration
}

// NewProgress starts reporting on w. With terminal false, it logs a line
// every DefaultProgressEvery through log instead (nil = slog.Default()).
func NewProgress(w io.Writer, total int, terminal bool, log *slog.Logger) *Progress {
	if log == nil {
		log = slog.Default()
	}
	p := &Progress{total: total, start: time.Now(), log: log, every: DefaultProgressEvery}
	p.last = p.start
	if terminal {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("crawl"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("pages"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// Add records one finished target.
func (p *Progress) Add(res Result) {
	p.done++
	if res.Page.Status != dataset.StatusOK {
		p.failed++
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("crawl (%d errors)", p.failed))
		_ = p.bar.Add(1)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.every || p.done == p.total {
		p.last = now
		p.log.Info("progress", "done", p.done, "total", p.total, "errors", p.failed,
			"pages_per_s", fmt.Sprintf("%.2f", p.rate()), "eta", p.eta().Round(time.Second).String())
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
