// Command goldens re-captures the bundled corpus with real Chromium into
// render/testdata/<page>/, the inputs of the renderers' golden-file tests
// and of the oracle's tests. Run it through `make goldens`, which then
// rewrites the golden renderings; review the diff before committing.
//
// Per page it loads the URL as a crawl does (package browser, the crawl's
// default page settings): it lets the page settle, runs the capture script
// in an isolated world and, on the same page state right after it, takes
// the accessibility tree, the AI snapshot and the HTML. It writes,
// gzip-compressed:
//
//	capture.json.gz     the capture record (dom.Capture)
//	axtree.json.gz      the accessibility tree (axtree.Record)
//	aisnapshot.json.gz  Playwright's AI snapshot (axtree.Snapshot)
//	page.html.gz        the serialized DOM
//
// The records are normalized so that regenerating them churns little: the
// corpus origin becomes http://corpus.test, the capture time a fixed
// instant, frame ids F0, F1 …, document tokens PAGE-d1, PAGE-d2 … and
// backend node ids 1, 2 … in record order (the browser's own ids depend
// on what the process loaded before, and the capture script's tokens are
// random; the states of a page with steps share the numbering, so that a
// node keeps its id, and a document its token, across them).
//
// With -runs N it loads every page N times and prints the median cost of
// each stage per page (the files come from the first run).
//
// With -steps it captures the mutation corpus (corpora.MutationPaths)
// instead, each page with the steps of its truth, into
// pipelinetest/testdata/mutation/<page>/: the first state as above, the
// state after step k in step-<k>/, and the steps (action, target,
// status) in steps.json.gz; package pipelinetest replays them.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"actionspace/corpora"
	"actionspace/metrics"
)

// fixedTime is the capture time written into every golden capture.
var fixedTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// corpusOrigin replaces the loopback server's origin in stored records.
const corpusOrigin = "http://corpus.test"

func main() {
	runs := flag.Int("runs", 1, "load every page this many times and print the median cost of each stage")
	only := flag.String("page", "", "capture only this page (its name, e.g. widgets)")
	steps := flag.Bool("steps", false, "capture the mutation corpus with its steps instead (into pipelinetest/testdata/mutation by default)")
	flag.Parse()
	dir := "render/testdata"
	if *steps {
		dir = "pipelinetest/testdata/mutation"
	}
	if flag.NArg() > 0 {
		dir = flag.Arg(0)
	}
	var err error
	if *steps {
		err = runSteps(context.Background(), dir, os.Stdout)
	} else {
		err = run(context.Background(), dir, *runs, *only, os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "goldens: %v\n", err)
		os.Exit(1)
	}
}

// costs holds one page's stage times over the runs, in milliseconds.
type costs struct {
	capture, axtree, snapshot, content []float64
}

func run(ctx context.Context, dir string, runs int, only string, out io.Writer) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: want >= 1", runs)
	}
	srv, b, closeAll, err := start(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	var names []string
	cost := map[string]*costs{}
	for r := 0; r < runs; r++ {
		for _, p := range corpora.DefaultPaths() {
			name := strings.TrimSuffix(path.Base(p), path.Ext(p))
			if name == "" || name == "/" || name == "." {
				name = "index"
			}
			if only != "" && name != only {
				continue
			}
			lctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			st, err := load(lctx, b, srv.URL+p)
			cancel()
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			c := cost[name]
			if c == nil {
				c = &costs{}
				cost[name] = c
				names = append(names, name)
			}
			c.capture = append(c.capture, ms(st.captureTime))
			c.axtree = append(c.axtree, ms(st.axtreeTime))
			c.snapshot = append(c.snapshot, ms(st.snapTime))
			c.content = append(c.content, ms(st.content))
			if r > 0 {
				continue
			}
			if err := store(filepath.Join(dir, name), st, srv.URL, newRenumbering(name)); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			m := st.axtree.Match
			fmt.Fprintf(out, "%s: %d nodes, %d accessibility nodes, %d of %d captured elements resolved (%d mismatched)\n",
				name, len(st.capture.Nodes), len(st.axtree.Nodes), m.Resolved, m.Elements, m.Mismatched)
		}
	}
	if runs > 1 {
		printCosts(out, names, cost)
	}
	return nil
}

