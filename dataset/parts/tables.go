package parts

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"actionspace/dataset"
	"actionspace/dataset/store"
)

// The layout of a dataset at a location DIR (a directory or a bucket
// prefix): one folder per table (see dataset.PagesDir and the others), and
// in each the part files.
//
//	DIR/pages/part-00000.parquet   DIR/spaces/part-00000.parquet   DIR/blobs/part-00000.parquet   …
//	DIR/pages/part-00001.parquet   DIR/spaces/part-00001.parquet   DIR/blobs/part-00001.parquet   …
//	...
//
// Parts with the same name hold the same pages: their pages rows in one
// table and the rows they gave every other table in the others. A writer
// may put its parts in a partition (DIR/pages/shard=0003/…), so that
// several writers share one dataset. Readers take every *.parquet file
// below a table's folder, at any depth, and never a name starting with
// "_" or "." (pyarrow and Spark skip those by themselves; they do not end
// in .parquet either).
//
// The visibility protocol (see [Writer]): a part's pages file is its commit.
// The other tables' files of a part are first published under a pending
// name, _part-00042.parquet.pending, that no reader takes; then the pages
// file appears under its final name, in one step; then the pending files
// are renamed to their final names (on a bucket: copied and deleted). So a
// reader, and a resume, never sees another table's part without its pages
// part; a pages part may be seen for a moment (or, after a kill, until the
// next resume rolls the pending files forward) without its other tables.
const (
	// PendingPrefix and PendingExt frame the name of a part file that is
	// complete but not yet visible: _part-00042.parquet.pending.
	PendingPrefix = "_"
	PendingExt    = ".pending"
	// LocksDir is the folder, at the dataset's root, of the partitions'
	// locks (see [OpenOutput]).
	LocksDir = "_locks"
)

// partPrefix starts every part file name: part-00042.parquet.
const partPrefix = "part-"

// Row group sizes smaller than the default: a blobs row holds the raw HTML
// and the capture, tens of kilobytes each (up to the caps' megabytes); a
// pages row is small, but a part's pages row group stays in memory until
// it is written.
const (
	pagesRowGroup = 64
	blobsRowGroup = 16
)

// table is one table of the dataset: its folder, the schema of its rows
// (the row struct), and how a part of it is written.
type table struct {
	dir    string
	schema *parquet.Schema
	// open starts a part file of the table, streamed into obj (the store's
	// object at key).
	open func(obj store.Writer, key string, meta dataset.Metadata) (*partWriter, error)
	// write writes r's rows of the table to w, a writer open made.
	write func(w *partWriter, r *Rows) error
}

// File is a dataset file written into an object of a store: the
// dataset.Writer of its rows streams into the object, which appears,
// complete, when Close has written the footer and published it.
type File[T any] struct {
	*dataset.Writer[T]
	obj store.Writer
}

// NewFile starts a dataset file of rows T into obj, an object a store's
// Create or Replace started under key; meta and cfg are as for
// dataset.NewWriter. The File owns obj: Close publishes it, Abort discards
// it (also when NewFile fails).
func NewFile[T any](obj store.Writer, key string, meta dataset.Metadata, cfg dataset.WriterConfig) (*File[T], error) {
	w, err := dataset.NewWriter[T](obj, key, meta, cfg)
	if err != nil {
		obj.Abort()
		return nil, err
	}
	return &File[T]{Writer: w, obj: obj}, nil
}

// Close writes the file's footer and publishes the object; on failure
// nothing is published.
func (f *File[T]) Close() error {
	if err := f.Writer.Close(); err != nil {
		f.obj.Abort()
		return err
	}
	return f.obj.Close()
}

// Abort discards the file. It does nothing after Close or Abort.
func (f *File[T]) Abort() error {
	f.Writer.Abort()
	return f.obj.Abort()
}

// partWriter is one file of a part being written: a File of any row type,
// with what the parts protocol needs of it.
type partWriter struct {
	key  string
	file interface {
		Close() error
		Abort() error
		Size() int64
		WriteRows(rows []parquet.Row) error
	}
	rows any // the *File[T], for the table's write
}

// Path returns the file's key.
func (p *partWriter) Path() string { return p.key }

// size returns the bytes written.
func (p *partWriter) size() int64 { return p.file.Size() }

// writeRows copies rows of the table's schema.
func (p *partWriter) writeRows(rows []parquet.Row) error { return p.file.WriteRows(rows) }

// Close writes the file's footer and publishes the object.
func (p *partWriter) Close() error { return p.file.Close() }

