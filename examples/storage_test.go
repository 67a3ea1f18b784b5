package examples

import (
	"context"
	"database/sql"

	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/dataset/store/bucket"
	"actionspace/internal/s3test"
)

// s3srv is the S3-compatible server of this package's tests, started by the
// first test that needs it.
var s3srv s3test.Shared

func TestMain(m *testing.M) {
	bucket.Register()
	s3srv.Main(m)
}

// shardRows are the rows of n pages of one shard: ok pages with a blobs
// row and one spaces row each.
func shardRows(shard, n int) []parts.Rows {
	var rows []parts.Rows
	for i := range n {
		id := fmt.Sprintf("%04d%012d", shard, i)
		u := fmt.Sprintf("http://example.test/%d/%d", shard, i)
		rows = append(rows, parts.Rows{
			Page:   dataset.PageRow{RunID: "r", PageID: id, URL: u, Status: dataset.StatusOK, CapturedAt: time.Unix(1e9, 0).UTC()},
			Blob:   &dataset.BlobRow{RunID: "r", PageID: id, URL: u, HTML: "<p>x</p>"},
			Spaces: []dataset.SpaceRow{{RunID: "r", PageID: id, URL: u, Format: "actionspace", Mode: "fast", TextPolicy: "viewport"}},
		})
	}
	return rows
}

// writeShards writes shards 0 and 3 (pages 4 and 5) into partitions
// shard=0000 and shard=0003 of the dataset at loc.
func writeShards(t *testing.T, loc string) {
	t.Helper()
	for shard, n := range map[int]int{0: 4, 3: 5} {
		w, err := parts.Create(context.Background(), loc, dataset.Metadata{RunID: "r"},
			parts.Config{PartPages: 2, Partition: fmt.Sprintf("shard=%04d", shard)})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range shardRows(shard, n) {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// queryRows runs q and returns its rows as strings.
func queryRows(t *testing.T, db *sql.DB, q string) [][]string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		line := make([]string, len(vals))
		for i, v := range vals {
			line[i] = fmt.Sprint(v)
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDuckDB_HivePartitions reads a sharded dataset the way the dataset
// card says: DuckDB adds the shard column from the folder names as
// VARCHAR ('0003', leading zeros kept), by its own inference and with the
// card's explicit hive_types; the table holds every shard's rows; and a
// pending part (a kill between a part's commit and its roll-forward) and
// the lock objects are not read.
func TestDuckDB_HivePartitions(t *testing.T) {
	dir := t.TempDir()
	writeShards(t, dir)
	// What a kill after the commit of a pending part leaves: a complete
	// Parquet file under a pending name.
	spaces, err := parts.Files(dir, dataset.SpacesDir)
	if err != nil || len(spaces) == 0 {
		t.Fatalf("spaces parts %v, %v", spaces, err)
	}
	b, err := os.ReadFile(spaces[0])
	if err != nil {
		t.Fatal(err)
	}
	pending := filepath.Join(dir, dataset.SpacesDir, "shard=0003", parts.PendingPrefix+"part-00099.parquet"+parts.PendingExt)
	if err := os.WriteFile(pending, b, 0o644); err != nil {
		t.Fatal(err)
	}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	glob := func(table string) string { return filepath.Join(dir, table, "**", "*.parquet") }
	for _, q := range []string{
		// DuckDB's own inference.
		fmt.Sprintf(`SELECT typeof(shard), shard, count(*) FROM read_parquet('%s') GROUP BY ALL ORDER BY shard`, glob(dataset.PagesDir)),
		// The card's recipe.
		fmt.Sprintf(`SELECT typeof(shard), shard, count(*) FROM read_parquet('%s', hive_types = {'shard': VARCHAR}) GROUP BY ALL ORDER BY shard`, glob(dataset.PagesDir)),
	} {
		got := queryRows(t, db, q)
		want := [][]string{{"VARCHAR", "0000", "4"}, {"VARCHAR", "0003", "5"}}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s\n= %v, want %v", q, got, want)
		}
	}
	got := queryRows(t, db, fmt.Sprintf(`SELECT count(*) FROM read_parquet('%s')`, glob(dataset.SpacesDir)))
	if got[0][0] != "9" {
		t.Errorf("spaces rows: %s, want 9 (the pending part not read)", got[0][0])
	}
}

// TestDuckDB_ReadsBucket reads a dataset in a bucket of the real
// S3-compatible server with DuckDB's httpfs extension. duckdb-go does not
// bundle httpfs, and INSTALL fetches it from the network: where neither
// works (as on a machine without internet access) the test is skipped
// with the reason, and says so; it never fakes the read.
func TestDuckDB_ReadsBucket(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	loc := srv.URL(srv.Bucket, "runs/duck")
	writeShards(t, loc)

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, loadErr := db.Exec("LOAD httpfs"); loadErr != nil {
		_, installErr := db.Exec("INSTALL httpfs")
		if installErr == nil {
			_, loadErr = db.Exec("LOAD httpfs")
		}
		if loadErr != nil {
			t.Skipf("DuckDB cannot read the bucket here: its httpfs extension is not bundled in duckdb-go (LOAD httpfs: %v) and cannot be installed (INSTALL httpfs: %v)",
				firstLine(loadErr), firstLine(installErr))
		}
	}
	ep, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	secret := fmt.Sprintf(`CREATE SECRET bucket (TYPE s3, KEY_ID '%s', SECRET '%s', ENDPOINT '%s', URL_STYLE 'path', USE_SSL false, REGION '%s')`,
		srv.AccessKey, srv.SecretKey, ep.Host, s3test.Region)
	if _, err := db.Exec(secret); err != nil {
		t.Fatalf("create the S3 secret: %v", err)
	}
	prefix := "s3://" + srv.Bucket + "/runs/duck/"
	got := queryRows(t, db, fmt.Sprintf(`SELECT count(*), count(DISTINCT shard) FROM read_parquet('%spages/**/*.parquet')`, prefix))
	if got[0][0] != "9" || got[0][1] != "2" {
		t.Errorf("pages in the bucket: %v, want 9 rows in 2 shards", got)
	}
	st, err := store.Open(context.Background(), loc, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if keys, err := parts.Keys(context.Background(), st, dataset.PagesDir); err != nil || len(keys) != 5 {
		t.Errorf("pages parts %v, %v; want 5", keys, err)
	}
}

// firstLine is the first line of err's message ("" for nil).
func firstLine(err error) string {
	if err == nil {
		return ""
	}
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}
