package dataset

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// hugeValue is the size of the value a page put in a column: 2 MB,
// different for each column and row so that min and max differ, eight
// times parquet-go's page buffer. (5 MB values, the size that found the
// footer of 115 MB, took 26 s here, most of it parquet-go copying whole
// values into its page index before cutting them.) Under -short (the
// race detector's pass of make test) 256 KB, still far past MaxStatBytes
// and the footer's limit below.
func hugeValue() int {
	if testing.Short() {
		return 256 << 10
	}
	return 2 << 20
}

// fillStrings sets every string and []byte of v (nested structs, pointers
// and lists of structs included) to a hugeValue-byte value that starts
// with the field's name and the row number.
func fillStrings(v reflect.Value, row int, name string) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fillStrings(v.Field(i), row, name+"."+v.Type().Field(i).Name)
		}
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.String {
			v.Set(reflect.New(v.Type().Elem()))
			fillStrings(v.Elem(), row, name)
		}
	case reflect.String:
		v.SetString(string(huge(row, name)))
	case reflect.Slice:
		switch {
		case v.Type().Elem().Kind() == reflect.Uint8:
			v.SetBytes(huge(row, name))
		case v.Type().Elem().Kind() == reflect.Struct:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				fillStrings(v.Index(i), row, fmt.Sprintf("%s[%d]", name, i))
			}
		}
	}
}

func huge(row int, name string) []byte {
	b := make([]byte, hugeValue())
	for i := copy(b, fmt.Sprintf("%s row %d ", name, row)); i < len(b); i++ {
		b[i] = byte('a' + (row+i/(1<<20))%26)
	}
	return b
}

// TestWriter_pageControlledStatistics writes three rows of each table with
// a hugeValue() value (2 MB) in every string and byte column (a page controls most of
// them) and reads the file back: the footer and the page headers stay
// small, every min and max statistic fits MaxStatBytes and still bounds
// the column's values, and arrow-go reads every value back whole.
func TestWriter_pageControlledStatistics(t *testing.T) {
	t.Run("pages", func(t *testing.T) { checkHugeValues(t, pageRow) })
	t.Run("spaces", func(t *testing.T) { checkHugeValues(t, spaceRow) })
}

func checkHugeValues[T any](t *testing.T, row func(int) T) {
	rows := make([]T, 3)
	for i := range rows {
		rows[i] = row(i)
		fillStrings(reflect.ValueOf(&rows[i]).Elem(), i, "")
	}
	path := filepath.Join(t.TempDir(), "huge.parquet")
	mustWrite(t, path, Metadata{}, WriterConfig{}, rows)

	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Uncompressed columns hold their values as they are; everything else
	// compresses to little. Statistics copied into page headers would add
	// megabytes per page.
	uncompressed := int64(0)
	for i := range md.RowGroup(0).NumColumns() {
		cc, _ := md.RowGroup(0).ColumnChunk(i)
		if cc.Compression().String() == "UNCOMPRESSED" {
			uncompressed += 3 * int64(hugeValue())
		}
	}
	t.Logf("file %d bytes (%d of them uncompressed values), footer %d bytes", st.Size(), uncompressed, md.Size())
	if got, limit := md.Size(), 64<<10; got > limit {
		t.Errorf("footer is %d bytes, want at most %d", got, limit)
	}
	if got, limit := st.Size(), uncompressed+2<<20; got > limit {
		t.Errorf("file is %d bytes, want at most %d", got, limit)
	}
	for r := range md.NumRowGroups() {
		rg := md.RowGroup(r)
		for i := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(i)
			if err != nil {
				t.Fatal(err)
			}
			s, err := cc.Statistics()
			if err != nil || s == nil || !s.HasMinMax() {
				continue
			}
			min, max := s.EncodeMin(), s.EncodeMax()
			if len(min) > MaxStatBytes || len(max) > MaxStatBytes {
				t.Errorf("column %s: min %d bytes, max %d bytes; want at most %d", cc.PathInSchema(), len(min), len(max), MaxStatBytes)
			}
		}
	}
	checkBounds(t, path)

	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("arrow: read: %v", err)
	}
	defer tbl.Release()
	if tbl.NumRows() != 3 {
		t.Fatalf("arrow read %d rows, want 3", tbl.NumRows())
	}
	for i := range int(tbl.NumCols()) {
		col := tbl.Column(i)
		for _, chunk := range col.Data().Chunks() {
			if s, ok := chunk.(*array.String); ok {
				for k := range s.Len() {
					if got := len(s.Value(k)); got != hugeValue() {
						t.Errorf("arrow: %s row %d has %d bytes, want %d", col.Name(), k, got, hugeValue())
					}
				}
			}
		}
	}
}

