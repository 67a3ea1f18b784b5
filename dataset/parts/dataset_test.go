package parts

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"actionspace/dataset"
	"actionspace/dataset/store"
)

// TestScan_unknownSchemaVersion: a part written by another schema version
// is refused, by Open and by Scan, with an error that names the versions,
// before any row is read.
func TestScan_unknownSchemaVersion(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ds")
	st, err := store.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[dataset.PageRow](&buf, parquet.KeyValueMetadata(dataset.KeySchemaVersion, "99"))
	if _, err := w.Write([]dataset.PageRow{{RunID: "future", PageID: "p", URL: "http://x.test/"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	const key = "pages/part-00000.parquet"
	if err := store.Put(ctx, st, key, buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	called := false
	err = Scan(ctx, st, key, func(dataset.PageRow) error { called = true; return nil })
	if err == nil || !strings.Contains(err.Error(), "schema version 99") || called {
		t.Errorf("Scan of a version-99 part = %v (rows read: %v), want a refusal naming the version", err, called)
	}
	if d, err := Open(ctx, dir); err == nil || !strings.Contains(err.Error(), "schema version 99") {
		d.Close()
		t.Errorf("Open of a version-99 dataset = %v, want a refusal naming the version", err)
	}
}
