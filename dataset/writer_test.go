package dataset

import (
	"errors"
	"fmt"
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
			w, err := Create[SpaceRow](path, Metadata{}, tt.cfg)
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
func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// A file appears under its name only when complete.
func TestWriter_Close_tempFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pages.parquet")
	w, err := Create[PageRow](path, Metadata{}, WriterConfig{RowGroupRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := w.Write(pageRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if !exists(t, path+".tmp") || exists(t, path) {
		t.Fatalf("before Close: want only %s.tmp", path)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if exists(t, path+".tmp") || !exists(t, path) {
		t.Fatalf("after Close: want only %s", path)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(entries))
	}
	if err := w.Close(); err == nil {
		t.Error("second Close: got nil error")
	}
	if err := w.Write(pageRow(0)); err == nil {
		t.Error("Write after Close: got nil error")
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort after Close: %v", err)
	}
	if !exists(t, path) {
		t.Error("Abort after Close removed the file")
	}
}

// Abort removes the temporary file and leaves an older file at path alone.
func TestWriter_Abort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.parquet")
	old := makeRows(3, pageRow)
	mustWrite(t, path, Metadata{RunID: "old"}, WriterConfig{}, old)

	w, err := Create[PageRow](path, Metadata{RunID: "new"}, WriterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(pageRow(7)); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if exists(t, path+".tmp") {
		t.Error("Abort left the temporary file")
	}
	got, err := ReadAll[PageRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, old) {
		t.Error("Abort changed the file at path")
	}
	if err := w.Close(); err == nil {
		t.Error("Close after Abort: got nil error")
	}
}

// When the rename fails, Close removes the temporary file and reports it.
func TestWriter_Close_renameFails(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pages.parquet")
	// A non-empty directory at path makes the rename fail.
	if err := os.MkdirAll(filepath.Join(path, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := Create[PageRow](path, Metadata{}, WriterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(pageRow(0)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close: got nil error")
	}
	if exists(t, path+".tmp") {
		t.Error("failed Close left the temporary file")
	}
}

// A stale temporary file from a killed run is overwritten.
func TestCreate_staleTemp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spaces.parquet")
	if err := os.WriteFile(path+".tmp", []byte("half a file from a killed run"), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := makeRows(4, spaceRow)
	mustWrite(t, path, Metadata{}, WriterConfig{}, rows)
	got, err := ReadAll[SpaceRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Error("rows differ after overwriting a stale temporary file")
	}
}

func TestCreate_errors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create[PageRow](filepath.Join(dir, "no", "such", "dir.parquet"), Metadata{}, WriterConfig{}); err == nil {
		t.Error("Create in a missing directory: got nil error")
	}
	if _, err := Create[PageRow](filepath.Join(dir, "a.parquet"), Metadata{}, WriterConfig{RowGroupRows: -1}); err == nil {
		t.Error("Create with RowGroupRows -1: got nil error")
	}
	if _, err := Create[int](filepath.Join(dir, "b.parquet"), Metadata{}, WriterConfig{}); err == nil {
		t.Error("Create[int]: got nil error")
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
	path := filepath.Join(b.TempDir(), "blobs.parquet")
	w, err := Create[BlobRow](path, Metadata{}, WriterConfig{RowGroupRows: 100})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
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
