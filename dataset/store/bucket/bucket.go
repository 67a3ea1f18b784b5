package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/gcsblob" // registers gs:// with blob.OpenBucket
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"

	"actionspace/dataset/store"
)

// defaultRegion signs requests when neither the URL nor the environment
// names a region; S3-compatible servers accept it.
const defaultRegion = "us-east-1"

// s3Params are the URL parameters an s3:// location may carry. Each is a
// setting, never a secret; any other parameter is refused by name, without
// echoing its value.
var s3Params = []string{
	"endpoint", "use_path_style", "region", "disable_https", "profile",
	"request_checksum_calculation", "response_checksum_validation",
}

// s3Extras is what a Bucket keeps beyond the blob.Bucket for S3: the client,
// for the calls gocloud does not make, and the credentials it signed with,
// to mask them in errors.
type s3Extras struct {
	client *s3.Client
	bucket string
	prefix string // of the store, "" or ending in "/"
	creds  *credRecorder
}

// openS3 opens an s3:// location.
func openS3(ctx context.Context, u *url.URL, cfg store.Config) (store.Store, error) {
	if u.Host == "" {
		return nil, errors.New("open store: s3:// location without a bucket")
	}
	prefix, err := bucketPrefix(u)
	if err != nil {
		return nil, fmt.Errorf("open store s3://%s: %w", u.Host, err)
	}
	loc := "s3://" + u.Host + "/" + prefix

	q := u.Query()
	for name, values := range q {
		if !slices.Contains(s3Params, name) {
			return nil, fmt.Errorf("open store %s: unknown URL parameter %q (known: %s)", loc, name, strings.Join(s3Params, ", "))
		}
		if len(values) != 1 {
			return nil, fmt.Errorf("open store %s: URL parameter %q given %d times", loc, name, len(values))
		}
	}
	var s3opts []func(*s3.Options)
	for _, name := range []string{"use_path_style", "disable_https"} {
		v := q.Get(name)
		if v == "" {
			continue
		}
		q.Del(name)
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("open store %s: URL parameter %s: want true or false", loc, name)
		}
		if name == "use_path_style" {
			s3opts = append(s3opts, func(o *s3.Options) { o.UsePathStyle = on })
		} else {
			s3opts = append(s3opts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = on })
		}
	}
	if ep := q.Get("endpoint"); ep != "" {
		e, err := url.Parse(ep)
		if err != nil || e.User != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return nil, fmt.Errorf("open store %s: URL parameter endpoint: want http(s)://host[:port], without credentials", loc)
		}
	}

	awsCfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", loc, err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = defaultRegion
	}
	rec := &credRecorder{inner: awsCfg.Credentials}
	awsCfg.Credentials = rec
	client := s3.NewFromConfig(awsCfg, s3opts...)
	b, err := s3blob.OpenBucket(ctx, client, u.Host, &s3blob.Options{
		RequestChecksumCalculation: awsCfg.RequestChecksumCalculation,
	})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", loc, err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix)
	}
	return &Bucket{
		loc: loc, cfg: cfg, bucket: b,
		s3: &s3Extras{client: client, bucket: u.Host, prefix: prefix, creds: rec},
	}, nil
}

// openGCS opens a gs:// location with the default credentials.
func openGCS(ctx context.Context, u *url.URL, cfg store.Config) (store.Store, error) {
	if u.Host == "" {
		return nil, errors.New("open store: gs:// location without a bucket")
	}
	prefix, err := bucketPrefix(u)
	if err != nil {
		return nil, fmt.Errorf("open store gs://%s: %w", u.Host, err)
	}
	loc := "gs://" + u.Host + "/" + prefix
	if len(u.Query()) > 0 {
		return nil, fmt.Errorf("open store %s: a gs:// location takes no URL parameters", loc)
	}
	b, err := blob.OpenBucket(ctx, "gs://"+u.Host)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", loc, err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix)
	}
	return &Bucket{loc: loc, cfg: cfg, bucket: b}, nil
}