// Abort discards the file.
func (p *partWriter) Abort() error { return p.file.Abort() }

// defineTable describes the table of row type T in folder dir, whose rows
// of one page rows picks out of a Rows.
func defineTable[T any](dir string, rowGroup int, rows func(r *Rows) []T) table {
	return table{
		dir:    dir,
		schema: parquet.SchemaOf(new(T)),
		open: func(obj store.Writer, key string, meta dataset.Metadata) (*partWriter, error) {
			f, err := NewFile[T](obj, key, meta, dataset.WriterConfig{RowGroupRows: rowGroup})
			if err != nil {
				return nil, err
			}
			return &partWriter{key: key, file: f, rows: f}, nil
		},
		write: func(w *partWriter, r *Rows) error {
			f := w.rows.(*File[T])
			for _, row := range rows(r) {
				if err := f.Write(row); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// tableDefs lists every table of a dataset, in the order a part's files
// are published: the pages table, the commit of a part, last. A new
// table is one more line here (and its rows in Rows); the visibility
// protocol, the resume, the clean-up and the rewrite of superseded rows
// cover it from there.
func tableDefs() []table {
	return []table{
		defineTable(dataset.SpacesDir, dataset.DefaultRowGroupRows, func(r *Rows) []dataset.SpaceRow { return r.Spaces }),
		defineTable(dataset.BlobsDir, blobsRowGroup, func(r *Rows) []dataset.BlobRow {
			if r.Blob == nil {
				return r.StepBlobs
			}
			return append([]dataset.BlobRow{*r.Blob}, r.StepBlobs...)
		}),
		defineTable(dataset.ElementsDir, dataset.DefaultRowGroupRows, func(r *Rows) []dataset.ElementRow { return r.Elements }),
		defineTable(dataset.OracleDir, dataset.DefaultRowGroupRows, func(r *Rows) []dataset.OracleRow { return r.Oracle }),
		defineTable(dataset.StepsDir, dataset.DefaultRowGroupRows, func(r *Rows) []dataset.StepRow { return r.Steps }),
		defineTable(dataset.PagesDir, pagesRowGroup, func(r *Rows) []dataset.PageRow { return []dataset.PageRow{r.Page} }),
	}
}

// Tables returns the folders of every table of a dataset in the order a
// part's files are published: the pages table last.
func Tables() []string {
	defs := tableDefs()
	dirs := make([]string, len(defs))
	for i, t := range defs {
		dirs[i] = t.dir
	}
	return dirs
}

// partitionPrefix is the key prefix of the folder a partition's parts of
// table go into: "pages/" or "pages/shard=0003/".
func partitionPrefix(table, partition string) string {
	if partition == "" {
		return table + "/"
	}
	return table + "/" + partition + "/"
}

// partName is the file name of part n.
func partName(n int) string { return fmt.Sprintf("%s%05d%s", partPrefix, n, dataset.PartExt) }

// pendingName is the name of part n before it is made visible.
func pendingName(n int) string { return PendingPrefix + partName(n) + PendingExt }

// partKey is the key of part n of table in partition.
func partKey(table, partition string, n int) string {
	return partitionPrefix(table, partition) + partName(n)
}

// pendingKey is the key part n of table in partition has until its pages
// part is in.
func pendingKey(table, partition string, n int) string {
	return partitionPrefix(table, partition) + pendingName(n)
}

// partNumber parses a part file name (without folders): the part's number,
// whether it is a pending name, and false for other names.
func partNumber(name string) (n int, pending, ok bool) {
	s := name
	if p, isPending := strings.CutPrefix(s, PendingPrefix); isPending {
		if s, ok = strings.CutSuffix(p, PendingExt); !ok {
			return 0, false, false
		}
		pending = true
	}
	s, ok = strings.CutPrefix(s, partPrefix)
	if !ok {
		return 0, false, false
	}
	s, ok = strings.CutSuffix(s, dataset.PartExt)
	if !ok {
		return 0, false, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, false, false
	}
	return n, pending, true
}

// isPartKey reports whether key, below a table's folder, is a part readers
// take: it ends in .parquet, and neither its name nor a folder on its way
// starts with "_" or "." (what pyarrow and Spark skip).
func isPartKey(key string) bool {
	if !strings.HasSuffix(key, dataset.PartExt) {
		return false
	}
	for _, elem := range strings.Split(key, "/") {
		if strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".") {
			return false
		}
	}
	return true
}
