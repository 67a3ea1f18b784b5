package examples

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/pipeline"
	"actionspace/pipelinetest"
)

// query is one block of queries.sql.
type query struct {
	name        string
	description string
	statements  []string // the last one's result is the query's result
	line        int      // of the name comment
}

var nameLine = regexp.MustCompile(`^-- name: ([a-z0-9][a-z0-9-]*)$`)

// parseQueries splits a query file into its blocks: each starts with a
// "-- name: <slug>" line, then a "-- " description line, then SQL
// statements, each ending with ";" at the end of a line. Text before the
// first name line is the file's header.
func parseQueries(text string) ([]query, error) {
	var qs []query
	var stmt strings.Builder
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := nameLine.FindStringSubmatch(line); m != nil {
			if strings.TrimSpace(stmt.String()) != "" {
				return nil, fmt.Errorf("line %d: statement before it does not end with ;", n)
			}
			qs = append(qs, query{name: m[1], line: n})
			continue
		}
		if strings.HasPrefix(line, "-- name:") {
			return nil, fmt.Errorf("line %d: malformed name line %q", n, line)
		}
		if len(qs) == 0 {
			continue // the header
		}
		q := &qs[len(qs)-1]
		if q.description == "" {
			d, ok := strings.CutPrefix(line, "-- ")
			if !ok || strings.TrimSpace(d) == "" {
				return nil, fmt.Errorf("line %d: query %s: want a one-line description after the name", n, q.name)
			}
			q.description = d
			continue
		}
		if strings.TrimSpace(line) == "" && strings.TrimSpace(stmt.String()) == "" {
			continue
		}
		stmt.WriteString(line + "\n")
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			q.statements = append(q.statements, strings.TrimSpace(stmt.String()))
			stmt.Reset()
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(stmt.String()) != "" {
		return nil, fmt.Errorf("the last statement does not end with ;")
	}
	seen := map[string]bool{}
	for _, q := range qs {
		if seen[q.name] {
			return nil, fmt.Errorf("line %d: query %s defined twice", q.line, q.name)
		}
		seen[q.name] = true
		if len(q.statements) == 0 {
			return nil, fmt.Errorf("line %d: query %s has no statement", q.line, q.name)
		}
	}
	return qs, nil
}

