package dataset

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		n    int
		cfg  WriterConfig
	}{
		{"empty", 0, WriterConfig{}},
		{"one group", 10, WriterConfig{}},
		// More rows than a Scan batch, in groups that do not divide it.
		{"many groups", 300, WriterConfig{RowGroupRows: 70}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/pages", func(t *testing.T) {
			path := filepath.Join(dir, tt.name+"-pages.parquet")
			want := makeRows(tt.n, pageRow)
			mustWrite(t, path, Metadata{}, tt.cfg, want)
			got, err := ReadAll[PageRow](path)
			if err != nil {
				t.Fatal(err)
			}
			assertRows(t, got, want)
		})
		t.Run(tt.name+"/spaces", func(t *testing.T) {
			path := filepath.Join(dir, tt.name+"-spaces.parquet")
			want := makeRows(tt.n, spaceRow)
			mustWrite(t, path, Metadata{}, tt.cfg, want)
			got, err := ReadAll[SpaceRow](path)
			if err != nil {
				t.Fatal(err)
			}
			assertRows(t, got, want)
		})
	}
}

func assertRows[T any](t *testing.T, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("row %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// Time precision: captured_at keeps microseconds and drops the rest.
func TestReadAll_timePrecision(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.parquet")
	row := pageRow(0)
	row.CapturedAt = testTime().Add(789) // nanoseconds
	mustWrite(t, path, Metadata{}, WriterConfig{}, []PageRow{row})
	got, err := ReadAll[PageRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if want := testTime(); !got[0].CapturedAt.Equal(want) {
		t.Errorf("CapturedAt = %v, want %v", got[0].CapturedAt, want)
	}
}

func TestScan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pages.parquet")
	rows := makeRows(150, pageRow)
	mustWrite(t, path, Metadata{}, WriterConfig{RowGroupRows: 40}, rows)

	t.Run("all", func(t *testing.T) {
		var got []PageRow
		if err := Scan(path, func(r PageRow) error {
			got = append(got, r)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		assertRows(t, got, rows)
	})

	t.Run("stop", func(t *testing.T) {
		errStop := errors.New("stop here")
		var calls int
		err := Scan(path, func(r PageRow) error {
			calls++
			if calls == 45 {
				return errStop
			}
			return nil
		})
		if err != errStop {
			t.Errorf("Scan error = %v, want the callback's error unchanged", err)
		}
		if calls != 45 {
			t.Errorf("callback called %d times after stopping at 45", calls)
		}
	})

	// A struct naming some columns reads only those.
	t.Run("subset", func(t *testing.T) {
		type status struct {
			PageID     string `parquet:"page_id"`
			Status     string `parquet:"status"`
			HTTPStatus *int64 `parquet:"http_status"`
		}
		var got []status
		if err := Scan(path, func(s status) error {
			got = append(got, s)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var want []status
		for _, r := range rows {
			want = append(want, status{r.PageID, r.Status, r.HTTPStatus})
		}
		assertRows(t, got, want)
	})

	tests := []struct {
		name    string
		scan    func() error
		wantErr string
	}{
		{"wrong table", func() error {
			return Scan(path, func(SpaceRow) error { return nil })
		}, "column step not in file"},
		{"wrong type", func() error {
			return Scan(path, func(struct {
				URL int64 `parquet:"url"`
			}) error {
				return nil
			})
		}, "column url is BYTE_ARRAY in file, want INT64"},
		{"not a struct", func() error {
			return Scan(path, func(string) error { return nil })
		}, "not a struct"},
		{"missing file", func() error {
			return Scan(path+".missing", func(PageRow) error { return nil })
		}, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.scan()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// A row without actions reads back with an empty, non-nil list.
func TestReadAll_nilActions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spaces.parquet")
	mustWrite(t, path, Metadata{}, WriterConfig{}, []SpaceRow{{PageID: "p1"}})
	got, err := ReadAll[SpaceRow](path)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Actions == nil || len(got[0].Actions) != 0 {
		t.Errorf("Actions = %#v, want an empty list", got[0].Actions)
	}
}

func ExampleScan() {
	dir, err := os.MkdirTemp("", "dataset-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "pages.parquet")

	w, err := create[PageRow](path, Metadata{RunID: "r1"}, DefaultWriterConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort() // removes the temporary file if Close is not reached
	for _, r := range []PageRow{
		{RunID: "r1", PageID: "p1", Status: StatusOK},
		{RunID: "r1", PageID: "p2", Status: StatusError, ErrorKind: "timeout"},
		{RunID: "r1", PageID: "p3", Status: StatusError, ErrorKind: "http"},
	} {
		if err := w.Write(r); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	// Read two columns only, and stop at the first failed page.
	type outcome struct {
		PageID    string `parquet:"page_id"`
		ErrorKind string `parquet:"error_kind"`
	}
	errFound := errors.New("found")
	err = Scan(path, func(o outcome) error {
		if o.ErrorKind != "" {
			fmt.Printf("first failed page: %s (%s)\n", o.PageID, o.ErrorKind)
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		log.Fatal(err)
	}
	// Output: first failed page: p2 (timeout)
}
