package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// DefaultRowGroupRows is the default number of rows per row group. A pages
// row carries a page's HTML and capture, so a row group of 500 pages holds
// tens of megabytes, compressed, in memory until it is written.
const DefaultRowGroupRows = 500

// WriterConfig configures a Writer. The zero value is valid and means the
// defaults.
type WriterConfig struct {
	// RowGroupRows is the number of rows a Writer buffers before it writes
	// them out as one row group. Memory use grows with it, not with the
	// number of rows in the file. Zero means DefaultRowGroupRows.
	RowGroupRows int
}

// DefaultWriterConfig returns the default configuration.
func DefaultWriterConfig() WriterConfig {
	return WriterConfig{RowGroupRows: DefaultRowGroupRows}
}

// Validate reports the first invalid field of c.
func (c WriterConfig) Validate() error {
	if c.RowGroupRows < 0 {
		return fmt.Errorf("invalid RowGroupRows %d: must be positive, or 0 for the default", c.RowGroupRows)
	}
	return nil
}

// TempSuffix is appended to a Writer's path to name the file it writes until
// Close.
const TempSuffix = ".tmp"

// errClosed is returned by a Writer's methods after Close or Abort.
var errClosed = errors.New("dataset writer already closed")

// Writer writes rows of type T, one of the row structs of this package (or
// any struct with parquet tags), to a Parquet file, in the manner of
// encoding/csv.Writer: Write buffers a row, Flush ends the current row group,
// Close finishes the file.
//
// Rows are written to path + TempSuffix, in the same directory; Close writes
// the footer, syncs the file, renames it to path and syncs the directory. A
// file therefore exists under its final name only when it is complete: a
// process killed mid-run leaves at most a temporary file, which the next
// Create at the same path overwrites.
//
// Every column is compressed with zstd. No value a page controls can
// inflate the footer or the page headers: string and byte columns carry no
// statistics in their page headers, and their min and max statistics, in
// the footer and in the page index, are cut to MaxStatBytes (a cut min is
// a prefix of the true one, a cut max the prefix with its last byte
// raised, so both still bound the values). parquet-go cuts the page index
// itself; the footer's statistics are cut on Close, which rewrites the
// footer.
//
// A Writer is not safe for concurrent use. After a write error, every method
// but Abort returns that error.
type Writer[T any] struct {
	path, tmp    string
	f            *os.File
	pw           *parquet.GenericWriter[T]
	rowGroupRows int
	pending      int   // rows written since the last row group ended
	rows         int64 // rows written in all
	one          [1]T  // avoids allocating a slice per Write
	err          error // first error; sticky
	closed       bool
}

// Create starts a dataset file that will appear at path when the Writer is
// closed. meta is written as the file's key-value metadata (see Metadata).
// An existing file at path is replaced only by a successful Close.
func Create[T any](path string, meta Metadata, cfg WriterConfig) (*Writer[T], error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("create dataset %s: %w", path, err)
	}
	if cfg.RowGroupRows == 0 {
		cfg.RowGroupRows = DefaultRowGroupRows
	}
	rowType := reflect.TypeFor[T]()
	if rowType.Kind() != reflect.Struct {
		return nil, fmt.Errorf("create dataset %s: row type %v is not a struct", path, rowType)
	}

	opts := []parquet.WriterOption{
		parquet.Compression(&zstd.Codec{}),
		parquet.ColumnIndexSizeLimit(func([]string) int { return MaxStatBytes }),
	}
	for _, kv := range meta.keyValues(time.Now()) {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	for _, path := range byteColumns(parquet.SchemaOf(reflect.New(rowType).Interface())) {
		opts = append(opts, parquet.SkipPageStatistics(path...))
	}

	tmp := path + TempSuffix
	// read and write: Close reads the footer back to cut its statistics
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create dataset: %w", err)
	}
	return &Writer[T]{
		path:         path,
		tmp:          tmp,
		f:            f,
		pw:           parquet.NewGenericWriter[T](f, opts...),
		rowGroupRows: cfg.RowGroupRows,
	}, nil
}

