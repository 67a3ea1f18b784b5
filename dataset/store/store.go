package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Store is a dataset location: keys under a directory, a bucket prefix or
// memory. Implementations are safe for concurrent use and pass the
// conformance suite of package storetest.
type Store interface {
	// List returns the complete objects whose keys start with prefix, at
	// any depth, sorted by key. prefix "" lists everything; "pages/"
	// lists the pages folder. Objects being written are not listed.
	List(ctx context.Context, prefix string) ([]Object, error)
	// OpenReader opens the object at key for random access. The context
	// bounds every read of the Reader, not only the open. A missing
	// object is an error matching fs.ErrNotExist.
	OpenReader(ctx context.Context, key string) (Reader, error)
	// Create starts a new object at key. It becomes visible when the
	// Writer's Close succeeds, and only if no object exists at key by
	// then: otherwise Close returns an error matching fs.ErrExist and the
	// existing object is untouched. Cancelling ctx aborts the write.
	Create(ctx context.Context, key string) (Writer, error)
	// Replace starts an object at key that replaces whatever is there
	// when the Writer's Close succeeds: for results a later run may write
	// again (a benchmark's report), never for dataset parts.
	Replace(ctx context.Context, key string) (Writer, error)
	// Delete removes the object at key. A missing object is an error
	// matching fs.ErrNotExist.
	Delete(ctx context.Context, key string) error
	// Exists reports whether a complete object exists at key.
	Exists(ctx context.Context, key string) (bool, error)
	// Rename moves the complete object at from to the key to, which must
	// not exist (else an error matching fs.ErrExist, both objects left as
	// they are); a missing from is an error matching fs.ErrNotExist. The
	// object appears under to whole or not at all; a process killed in
	// between may leave both keys with the same content.
	Rename(ctx context.Context, from, to string) error
	// RemoveTemp cleans up after writers that were killed, directly in
	// the folder of prefix (not in its subfolders), and returns how many
	// leftovers it removed. Call it only where no other writer is at work.
	RemoveTemp(ctx context.Context, prefix string) (int, error)
	// String returns the location for messages; it never has credentials.
	String() string
	// Close releases the store's connections.
	Close() error
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
	// MinPartSize is S3's smallest part but the last.
	MinPartSize = 5 << 20
)

// TempSuffix ends the name of a local file being written: a directory's
// Create and Replace write under such a name until Close. No key ends with
// it, and List skips such files.
const TempSuffix = ".tmp"

// Config tunes how a bucket Store moves bytes; a directory and memory
// ignore it. The zero value means the defaults.
type Config struct {
	// PartSize is the size in bytes of one part of a bucket upload; each
	// Writer holds up to Concurrency+2 parts in memory. 0 means
	// DefaultPartSize; otherwise at least MinPartSize.
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
	case c.PartSize != 0 && c.PartSize < MinPartSize:
		return fmt.Errorf("invalid PartSize %d: must be at least %d (5 MiB), or 0 for the default", c.PartSize, MinPartSize)
	case c.Concurrency < 0:
		return fmt.Errorf("invalid Concurrency %d: must be positive, or 0 for the default", c.Concurrency)
	case c.ReadAhead < -1:
		return fmt.Errorf("invalid ReadAhead %d: must be positive, 0 for the default or -1 for none", c.ReadAhead)
	}
	return nil
}

