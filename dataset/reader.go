package dataset

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// scanBatch is the number of rows Scan decodes at a time.
const scanBatch = 64

// ReadAll reads every row of the dataset file at path. It holds the whole
// file in memory; use Scan for large files.
func ReadAll[T any](path string) ([]T, error) {
	var rows []T
	err := Scan(path, func(row T) error {
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// Scan calls fn for every row of the dataset file at path, in file order,
// reading one row group at a time so that memory stays bounded by the row
// group size. When fn returns an error, Scan stops and returns it unchanged.
//
// T may be any struct with parquet tags, including one that names only some
// of the file's columns: only those columns are read, which makes a small
// struct such as
//
//	struct {
//		PageID string `parquet:"page_id"`
//		Status string `parquet:"status"`
//	}
//
// a cheap way to list the pages a run finished. Every column of T must exist
// in the file with the same physical type; otherwise Scan fails before
// calling fn, rather than returning zero values.
func Scan[T any](path string, fn func(T) error) error {
	f, pf, err := openParquet(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return ScanFile(pf, path, fn)
}

// ScanAt is Scan over a dataset file read through r, size bytes long: an
// object of a store (read by ranged requests), or any other io.ReaderAt.
// name names the file in errors.
func ScanAt[T any](r io.ReaderAt, size int64, name string, fn func(T) error) error {
	pf, err := OpenFile(r, size, name)
	if err != nil {
		return err
	}
	return ScanFile(pf, name, fn)
}

// ScanFile is Scan over a file OpenFile opened; name names it in errors.
func ScanFile[T any](pf *parquet.File, path string, fn func(T) error) error {
	rowType := reflect.TypeFor[T]()
	if rowType.Kind() != reflect.Struct {
		return fmt.Errorf("scan %s: row type %v is not a struct", path, rowType)
	}
	want := parquet.SchemaOf(reflect.New(rowType).Interface())
	if err := checkColumns(want, pf.Schema()); err != nil {
		return fmt.Errorf("scan %s as %v: %w", path, rowType, err)
	}

	buf := make([]T, scanBatch)
	var fnErr error
	call := func(row T) bool {
		fnErr = fn(row)
		return fnErr == nil
	}
	flat := flatten(rowType)
	for i, rg := range pf.RowGroups() {
		var err error
		if flat != nil {
			err = scanFlat(rg, flat, call)
		} else {
			err = scanRowGroup(rg, want, buf, call)
		}
		if fnErr != nil {
			return fnErr
		}
		if err != nil {
			return fmt.Errorf("scan %s: row group %d: %w", path, i, err)
		}
	}
	return nil
}

// scanRowGroup reads the rows of rg in batches of len(buf) and passes them to
// call until it returns false or the rows run out.
func scanRowGroup[T any](rg parquet.RowGroup, schema *parquet.Schema, buf []T, call func(T) bool) error {
	r := parquet.NewGenericRowGroupReader[T](rg, schema)
	defer r.Close()
	for {
		clear(buf) // the reader may reuse slices and pointers it finds
		n, err := r.Read(buf)
		for _, row := range buf[:n] {
			if !call(row) {
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// checkColumns reports the first leaf column of want that file lacks or
// stores with another physical type.
func checkColumns(want, file *parquet.Schema) error {
	for _, path := range want.Columns() {
		w, _ := want.Lookup(path...)
		f, ok := file.Lookup(path...)
		if !ok {
			return fmt.Errorf("column %s not in file", strings.Join(path, "."))
		}
		if wk, fk := w.Node.Type().Kind(), f.Node.Type().Kind(); wk != fk {
			return fmt.Errorf("column %s is %v in file, want %v", strings.Join(path, "."), fk, wk)
		}
	}
	return nil
}

// flatRow describes how to read a row struct that embeds other structs
// (SpaceRow embeds SpaceMetrics): through a flat struct with the same
// columns, whose fields are then copied over. parquet-go v0.32 reads a
// null into a pointer field of an embedded struct as a pointer to zero,
// which would turn every null of SpaceMetrics into 0; a flat struct
// reads nulls as nil.
type flatRow struct {
	typ   reflect.Type // the flat struct
	paths [][]int      // per field of typ, its index path in the row type
}

// flatten returns how to read t through a flat struct, or nil when t
// embeds no struct and reads as it is.
func flatten(t reflect.Type) *flatRow {
	var fields []reflect.StructField
	var paths [][]int
	embeds := false
	var walk func(t reflect.Type, path []int)
	walk = func(t reflect.Type, path []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			p := append(append([]int(nil), path...), i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				embeds = true
				walk(f.Type, p)
				continue
			}
			if !f.IsExported() {
				continue
			}
			f.Index, f.Offset = nil, 0
			fields = append(fields, f)
			paths = append(paths, p)
		}
	}
	walk(t, nil)
	if !embeds {
		return nil
	}
	return &flatRow{typ: reflect.StructOf(fields), paths: paths}
}

// scanFlat reads the rows of rg through the flat struct of fr and passes
// them to call until it returns false or the rows run out.
func scanFlat[T any](rg parquet.RowGroup, fr *flatRow, call func(T) bool) error {
	flat := reflect.New(fr.typ)
	r := parquet.NewRowGroupReader(rg, parquet.SchemaOf(flat.Interface()))
	defer r.Close()
	for {
		flat.Elem().SetZero()
		if err := r.Read(flat.Interface()); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		var row T
		v := reflect.ValueOf(&row).Elem()
		for i, path := range fr.paths {
			v.FieldByIndex(path).Set(flat.Elem().Field(i))
		}
		if !call(row) {
			return nil
		}
	}
}
