// Package bucket keeps a dataset in a bucket: S3 and S3-compatible stores
// (s3://bucket/prefix) and Google Cloud Storage (gs://bucket/prefix),
// behind the store.Store interface. It is the only package that links the
// AWS and Google Cloud SDKs; only the commands and tests import it, and a
// command calls [Register] at its start so that store.Open takes bucket
// locations.
//
// An S3 location takes the endpoint and the addressing style as URL
// parameters (see [Register]) or from the usual AWS environment variables
// (AWS_ENDPOINT_URL, AWS_REGION); credentials come only from the SDK's
// default chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, a
// role), never from the URL. Error messages name the location and the key
// but never carry a credential: every credential the SDK signs with is
// recorded and masked in the errors this package returns.
//
// Publishing: an object is streamed in one upload under its final key, in
// parts of Config.PartSize bytes (a multipart upload when it is larger
// than one part), with the precondition If-None-Match: * (on S3) or
// DoesNotExist (on GCS). The store completes the upload, and so makes the
// object appear, only on Close; Abort or a killed process leaves no
// object. Memory per Writer is bounded by (Config.Concurrency+2) ×
// Config.PartSize. Reading is by ranged requests, with a small read-ahead
// block so that a Parquet reader's many small reads become few requests.
package bucket

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"actionspace/dataset/store"
)

// Register makes store.Open take s3:// and gs:// locations:
//
//   - s3://bucket/prefix is a prefix in an S3 bucket, with these optional
//     URL parameters: endpoint (an S3-compatible server such as
//     http://127.0.0.1:9000), use_path_style (true for most such servers),
//     region (default: AWS_REGION, else us-east-1), disable_https,
//     profile, request_checksum_calculation and
//     response_checksum_validation (when_supported or when_required);
//   - gs://bucket/prefix is a prefix in a Google Cloud Storage bucket,
//     with the default credentials.
//
// The bucket must exist; opening does not call the service. Calling
// Register again changes nothing.
func Register() {
	store.Register("s3", openS3)
	store.Register("gs", openGCS)
}

// Bucket is a Store in a prefix of a bucket.
type Bucket struct {
	loc    string // the location without credentials, for messages
	cfg    store.Config
	bucket *blob.Bucket // the bucket, prefixed
	s3     *s3Extras    // S3 only: the client and the credentials seen
}

var _ store.Store = (*Bucket)(nil)

// bucketPrefix returns the key prefix a URL path names: "" or "a/b/".
func bucketPrefix(u *url.URL) (string, error) {
	p := strings.Trim(u.Path, "/")
	if p == "" {
		return "", nil
	}
	if !fs.ValidPath(p) {
		return "", fmt.Errorf("invalid prefix %q", p)
	}
	return p + "/", nil
}

// String returns the bucket URL without its parameters
// (scheme://bucket/prefix/). It never has credentials.
func (s *Bucket) String() string { return s.loc }

// Close releases the store's connections.
func (s *Bucket) Close() error { return s.bucket.Close() }

// fail wraps err, from op on key, with the location, masking any
// credential in it.
func (s *Bucket) fail(op, key string, err error) error {
	err = fmt.Errorf("%s %s%s: %w", op, s.loc, key, err)
	if s.s3 != nil {
		return s.s3.mask(err)
	}
	return err
}

// List implements store.Store: a bucket shows an upload only once it
// completes.
func (s *Bucket) List(ctx context.Context, prefix string) ([]store.Object, error) {
	if err := store.CheckPrefix(prefix); err != nil {
		return nil, fmt.Errorf("list %s: %w", s.loc, err)
	}
	objs, err := s.listBucket(ctx, prefix)
	if err != nil {
		return nil, s.fail("list", prefix, err)
	}
	store.SortObjects(objs)
	return objs, nil
}

// OpenReader implements store.Store.
func (s *Bucket) OpenReader(ctx context.Context, key string) (store.Reader, error) {
	if err := store.CheckKey(key); err != nil {
		return nil, fmt.Errorf("open %s: %w", s.loc, err)
	}
	r, err := s.openBucket(ctx, key)
	if err != nil {
		return nil, s.fail("open", key, err)
	}
	return r, nil
}

// Create implements store.Store.
func (s *Bucket) Create(ctx context.Context, key string) (store.Writer, error) {
	return s.create(ctx, key, true)
}

// Replace implements store.Store: an upload without the precondition.
func (s *Bucket) Replace(ctx context.Context, key string) (store.Writer, error) {
	return s.create(ctx, key, false)
}

func (s *Bucket) create(ctx context.Context, key string, ifNotExist bool) (store.Writer, error) {
	if err := store.CheckKey(key); err != nil {
		return nil, fmt.Errorf("create in %s: %w", s.loc, err)
	}
	w, err := s.createBucket(ctx, key, ifNotExist)
	if err != nil {
		return nil, s.fail("create", key, err)
	}
	return w, nil
}

// Delete implements store.Store.
func (s *Bucket) Delete(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("delete in %s: %w", s.loc, err)
	}
	if err := s.deleteBucket(ctx, key); err != nil {
		return s.fail("delete", key, err)
	}
	return nil
}

// Exists implements store.Store.
func (s *Bucket) Exists(ctx context.Context, key string) (bool, error) {
	if err := store.CheckKey(key); err != nil {
		return false, fmt.Errorf("look up in %s: %w", s.loc, err)
	}
	ok, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return false, s.fail("look up", key, err)
	}
	return ok, nil
}

// Rename implements store.Store with a server-side copy and a delete: no
// bytes pass through this process, but the store writes the object a
// second time. On S3 the copy carries If-None-Match: *, as an upload does;
// a bucket that does not honour it on a copy still has the existence check
// before it, which is enough for a single writer (the holder of a lock).
func (s *Bucket) Rename(ctx context.Context, from, to string) error {
	for _, k := range []string{from, to} {
		if err := store.CheckKey(k); err != nil {
			return fmt.Errorf("rename in %s: %w", s.loc, err)
		}
	}
	if err := s.renameBucket(ctx, from, to); err != nil {
		return s.fail("rename "+from+" to", to, err)
	}
	return nil
}

func (s *Bucket) renameBucket(ctx context.Context, from, to string) error {
	ok, err := s.bucket.Exists(ctx, to)
	if err != nil {
		return err
	}
	if ok {
		return fmt.Errorf("%w (the target exists)", fs.ErrExist)
	}
	opts := &blob.CopyOptions{}
	if s.s3 != nil {
		opts.BeforeCopy = func(as func(any) bool) error {
			var in *s3.CopyObjectInput
			if as(&in) {
				in.IfNoneMatch = aws.String("*")
			}
			return nil
		}
	}
	if err := s.bucket.Copy(ctx, to, from, opts); err != nil {
		if gcerrors.Code(err) == gcerrors.FailedPrecondition {
			return fmt.Errorf("%w: %w", fs.ErrExist, err)
		}
		return kindError(err)
	}
	return kindError(s.bucket.Delete(ctx, from))
}

// RemoveTemp implements store.Store: on S3 it aborts the incomplete
// multipart uploads directly in the folder of prefix (invisible, but their
// parts take space); GCS keeps none.
func (s *Bucket) RemoveTemp(ctx context.Context, prefix string) (int, error) {
	if err := store.CheckPrefix(prefix); err != nil {
		return 0, fmt.Errorf("remove leftovers in %s: %w", s.loc, err)
	}
	if s.s3 == nil {
		return 0, nil
	}
	n, err := s.abortUploads(ctx, prefix)
	if err != nil {
		return n, s.fail("remove leftovers", prefix, err)
	}
	return n, nil
}