func TestParseQueries(t *testing.T) {
	text := "-- header\n\n-- name: a\n-- Does A.\nSELECT 1;\n\n-- name: b-2\n-- Does B.\nCREATE VIEW v AS\n  SELECT 2;\nSELECT * FROM v;\n"
	got, err := parseQueries(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []query{
		{name: "a", description: "Does A.", statements: []string{"SELECT 1;"}, line: 3},
		{name: "b-2", description: "Does B.", statements: []string{"CREATE VIEW v AS\n  SELECT 2;", "SELECT * FROM v;"}, line: 7},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d queries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].name != want[i].name || got[i].description != want[i].description ||
			got[i].line != want[i].line || !slices.Equal(got[i].statements, want[i].statements) {
			t.Errorf("query %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{
		"-- name: a\nSELECT 1;\n",                    // no description
		"-- name: a\n-- A.\n",                        // no statement
		"-- name: a\n-- A.\nSELECT 1\n",              // no ;
		"-- name: a\n-- A.\nSELECT 1;\n-- name: a\n", // twice
		"-- name: A B\n-- A.\nSELECT 1;\n",           // bad slug
	} {
		if _, err := parseQueries(bad); err == nil {
			t.Errorf("parseQueries(%q): no error", bad)
		}
	}
}

// result is a query's result: column names and rows of scanned values.
type result struct {
	cols []string
	rows [][]any
}

// get returns row i's value of column name; it fails the test when the
// column does not exist.
func (r result) get(t *testing.T, i int, name string) any {
	t.Helper()
	c := slices.Index(r.cols, name)
	if c < 0 {
		t.Fatalf("no column %s in %v", name, r.cols)
	}
	return r.rows[i][c]
}

// num returns row i's value of a numeric column as a float64; null or a
// non-number fails the test.
func (r result) num(t *testing.T, i int, name string) float64 {
	t.Helper()
	switch v := r.get(t, i, name).(type) {
	case int64:
		return float64(v)
	case int32:
		return float64(v)
	case float64:
		return v
	default:
		t.Fatalf("row %d %s = %v (%T), want a number", i, name, v, v)
		return 0
	}
}

func (r result) str(t *testing.T, i int, name string) string {
	t.Helper()
	v, ok := r.get(t, i, name).(string)
	if !ok {
		t.Fatalf("row %d %s = %v (%T), want a string", i, name, r.get(t, i, name), r.get(t, i, name))
	}
	return v
}

// String formats r as an aligned text table.
func (r result) String() string {
	cells := [][]string{r.cols}
	for _, row := range r.rows {
		line := make([]string, len(row))
		for i, v := range row {
			line[i] = formatValue(v)
		}
		cells = append(cells, line)
	}
	widths := make([]int, len(r.cols))
	for _, line := range cells {
		for i, c := range line {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for n, line := range cells {
		for i, c := range line {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-len([]rune(c))))
		}
		b.WriteString("\n")
		if n == 0 {
			for i, w := range widths {
				if i > 0 {
					b.WriteString("  ")
				}
				b.WriteString(strings.Repeat("-", w))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func formatValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case string:
		if len(v) > 60 {
			return v[:57] + "..."
		}
		return v
	}
	return fmt.Sprint(v)
}

// run executes a block's statements on conn and returns the last one's
// result.
func run(ctx context.Context, conn *sql.Conn, q query) (result, error) {
	for _, s := range q.statements[:len(q.statements)-1] {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return result{}, fmt.Errorf("query %s: %w", q.name, err)
		}
	}
	rows, err := conn.QueryContext(ctx, q.statements[len(q.statements)-1])
	if err != nil {
		return result{}, fmt.Errorf("query %s: %w", q.name, err)
	}
	defer rows.Close()
	var r result
	if r.cols, err = rows.Columns(); err != nil {
		return result{}, fmt.Errorf("query %s: %w", q.name, err)
	}
	for rows.Next() {
		vals := make([]any, len(r.cols))
		ptrs := make([]any, len(r.cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return result{}, fmt.Errorf("query %s: %w", q.name, err)
		}
		r.rows = append(r.rows, vals)
	}
	if err := rows.Err(); err != nil {
		return result{}, fmt.Errorf("query %s: %w", q.name, err)
	}
	return r, nil
}

// crawl is what the checks know about the crawl the queries read.
type crawl struct {
	pages      int // ok pages
	notFound   string
	expansions []int64
	runID      string
	files      int               // part files, pages and spaces
	idsPerExp  map[int64]float64 // from ids-per-letter, for actions-by-role
	// wholeMisses and wholeExtras are the oracle elements without a handle
	// and the extra handles of the fast action spaces of the whole page,
	// from formats-side-by-side, for the tables' queries.
	wholeMisses, wholeExtras float64
	// card is the dataset card's text, for the figures it states.
	card string
}

// rowsPerPage is the number of spaces rows a page gets: actionspace,
// browser-use, playwright-ai and axtree at every expansion, html once.
func (c *crawl) rowsPerPage() int { return 4*len(c.expansions) + 1 }

// check is what a query's result must look like.
type check struct {
	cols  []string
	check func(t *testing.T, c *crawl, r result)
}

// checks returns the check of every query in queries.sql, by name.
func checks() map[string]check {
	perExpansion := func(t *testing.T, c *crawl, r result) {
		t.Helper()
		if len(r.rows) != len(c.expansions) {
			t.Fatalf("%d rows, want one per expansion %v", len(r.rows), c.expansions)
		}
		for i, e := range c.expansions {
			if got := r.get(t, i, "viewport_expansion"); got != e {
				t.Errorf("row %d viewport_expansion = %v, want %d", i, got, e)
			}
			if got := r.get(t, i, "mode"); got != "fast" {
				t.Errorf("row %d mode = %v, want fast", i, got)
			}
			if got := r.get(t, i, "text_policy"); got != "viewport" {
				t.Errorf("row %d text_policy = %v, want viewport", i, got)
			}
			if got := r.num(t, i, "pages"); got != float64(c.pages) {
				t.Errorf("row %d pages = %v, want %d", i, got, c.pages)
			}
		}
	}
	return map[string]check{
		"views": {nil, func(t *testing.T, c *crawl, r result) {}},
		"tokens-per-page": {
			[]string{"mode", "viewport_expansion", "text_policy", "pages", "median_tokens", "p90_tokens", "median_tokens_o200k", "p90_tokens_o200k", "median_html_tokens"},
			func(t *testing.T, c *crawl, r result) {
				perExpansion(t, c, r)
				for i := range r.rows {
					med, p90, html := r.num(t, i, "median_tokens"), r.num(t, i, "p90_tokens"), r.num(t, i, "median_html_tokens")
					if med <= 0 || p90 < med || html <= med {
						t.Errorf("row %d: median %v, p90 %v, HTML median %v: want 0 < median <= p90 and median < HTML", i, med, p90, html)
					}
					if m, p := r.num(t, i, "median_tokens_o200k"), r.num(t, i, "p90_tokens_o200k"); m <= 0 || p < m {
						t.Errorf("row %d: o200k median %v, p90 %v", i, m, p)
					}
				}
				// Rows are ordered 0 … -1: the whole page costs at least as
				// much as the viewport.
				if zero, whole := r.num(t, 0, "median_tokens"), r.num(t, len(r.rows)-1, "median_tokens"); whole < zero {
					t.Errorf("median tokens at -1 = %v, less than at 0 = %v", whole, zero)
				}
			},
		},
		"ratio-distribution": {
			[]string{"mode", "viewport_expansion", "text_policy", "pages", "min_cl100k", "p25_cl100k", "median_cl100k", "p75_cl100k", "max_cl100k", "median_o200k"},
			func(t *testing.T, c *crawl, r result) {
				perExpansion(t, c, r)
				for i := range r.rows {
					q := []float64{r.num(t, i, "min_cl100k"), r.num(t, i, "p25_cl100k"), r.num(t, i, "median_cl100k"), r.num(t, i, "p75_cl100k"), r.num(t, i, "max_cl100k")}
					if q[0] <= 1 || !slices.IsSorted(q) {
						t.Errorf("row %d: min, quartiles, max = %v, want increasing from > 1", i, q)
					}
					if m := r.num(t, i, "median_o200k"); m <= 1 {
						t.Errorf("row %d: median_o200k = %v, want > 1", i, m)
					}
				}
				// A larger window has more text, so a smaller ratio.
				if zero, whole := r.num(t, 0, "median_cl100k"), r.num(t, len(r.rows)-1, "median_cl100k"); whole > zero {
					t.Errorf("median ratio at -1 = %v, more than at 0 = %v", whole, zero)
				}
			},
		},
		"ratio-histogram": {
			[]string{"mode", "viewport_expansion", "text_policy", "ratio_from", "ratio_to", "pages"},
			func(t *testing.T, c *crawl, r result) {
				sum := map[int64]float64{}
				for i := range r.rows {
					from, to := r.num(t, i, "ratio_from"), r.num(t, i, "ratio_to")
					if from < 1 || to != 2*from || math.Log2(from) != math.Floor(math.Log2(from)) {
						t.Errorf("row %d: bucket [%v, %v), want a power of two >= 1 and its double", i, from, to)
					}
					sum[r.get(t, i, "viewport_expansion").(int64)] += r.num(t, i, "pages")
				}
				for _, e := range c.expansions {
					if sum[e] != float64(c.pages) {
						t.Errorf("expansion %d: %v pages in the buckets, want %d", e, sum[e], c.pages)
					}
				}
			},
		},
		"most-expensive-pages": {
			[]string{"url", "viewport_expansion", "text_policy", "action_count", "tokens_cl100k", "html_tokens_cl100k", "ratio_cl100k"},
			func(t *testing.T, c *crawl, r result) {
				if want := min(20, c.pages); len(r.rows) != want {
					t.Fatalf("%d rows, want %d", len(r.rows), want)
				}
				urls := map[string]bool{}
				for i := range r.rows {
					if got := r.get(t, i, "viewport_expansion"); got != int64(-1) {
						t.Errorf("row %d viewport_expansion = %v, want -1 (the widest window)", i, got)
					}
					if i > 0 && r.num(t, i, "tokens_cl100k") > r.num(t, i-1, "tokens_cl100k") {
						t.Errorf("row %d: tokens %v after %v: not in decreasing order", i, r.num(t, i, "tokens_cl100k"), r.num(t, i-1, "tokens_cl100k"))
					}
					if r.num(t, i, "tokens_cl100k") <= 0 || r.num(t, i, "ratio_cl100k") <= 1 {
						t.Errorf("row %d: tokens %v, ratio %v", i, r.num(t, i, "tokens_cl100k"), r.num(t, i, "ratio_cl100k"))
					}
					urls[r.str(t, i, "url")] = true
				}
				if len(urls) != len(r.rows) {
					t.Errorf("%d distinct URLs in %d rows", len(urls), len(r.rows))
				}
			},
		},
		"ids-per-letter": {
			[]string{"mode", "viewport_expansion", "text_policy", "pages", "L", "B", "I", "F", "O", "M", "ids", "ids_per_page"},
			func(t *testing.T, c *crawl, r result) {
				perExpansion(t, c, r)
				c.idsPerExp = map[int64]float64{}
				for i, e := range c.expansions {
					var sum float64
					for _, l := range []string{"L", "B", "I", "F", "O", "M"} {
						sum += r.num(t, i, l)
					}
					ids := r.num(t, i, "ids")
					if sum != ids {
						t.Errorf("row %d: letters sum to %v, ids = %v", i, sum, ids)
					}
					for _, l := range []string{"L", "B", "I"} {
						if r.num(t, i, l) <= 0 {
							t.Errorf("row %d: no %s IDs in the corpus", i, l)
						}
					}
					if got, want := r.num(t, i, "ids_per_page"), math.Round(10*ids/float64(c.pages))/10; got != want {
						t.Errorf("row %d: ids_per_page = %v, want %v", i, got, want)
					}
					c.idsPerExp[e] = ids
				}
				if zero, whole := r.num(t, 0, "ids"), r.num(t, len(r.rows)-1, "ids"); whole < zero {
					t.Errorf("IDs at -1 = %v, fewer than at 0 = %v", whole, zero)
				}
			},
		},
		"actions-by-role": {
			[]string{"viewport_expansion", "role", "kind", "actions", "pages"},
			func(t *testing.T, c *crawl, r result) {
				sum := map[int64]float64{}
				for i := range r.rows {
					// role is empty for an M element with neither an explicit
					// nor an implicit role (a div with onclick).
					if !slices.Contains([]string{"click", "fill", "select"}, r.str(t, i, "kind")) {
						t.Errorf("row %d: role %q, kind %q", i, r.str(t, i, "role"), r.str(t, i, "kind"))
					}
					if p := r.num(t, i, "pages"); p < 1 || p > float64(c.pages) {
						t.Errorf("row %d: pages = %v", i, p)
					}
					sum[r.get(t, i, "viewport_expansion").(int64)] += r.num(t, i, "actions")
				}
				for _, e := range c.expansions {
					if sum[e] != c.idsPerExp[e] {
						t.Errorf("expansion %d: %v actions in the lists, %v IDs in ids-per-letter", e, sum[e], c.idsPerExp[e])
					}
				}
			},
		},
		"formats-side-by-side": {
			[]string{"format", "viewport_expansion", "pages", "median_tokens", "median_handles", "median_recall", "oracle_elements", "handled", "extra_handles"},
			func(t *testing.T, c *crawl, r result) {
				if got, want := len(r.rows), c.rowsPerPage(); got != want {
					t.Fatalf("%d rows, want one per format and window, %d", got, want)
				}
				tokens := map[string]float64{}
				for i := range r.rows {
					format, e := r.str(t, i, "format"), r.get(t, i, "viewport_expansion").(int64)
					if r.num(t, i, "pages") != float64(c.pages) {
						t.Errorf("row %d: %v pages, want %d", i, r.num(t, i, "pages"), c.pages)
					}
					if format == "html" {
						if e != -1 || r.get(t, i, "median_recall") != nil || r.get(t, i, "handled") != nil || r.num(t, i, "oracle_elements") <= 0 ||
							r.num(t, i, "median_handles") != 0 || r.num(t, i, "extra_handles") != 0 {
							t.Errorf("html: row %v, want the whole page only, no handles, no recall", r.rows[i])
						}
					} else {
						if rec := r.num(t, i, "median_recall"); rec <= 0.5 || rec > 1 {
							t.Errorf("%s E=%d: median recall %v", format, e, rec)
						}
						if h, o := r.num(t, i, "handled"), r.num(t, i, "oracle_elements"); h <= 0 || h > o {
							t.Errorf("%s E=%d: %v of %v oracle elements handled", format, e, h, o)
						}
					}
					if e == -1 {
						tokens[format] = r.num(t, i, "median_tokens")
						if format == "actionspace" {
							c.wholeMisses = r.num(t, i, "oracle_elements") - r.num(t, i, "handled")
							c.wholeExtras = r.num(t, i, "extra_handles")
						}
					}
				}
				// The whole page: the action space is the cheapest format,
				// the HTML the dearest.
				for _, f := range []string{"playwright-ai", "axtree", "html"} {
					if tokens[f] <= tokens["actionspace"] || tokens["html"] < tokens[f] {
						t.Errorf("median tokens at the whole page %v: want actionspace < %s <= html", tokens, f)
					}
				}
			},
		},
		"elements-match-action-count": {
			[]string{"url", "element_ids", "action_count", "equal"},
			func(t *testing.T, c *crawl, r result) {
				if len(r.rows) != c.pages {
					t.Fatalf("%d rows, want one per page (%d)", len(r.rows), c.pages)
				}
				for i := range r.rows {
					if r.get(t, i, "equal") != true || r.num(t, i, "element_ids") != r.num(t, i, "action_count") {
						t.Errorf("%s: %v IDs from the elements table, action_count %v", r.str(t, i, "url"), r.get(t, i, "element_ids"), r.get(t, i, "action_count"))
					}
				}
			},
		},
		"recall-misses-by-reason": {
			[]string{"miss_reason", "misses", "outside_whole_page", "pages", "example"},
			func(t *testing.T, c *crawl, r result) {
				got, sum := map[string]float64{}, 0.0
				for i := range r.rows {
					if m := r.num(t, i, "misses"); m > 0 {
						got[r.str(t, i, "miss_reason")] = m
						sum += m
					}
					if r.str(t, i, "example") == "" {
						t.Errorf("row %d: no example", i)
					}
				}
				if sum != c.wholeMisses {
					t.Errorf("%v misses by reason, %v from the spaces rows", sum, c.wholeMisses)
				}
				// The oracle's figures on the stored corpus (oracle.TestOracle_MissReasons).
				if got, want := fmt.Sprint(got), "map[disabled:1 hidden:1 modal_backdrop:21 occluded:21]"; got != want {
					t.Errorf("misses by reason %s, want %s", got, want)
				}
			},
		},
		"extra-handles-by-reason": {
			[]string{"extra_reason", "extra_handles", "pages", "example"},
			func(t *testing.T, c *crawl, r result) {
				got, sum := map[string]float64{}, 0.0
				for i := range r.rows {
					got[r.str(t, i, "extra_reason")] = r.num(t, i, "extra_handles")
					sum += r.num(t, i, "extra_handles")
				}
				if sum != c.wholeExtras {
					t.Errorf("%v extra handles by reason, %v from the spaces rows", sum, c.wholeExtras)
				}
				if got, want := fmt.Sprint(got), "map[cursor:1 handler:6]"; got != want {
					t.Errorf("extra handles by reason %s, want %s", got, want)
				}
			},
		},
		"error-kinds": {
			[]string{"error_kind", "http_status", "pages", "example_url", "example_message"},
			func(t *testing.T, c *crawl, r result) {
				if len(r.rows) != 1 {
					t.Fatalf("%d rows, want 1 (the 404):\n%v", len(r.rows), r)
				}
				if r.get(t, 0, "error_kind") != "http" || r.get(t, 0, "http_status") != int64(404) || r.num(t, 0, "pages") != 1 ||
					r.get(t, 0, "example_url") != c.notFound || !strings.Contains(r.str(t, 0, "example_message"), "404") {
					t.Errorf("row = %v, want http, 404, 1 page, %s and a message naming 404", r.rows[0], c.notFound)
				}
			},
		},
		"crawl-summary": {
			[]string{"run_id", "pages", "ok", "failed", "spaces_rows", "first_captured_at", "last_captured_at", "median_navigate_ms", "median_capture_ms", "median_total_ms"},
			func(t *testing.T, c *crawl, r result) {
				if len(r.rows) != 1 {
					t.Fatalf("%d rows, want 1 (one run)", len(r.rows))
				}
				got := []float64{r.num(t, 0, "pages"), r.num(t, 0, "ok"), r.num(t, 0, "failed"), r.num(t, 0, "spaces_rows")}
				want := []float64{float64(c.pages + 1), float64(c.pages), 1, float64(c.pages * c.rowsPerPage())}
				if r.get(t, 0, "run_id") != c.runID || !slices.Equal(got, want) {
					t.Errorf("run %v: pages, ok, failed, spaces = %v, want %s and %v", r.get(t, 0, "run_id"), got, c.runID, want)
				}
				first, ok1 := r.get(t, 0, "first_captured_at").(time.Time)
				last, ok2 := r.get(t, 0, "last_captured_at").(time.Time)
				if !ok1 || !ok2 || last.Before(first) || time.Since(first) > time.Hour || time.Until(last) > time.Minute {
					t.Errorf("captured from %v to %v, want timestamps of the last minutes", r.get(t, 0, "first_captured_at"), r.get(t, 0, "last_captured_at"))
				}
				if _, off := first.Zone(); off != 0 {
					t.Errorf("first_captured_at %v is not in UTC", first)
				}
				for _, col := range []string{"median_navigate_ms", "median_capture_ms", "median_total_ms"} {
					if v := r.num(t, 0, col); v <= 0 {
						t.Errorf("%s = %v, want > 0", col, v)
					}
				}
			},
		},
		"deep-mode-per-page": {
			[]string{"url", "viewport_expansion", "text_policy", "llm_model", "llm_ran", "llm_calls", "llm_rounds", "cache_hits", "prompt_tokens_api", "completion_tokens_api", "api_tokens", "prompt_tokens_local", "llm_ms", "coverage", "hallucinated_ids", "deep_tokens", "fast_tokens"},
			func(t *testing.T, c *crawl, r result) {
				if len(r.rows) != 0 {
					t.Errorf("%d rows, want none: the crawl ran fast mode only", len(r.rows))
				}
			},
		},
		"deep-mode-summary": {
			[]string{"deep_rows", "llm_ran_rows", "llm_calls", "cache_hits", "prompt_tokens_api", "completion_tokens_api", "prompt_tokens_local", "prompt_tokens_local_per_row", "median_llm_ms", "mean_coverage", "hallucinated_ids"},
			func(t *testing.T, c *crawl, r result) {
				if len(r.rows) != 1 {
					t.Fatalf("%d rows, want 1", len(r.rows))
				}
				for i, col := range r.cols {
					want := any(nil)
					if i < 2 {
						want = int64(0) // the counts
					}
					if got := r.rows[0][i]; got != want {
						t.Errorf("%s = %v, want %v without deep rows", col, got, want)
					}
				}
			},
		},
		"table-bytes": {
			[]string{"table_name", "bytes", "html_capture_bytes"},
			func(t *testing.T, c *crawl, r result) {
				bytes := map[string]float64{}
				var heavy float64
				for i := range r.rows {
					bytes[r.str(t, i, "table_name")] = r.num(t, i, "bytes")
					if r.str(t, i, "table_name") == "blobs" {
						heavy = r.num(t, i, "html_capture_bytes")
					}
				}
				for _, table := range parts.Tables() {
					if table == dataset.StepsDir {
						continue // empty: the crawl takes no --steps
					}
					if bytes[table] <= 0 {
						t.Errorf("table %s: %v bytes, want some", table, bytes[table])
					}
				}
				if heavy <= 0 || heavy > bytes["blobs"] {
					t.Fatalf("html and capture: %v bytes of the blobs' %v", heavy, bytes["blobs"])
				}
				// The card's figure: how many times fewer bytes a pages
				// scan reads than when pages held html and capture.
				factor := (bytes["pages"] + heavy) / bytes["pages"]
				m := regexp.MustCompile(`<!-- pages-scan -->(\d+) times<!-- /pages-scan -->`).FindStringSubmatch(c.card)
				if m == nil {
					t.Fatal("docs/dataset.md: no <!-- pages-scan -->N times<!-- /pages-scan --> figure")
				}
				stated, _ := strconv.ParseFloat(m[1], 64)
				t.Logf("pages %.0f bytes, html and capture %.0f bytes: a pages scan reads %.1f times fewer bytes (the card says %.0f)", bytes["pages"], heavy, factor, stated)
				if math.Abs(factor/stated-1) > 0.25 {
					t.Errorf("a pages scan reads %.1f times fewer bytes; the card says %.0f (update docs/dataset.md)", factor, stated)
				}
			},
		},
		"file-metadata": {
			[]string{"key", "value", "files"},
			func(t *testing.T, c *crawl, r result) {
				// Every part of the crawl carries the same value of each key;
				// created_at is shown as the range over the parts.
				values := map[string]string{}
				for i := range r.rows {
					k, v := r.str(t, i, "key"), r.str(t, i, "value")
					if _, dup := values[k]; dup {
						t.Errorf("%s has more than one value: %q, %q", k, values[k], v)
					}
					values[k] = v
					if f := r.num(t, i, "files"); f != float64(c.files) {
						t.Errorf("%s = %s in %v files, want all %d", k, v, f, c.files)
					}
				}
				if v := values["actionspace.schema_version"]; v != strconv.Itoa(dataset.SchemaVersion) {
					t.Errorf("schema_version = %q, want %d", v, dataset.SchemaVersion)
				}
				if v := values["actionspace.run_id"]; v != c.runID {
					t.Errorf("run_id = %q, want %s", v, c.runID)
				}
				if v := values["actionspace.browser_version"]; !strings.Contains(v, ".") {
					t.Errorf("browser_version = %q", v)
				}
				if v := values["actionspace.config"]; !strings.Contains(v, `"viewport_expansions":[0,500,-1]`) {
					t.Errorf("config = %q, want viewport_expansions [0,500,-1]", v)
				}
				if _, ok := values["actionspace.tool_version"]; !ok {
					t.Errorf("no tool_version")
				}
				first, last, ok := strings.Cut(values["actionspace.created_at"], " .. ")
				if !ok {
					last = first // every part created at the same instant
				}
				var times []time.Time
				for _, v := range []string{first, last} {
					tm, err := time.Parse(time.RFC3339Nano, v)
					if err != nil || !strings.HasSuffix(v, "Z") {
						t.Errorf("created_at %q, want RFC 3339 in UTC", v)
					}
					times = append(times, tm)
				}
				if times[1].Before(times[0]) {
					t.Errorf("created_at range %s .. %s goes backwards", first, last)
				}
			},
		},
	}
}

// TestQueries_covered checks, without a browser, that queries.sql parses
// and that every query in it has a check here and the reverse, so that no
// query goes untested.
func TestQueries_covered(t *testing.T) {
	qs := mustParseQueries(t)
	cs := checks()
	for _, q := range qs {
		if _, ok := cs[q.name]; !ok {
			t.Errorf("queries.sql:%d: query %s has no check in queries_test.go", q.line, q.name)
		}
	}
	for name := range cs {
		if !slices.ContainsFunc(qs, func(q query) bool { return q.name == name }) {
			t.Errorf("check %s has no query in queries.sql", name)
		}
	}
	if len(qs) == 0 || qs[0].name != "views" {
		t.Errorf("the first block of queries.sql must be views")
	}
}

func mustParseQueries(t *testing.T) []query {
	t.Helper()
	data, err := os.ReadFile("queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := parseQueries(string(data))
	if err != nil {
		t.Fatalf("queries.sql: %v", err)
	}
	return qs
}

// TestQueries crawls the bundled corpus and a 404 on a browser that
// replays the stored corpus pages (package pipelinetest), then
// runs every block of queries.sql, unchanged, through DuckDB from the
// crawl's directory, as the file's header tells a user to, and checks each
// result. It also checks the types DuckDB sees against the dataset card.
func TestQueries(t *testing.T) {
	card := cardTypes(t, "../docs/dataset.md")
	qs := mustParseQueries(t)

	replay := pipelinetest.New(t, pipelinetest.Options{})
	urls := corpora.DefaultURLs(pipelinetest.Origin)
	c := &crawl{pages: len(urls), notFound: pipelinetest.Origin + "/no-such-page.html", expansions: []int64{0, 500, -1}, runID: "examples-test"}
	targets, err := pipeline.ReadTargets(strings.NewReader(strings.Join(append(urls, c.notFound), "\n")), pipeline.DefaultSchemes())
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.DefaultConfig()
	cfg.RunID = c.runID
	cfg.Workers = 2
	cfg.Timeout = 20 * time.Second
	cfg.Expansions = []int{0, 500, -1}
	cfg.Output.PartPages = 6 // several parts per table, which the views must all read
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	stats, err := pipeline.Crawl(ctx, cfg, targets, out, replay.Opener(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.OK != c.pages || stats.Failed != 1 {
		t.Fatalf("crawl: ok=%d failed=%d, want %d and 1", stats.OK, stats.Failed, c.pages)
	}
	pageParts, err := parts.Files(out, dataset.PagesDir)
	var spaceParts []string
	if err == nil {
		spaceParts, err = parts.Files(out, dataset.SpacesDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(pageParts) < 2 {
		t.Fatalf("%d pages parts, want several: %v", len(pageParts), pageParts)
	}
	c.files = len(pageParts) + len(spaceParts)

	// queries.sql reads the parts below pages/ and spaces/ in the current
	// directory, as a user runs it: cd DIR && duckdb < queries.sql.
	c.card = readCard(t)
	t.Chdir(out)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // one session: the views and settings are its own
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	cs := checks()
	ran := map[string]bool{}
	for _, q := range qs {
		ch, ok := cs[q.name]
		if !ok {
			t.Errorf("query %s has no check", q.name)
			continue
		}
		r, err := run(ctx, conn, q)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		ran[q.name] = true
		t.Logf("-- %s: %s\n%v", q.name, q.description, r)
		t.Run(q.name, func(t *testing.T) {
			if ch.cols != nil && !slices.Equal(r.cols, ch.cols) {
				t.Fatalf("columns %v, want %v", r.cols, ch.cols)
			}
			ch.check(t, c, r)
		})
	}
	for _, q := range qs {
		if !ran[q.name] {
			t.Errorf("query %s did not run", q.name)
		}
	}

	t.Run("types", func(t *testing.T) {
		for _, table := range []string{"pages", "spaces", "elements", "oracle"} {
			r, err := run(ctx, conn, query{name: "describe " + table, statements: []string{
				"SELECT column_name, column_type FROM (DESCRIBE " + table + ")"}})
			if err != nil {
				t.Fatal(err)
			}
			cols := card[table]
			if len(r.rows) != len(cols) {
				t.Errorf("%s: DuckDB sees %d columns, the card documents %d", table, len(r.rows), len(cols))
			}
			for i := range min(len(r.rows), len(cols)) {
				col, got := r.str(t, i, "column_name"), strings.ReplaceAll(r.str(t, i, "column_type"), `"`, "")
				if col != cols[i].name {
					t.Errorf("%s column %d: DuckDB sees %s, the card documents %s", table, i, col, cols[i].name)
					continue
				}
				if want := duckType(cols[i].typ, card["spaces.actions"]); got != want {
					t.Errorf("%s.%s: DuckDB type %s, want %s (the card says %s)", table, col, got, want, cols[i].typ)
				}
			}
		}
	})
}

// cardColumn is a column as the dataset card documents it.
type cardColumn struct {
	name string
	typ  string // as the card states it: string, int64, list<struct<…>> …
}

// cardTypes reads the column tables of the dataset card (the block
// generated from dataset/rows.go): table → its columns in order.
func cardTypes(t *testing.T, path string) map[string][]cardColumn {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "<!-- columns:begin -->")
	block, _, ok2 := strings.Cut(block, "<!-- columns:end -->")
	if !ok || !ok2 {
		t.Fatalf("%s: no generated column block", path)
	}
	types := map[string][]cardColumn{}
	table := ""
	for line := range strings.Lines(block) {
		line = strings.TrimSpace(line)
		if h, ok := strings.CutPrefix(line, "### "); ok {
			table = h
			continue
		}
		cells := strings.Split(line, "|")
		if table == "" || len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		types[table] = append(types[table], cardColumn{
			name: strings.Trim(strings.TrimSpace(cells[1]), "`"),
			typ:  strings.Trim(strings.TrimSpace(cells[2]), "`"),
		})
	}
	for _, table := range []string{"pages", "spaces", "elements", "oracle", "spaces.actions"} {
		if len(types[table]) == 0 {
			t.Fatalf("%s: no column table for %s", path, table)
		}
	}
	return types
}

// duckType returns the DuckDB type of a column whose type the card states
// as typ. The element of a list<struct<…>> is the struct of the card's
// table for elem.
func duckType(typ string, elem []cardColumn) string {
	switch typ {
	case "string":
		return "VARCHAR"
	case "int64":
		return "BIGINT"
	case "float64":
		return "DOUBLE"
	case "bool":
		return "BOOLEAN"
	case "binary":
		return "BLOB"
	case "timestamp[us, UTC]":
		return "TIMESTAMP WITH TIME ZONE"
	case "list<string>":
		return "VARCHAR[]"
	case "list<struct<…>>":
		fields := make([]string, len(elem))
		for i, c := range elem {
			fields[i] = c.name + " " + duckType(c.typ, nil)
		}
		return "STRUCT(" + strings.Join(fields, ", ") + ")[]"
	}
	return "(no DuckDB type for card type " + typ + ")"
}

// readCard reads the dataset card.
func readCard(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../docs/dataset.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
