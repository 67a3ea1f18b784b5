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
// [NewWriter] returns a [Writer] over an io.Writer that works like
// encoding/csv's: Write buffers rows and ends a row group every
// [WriterConfig.RowGroupRows] rows, Flush ends one now, Close writes the
// footer. Every column is zstd-compressed. The Writer knows nothing of
// storage: package parts streams it into an object of a store (package
// store), which appears, complete, only when the object is closed.
//
// # Reading
//
// [ReadAll] and [Scan] read rows of a file back into the same structs (or
// smaller ones naming a subset of the columns), row group by row group;
// [ScanAt] does the same through an io.ReaderAt, such as a bucket
// object's ranged reads; [ReadMetadata] and [ReadMetadataAt] read the
// key-value metadata. Captures are stored compressed: [CompressCapture]
// and [DecompressCapture] convert them.
//
// # Datasets
//
// A crawl writes a dataset: one folder per table ([PagesDir] and the
// others), each holding part files. Package parts owns that protocol
// (rotation, commit, resume, locks) and reads a dataset back; package
// store keeps the files on a directory, in memory, or (package
// store/bucket, imported only by the commands) in a bucket.
package dataset