// byteColumns returns the paths of the string and byte columns of schema,
// nested ones included.
func byteColumns(schema *parquet.Schema) [][]string {
	var out [][]string
	for _, path := range schema.Columns() {
		leaf, ok := schema.Lookup(path...)
		if !ok {
			continue
		}
		if k := leaf.Node.Type().Kind(); k == parquet.ByteArray || k == parquet.FixedLenByteArray {
			out = append(out, path)
		}
	}
	return out
}

// Path returns the final path of the file, where it appears on Close.
func (w *Writer[T]) Path() string { return w.path }

// Rows returns the number of rows written so far.
func (w *Writer[T]) Rows() int64 { return w.rows }

// Write buffers one row. Every RowGroupRows rows it writes the buffered rows
// out as a row group, so memory does not grow with the number of rows.
func (w *Writer[T]) Write(row T) error {
	if err := w.usable(); err != nil {
		return err
	}
	w.one[0] = row
	_, err := w.pw.Write(w.one[:])
	var zero T
	w.one[0] = zero // do not keep the row's strings alive
	if err != nil {
		return w.fail(fmt.Errorf("write row %d to %s: %w", w.rows, w.tmp, err))
	}
	w.rows++
	w.pending++
	if w.pending >= w.rowGroupRows {
		return w.Flush()
	}
	return nil
}

// Flush writes the buffered rows out as a row group now. It does nothing
// when no row is buffered. The rows are in the temporary file, not yet
// readable as Parquet: only Close writes the footer.
func (w *Writer[T]) Flush() error {
	if err := w.usable(); err != nil {
		return err
	}
	if w.pending == 0 {
		return nil
	}
	if err := w.pw.Flush(); err != nil {
		return w.fail(fmt.Errorf("write row group to %s: %w", w.tmp, err))
	}
	w.pending = 0
	return nil
}

// Close writes the buffered rows and the footer, syncs the file, renames it
// from its temporary name to its final path and syncs the directory. On
// failure it removes the temporary file and nothing appears at path (but a
// failure to sync the directory, after the rename, leaves the complete file).
// Calling Close on a Writer that already failed removes the temporary file
// and returns the first error.
func (w *Writer[T]) Close() error {
	if w.closed {
		return errClosed
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	w.closed = true
	if err := w.finish(); err != nil {
		w.err = err
		w.f.Close()
		os.Remove(w.tmp)
		return err
	}
	if err := syncDir(filepath.Dir(w.path)); err != nil {
		w.err = fmt.Errorf("close dataset %s: %w", w.path, err)
		return w.err
	}
	return nil
}

// finish writes the footer, syncs and closes the temporary file and renames
// it to the final path.
func (w *Writer[T]) finish() error {
	if err := w.pw.Close(); err != nil {
		return fmt.Errorf("close dataset %s: write footer: %w", w.tmp, err)
	}
	if err := cutFooterStatistics(w.f, MaxStatBytes); err != nil {
		return fmt.Errorf("close dataset %s: %w", w.tmp, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("close dataset: %w", err)
	}
	if err := w.f.Close(); err != nil {
		return fmt.Errorf("close dataset: %w", err)
	}
	if err := os.Rename(w.tmp, w.path); err != nil {
		return fmt.Errorf("close dataset: %w", err)
	}
	return nil
}

// Abort discards the file: it closes and removes the temporary file, and
// leaves anything at path untouched. It does nothing after Close or Abort,
// so it can be deferred right after Create.
func (w *Writer[T]) Abort() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.err == nil {
		w.err = errClosed
	}
	w.f.Close()
	if err := os.Remove(w.tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("abort dataset: %w", err)
	}
	return nil
}

func (w *Writer[T]) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errClosed
	}
	return nil
}

func (w *Writer[T]) fail(err error) error {
	w.err = err
	return err
}

// syncDir syncs a directory, so that a rename in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
