// Package store keeps a dataset's files behind one small interface,
// [Store], so that the crawl writes, the resume scan lists and bench reads
// the same way wherever the dataset lives: a local directory ([Dir]),
// memory ([Memory], for tests and tools), or a bucket (package bucket,
// which only the commands import, so that a package that names a row type
// never links the cloud SDKs).
//
// # The model: keys under a location
//
// [Open] takes a location: a plain path or a file:// URL is a local
// directory; any other scheme is opened by the [Opener] registered for it
// with [Register] (package bucket registers s3:// and gs://). Everything
// below a location is addressed by a key, a slash-separated relative path
// such as "pages/shard=0003/part-00000.parquet" (see [ValidKey]). Keys
// never end in [TempSuffix]: names with that suffix are a local
// directory's files in the making, which List leaves out.
//
// # Publishing: visible only when complete, never overwritten
//
// Store.Create returns a [Writer]. Nothing is visible under the key until
// Writer.Close succeeds, and Close fails with an error matching
// [fs.ErrExist] when the key already exists, leaving the existing object as
// it was. A directory writes a temporary file and links it into place; a
// bucket completes one upload with a create-if-absent precondition; memory
// swaps the object in under a lock. Store.Replace is the same but replaces
// an existing object (for reports, never for dataset parts).
//
// # Reading
//
// Store.List lists the complete objects under a prefix, at any depth,
// with their sizes and times. Store.OpenReader opens one for random access
// as a [Reader] (an io.ReaderAt with its size), which is what a Parquet
// reader needs: it reads the footer, then the column chunks it wants.
//
// # One behaviour, checked once
//
// Package storetest is the conformance suite every Store runs: the
// directory and memory stores in this package's tests, S3 in package
// bucket's, against a real S3-compatible server.
package store
