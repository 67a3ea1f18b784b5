// Command rowdiff compares two crawl datasets row by row: the check that a
// change to the crawl left its rows alone, apart from what it meant to
// change.
//
//	go run ./tools/rowdiff [-tables pages,spaces,elements,oracle] [-ignore REGEXP] [-show N] OLD NEW
//
// OLD and NEW are dataset directories. Each table's part files are read
// with arrow-go (not the project's own reader, so datasets of two schema
// versions compare), every value as text. Rows are grouped by URL (with
// the port of a loopback server taken out, since every crawl serves the
// corpus on a port of the moment) and compared within a group as
// multisets, so that no key has to be declared per table. Columns that
// measure time or name the run (-ignore) are left out; so are the
// references that differ between any two crawls of the same page (the AI
// snapshot's frame refs, the accessibility tree's node ids, the perception
// text's Captured: line), which are normalised away. Blobs are compressed
// and hold the capture script's timings; compare them only on purpose. A column only one side has is listed with how many of
// its values are not null, and left out of the comparison.
//
// The accessibility tree's node ids are Chromium's DOM node ids, which
// grow over a browser's life: the axtree rows' bytes and tokens differ
// between two crawls of the same page by the digits of those ids, so a
// few axtree rows differ in those columns alone even between two crawls
// by one build.
//
// It prints, per table, the rows in both, the rows only in OLD and only in
// NEW, and for up to -show groups with differences the columns that
// differ; it exits 1 when a table differs, 0 when none does.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// defaultIgnore matches the columns that measure time or name the run.
const defaultIgnore = `(_ms|_at|^run_id|^page_id|^attempts|^browser_version)$`

