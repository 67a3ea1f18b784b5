package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gocloud.dev/blob"
)

// Defaults for [Config].
const (
	// DefaultPartSize is the size of one part of a bucket upload, and so
	// the unit of memory a Writer buffers. S3 takes parts of 5 MiB and more
	// (but the last), at most 10,000 of them: 8 MiB parts allow objects up
	// to 78 GiB.
	DefaultPartSize = 8 << 20
	// DefaultConcurrency is the number of parts of one upload in flight at
	// once.
	DefaultConcurrency = 2
	// DefaultReadAhead is the size of the block a bucket Reader fetches
	// when asked for less, so that a Parquet reader's small reads of page
	// headers become few ranged requests.
	DefaultReadAhead = 1 << 20
)

// minPartSize is S3's smallest part but the last.
const minPartSize = 5 << 20

// TempSuffix ends the name of a local file being written: [Store.Create]
// and [CreateFile] write under such a name until Close. No key ends with
// it, and [Store.List] skips such files.
const TempSuffix = ".tmp"

// Config tunes how a Store moves bytes. The zero value means the defaults.
type Config struct {
	// PartSize is the size in bytes of one part of a bucket upload; each
	// Writer holds up to Concurrency+2 parts in memory. 0 means
	// DefaultPartSize; otherwise at least 5 MiB. Local directories ignore
	// it.
	PartSize int
	// Concurrency is the number of parts of one upload sent at once. 0
	// means DefaultConcurrency.
	Concurrency int
	// ReadAhead is the smallest ranged read a bucket Reader makes; reads
	// below it fetch a block of this size and serve the next reads from it.
	// 0 means DefaultReadAhead; -1 turns read-ahead off.
	ReadAhead int
}

// DefaultConfig returns the default configuration.
func DefaultConfig() Config {
	return Config{PartSize: DefaultPartSize, Concurrency: DefaultConcurrency, ReadAhead: DefaultReadAhead}
}

// Validate reports the first invalid field of c.
func (c Config) Validate() error {
	switch {
	case c.PartSize != 0 && c.PartSize < minPartSize:
		return fmt.Errorf("invalid PartSize %d: must be at least %d (5 MiB), or 0 for the default", c.PartSize, minPartSize)
	case c.Concurrency < 0:
		return fmt.Errorf("invalid Concurrency %d: must be positive, or 0 for the default", c.Concurrency)
	case c.ReadAhead < -1:
		return fmt.Errorf("invalid ReadAhead %d: must be positive, 0 for the default or -1 for none", c.ReadAhead)
	}
	return nil
}

// withDefaults resolves the zero values.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.PartSize == 0 {
		c.PartSize = d.PartSize
	}
	if c.Concurrency == 0 {
		c.Concurrency = d.Concurrency
	}
	switch c.ReadAhead {
	case 0:
		c.ReadAhead = d.ReadAhead
	case -1:
		c.ReadAhead = 0
	}
	return c
}

// Kind says where a Store keeps its objects.
type Kind string

// The kinds of Store.
const (
	KindLocal Kind = "local"
	KindS3    Kind = "s3"
	KindGCS   Kind = "gs"
)

// Store is a dataset location: a local directory or a prefix in a bucket.
// It is safe for concurrent use.
type Store struct {
	kind Kind
	loc  string // the location without credentials, for messages
	cfg  Config

	dir    string       // the directory, for KindLocal
	bucket *blob.Bucket // the bucket, prefixed, for the other kinds
	s3     *s3Extras    // S3 only: the client and the credentials seen

	// now is the clock of the lock protocol; time.Now in production.
	now func() time.Time
}

// Open opens the dataset location loc:
//
//   - a plain path, or file:///abs/path, is a local directory; it is created
//     when missing;
//   - s3://bucket/prefix is a prefix in an S3 bucket, with these optional
//     URL parameters: endpoint (an S3-compatible server such as
//     http://127.0.0.1:9000), use_path_style (true for most such servers),
//     region (default: AWS_REGION, else us-east-1), disable_https,
//     profile, request_checksum_calculation and
//     response_checksum_validation (when_supported or when_required);
//   - gs://bucket/prefix is a prefix in a Google Cloud Storage bucket,
//     with the default credentials.
//
// A location never carries credentials: user information in the URL is an
// error. The bucket must exist; Open does not call the service.
func Open(ctx context.Context, loc string, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	s, err := open(ctx, loc, cfg.withDefaults())
	if err != nil {
		return nil, err
	}
	s.now = time.Now
	return s, nil
}

