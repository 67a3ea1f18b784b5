// Package dataset defines the Parquet tables actionspace writes, and writes
// and reads them.
//
// # The model: a row struct is the schema
//
// Each table is one Go struct: [PageRow] for the pages table (one row per
// URL attempt, failed ones included) and [SpaceRow] for the spaces table (one
// row per page, mode, viewport expansion and text policy, with a list of
// [Action] structs). The field order is the column order, the parquet tag is
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
// under its final name is always complete; an interrupted run keeps the files
// it closed, and a crawl that rotates part files loses only the open one.
// Every column is zstd-compressed.
//
// # Reading
//
// [ReadAll] and [Scan] read rows back into the same structs (or smaller ones
// naming a subset of the columns), row group by row group; [ReadMetadata]
// reads the key-value metadata. Captures are stored compressed:
// [CompressCapture] and [DecompressCapture] convert them.
package dataset