// WithDefaults resolves the zero values (and ReadAhead -1 to 0), for a
// backend to use as they are.
func (c Config) WithDefaults() Config {
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

// Opener opens a location of one URL scheme, such as s3://bucket/prefix.
// cfg is valid and has its defaults resolved.
type Opener func(ctx context.Context, u *url.URL, cfg Config) (Store, error)

// registry maps URL schemes to the Openers registered for them. It is the
// one piece of package-level mutable state of this package, kept so that
// only the programs that want buckets link their SDKs: a command calls
// bucket.Register at its start, as database/sql drivers register
// themselves, and every Open after that takes s3:// and gs:// locations.
var registry struct {
	mu      sync.RWMutex
	openers map[string]Opener
}

// Register makes Open take locations of scheme (without "://"), opening
// them with open. Registering a scheme again replaces its Opener; "file"
// is built in and cannot be replaced.
func Register(scheme string, open Opener) {
	if scheme == "file" || open == nil {
		return
	}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.openers == nil {
		registry.openers = make(map[string]Opener)
	}
	registry.openers[scheme] = open
}

// opener returns the Opener of scheme and the registered schemes.
func opener(scheme string) (Opener, []string) {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	schemes := []string{"file"}
	for s := range registry.openers {
		schemes = append(schemes, s)
	}
	slices.Sort(schemes)
	return registry.openers[scheme], schemes
}

// Open opens the dataset location loc:
//
//   - a plain path, or file:///abs/path, is a local directory (see
//     [OpenDir]); it is created when missing;
//   - any other scheme://… is opened by the Opener registered for the
//     scheme (package bucket registers s3:// and gs://).
//
// A location never carries credentials: user information in the URL is an
// error.
func Open(ctx context.Context, loc string, cfg Config) (Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	scheme, _, hasScheme := strings.Cut(loc, "://")
	if !hasScheme {
		return OpenDir(loc)
	}
	u, err := url.Parse(loc)
	if err != nil {
		// url.Parse quotes the whole input: name only the scheme.
		return nil, fmt.Errorf("open store: %s:// location is not a valid URL", scheme)
	}
	if u.User != nil {
		return nil, fmt.Errorf("open store: %s://…: credentials in the URL are refused; use the environment", u.Scheme)
	}
	if u.Scheme == "file" {
		if u.Host != "" && u.Host != "localhost" {
			return nil, fmt.Errorf("open store: file URL with host %q: want file:///absolute/path", u.Host)
		}
		if len(u.Query()) > 0 {
			return nil, errors.New("open store: a file URL takes no parameters")
		}
		return OpenDir(u.Path)
	}
	open, schemes := opener(u.Scheme)
	if open == nil {
		return nil, fmt.Errorf("open store: unknown scheme %q: want a path or one of %s:// (bucket schemes are there only in programs that register package bucket)", u.Scheme, strings.Join(schemes, "://, "))
	}
	return open(ctx, u, cfg.WithDefaults())
}

// MaxReadAll bounds the objects ReadAll reads whole: it allocates the
// object's size at once, and an object is not always this process's own.
const MaxReadAll = 64 << 20

// ReadAll reads the whole object at key of s; for small objects (markers,
// manifests, locks). An object larger than MaxReadAll is refused.
func ReadAll(ctx context.Context, s Store, key string) ([]byte, error) {
	r, err := s.OpenReader(ctx, key)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if r.Size() > MaxReadAll {
		return nil, fmt.Errorf("read %s%s: %d bytes, more than the %d a small object may hold", s, key, r.Size(), MaxReadAll)
	}
	b := make([]byte, r.Size())
	if _, err := r.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// Put creates the object at key of s with the content b, as Create does:
// it fails with an error matching fs.ErrExist if key exists.
func Put(ctx context.Context, s Store, key string, b []byte) error {
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

// ValidKey reports whether key can name an object: a slash-separated
// relative path without empty, "." or ".." elements (as [fs.ValidPath]
// says), not ending in [TempSuffix], not ending in a slash.
func ValidKey(key string) bool {
	return key != "." && fs.ValidPath(key) && !strings.HasSuffix(key, TempSuffix) && !strings.Contains(key, `\`)
}

// CheckKey returns an error for a key ValidKey refuses; every Store
// method that takes a key calls it first.
func CheckKey(key string) error {
	if !ValidKey(key) {
		return fmt.Errorf("invalid key %q: want a relative slash-separated path, no . or .. elements, not ending in %s", key, TempSuffix)
	}
	return nil
}

// CheckPrefix accepts "" (everything), or a key prefix; a prefix that is a
// "directory" should end in a slash.
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if !fs.ValidPath(strings.TrimSuffix(prefix, "/")) || strings.Contains(prefix, `\`) {
		return fmt.Errorf("invalid prefix %q", prefix)
	}
	return nil
}

// InFolder reports whether key lies directly in the folder of prefix (the
// part of prefix up to its last slash), not in a subfolder, and starts
// with prefix: what RemoveTemp cleans.
func InFolder(prefix, key string) bool {
	folder := prefix[:strings.LastIndex(prefix, "/")+1]
	rest, ok := strings.CutPrefix(key, folder)
	return ok && strings.HasPrefix(key, prefix) && !strings.Contains(rest, "/")
}

// SortObjects sorts objs by key, as List returns them.
func SortObjects(objs []Object) {
	slices.SortFunc(objs, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
}

// Join returns the location loc with elems appended to its path: a path
// joined as a path, a URL with its parameters kept (s3://b/runs?region=x
// and "crawl" give s3://b/runs/crawl?region=x).
func Join(loc string, elems ...string) (string, error) {
	if !strings.Contains(loc, "://") {
		return filepath.Join(append([]string{loc}, elems...)...), nil
	}
	u, err := url.Parse(loc)
	if err != nil {
		scheme, _, _ := strings.Cut(loc, "://")
		return "", fmt.Errorf("%s:// location is not a valid URL", scheme)
	}
	u.Path = path.Join(append([]string{"/", u.Path}, elems...)...)
	if u.Scheme != "file" {
		u.Path = strings.TrimPrefix(u.Path, "/")
		if u.Path != "" {
			u.Path = "/" + u.Path
		}
	}
	return u.String(), nil
}

// Redact returns loc as messages and records may show it: a path as it
// is, a URL without user information and without its parameters (they
// hold no secret, but an endpoint or profile name is the operator's
// business, not the dataset's).
func Redact(loc string) string {
	if !strings.Contains(loc, "://") {
		return loc
	}
	u, err := url.Parse(loc)
	if err != nil {
		scheme, _, _ := strings.Cut(loc, "://")
		return scheme + "://…"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