// open dispatches on the location's scheme.
func open(ctx context.Context, loc string, cfg Config) (*Store, error) {
	scheme, _, hasScheme := strings.Cut(loc, "://")
	if !hasScheme {
		return openLocal(loc, cfg)
	}
	u, err := url.Parse(loc)
	if err != nil {
		// url.Parse quotes the whole input: name only the scheme.
		return nil, fmt.Errorf("open store: %s:// location is not a valid URL", scheme)
	}
	if u.User != nil {
		return nil, fmt.Errorf("open store: %s://…: credentials in the URL are refused; use the environment", u.Scheme)
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("open store: file URL with host %q: want file:///absolute/path", u.Host)
		}
		if len(u.Query()) > 0 {
			return nil, errors.New("open store: a file URL takes no parameters")
		}
		return openLocal(u.Path, cfg)
	case "s3":
		return openS3(ctx, u, cfg)
	case "gs":
		return openGCS(ctx, u, cfg)
	default:
		return nil, fmt.Errorf("open store: unknown scheme %q: want a path, file://, s3:// or gs://", u.Scheme)
	}
}

// openLocal opens a directory.
func openLocal(dir string, cfg Config) (*Store, error) {
	if dir == "" {
		return nil, errors.New("open store: empty location")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return &Store{kind: KindLocal, loc: abs, cfg: cfg, dir: abs}, nil
}

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

// where names key for messages: a path, or a URL without parameters.
func (s *Store) where(key string) string {
	if s.kind == KindLocal {
		return filepath.Join(s.dir, filepath.FromSlash(key))
	}
	return s.loc + key
}

// Kind returns where the store keeps its objects.
func (s *Store) Kind() Kind { return s.kind }

// String returns the location: the directory, or the bucket URL without
// its parameters (scheme://bucket/prefix/). It never has credentials.
func (s *Store) String() string { return s.loc }

// Dir returns the directory of a local store, and false for a bucket.
func (s *Store) Dir() (string, bool) { return s.dir, s.kind == KindLocal }

// Close releases the store's connections.
func (s *Store) Close() error {
	if s.bucket != nil {
		return s.bucket.Close()
	}
	return nil
}

// ValidKey reports whether key can name an object: a slash-separated
// relative path without empty, "." or ".." elements (as [fs.ValidPath]
// says), not ending in [TempSuffix], not ending in a slash.
func ValidKey(key string) bool {
	return key != "." && fs.ValidPath(key) && !strings.HasSuffix(key, TempSuffix) && !strings.Contains(key, `\`)
}

// checkKey returns an error for a key ValidKey refuses.
func checkKey(key string) error {
	if !ValidKey(key) {
		return fmt.Errorf("invalid key %q: want a relative slash-separated path, no . or .. elements, not ending in %s", key, TempSuffix)
	}
	return nil
}

// checkPrefix accepts "" (everything), or a key prefix; a prefix that is a
// "directory" should end in a slash.
func checkPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if !fs.ValidPath(strings.TrimSuffix(prefix, "/")) || strings.Contains(prefix, `\`) {
		return fmt.Errorf("invalid prefix %q", prefix)
	}
	return nil
}

// Object is one complete object of a store.
type Object struct {
	// Key is the object's key, relative to the store's location.
	Key string
	// Size is the object's size in bytes.
	Size int64
	// ModTime is when the object was written, by the store's clock.
	ModTime time.Time
}

// List returns the complete objects whose keys start with prefix, at any
// depth, sorted by key. prefix "" lists everything; "pages/" lists the
// pages folder. Objects being written are not listed: a bucket shows an
// upload only once it completes, and a directory's temporary files are
// skipped.
func (s *Store) List(ctx context.Context, prefix string) ([]Object, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, fmt.Errorf("list %s: %w", s.loc, err)
	}
	var objs []Object
	var err error
	if s.kind == KindLocal {
		objs, err = s.listLocal(ctx, prefix, false)
	} else {
		objs, err = s.listBucket(ctx, prefix)
	}
	if err != nil {
		return nil, s.fail("list", prefix, err)
	}
	slices.SortFunc(objs, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
	return objs, nil
}

// OpenReader opens the object at key for random access. The context bounds
// every read of the Reader, not only the open: cancel it, or Close the
// Reader, when done.
func (s *Store) OpenReader(ctx context.Context, key string) (*Reader, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("open %s: %w", s.loc, err)
	}
	var r *Reader
	var err error
	if s.kind == KindLocal {
		r, err = s.openLocal(key)
	} else {
		r, err = s.openBucket(ctx, key)
	}
	if err != nil {
		return nil, s.fail("open", key, err)
	}
	return r, nil
}

// ReadAll reads the whole object at key; for small objects (markers,
// manifests, locks).
func (s *Store) ReadAll(ctx context.Context, key string) ([]byte, error) {
	r, err := s.OpenReader(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b := make([]byte, r.Size())
	if _, err := r.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// Create starts a new object at key. It becomes visible when the Writer's
// Close succeeds, and only if no object exists at key by then: otherwise
// Close returns an error matching fs.ErrExist and the existing object is
// untouched. The context bounds the whole write; cancelling it aborts the
// upload. Call Abort (it may be deferred) to give up.
func (s *Store) Create(ctx context.Context, key string) (*Writer, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("create in %s: %w", s.loc, err)
	}
	var w *Writer
	var err error
	if s.kind == KindLocal {
		w, err = createLocal(filepath.Join(s.dir, filepath.FromSlash(key)), key, false)
	} else {
		w, err = s.createBucket(ctx, key)
	}
	if err != nil {
		return nil, s.fail("create", key, err)
	}
	w.store = s
	return w, nil
}

// Put creates the object at key with the content b, as Create does: it
// fails with an error matching fs.ErrExist if key exists.
func (s *Store) Put(ctx context.Context, key string, b []byte) error {
	w, err := s.Create(ctx, key)
	if err != nil {
		return err
	}
	defer w.Abort()
	if _, err := w.Write(b); err != nil {
		return err
	}
	return w.Close()
}

// Delete removes the object at key. A missing object is an error matching
// fs.ErrNotExist.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return fmt.Errorf("delete in %s: %w", s.loc, err)
	}
	var err error
	if s.kind == KindLocal {
		err = s.deleteLocal(key)
	} else {
		err = s.deleteBucket(ctx, key)
	}
	if err != nil {
		return s.fail("delete", key, err)
	}
	return nil
}

// RemoveTemp cleans up after writers that were killed in the folder of
// prefix ("pages/shard=0003/" cleans that folder, not its subfolders, so
// that a partition's cleanup never reaches the partitions below it): in a
// directory it removes the temporary files, in an S3 bucket it aborts the
// incomplete uploads (which are invisible, but their parts take space).
// Call it only where no other writer is at work, such as a partition whose
// lock this process holds. It returns the number of leftovers removed.
func (s *Store) RemoveTemp(ctx context.Context, prefix string) (int, error) {
	if err := checkPrefix(prefix); err != nil {
		return 0, fmt.Errorf("remove leftovers in %s: %w", s.loc, err)
	}
	var n int
	var err error
	switch s.kind {
	case KindLocal:
		n, err = s.removeTempLocal(ctx, prefix)
	case KindS3:
		n, err = s.abortUploads(ctx, prefix)
	}
	if err != nil {
		return n, s.fail("remove leftovers", prefix, err)
	}
	return n, nil
}

// inFolder reports whether key lies directly in the folder of prefix (the
// part of prefix up to its last slash), not in a subfolder.
func inFolder(prefix, key string) bool {
	folder := prefix[:strings.LastIndex(prefix, "/")+1]
	rest, ok := strings.CutPrefix(key, folder)
	return ok && strings.HasPrefix(key, prefix) && !strings.Contains(rest, "/")
}

// fail wraps err, from op on key, with the location, masking any
// credential in it.
func (s *Store) fail(op, key string, err error) error {
	err = fmt.Errorf("%s %s: %w", op, s.where(key), err)
	if s.s3 != nil {
		return s.s3.mask(err)
	}
	return err
}