// normalisers take out what differs between two crawls of the same page:
// the loopback server's port, the AI snapshot's frame refs and the
// accessibility tree's node ids.
var normalisers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(127\.0\.0\.1|localhost|\[::1\]):\d+`), "$1:PORT"},
	{regexp.MustCompile(`ref=f\d+e`), "ref=fNe"},
	{regexp.MustCompile(`Captured: \S+`), "Captured: T"},
	{regexp.MustCompile(`\[(\d+)\]`), "[N]"},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rowdiff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tables := fs.String("tables", "pages,spaces,elements,oracle", "tables to compare (`LIST`)")
	ignore := fs.String("ignore", defaultIgnore, "leave out the columns whose names match `REGEXP`")
	show := fs.Int("show", 5, "show the differing columns of at most `N` groups per table")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "usage: rowdiff [flags] OLD NEW")
		return 2
	}
	skip, err := regexp.Compile(*ignore)
	if err != nil {
		fmt.Fprintf(stderr, "rowdiff: -ignore: %v\n", err)
		return 2
	}
	differ := false
	for _, table := range strings.Split(*tables, ",") {
		d, err := diffTable(fs.Arg(0), fs.Arg(1), table, skip)
		if err != nil {
			fmt.Fprintf(stderr, "rowdiff: %s: %v\n", table, err)
			return 1
		}
		d.print(stdout, *show)
		differ = differ || d.onlyOld+d.onlyNew > 0
	}
	if differ {
		return 1
	}
	return 0
}

// table is one table of one dataset: its columns and rows, every value as
// normalised text.
type table struct {
	columns []string
	rows    []map[string]string
}

// read reads every part file of the table under dir.
func read(dir, name string) (table, error) {
	var t table
	files, err := filepath.Glob(filepath.Join(dir, name, "*", "*.parquet"))
	if err != nil {
		return t, err
	}
	flat, _ := filepath.Glob(filepath.Join(dir, name, "*.parquet"))
	files = append(files, flat...)
	sort.Strings(files)
	for _, f := range files {
		if err := readFile(f, &t); err != nil {
			return t, fmt.Errorf("%s: %w", f, err)
		}
	}
	return t, nil
}

func readFile(path string, t *table) error {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return err
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return err
	}
	defer tbl.Release()
	start := len(t.rows)
	for range tbl.NumRows() {
		t.rows = append(t.rows, map[string]string{})
	}
	for i := range int(tbl.NumCols()) {
		col := tbl.Column(i)
		name := col.Name()
		if !slices.Contains(t.columns, name) {
			t.columns = append(t.columns, name)
		}
		row := start
		for _, chunk := range col.Data().Chunks() {
			for j := range chunk.Len() {
				t.rows[row][name] = value(chunk, j)
				row++
			}
		}
	}
	return nil
}

// value is the normalised text of one value; "null" for a null.
func value(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "null"
	}
	s := a.ValueStr(i)
	for _, n := range normalisers {
		s = n.re.ReplaceAllString(s, n.with)
	}
	return s
}

// diff is the comparison of one table.
type diff struct {
	name                   string
	both, onlyOld, onlyNew int
	onlyOldCols            []string
	onlyNewCols            map[string]int // column: values not null
	groups                 []groupDiff
}

// groupDiff is a URL whose rows differ: the columns in which its first
// unmatched old and new rows differ, and their values.
type groupDiff struct {
	url              string
	old, new         int
	columns          []string
	oldVals, newVals []string
	cell             string // the first old row's identifying columns
}

// cellColumns identify a row within its URL's group, where a table has
// them; shown with a difference.
var cellColumns = []string{"step", "format", "mode", "viewport_expansion", "text_policy", "token_budget"}

func diffTable(oldDir, newDir, name string, skip *regexp.Regexp) (diff, error) {
	d := diff{name: name, onlyNewCols: map[string]int{}}
	a, err := read(oldDir, name)
	if err != nil {
		return d, err
	}
	b, err := read(newDir, name)
	if err != nil {
		return d, err
	}
	var shared []string
	for _, c := range a.columns {
		switch {
		case skip.MatchString(c):
		case slices.Contains(b.columns, c):
			shared = append(shared, c)
		default:
			d.onlyOldCols = append(d.onlyOldCols, c)
		}
	}
	for _, c := range b.columns {
		if !slices.Contains(a.columns, c) && !skip.MatchString(c) {
			n := 0
			for _, r := range b.rows {
				if r[c] != "null" {
					n++
				}
			}
			d.onlyNewCols[c] = n
		}
	}
	ga, gb := group(a.rows, shared), group(b.rows, shared)
	urls := make([]string, 0, len(ga)+len(gb))
	for u := range ga {
		urls = append(urls, u)
	}
	for u := range gb {
		if _, ok := ga[u]; !ok {
			urls = append(urls, u)
		}
	}
	sort.Strings(urls)
	for _, u := range urls {
		oldRows, newRows := multiset(ga[u]), multiset(gb[u])
		var unOld, unNew []string
		for k, n := range oldRows {
			m := newRows[k]
			d.both += min(n, m)
			for range n - min(n, m) {
				unOld = append(unOld, k)
			}
		}
		for k, m := range newRows {
			for range m - min(m, oldRows[k]) {
				unNew = append(unNew, k)
			}
		}
		d.onlyOld += len(unOld)
		d.onlyNew += len(unNew)
		if len(unOld)+len(unNew) > 0 {
			sort.Strings(unOld)
			sort.Strings(unNew)
			gd := groupDiff{url: u, old: len(unOld), new: len(unNew)}
			if len(unOld) > 0 && len(unNew) > 0 {
				gd.columns, gd.oldVals, gd.newVals = differing(shared, unOld[0], unNew[0])
				gd.cell = cellOf(shared, unOld[0])
			}
			d.groups = append(d.groups, gd)
		}
	}
	return d, nil
}

// sep separates the values of a row's key; it is not in any value.
const sep = "\x00"

// group keys each row by its normalised URL and renders it as the values
// of columns, in order.
func group(rows []map[string]string, columns []string) map[string][]string {
	g := map[string][]string{}
	for _, r := range rows {
		vals := make([]string, len(columns))
		for i, c := range columns {
			vals[i] = r[c]
		}
		u := r["url"]
		g[u] = append(g[u], strings.Join(vals, sep))
	}
	return g
}

func multiset(rows []string) map[string]int {
	m := map[string]int{}
	for _, r := range rows {
		m[r]++
	}
	return m
}

// differing names the columns in which two rendered rows differ, with
// their values in each.
func differing(columns []string, a, b string) (names, old, new []string) {
	va, vb := strings.Split(a, sep), strings.Split(b, sep)
	for i, c := range columns {
		if va[i] != vb[i] {
			names, old, new = append(names, c), append(old, va[i]), append(new, vb[i])
		}
	}
	return names, old, new
}

// cellOf shows the identifying columns of a rendered row.
func cellOf(columns []string, row string) string {
	vals := strings.Split(row, sep)
	var parts []string
	for i, c := range columns {
		if slices.Contains(cellColumns, c) && vals[i] != "null" {
			parts = append(parts, c+"="+vals[i])
		}
	}
	return strings.Join(parts, " ")
}

// maxShown caps a value shown in a difference, in bytes.
const maxShown = 160

// excerpt is the part of a value around its first byte that differs from
// other.
func excerpt(v, other string) string {
	i := 0
	for i < len(v) && i < len(other) && v[i] == other[i] {
		i++
	}
	from := max(0, i-maxShown/4)
	to := min(len(v), from+maxShown)
	return strings.ToValidUTF8(fmt.Sprintf("%q", v[from:to]), "")
}

func (d diff) print(w io.Writer, show int) {
	fmt.Fprintf(w, "%s: %d rows in both, %d only in old, %d only in new\n", d.name, d.both, d.onlyOld, d.onlyNew)
	if len(d.onlyOldCols) > 0 {
		fmt.Fprintf(w, "  columns only in old: %s\n", strings.Join(d.onlyOldCols, ", "))
	}
	cols := make([]string, 0, len(d.onlyNewCols))
	for c := range d.onlyNewCols {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, c := range cols {
		fmt.Fprintf(w, "  column only in new: %s (%d values not null)\n", c, d.onlyNewCols[c])
	}
	for i, g := range d.groups {
		if i == show {
			fmt.Fprintf(w, "  … %d more URLs differ\n", len(d.groups)-show)
			break
		}
		fmt.Fprintf(w, "  %s: %d rows only in old, %d only in new", g.url, g.old, g.new)
		if len(g.columns) > 0 {
			fmt.Fprintf(w, "; first pair (%s) differs in %s", g.cell, strings.Join(g.columns, ", "))
		}
		fmt.Fprintln(w)
		for j, c := range g.columns {
			fmt.Fprintf(w, "    %s: old %s\n    %s  new %s\n", c, excerpt(g.oldVals[j], g.newVals[j]), strings.Repeat(" ", len(c)), excerpt(g.newVals[j], g.oldVals[j]))
		}
	}
}