// credRecorder passes the SDK's credentials through and remembers every
// one it handed out, so that an error that quotes one can be masked.
type credRecorder struct {
	inner aws.CredentialsProvider

	mu   sync.Mutex
	seen []string
}

// Retrieve implements aws.CredentialsProvider.
func (c *credRecorder) Retrieve(ctx context.Context) (aws.Credentials, error) {
	if c.inner == nil {
		return aws.Credentials{}, errors.New("no AWS credentials provider")
	}
	creds, err := c.inner.Retrieve(ctx)
	if err != nil {
		return creds, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, v := range []string{creds.AccessKeyID, creds.SecretAccessKey, creds.SessionToken} {
		if len(v) >= 4 && !slices.Contains(c.seen, v) {
			c.seen = append(c.seen, v)
		}
	}
	return creds, nil
}

// Redacted replaces a credential in an error message.
const Redacted = "[REDACTED]"

// maskedError is an error whose message had credentials masked. It keeps
// errors.Is for fs.ErrExist and fs.ErrNotExist, and drops the chain (which
// would let a caller print the unmasked message).
type maskedError struct {
	msg  string
	kind error // fs.ErrExist, fs.ErrNotExist or nil
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.kind }

// mask returns err, or a maskedError if its message holds a credential the
// store signed with.
func (x *s3Extras) mask(err error) error {
	msg := err.Error()
	x.creds.mu.Lock()
	masked := msg
	for _, v := range x.creds.seen {
		masked = strings.ReplaceAll(masked, v, Redacted)
	}
	x.creds.mu.Unlock()
	if masked == msg {
		return err
	}
	var kind error
	switch {
	case errors.Is(err, fs.ErrExist):
		kind = fs.ErrExist
	case errors.Is(err, fs.ErrNotExist):
		kind = fs.ErrNotExist
	}
	return &maskedError{msg: masked, kind: kind}
}

// kindError maps gocloud's NotFound onto fs.ErrNotExist.
func kindError(err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	return err
}

func (s *Bucket) listBucket(ctx context.Context, prefix string) ([]store.Object, error) {
	var objs []store.Object
	it := s.bucket.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if o.IsDir || !store.ValidKey(o.Key) {
			continue
		}
		objs = append(objs, store.Object{Key: o.Key, Size: o.Size, ModTime: o.ModTime})
	}
}

func (s *Bucket) deleteBucket(ctx context.Context, key string) error {
	// S3 deletes a missing key without complaint: look first, so that a
	// missing object is fs.ErrNotExist on every backend.
	ok, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return err
	}
	if !ok {
		return fs.ErrNotExist
	}
	return kindError(s.bucket.Delete(ctx, key))
}

// createBucket starts the upload of key; with ifNotExist, on the
// precondition that key does not exist.
func (s *Bucket) createBucket(ctx context.Context, key string, ifNotExist bool) (store.Writer, error) {
	ctx, cancel := context.WithCancel(ctx)
	opts := &blob.WriterOptions{
		IfNotExist:                  ifNotExist,
		BufferSize:                  s.cfg.PartSize,
		MaxConcurrency:              s.cfg.Concurrency,
		ContentType:                 "application/octet-stream",
		DisableContentTypeDetection: true,
	}
	if s.s3 != nil {
		// The transfer manager buffers up to 16 MiB before it decides on
		// a multipart upload; make that one part, so that a Writer holds at
		// most Concurrency+2 parts.
		client := s.s3.client
		opts.BeforeWrite = func(as func(any) bool) error {
			var tm *transfermanager.Client
			if as(&tm) {
				*tm = *transfermanager.New(client, func(o *transfermanager.Options) {
					o.PartSizeBytes = int64(s.cfg.PartSize)
					o.MultipartUploadThreshold = int64(s.cfg.PartSize)
					o.Concurrency = s.cfg.Concurrency
					o.RequestChecksumCalculation = client.Options().RequestChecksumCalculation
				})
			}
			return nil
		}
	}
	w, err := s.bucket.NewWriter(ctx, key, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	return store.NewWriter(key, &bucketSink{w: w, cancel: cancel}, s.fail), nil
}

// bucketSink is one upload.
type bucketSink struct {
	w      *blob.Writer
	cancel context.CancelFunc
}

func (b *bucketSink) Write(p []byte) (int, error) { return b.w.Write(p) }

// Commit completes the upload. The only precondition it sets is
// if-not-exists, so a failed precondition means the key exists.
func (b *bucketSink) Commit() error {
	defer b.cancel()
	err := b.w.Close()
	if gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return fmt.Errorf("%w: %w", fs.ErrExist, err)
	}
	return err
}

