package examples

import (
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"actionspace/dom"
	"actionspace/pipelinetest"
)

// TestCard_StepsQuery runs the dataset card's "wrong-target rate per
// format across steps" query, as the card prints it, through DuckDB over a
// crawl with steps (the mutation page that inserts a control above the
// others, replayed), and checks its wrong-handle sums against the crawl's
// own rows: positional IDs re-point handles there, stable IDs none.
func TestCard_StepsQuery(t *testing.T) {
	t.Parallel()
	card, err := os.ReadFile(filepath.Join("..", "docs", "dataset.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- steps-query:begin -->\\s*```sql\n(.*?)```\\s*<!-- steps-query:end -->").FindSubmatch(card)
	if m == nil {
		t.Fatal("docs/dataset.md: no steps query between its markers")
	}
	dir := t.TempDir()
	_, rows := pipelinetest.CrawlMutation(t, "/mutation/insert.html", dir)
	want := map[string]int64{} // format/id_policy: wrong handles, whole page, unbudgeted, after a step
	for _, r := range rows {
		if r.Step > 0 && r.ViewportExpansion == dom.WholePage && r.TokenBudget == nil && r.HandlesWrong != nil {
			want[r.Format+"/"+r.IDPolicy] += *r.HandlesWrong
		}
	}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	query := strings.ReplaceAll(string(m[1]), "'DIR/", "'"+filepath.ToSlash(dir)+"/")
	res, err := db.Query(query)
	if err != nil {
		t.Fatalf("the card's steps query: %v", err)
	}
	defer res.Close()
	got := map[string]int64{}
	for res.Next() {
		var format, mode, policy, action sql.NullString
		var states, handles int64
		var wrong sql.NullInt64 // null where no row of the group has the measure
		var share, per1000 sql.NullFloat64
		if err := res.Scan(&format, &mode, &policy, &action, &states, &handles, &wrong, &share, &per1000); err != nil {
			t.Fatal(err)
		}
		got[format.String+"/"+policy.String] += wrong.Int64
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: the query sums %d wrong handles, the crawl's rows %d", k, got[k], w)
		}
	}
	if got["actionspace/positional"] == 0 || got["actionspace/stable"] != 0 {
		t.Errorf("actionspace: %d wrong handles positional, %d stable; want some and none", got["actionspace/positional"], got["actionspace/stable"])
	}
	t.Logf("wrong handles per format and ID policy: %v", got)
}
