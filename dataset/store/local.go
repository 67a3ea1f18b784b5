package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Dir is a Store in a local directory. Create writes to a temporary file
// beside the final one (its name ends in [TempSuffix]); Close syncs it,
// links it under the final name (a hard link fails if the name exists,
// atomically, across processes and NFS clients alike), removes the
// temporary name and syncs the directory. A killed process leaves a
// temporary file, which RemoveTemp cleans up.
type Dir struct {
	dir string
}

var _ Store = (*Dir)(nil)

// OpenDir opens the directory dir as a Store, creating it when missing.
func OpenDir(dir string) (*Dir, error) {
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
	return &Dir{dir: abs}, nil
}

// Path returns the directory.
func (s *Dir) Path() string { return s.dir }

// String returns the directory.
func (s *Dir) String() string { return s.dir }

// Close does nothing: a directory holds no connection.
func (s *Dir) Close() error { return nil }

// localPath is the file of key.
func (s *Dir) localPath(key string) string {
	return filepath.Join(s.dir, filepath.FromSlash(key))
}

// fail wraps err, from op on key, with the file's path.
func (s *Dir) fail(op, key string, err error) error {
	return fmt.Errorf("%s %s: %w", op, s.localPath(key), err)
}

// List implements Store.
func (s *Dir) List(ctx context.Context, prefix string) ([]Object, error) {
	if err := CheckPrefix(prefix); err != nil {
		return nil, fmt.Errorf("list %s: %w", s.dir, err)
	}
	objs, err := s.walk(ctx, prefix, false)
	if err != nil {
		return nil, s.fail("list", prefix, err)
	}
	SortObjects(objs)
	return objs, nil
}

// walk walks the directory below prefix. It returns the complete files,
// or with temps the temporary ones only.
func (s *Dir) walk(ctx context.Context, prefix string, temps bool) ([]Object, error) {
	root := s.dir
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		root = s.localPath(prefix[:i])
	}
	var objs []Object
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, TempSuffix) != temps {
			return nil
		}
		rel, err := filepath.Rel(s.dir, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed since the directory was read
		}
		if err != nil {
			return err
		}
		objs = append(objs, Object{Key: key, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return objs, nil
}

// OpenReader implements Store; an *os.File is an io.ReaderAt already.
func (s *Dir) OpenReader(ctx context.Context, key string) (Reader, error) {
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("open %s: %w", s.dir, err)
	}
	f, err := os.Open(s.localPath(key))
	if err != nil {
		return nil, s.fail("open", key, err)
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file: %w", fs.ErrNotExist)
	}
	if err != nil {
		f.Close()
		return nil, s.fail("open", key, err)
	}
	return NewReader(key, info.Size(), f, f.Close), nil
}

// Create implements Store.
func (s *Dir) Create(ctx context.Context, key string) (Writer, error) {
	return s.create(ctx, key, false)
}

// Replace implements Store: the file is renamed over the old one on Close.
func (s *Dir) Replace(ctx context.Context, key string) (Writer, error) {
	return s.create(ctx, key, true)
}

func (s *Dir) create(ctx context.Context, key string, replace bool) (Writer, error) {
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("create in %s: %w", s.dir, err)
	}
	sink, err := createLocal(ctx, s.localPath(key), replace)
	if err != nil {
		return nil, s.fail("create", key, err)
	}
	return NewWriter(key, sink, s.fail), nil
}

// Delete implements Store.
func (s *Dir) Delete(ctx context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return fmt.Errorf("delete in %s: %w", s.dir, err)
	}
	p := s.localPath(key)
	info, err := os.Lstat(p)
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file: %w", fs.ErrNotExist)
	}
	if err == nil {
		err = os.Remove(p)
	}
	if err != nil {
		return s.fail("delete", key, err)
	}
	return nil
}

// Exists implements Store.
func (s *Dir) Exists(ctx context.Context, key string) (bool, error) {
	if err := CheckKey(key); err != nil {
		return false, fmt.Errorf("look up in %s: %w", s.dir, err)
	}
	info, err := os.Lstat(s.localPath(key))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, s.fail("look up", key, err)
	}
	return info.Mode().IsRegular(), nil
}

