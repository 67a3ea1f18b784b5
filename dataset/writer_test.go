package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"
)

func TestWriter_rowGroups(t *testing.T) {
	tests := []struct {
		name      string
		rows      int
		cfg       WriterConfig
		flushAt   []int // extra Flush calls after these many rows
		wantSizes []int64
	}{
		{"1200 rows by 500", 1200, WriterConfig{RowGroupRows: 500}, nil, []int64{500, 500, 200}},
		{"exact multiple", 1000, WriterConfig{RowGroupRows: 500}, nil, []int64{500, 500}},
		{"default size", 1200, WriterConfig{}, nil, []int64{DefaultRowGroupRows, DefaultRowGroupRows, 200}},
		{"explicit flush", 30, WriterConfig{RowGroupRows: 500}, []int{10, 10, 25}, []int64{10, 15, 5}},
		{"flush at a boundary", 20, WriterConfig{RowGroupRows: 10}, []int{10}, []int64{10, 10}},
		{"one row", 1, WriterConfig{}, nil, []int64{1}},
		{"no rows", 0, WriterConfig{}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "spaces.parquet")
			w, err := create[SpaceRow](path, Metadata{}, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.rows {
				if err := w.Write(spaceRow(i)); err != nil {
					t.Fatal(err)
				}
				for _, at := range tt.flushAt {
					if at == i+1 {
						if err := w.Flush(); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if got, want := w.Rows(), int64(tt.rows); got != want {
				t.Errorf("Rows() = %d, want %d", got, want)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}

			pf, err := file.OpenParquetFile(path, false)
			if err != nil {
				t.Fatal(err)
			}
			defer pf.Close()
			var got []int64
			for i := range pf.NumRowGroups() {
				got = append(got, pf.MetaData().RowGroup(i).NumRows())
			}
			if !reflect.DeepEqual(got, tt.wantSizes) {
				t.Errorf("row group sizes %v, want %v", got, tt.wantSizes)
			}
			if got, want := pf.NumRows(), int64(tt.rows); got != want {
				t.Errorf("rows %d, want %d", got, want)
			}
		})
	}
}

// exists reports whether path exists, failing on other errors.
// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

// Close ends the Writer's use; a write error is sticky; Abort gives up.
func TestWriter_lifecycle(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter[PageRow](&buf, "pages", Metadata{}, WriterConfig{RowGroupRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := w.Write(pageRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.Size(); got != int64(buf.Len()) || got == 0 {
		t.Errorf("Size = %d, want the %d bytes written", got, buf.Len())
	}
	rows, err := readAllAt[PageRow](buf.Bytes())
	if err != nil || len(rows) != 5 {
		t.Errorf("read back %d rows, %v; want 5", len(rows), err)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close: got nil error")
	}
	if err := w.Write(pageRow(0)); err == nil {
		t.Error("Write after Close: got nil error")
	}

	fw, err := NewWriter[PageRow](&failingWriter{n: 10}, "full", Metadata{}, WriterConfig{RowGroupRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	var first error
	for i := 0; first == nil && i < 100; i++ {
		first = fw.Write(pageRow(i))
	}
	if first == nil || !strings.Contains(first.Error(), "disk full") {
		t.Fatalf("100 rows written to a full disk: %v, want its error", first)
	}
	if err := fw.Write(pageRow(1)); err != first {
		t.Errorf("Write after the failure = %v, want the first error again", err)
	}
	if err := fw.Close(); err != first {
		t.Errorf("Close = %v, want the first error", err)
	}

	aw, err := NewWriter[PageRow](io.Discard, "aborted", Metadata{}, WriterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	aw.Abort()
	if err := aw.Write(pageRow(0)); err == nil {
		t.Error("Write after Abort: got nil error")
	}
	if err := aw.Close(); err == nil {
		t.Error("Close after Abort: got nil error")
	}
}

func TestNewWriter_errors(t *testing.T) {
	if _, err := NewWriter[PageRow](io.Discard, "a", Metadata{}, WriterConfig{RowGroupRows: -1}); err == nil {
		t.Error("NewWriter with RowGroupRows -1: got nil error")
	}
	if _, err := NewWriter[int](io.Discard, "b", Metadata{}, WriterConfig{}); err == nil {
		t.Error("NewWriter[int]: got nil error")
	}
}

func TestWriterConfig_Validate(t *testing.T) {
	tests := []struct {
		cfg     WriterConfig
		wantErr bool
	}{
		{WriterConfig{}, false},
		{DefaultWriterConfig(), false},
		{WriterConfig{RowGroupRows: 1}, false},
		{WriterConfig{RowGroupRows: -1}, true},
	}
	for _, tt := range tests {
		if err := tt.cfg.Validate(); (err != nil) != tt.wantErr {
			t.Errorf("%+v.Validate() = %v, want error %v", tt.cfg, err, tt.wantErr)
		}
	}
}

func TestReadMetadata(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		meta Metadata
		want Metadata
	}{
		{
			"full",
			Metadata{SchemaVersion: 99, ToolVersion: "v1.2.3", BrowserVersion: "156.0.8078.73", RunID: "r1",
				Config: `{"workers":2}`, CreatedAt: testTime().In(time.FixedZone("CET", 3600))},
			Metadata{SchemaVersion: SchemaVersion, ToolVersion: "v1.2.3", BrowserVersion: "156.0.8078.73", RunID: "r1",
				Config: `{"workers":2}`, CreatedAt: testTime()},
		},
		{"empty", Metadata{}, Metadata{SchemaVersion: SchemaVersion}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".parquet")
			before := time.Now()
			mustWrite(t, path, tt.meta, WriterConfig{}, makeRows(2, pageRow))
			got, err := ReadMetadata(path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.meta.CreatedAt.IsZero() {
				// Filled in by Create.
				if got.CreatedAt.Before(before.Add(-time.Second)) || got.CreatedAt.After(time.Now()) || got.CreatedAt.Location() != time.UTC {
					t.Errorf("CreatedAt = %v, want about %v in UTC", got.CreatedAt, before)
				}
				got.CreatedAt = time.Time{}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReadMetadata() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestReadMetadata_errors(t *testing.T) {
	dir := t.TempDir()
	notParquet := filepath.Join(dir, "x.parquet")
	if err := os.WriteFile(notParquet, []byte("not parquet at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{notParquet, filepath.Join(dir, "missing.parquet")} {
		if _, err := ReadMetadata(path); err == nil {
			t.Errorf("ReadMetadata(%s): got nil error", path)
		}
	}
}

// BenchmarkWriter_Write writes blobs rows carrying about 100 KB of HTML and
// a 20 KB capture each, the heavy table.
func BenchmarkWriter_Write(b *testing.B) {
	row := blobRow(0)
	var html strings.Builder
	for i := 0; html.Len() < 100<<10; i++ {
		fmt.Fprintf(&html, `<div class="card" data-i="%d"><a href="/p/%d">Product %d</a><button>Add</button></div>`+"\n", i, i, i)
	}
	row.HTML = html.String()
	capture, err := CompressCapture([]byte(strings.Repeat(`{"tag":"div","rect":[0,0,10,10]},`, 2000)))
	if err != nil {
		b.Fatal(err)
	}
	row.Capture = capture
	w, err := NewWriter[BlobRow](io.Discard, "blobs", Metadata{}, WriterConfig{RowGroupRows: 100})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(row.HTML) + len(row.Capture)))
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(row); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWriter_SmallFiles writes files of 8 small rows, as a crawl
// writes its parts: the cost of a file, not of its rows.
func BenchmarkWriter_SmallFiles(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewWriter[BlobRow](io.Discard, "blobs", Metadata{}, WriterConfig{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range 8 {
			row := blobRow(i)
			row.HTML = fmt.Sprintf("<html><body><a href='/p/%d'>Product</a></body></html>", i)
			if err := w.Write(row); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
