// Command extrascost measures what the extras (the accessibility tree and
// Playwright's AI snapshot, taken beside the capture) cost per page: it
// crawls the bundled corpus with every format, both records taken at once
// and one after the other, and with actionspace and html only (no
// extras), in one run, alternating the crawls round by round, and writes
// the medians as a Markdown table into results/ and into
// the block of docs/formats.md between its extras-cost markers (its test checks the
// two agree). Run it from the module root, on a quiet machine:
//
//	go run ./tools/extrascost            # 3 rounds
//	go run ./tools/extrascost -rounds 5
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"actionspace/browser"
	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/internal/docblock"
	"actionspace/internal/hostinfo"
	"actionspace/metrics"
	"actionspace/pipeline"
	"actionspace/space"
)

// Where the figures go, relative to the module root.
const (
	resultFile = "results/extras-cost.md"
	docFile    = "docs/formats.md"
)

// blockName names the block of docs/formats.md the figures go in.
const blockName = "extras-cost"

func main() {
	rounds := flag.Int("rounds", 3, "crawl the corpus this many times each way")
	flag.Parse()
	if err := run(context.Background(), *rounds, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "extrascost: %v\n", err)
		os.Exit(1)
	}
}

// way is one of the crawls compared.
type way struct {
	name       string
	formats    []string
	sequential bool // the two records one after the other
}

// The ways, by name.
const (
	without    = "without"
	sequential = "sequential"
	atOnce     = "with"
)

var ways = []way{
	{without, []string{space.FormatActionSpace, space.FormatHTML}, false},
	{sequential, space.Formats(), true},
	{atOnce, space.Formats(), false},
}

// sample is one page's pages row figures over the rounds of one way.
type sample struct {
	total, process, axtree, snapshot []float64
}

func run(ctx context.Context, rounds int, log io.Writer) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: want >= 1", rounds)
	}
	srv, err := corpora.Start()
	if err != nil {
		return err
	}
	defer srv.Close()
	targets := pipeline.TargetsFromURLs(corpora.DefaultURLs(srv.URL))
	samples := map[string]map[string]*sample{} // way → URL → figures
	version := ""
	for r := range rounds {
		order := slices.Clone(ways)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, w := range order {
			fmt.Fprintf(log, "round %d of %d: %s extras\n", r+1, rounds, w.name)
			rows, v, err := crawl(ctx, w, targets)
			if err != nil {
				return err
			}
			version = v
			if samples[w.name] == nil {
				samples[w.name] = map[string]*sample{}
			}
			for _, p := range rows {
				if p.Status != dataset.StatusOK {
					return fmt.Errorf("%s: %s: %s", p.URL, p.ErrorKind, p.ErrorMessage)
				}
				s := samples[w.name][p.URL]
				if s == nil {
					s = &sample{}
					samples[w.name][p.URL] = s
				}
				s.total = append(s.total, p.TotalMS)
				s.process = append(s.process, deref(p.ProcessMS))
				s.axtree = append(s.axtree, deref(p.AXTreeMS))
				s.snapshot = append(s.snapshot, deref(p.AISnapshotMS))
			}
		}
	}
	table := report(samples, len(targets), rounds, version, hostinfo.Describe())
	if err := os.WriteFile(resultFile, []byte(table), 0o644); err != nil {
		return err
	}
	doc, err := os.ReadFile(docFile)
	if err != nil {
		return err
	}
	updated, err := docblock.Replace(string(doc), blockName, table)
	if err != nil {
		return fmt.Errorf("%s: %w", docFile, err)
	}
	if err := os.WriteFile(docFile, []byte(updated), 0o644); err != nil {
		return err
	}
	fmt.Fprint(log, table)
	return nil
}

// crawl crawls targets one page at a time with the formats of w and
// returns the pages rows and the browser's version.
func crawl(ctx context.Context, w way, targets []pipeline.Target) ([]dataset.PageRow, string, error) {
	dir, err := os.MkdirTemp("", "extrascost-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	cfg := pipeline.DefaultConfig()
	cfg.RunID = "extrascost-" + w.name
	cfg.Workers = 1 // one page at a time: no page's timings include another's
	cfg.UseFormats(w.formats)
	cfg.Page.Extras.Sequential = w.sequential
	cfg.Logger = nil
	if _, err := pipeline.Crawl(ctx, cfg, targets, dir, browser.Opener(browser.DefaultConfig()), nil); err != nil {
		return nil, "", err
	}
	files, err := parts.Files(dir, dataset.PagesDir)
	if err != nil {
		return nil, "", err
	}
	var rows []dataset.PageRow
	version := ""
	for _, f := range files {
		r, err := dataset.ReadAll[dataset.PageRow](f)
		if err != nil {
			return nil, "", err
		}
		rows = append(rows, r...)
	}
	if len(rows) > 0 {
		version = rows[0].BrowserVersion
	}
	return rows, version, nil
}

// report renders the figures: per page the median over the rounds, then
// the median over the pages; the extras' cost of a way is the median over
// the pages of its page's figure less the page's without extras, and the
// saving the median of what taking the records at once saves on a page.
func report(samples map[string]map[string]*sample, pages, rounds int, version, machine string) string {
	type figure struct {
		label   string
		of      func(*sample) []float64
		without bool // measured without the extras too
	}
	figures := []figure{
		{"the whole page (`total_ms`)", func(s *sample) []float64 { return s.total }, true},
		{"accessibility tree (`axtree_ms`)", func(s *sample) []float64 { return s.axtree }, false},
		{"AI snapshot (`aisnapshot_ms`)", func(s *sample) []float64 { return s.snapshot }, false},
		{"rendering and measuring every row (`process_ms`)", func(s *sample) []float64 { return s.process }, true},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Median per page over the %d corpus pages (each page's median over %d rounds), one page at a time, Chromium %s, %s:\n\n",
		pages, rounds, version, machine)
	b.WriteString("| ms per page | without extras | extras one after the other | extras at once | cost one after the other | cost at once | saved at once |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, f := range figures {
		var none, seq, once, seqCost, onceCost, saved []float64
		for url, s := range samples[atOnce] {
			o := metrics.Median(f.of(s))
			once = append(once, o)
			base := 0.0
			if w := samples[without][url]; w != nil && f.without {
				base = metrics.Median(f.of(w))
				none = append(none, base)
			}
			onceCost = append(onceCost, o-base)
			if q := samples[sequential][url]; q != nil {
				sq := metrics.Median(f.of(q))
				seq = append(seq, sq)
				seqCost = append(seqCost, sq-base)
				saved = append(saved, sq-o)
			}
		}
		noneCell := "—"
		if f.without {
			noneCell = fmt.Sprintf("%.0f", metrics.Median(none))
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f | %+.0f | %+.0f | %+.0f |\n", f.label, noneCell,
			metrics.Median(seq), metrics.Median(once), metrics.Median(seqCost), metrics.Median(onceCost), metrics.Median(saved))
	}
	return b.String()
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