// printCosts writes the median of every stage per page, and the median of
// those medians.
func printCosts(out io.Writer, names []string, cost map[string]*costs) {
	fmt.Fprintf(out, "\nmedian ms per page over %d runs\n%-10s %8s %8s %8s %8s\n", len(cost[names[0]].capture), "page", "capture", "axtree", "aisnap", "content")
	var all costs
	for _, n := range names {
		c := cost[n]
		row := []float64{metrics.Median(c.capture), metrics.Median(c.axtree), metrics.Median(c.snapshot), metrics.Median(c.content)}
		fmt.Fprintf(out, "%-10s %8.1f %8.1f %8.1f %8.1f\n", n, row[0], row[1], row[2], row[3])
		all.capture = append(all.capture, row[0])
		all.axtree = append(all.axtree, row[1])
		all.snapshot = append(all.snapshot, row[2])
		all.content = append(all.content, row[3])
	}
	fmt.Fprintf(out, "%-10s %8.1f %8.1f %8.1f %8.1f\n", "median", metrics.Median(all.capture), metrics.Median(all.axtree), metrics.Median(all.snapshot), metrics.Median(all.content))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// renumbering maps the ids a load gives (the browser's backend node ids,
// the capture script's document tokens) to the stored ones, in the order
// they are met. The states of one page share one, so that a node keeps
// its id, and a document its token, across steps.
type renumbering struct {
	page    string
	backend map[int]int
	doc     map[string]string
}

// newRenumbering starts the numbering of the page named page.
func newRenumbering(page string) *renumbering {
	return &renumbering{page: page, backend: map[int]int{}, doc: map[string]string{}}
}

// docToken returns the stored token of a document token: PAGE-d1,
// PAGE-d2 … ("" stays ""). The page's name keeps the documents of two
// pages apart: captures with the same token are of one document.
func (r *renumbering) docToken(tok string) string {
	if tok == "" {
		return ""
	}
	if _, ok := r.doc[tok]; !ok {
		r.doc[tok] = fmt.Sprintf("%s-d%d", r.page, len(r.doc)+1)
	}
	return r.doc[tok]
}

// store writes one page's records into dir, normalized through ids.
func store(dir string, st *state, origin string, ids *renumbering) error {
	c := st.capture
	c.Page.URL = strings.Replace(c.Page.URL, origin, corpusOrigin, 1)
	c.Page.Time = float64(fixedTime.UnixMilli())
	c.Page.ScriptMs = 0
	c.Page.Doc = ids.docToken(c.Page.Doc)
	for i := range c.Nodes {
		c.Nodes[i].KeyDoc = ids.docToken(c.Nodes[i].KeyDoc)
	}
	rec := st.axtree
	for i := range rec.Frames {
		rec.Frames[i].ID = fmt.Sprintf("F%d", i)
	}
	for i := range rec.Nodes {
		if be := rec.Nodes[i].Backend; be != 0 {
			if _, ok := ids.backend[be]; !ok {
				ids.backend[be] = len(ids.backend) + 1
			}
			rec.Nodes[i].Backend = ids.backend[be]
		}
	}
	files := []struct {
		name   string
		encode func(io.Writer) error
	}{
		{"capture.json.gz", func(w io.Writer) error { return json.NewEncoder(w).Encode(c) }},
		{"axtree.json.gz", rec.Encode},
		{"aisnapshot.json.gz", st.snapshot.Encode},
		{"page.html.gz", func(w io.Writer) error { _, err := io.WriteString(w, st.html); return err }},
	}
	for _, f := range files {
		var buf bytes.Buffer
		if err := f.encode(&buf); err != nil {
			return err
		}
		data := bytes.ReplaceAll(buf.Bytes(), []byte(origin), []byte(corpusOrigin))
		if err := write(filepath.Join(dir, f.name), data); err != nil {
			return err
		}
	}
	return nil
}

func write(file string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	zw.ModTime = fixedTime
	if _, err := zw.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