// Abort cancels the upload: a single-request upload is never sent, a
// multipart one is never completed.
func (b *bucketSink) Abort() error {
	b.cancel()
	_ = b.w.Close() // fails with the cancellation, by design
	return nil
}

// openBucket opens key for ranged reads.
func (s *Bucket) openBucket(ctx context.Context, key string) (store.Reader, error) {
	attrs, err := s.bucket.Attributes(ctx, key)
	if err != nil {
		return nil, kindError(err)
	}
	ra := &rangeReader{ctx: ctx, s: s, key: key, size: attrs.Size, block: s.cfg.ReadAhead}
	return store.NewReader(key, attrs.Size, ra, nil), nil
}

// rangeReader reads an object through ranged GETs. Reads smaller than
// block fetch a block from their offset and keep it for the next reads.
type rangeReader struct {
	ctx   context.Context // the OpenReader call's: io.ReaderAt has none
	s     *Bucket
	key   string
	size  int64
	block int

	mu     sync.Mutex
	bufOff int64
	buf    []byte

	requests, fetched atomic.Int64 // for tests
}

func (r *rangeReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.size {
		return 0, io.EOF
	}
	want := min(int64(len(p)), r.size-off)
	var err error
	if int(want) >= r.block {
		err = r.fetch(p[:want], off)
	} else {
		err = r.cached(p[:want], off)
	}
	if err != nil {
		return 0, r.s.fail("read", r.key, err)
	}
	if want < int64(len(p)) {
		return int(want), io.EOF
	}
	return int(want), nil
}

// cached serves p from the block, fetching a new one when p is not in it.
func (r *rangeReader) cached(p []byte, off int64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if off < r.bufOff || off+int64(len(p)) > r.bufOff+int64(len(r.buf)) {
		n := min(int64(r.block), r.size-off)
		if cap(r.buf) < int(n) {
			r.buf = make([]byte, n)
		}
		r.buf = r.buf[:n]
		if err := r.fetch(r.buf, off); err != nil {
			r.buf = r.buf[:0]
			return err
		}
		r.bufOff = off
	}
	copy(p, r.buf[off-r.bufOff:])
	return nil
}

// fetch reads len(p) bytes at off in one ranged request.
func (r *rangeReader) fetch(p []byte, off int64) error {
	r.requests.Add(1)
	r.fetched.Add(int64(len(p)))
	rr, err := r.s.bucket.NewRangeReader(r.ctx, r.key, off, int64(len(p)), nil)
	if err != nil {
		return kindError(err)
	}
	defer rr.Close()
	if _, err := io.ReadFull(rr, p); err != nil {
		return fmt.Errorf("bytes %d-%d: %w", off, off+int64(len(p))-1, err)
	}
	return nil
}

// abortUploads aborts the incomplete multipart uploads directly in the
// folder of prefix.
func (s *Bucket) abortUploads(ctx context.Context, prefix string) (int, error) {
	x := s.s3
	full := x.prefix + prefix
	n := 0
	p := s3.NewListMultipartUploadsPaginator(x.client, &s3.ListMultipartUploadsInput{
		Bucket: aws.String(x.bucket),
		Prefix: aws.String(full),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return n, err
		}
		for _, u := range page.Uploads {
			if !store.InFolder(full, aws.ToString(u.Key)) {
				continue
			}
			_, err := x.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
				Bucket: aws.String(x.bucket), Key: u.Key, UploadId: u.UploadId,
			})
			if err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
