// Package dataset defines the Parquet tables actionspace writes, and writes
// and reads them.
//
// # The model: a row struct is the schema
//
// Each table is one Go struct: [PageRow] for the pages table (one row per
// URL, failed ones included), [BlobRow] for the blobs table (the heavy
// values of a captured page) and [SpaceRow] for the spaces table (one row
// per page, format, mode, viewport expansion and text policy, with a list
// of [Action] structs). The field order is the column order, the parquet tag is
// the column name, and the field's doc comment is the column's
// documentation. Column types follow from Go types:
//
//	Go type     Parquet                               Arrow
//	string      BYTE_ARRAY (STRING), required         string, not null
//	int64       INT64, required                       int64, not null
//	float64     DOUBLE, required                      float64, not null
//	*int64 ...  the same, optional                    nullable; nil is null
//	time.Time   INT64 TIMESTAMP(MICROS, UTC)          timestamp[us, tz=UTC]
//	[]byte      BYTE_ARRAY, optional                  binary; nil is null
//	[]Action    LIST of a required group              list<struct>
//	[]string    LIST of STRING                        list<string>
//
// [SchemaVersion] numbers this schema; every file records it in its
// key-value metadata together with the rest of [Metadata], under keys
// prefixed "actionspace." (see [KeySchemaVersion] and the other Key
// constants).
//
// # Writing
//
// [Create] returns a [Writer] that works like encoding/csv's: Write buffers
// rows and ends a row group every [WriterConfig.RowGroupRows] rows, Flush
// ends one now, Close finishes the file. The file is written under a
// temporary name and renamed into place by Close, after an fsync, so a file
// under its final name is always complete. [NewWriter] writes the same
// file to an object of a store.Store (a directory or a bucket), which
// appears, complete, on Close and never replaces an existing object.
// Every column is zstd-compressed.
//
// # A dataset: tables of parts, on a directory or in a bucket
//
// A crawl writes a dataset: one folder per table ([Tables]), each holding
// part files, in a location [OpenOutput] opens through package store (a
// plain path, file://, s3:// or gs://). [Parts] writes each page's rows of
// every table into the same part, and rotates parts. The protocol, the
// same on a directory and in a bucket (see the layout in tables.go):
//
//   - Visibility: a part's pages file is its commit. The other tables'
//     files are published first under pending names that no reader
//     takes (_part-00042.parquet.pending), then the pages file appears
//     under its final name in one step, then the pending files are
//     renamed (in a bucket: copied and deleted). A reader, and a resume,
//     never sees another table's part without its pages part; after a
//     kill a pages part may lack its other tables until the next resume
//     rolls them forward.
//   - Lock: [OpenOutput] takes a lease on the writer's partition
//     (_locks/<partition>/ at the dataset's root) and renews it; a second
//     writer is refused, a lease whose holder died is taken over once
//     stale, and a writer that lost its lease publishes nothing more.
//   - Supersede: [OpenForResume] finds the rows a resume crawls again
//     (ResumeOptions.Retry); Parts rewrites their old parts without them
//     under new numbers once the new rows are committed, and deletes the
//     old parts, pages file last. Parts are never changed in place, and
//     a URL never has zero rows; a kill in between leaves a page with two
//     rows, which the next OpenForResume resolves (the newer row stays).
//
// # Reading
//
// [ReadAll] and [Scan] read rows back into the same structs (or smaller ones
// naming a subset of the columns), row group by row group; [ScanAt] and
// [ScanObject] do the same through an io.ReaderAt, such as a bucket
// object's ranged reads; [ReadMetadata] reads the key-value metadata.
// [PartKeys] (and [Files], for a directory) list a table's visible parts. Captures are stored compressed:
// [CompressCapture] and [DecompressCapture] convert them.
package dataset
