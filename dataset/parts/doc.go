// Package parts writes a crawl dataset as parts and reads it back: the
// protocol between the row structs and Parquet codec of package dataset
// and the storage of package store.
//
// # Writing: parts of a partition, under a lock
//
// A crawl writes one folder per table (dataset.PagesDir and the others),
// each holding part files, in a location store.Open opens. [Writer] writes
// each page's rows of every table into the same part, and rotates parts.
// The protocol, the same on every store (see the layout in tables.go):
//
//   - Visibility: a part's pages file is its commit. The other tables'
//     files are published first under pending names that no reader
//     takes (_part-00042.parquet.pending), then the pages file appears
//     under its final name in one step, then the pending files are
//     renamed. A reader, and a resume, never sees another table's part
//     without its pages part; after a kill a pages part may lack its
//     other tables until the next resume rolls them forward.
//   - Lock: [OpenOutput] takes a lease on the writer's partition
//     (_locks/<partition>/ at the dataset's root) and renews it; a second
//     writer is refused, a lease whose holder died is taken over once
//     stale, and a writer that lost its lease publishes nothing more.
//   - Supersede: [Resume] finds the rows a resume crawls again
//     (ResumeOptions.Retry); the Writer rewrites their old parts without
//     them under new numbers once the new rows are committed, and deletes
//     the old parts, pages file last. Parts are never changed in place,
//     and a URL never has zero rows; a kill in between leaves a page with
//     two rows, which the next Resume resolves (the newer row stays).
//
// # Reading
//
// [Open] opens a crawl dataset for reading (bench sweeps it): it lists the
// visible parts ([Keys]) of the pages and blobs tables; [Scan],
// [ScanTable] and [ReadMetadata] read rows and metadata through a store's
// ranged reads. [Files] lists a local dataset's parts as paths.
package parts
