package dataset

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"actionspace/dataset/store"
	"actionspace/internal/s3test"
)

// s3srv is the S3-compatible server of this package's tests, started by the
// first test that needs it.
var s3srv s3test.Shared

func TestMain(m *testing.M) { s3srv.Main(m) }

// TestNewWriter_store writes a pages part to a store object, on a directory
// and on a real S3-compatible server, and reads it back with arrow-go
// through the store's ranged reader, as a bucket reader will.
func TestNewWriter_store(t *testing.T) {
	stores := []struct {
		name string
		loc  func(t *testing.T) string
	}{
		{"dir", func(t *testing.T) string { return filepath.Join(t.TempDir(), "ds") }},
		{"s3", func(t *testing.T) string {
			srv := s3srv.Start(t)
			srv.SetEnv(t)
			return srv.URL(srv.Bucket, "ds")
		}},
	}
	for _, tt := range stores {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := store.Open(ctx, tt.loc(t), store.Config{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			const key = "pages/shard=0001/part-00000.parquet"
			rows := makeRows(40, pageRow)
			write := func() error {
				out, err := st.Create(ctx, key)
				if err != nil {
					return err
				}
				w, err := NewWriter[PageRow](out, Metadata{RunID: "run-1"}, WriterConfig{RowGroupRows: 16})
				if err != nil {
					return err
				}
				defer w.Abort()
				for _, r := range rows {
					if err := w.Write(r); err != nil {
						return err
					}
				}
				return w.Close()
			}
			if err := write(); err != nil {
				t.Fatal(err)
			}
			if err := write(); !errors.Is(err, fs.ErrExist) {
				t.Errorf("second part under the same key: %v, want fs.ErrExist", err)
			}

			r, err := st.OpenReader(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			pf, err := file.NewParquetReader(io.NewSectionReader(r, 0, r.Size()))
			if err != nil {
				t.Fatalf("arrow: open %s: %v", key, err)
			}
			defer pf.Close()
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := fr.ReadTable(ctx)
			if err != nil {
				t.Fatalf("arrow: read table: %v", err)
			}
			defer tbl.Release()
			if got, want := tbl.NumRows(), int64(len(rows)); got != want {
				t.Fatalf("rows: %d, want %d", got, want)
			}
			for ci, c := range pageColumns() {
				got := columnValues(t, tbl.Column(ci))
				for ri, row := range rows {
					if want := goField(reflect.ValueOf(row), c.name); !reflect.DeepEqual(got[ri], want) {
						t.Errorf("row %d column %s: got %#v, want %#v", ri, c.name, got[ri], want)
					}
				}
			}
		})
	}
}
