package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// Exists reports whether a complete object exists at key.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	if err := checkKey(key); err != nil {
		return false, fmt.Errorf("look up in %s: %w", s.loc, err)
	}
	if s.kind == KindLocal {
		info, err := os.Lstat(s.localPath(key))
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, s.fail("look up", key, err)
		}
		return info.Mode().IsRegular(), nil
	}
	ok, err := s.bucket.Exists(ctx, key)
	if err != nil {
		return false, s.fail("look up", key, err)
	}
	return ok, nil
}

// Rename moves the complete object at from to the key to, which must not
// exist: the object appears under to whole, or not at all, and from is
// removed afterwards. It fails with an error matching fs.ErrExist when to
// exists (both objects are then left as they are), and with fs.ErrNotExist
// when from does not.
//
// In a directory it is a hard link (which refuses an existing name,
// atomically) and the removal of the old name, with the directory synced.
// In a bucket it is a server-side copy and a delete: no bytes pass through
// this process, but the store writes the object a second time. A process
// killed between the two steps leaves both keys with the same content; the
// caller's recovery must expect that. On S3 the copy carries If-None-Match:
// *, as an upload does; a bucket that does not honour it on a copy still
// has the existence check before it, which is enough for a single writer
// (the holder of a lock).
func (s *Store) Rename(ctx context.Context, from, to string) error {
	for _, k := range []string{from, to} {
		if err := checkKey(k); err != nil {
			return fmt.Errorf("rename in %s: %w", s.loc, err)
		}
	}
	var err error
	if s.kind == KindLocal {
		err = s.renameLocal(from, to)
	} else {
		err = s.renameBucket(ctx, from, to)
	}
	if err != nil {
		return s.fail("rename "+from+" to", to, err)
	}
	return nil
}

func (s *Store) renameLocal(from, to string) error {
	src, dst := s.localPath(from), s.localPath(to)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Link(src, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w (the target exists)", fs.ErrExist)
		}
		return err
	}
	if err := syncDir(filepath.Dir(dst)); err != nil {
		return err
	}
	if err := os.Remove(src); err != nil {
		return err
	}
	return syncDir(filepath.Dir(src))
}

func (s *Store) renameBucket(ctx context.Context, from, to string) error {
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

// Replace starts an object at key that replaces whatever is there when the
// Writer's Close succeeds: for results that a later run may write again
// (a benchmark's report), never for dataset parts, which Create publishes
// once. Until Close the old object, if any, stays as it was.
func (s *Store) Replace(ctx context.Context, key string) (*Writer, error) {
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("create in %s: %w", s.loc, err)
	}
	var w *Writer
	var err error
	if s.kind == KindLocal {
		p := s.localPath(key)
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			w, err = createLocal(p, key, true)
		}
	} else {
		w, err = s.createBucketOpts(ctx, key, false)
	}
	if err != nil {
		return nil, s.fail("create", key, err)
	}
	w.store = s
	return w, nil
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