// Rename implements Store: a hard link (which refuses an existing name,
// atomically) and the removal of the old name, with the directories
// synced.
func (s *Dir) Rename(ctx context.Context, from, to string) error {
	for _, k := range []string{from, to} {
		if err := CheckKey(k); err != nil {
			return fmt.Errorf("rename in %s: %w", s.dir, err)
		}
	}
	if err := s.rename(from, to); err != nil {
		return s.fail("rename "+from+" to", to, err)
	}
	return nil
}

func (s *Dir) rename(from, to string) error {
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

// RemoveTemp implements Store: it removes the temporary files directly in
// the folder of prefix whose names start with its last element.
func (s *Dir) RemoveTemp(ctx context.Context, prefix string) (int, error) {
	if err := CheckPrefix(prefix); err != nil {
		return 0, fmt.Errorf("remove leftovers in %s: %w", s.dir, err)
	}
	temps, err := s.walk(ctx, prefix, true)
	if err != nil {
		return 0, s.fail("remove leftovers", prefix, err)
	}
	n := 0
	for _, t := range temps {
		if !InFolder(prefix, t.Key) {
			continue
		}
		if err := os.Remove(s.localPath(t.Key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, s.fail("remove leftovers", prefix, err)
		}
		n++
	}
	return n, nil
}

// localSink is a file written under a temporary name.
type localSink struct {
	ctx        context.Context // cancelling it aborts the write
	f          *os.File
	tmp, final string
	replace    bool // rename over final; else link, which refuses an existing final
}

// createLocal opens a temporary file beside path, under a unique hidden
// name .<base>.<random>+TempSuffix, so that two writers racing for one key
// never write into the same file, and so that readers that take every
// file of a folder but hidden ones (pyarrow, Spark) skip it as they skip
// every name starting with "." or "_". A key's folders exist as soon as
// one of its objects is created.
func createLocal(ctx context.Context, path string, replace bool) (*localSink, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*"+TempSuffix)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes it 0600
	}
	if err != nil {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
		return nil, err
	}
	return &localSink{ctx: ctx, f: f, tmp: f.Name(), final: path, replace: replace}, nil
}

func (l *localSink) Write(p []byte) (int, error) {
	if err := l.ctx.Err(); err != nil {
		return 0, err
	}
	return l.f.Write(p)
}

// Commit syncs the temporary file, publishes it under the final name and
// syncs the directory, so that the name survives a crash.
func (l *localSink) Commit() error {
	if err := l.ctx.Err(); err != nil {
		l.Abort()
		return err
	}
	if err := l.f.Sync(); err != nil {
		l.Abort()
		return err
	}
	if err := l.f.Close(); err != nil {
		os.Remove(l.tmp)
		return err
	}
	if l.replace {
		if err := os.Rename(l.tmp, l.final); err != nil {
			os.Remove(l.tmp)
			return err
		}
	} else {
		// link(2) fails with EEXIST when final exists, atomically; the
		// temporary name goes either way.
		err := os.Link(l.tmp, l.final)
		os.Remove(l.tmp)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w (another writer published it first)", fs.ErrExist)
		}
		if err != nil {
			return err
		}
	}
	return syncDir(filepath.Dir(l.final))
}

// Abort closes and removes the temporary file.
func (l *localSink) Abort() error {
	l.f.Close()
	if err := os.Remove(l.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// syncDir syncs a directory, so that a rename or link in it survives a
// crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// Locker is a Store that can lock a key with the operating system (a
// directory): the lock lasts until release is called or the holder dies,
// however it dies, so that nothing is left to expire. Stores without it
// (buckets, memory) are locked with leases (package parts).
type Locker interface {
	// TryLock takes the lock of key at once, writing note into it, or
	// fails with a *LockedError carrying the holder's note.
	TryLock(key string, note []byte) (release func() error, err error)
}

// LockedError is TryLock's refusal: another process holds the lock.
type LockedError struct {
	Key string
	// Note is what the holder wrote into the lock (may be partial, or
	// empty, if read while it wrote).
	Note []byte
}

func (e *LockedError) Error() string { return "lock " + e.Key + " is held by another process" }
