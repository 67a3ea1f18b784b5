package dataset

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"actionspace/dataset/store"
)

// The layout of a dataset at a location DIR (a directory or a bucket
// prefix): one folder per table, and in each the part files.
//
//	DIR/pages/part-00000.parquet   DIR/spaces/part-00000.parquet   DIR/blobs/part-00000.parquet   …
//	DIR/pages/part-00001.parquet   DIR/spaces/part-00001.parquet   DIR/blobs/part-00001.parquet   …
//	...
//
// The tables: pages, spaces, blobs, elements and oracle (see tableDefs).
//
// Parts with the same name hold the same pages: their pages rows in one
// table and the rows they gave every other table in the others. A writer
// may put its parts in a partition (DIR/pages/shard=0003/…), so that
// several writers share one dataset. Readers take every *.parquet file
// below a table's folder, at any depth — DuckDB
// read_parquet('DIR/pages/**/*.parquet'), pyarrow dataset("DIR/pages") —
// and never a name starting with "_" or "." (pyarrow and Spark skip those
// by themselves; they do not end in .parquet either).
//
// The visibility protocol (see [Parts]): a part's pages file is its commit.
// The other tables' files of a part are first published under a pending
// name, _part-00042.parquet.pending, that no reader takes; then the pages
// file appears under its final name, in one step; then the pending files
// are renamed to their final names (on a bucket: copied and deleted). So a
// reader, and a resume, never sees another table's part without its pages
// part; a pages part may be seen for a moment (or, after a kill, until the
// next resume rolls the pending files forward) without its other tables.
const (
	// PagesDir is the folder of the pages table inside a dataset.
	PagesDir = "pages"
	// SpacesDir is the folder of the spaces table.
	SpacesDir = "spaces"
	// BlobsDir is the folder of the blobs table.
	BlobsDir = "blobs"
	// ElementsDir is the folder of the elements table.
	ElementsDir = "elements"
	// OracleDir is the folder of the oracle table.
	OracleDir = "oracle"
	// PartExt is the extension of a complete part file.
	PartExt = ".parquet"
	// PendingPrefix and PendingExt frame the name of a part file that is
	// complete but not yet visible: _part-00042.parquet.pending.
	PendingPrefix = "_"
	PendingExt    = ".pending"
	// LocksDir is the folder, at the dataset's root, of the partitions'
	// locks (see [OpenOutput]).
	LocksDir = "_locks"
	// PagesGlob, SpacesGlob, BlobsGlob, ElementsGlob and OracleGlob match
	// every part of each table relative to the dataset directory, in the **
	// syntax of DuckDB and Spark.
	PagesGlob    = PagesDir + "/**/*" + PartExt
	SpacesGlob   = SpacesDir + "/**/*" + PartExt
	BlobsGlob    = BlobsDir + "/**/*" + PartExt
	ElementsGlob = ElementsDir + "/**/*" + PartExt
	OracleGlob   = OracleDir + "/**/*" + PartExt
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
	// open starts a part file of the table on out.
	open func(out *store.Writer, meta Metadata) (partWriter, error)
	// write writes r's rows of the table to w, a writer open made.
	write func(w partWriter, r *Rows) error
}

// partWriter is a Writer[T] of any row type: what Parts needs of it.
type partWriter interface {
	Rows() int64
	Path() string
	Close() error
	Abort() error
	size() int64
	writeRows(rows []parquet.Row) error
}

// defineTable describes the table of row type T in folder dir, whose rows
// of one page rows picks out of a Rows.
func defineTable[T any](dir string, rowGroup int, rows func(r *Rows) []T) table {
	return table{
		dir:    dir,
		schema: parquet.SchemaOf(new(T)),
		open: func(out *store.Writer, meta Metadata) (partWriter, error) {
			return NewWriter[T](out, meta, WriterConfig{RowGroupRows: rowGroup})
		},
		write: func(w partWriter, r *Rows) error {
			tw := w.(*Writer[T])
			for _, row := range rows(r) {
				if err := tw.Write(row); err != nil {
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
		defineTable(SpacesDir, DefaultRowGroupRows, func(r *Rows) []SpaceRow { return r.Spaces }),
		defineTable(BlobsDir, blobsRowGroup, func(r *Rows) []BlobRow {
			if r.Blob == nil {
				return nil
			}
			return []BlobRow{*r.Blob}
		}),
		defineTable(ElementsDir, DefaultRowGroupRows, func(r *Rows) []ElementRow { return r.Elements }),
		defineTable(OracleDir, DefaultRowGroupRows, func(r *Rows) []OracleRow { return r.Oracle }),
		defineTable(PagesDir, pagesRowGroup, func(r *Rows) []PageRow { return []PageRow{r.Page} }),
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
func partName(n int) string { return fmt.Sprintf("%s%05d%s", partPrefix, n, PartExt) }

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
	s, ok = strings.CutSuffix(s, PartExt)
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
	if !strings.HasSuffix(key, PartExt) {
		return false
	}
	for _, elem := range strings.Split(key, "/") {
		if strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".") {
			return false
		}
	}
	return true
}
