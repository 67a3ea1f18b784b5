package dataset

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
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

// errClosed is returned by a Writer's methods after Close or Abort.
var errClosed = errors.New("dataset writer already closed")

// Writer writes rows of type T, one of the row structs of this package (or
// any struct with parquet tags), as a Parquet file to an io.Writer, in the
// manner of encoding/csv.Writer: Write buffers a row, Flush ends the
// current row group, Close writes the footer.
//
// A Writer knows nothing of where its bytes go: a store's object (which
// appears, complete, when the caller closes it after Close), a file, a
// buffer. It never closes the io.Writer it was given.
//
// Every column is compressed with zstd. No value a page controls can
// inflate the footer or the page headers: string and byte columns carry no
// statistics in their page headers, and their min and max statistics, in
// the footer and in the page index, are cut to MaxStatBytes (a cut min is
// a prefix of the true one, a cut max the prefix with its last byte
// raised, so both still bound the values). parquet-go cuts the page index
// itself; the footer's statistics are cut as Close writes the footer.
//
// A Writer is not safe for concurrent use. After a write error, every method
// but Abort returns that error.
type Writer[T any] struct {
	name         string // names the file in errors
	out          *countingWriter
	tail         *footerCutter // between pw and out
	pw           *parquet.GenericWriter[T]
	version      []int // index of the schema_version field of T; nil if none
	rowGroupRows int
	pending      int   // rows written since the last row group ended
	rows         int64 // rows written in all
	one          [1]T  // avoids allocating a slice per Write
	err          error // first error; sticky
	closed       bool
}

// countingWriter counts the bytes passed on to w.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// NewWriter starts a dataset file written to out; name names it in errors
// (a key or a path). meta is written as the file's key-value metadata (see
// Metadata).
func NewWriter[T any](out io.Writer, name string, meta Metadata, cfg WriterConfig) (*Writer[T], error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("create dataset %s: %w", name, err)
	}
	if cfg.RowGroupRows == 0 {
		cfg.RowGroupRows = DefaultRowGroupRows
	}
	rowType := reflect.TypeFor[T]()
	if rowType.Kind() != reflect.Struct {
		return nil, fmt.Errorf("create dataset %s: row type %v is not a struct", name, rowType)
	}

	opts := []parquet.WriterOption{
		parquet.Compression(&columnCodec{}),
		parquet.ColumnIndexSizeLimit(func([]string) int { return MaxStatBytes }),
	}
	for _, kv := range meta.keyValues(time.Now()) {
		opts = append(opts, parquet.KeyValueMetadata(kv[0], kv[1]))
	}
	for _, path := range byteColumns(parquet.SchemaOf(reflect.New(rowType).Interface())) {
		opts = append(opts, parquet.SkipPageStatistics(path...))
	}
	cw := &countingWriter{w: out}
	tail := &footerCutter{w: cw}
	return &Writer[T]{
		name:         name,
		out:          cw,
		tail:         tail,
		pw:           parquet.NewGenericWriter[T](tail, opts...),
		version:      versionField(rowType),
		rowGroupRows: cfg.RowGroupRows,
	}, nil
}

// versionField returns the index of t's int64 field whose column is
// schema_version, which every row gets set to SchemaVersion; nil when t
// has none.
func versionField(t reflect.Type) []int {
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("parquet"), ","); name == "schema_version" && f.Type.Kind() == reflect.Int64 {
			return f.Index
		}
	}
	return nil
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

// Name returns the name the file was given.
func (w *Writer[T]) Name() string { return w.name }

// Rows returns the number of rows written so far.
func (w *Writer[T]) Rows() int64 { return w.rows }

// Size returns the bytes written to out so far (all of them after Close).
func (w *Writer[T]) Size() int64 { return w.out.n }

// WriteRows writes rows already in the file's schema, as a copy of
// another file of the same schema reads them (their schema_version column
// as it was), with the row groups of Write.
func (w *Writer[T]) WriteRows(rows []parquet.Row) error {
	if err := w.usable(); err != nil {
		return err
	}
	n, err := w.pw.WriteRows(rows)
	w.rows += int64(n)
	w.pending += n
	if err != nil {
		return w.fail(fmt.Errorf("write row %d to %s: %w", w.rows, w.name, err))
	}
	if w.pending >= w.rowGroupRows {
		return w.Flush()
	}
	return nil
}

// Write buffers one row, with its schema_version column (if it has one)
// set to SchemaVersion. Every RowGroupRows rows it writes the buffered rows
// out as a row group, so memory does not grow with the number of rows.
func (w *Writer[T]) Write(row T) error {
	if err := w.usable(); err != nil {
		return err
	}
	w.one[0] = row
	if w.version != nil {
		reflect.ValueOf(&w.one[0]).Elem().FieldByIndex(w.version).SetInt(SchemaVersion)
	}
	_, err := w.pw.Write(w.one[:])
	var zero T
	w.one[0] = zero // do not keep the row's strings alive
	if err != nil {
		return w.fail(fmt.Errorf("write row %d to %s: %w", w.rows, w.name, err))
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
		return w.fail(fmt.Errorf("write row group to %s: %w", w.name, err))
	}
	w.pending = 0
	return nil
}

// Close writes the buffered rows and the footer. It does not close out:
// the caller publishes the file (closes the store's object) after a
// successful Close, and discards it otherwise. Calling Close on a Writer
// that already failed returns the first error.
func (w *Writer[T]) Close() error {
	if w.closed {
		return errClosed
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if w.pending > 0 {
		if err := w.pw.Flush(); err != nil {
			w.err = fmt.Errorf("write row group to %s: %w", w.name, err)
			return w.err
		}
	}
	w.tail.hold() // what parquet-go writes now is the page index and the footer
	if err := w.pw.Close(); err != nil {
		w.err = fmt.Errorf("close dataset %s: write footer: %w", w.name, err)
		return w.err
	}
	if err := w.tail.flush(MaxStatBytes); err != nil {
		w.err = fmt.Errorf("close dataset %s: %w", w.name, err)
		return w.err
	}
	return nil
}

// Abort gives the file up: every later call fails, and nothing more is
// written to out (which the caller discards). It does nothing after Close
// or Abort.
func (w *Writer[T]) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	if w.err == nil {
		w.err = errClosed
	}
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
