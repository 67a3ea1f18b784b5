// Package store keeps a dataset's files on a local directory or in a bucket
// (S3 and S3-compatible stores, Google Cloud Storage), behind one small API,
// so that the crawl writes, the resume scan lists and bench reads the same
// way wherever the dataset lives.
//
// # The model: keys under a location
//
// [Open] takes a location: a plain path or a file:// URL is a local
// directory; s3://bucket/prefix and gs://bucket/prefix are a prefix in a
// bucket. Everything below it is addressed by a key, a slash-separated
// relative path such as "pages/shard=0003/part-00000.parquet" (see
// [ValidKey]). Keys never end in [TempSuffix]: names with that suffix are a
// local directory's files in the making, which [Store.List] leaves out.
//
// An S3 location takes the endpoint and the addressing style as URL
// parameters (see [Open]) or from the usual AWS environment variables
// (AWS_ENDPOINT_URL, AWS_REGION); credentials come only from the SDK's
// default chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, a
// role), never from the URL. Error messages name the location and the key
// but never carry a credential: every credential the SDK signs with is
// recorded and masked in the errors this package returns.
//
// # Publishing: visible only when complete, never overwritten
//
// [Store.Create] returns a [Writer]. Nothing is visible under the key until
// [Writer.Close] succeeds, and Close fails with an error matching
// [fs.ErrExist] when the key already exists, leaving the existing object as
// it was:
//
//   - In a bucket the object is streamed in one upload under its final key,
//     in parts of [Config.PartSize] bytes (a multipart upload when it is
//     larger than one part), with the precondition If-None-Match: * (on
//     S3) or DoesNotExist (on GCS). The store completes the upload, and so
//     makes the object appear, only on Close; [Writer.Abort] or a killed
//     process leaves no object. Memory per Writer is bounded by
//     (Config.Concurrency+2) × Config.PartSize.
//   - In a directory the bytes go to a temporary file beside the final one
//     (its name ends in [TempSuffix]); Close syncs it, links it under the
//     final name (a hard link fails if the name exists, atomically, across
//     processes and NFS clients alike), removes the temporary name and
//     syncs the directory. A killed process leaves a temporary file, which
//     [Store.RemoveTemp] cleans up.
//
// [CreateFile] is the same protocol for a single local file that replaces
// its path instead (what dataset.Create uses).
//
// # Reading
//
// [Store.List] lists the complete objects under a prefix, at any depth,
// with their sizes. [Store.OpenReader] opens one for random access as an
// [io.ReaderAt] with its size, which is what a Parquet reader needs: it
// reads the footer, then the column chunks it wants, each through a ranged
// read, never the whole object (a small read-ahead block makes the Parquet
// reader's many small reads a few ranged requests).
//
// # Locks
//
// [Store.AcquireLock] takes a lease on a name (a partition, say), made of
// generation objects created with the same create-if-absent step as the
// data; see lock.go for the protocol and its rule against two winners.
package store