// checkBounds reads the file with parquet-go and checks, for every column
// chunk and every page of the column index, that min and max bound the
// values.
func checkBounds(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range pf.RowGroups() {
		for c, chunk := range rg.ColumnChunks() {
			if chunk.Type().Kind() != parquet.ByteArray {
				continue
			}
			var values [][][]byte // by page
			pages := chunk.Pages()
			for {
				p, err := pages.ReadPage()
				if err != nil {
					break
				}
				vals := make([]parquet.Value, p.NumValues())
				n, _ := p.Values().ReadValues(vals)
				var page [][]byte
				for _, v := range vals[:n] {
					if !v.IsNull() {
						page = append(page, bytes.Clone(v.ByteArray()))
					}
				}
				values = append(values, page)
				parquet.Release(p)
			}
			pages.Close()
			ci, err := chunk.ColumnIndex()
			if err != nil || ci == nil {
				continue
			}
			for p := range ci.NumPages() {
				if ci.NullPage(p) {
					continue
				}
				min, max := ci.MinValue(p).ByteArray(), ci.MaxValue(p).ByteArray()
				if len(min) > MaxStatBytes || len(max) > MaxStatBytes {
					t.Errorf("column %d page %d: column index min %d bytes, max %d bytes", c, p, len(min), len(max))
				}
				if p >= len(values) {
					t.Errorf("column %d: column index has page %d, the chunk %d pages", c, p, len(values))
					break
				}
				for _, v := range values[p] {
					if bytes.Compare(v, min) < 0 || bytes.Compare(v, max) > 0 {
						t.Errorf("column %d page %d: value %.30q outside the column index bounds [%.30q, %.30q]", c, p, v, min, max)
						break
					}
				}
			}
		}
	}
}

func TestCutMinMax(t *testing.T) {
	tests := []struct {
		in          string
		max         int
		min, maxCut string
		ok          bool
	}{
		{"abc", 5, "abc", "abc", true},
		{"abcdef", 3, "abc", "abd", true},
		{"ab\xff\xffz", 4, "ab\xff\xff", "ac", true},
		{"\xff\xff\xffz", 3, "\xff\xff\xff", "", false},
		{"a\xfe\xff", 2, "a\xfe", "a\xff", true},
	}
	for _, tt := range tests {
		if got := string(cutMin([]byte(tt.in), tt.max)); got != tt.min {
			t.Errorf("cutMin(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.min)
		}
		got, ok := cutMax([]byte(tt.in), tt.max)
		if string(got) != tt.maxCut || ok != tt.ok {
			t.Errorf("cutMax(%q, %d) = %q, %v; want %q, %v", tt.in, tt.max, got, ok, tt.maxCut, tt.ok)
		}
		if ok && (len(got) > tt.max || bytes.Compare(got, []byte(tt.in)) < 0) {
			t.Errorf("cutMax(%q, %d) = %q is not a short upper bound", tt.in, tt.max, got)
		}
	}
}

// TestCutFooterStatistics_footerRoundTrip: the footer a Writer writes
// decodes and encodes back to the same bytes, so that rewriting it to cut
// statistics loses nothing else.
func TestCutFooterStatistics_footerRoundTrip(t *testing.T) {
	for name, write := range map[string]func(string){
		"pages": func(p string) {
			mustWrite(t, p, Metadata{RunID: "run-1", Config: `{"a":1}`}, WriterConfig{RowGroupRows: 7}, makeRows(20, pageRow))
		},
		"spaces": func(p string) { mustWrite(t, p, Metadata{}, WriterConfig{RowGroupRows: 7}, makeRows(20, spaceRow)) },
	} {
		path := filepath.Join(t.TempDir(), name+".parquet")
		write(path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
		footer := data[len(data)-8-n : len(data)-8]
		var md format.FileMetaData
		if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
			t.Fatal(err)
		}
		again, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, footer) {
			t.Errorf("%s: footer of %d bytes encodes back to %d different bytes", name, len(footer), len(again))
		}
	}
}
