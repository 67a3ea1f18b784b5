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

// CreateFile starts a local file that appears at path, complete, when the
// Writer's Close succeeds, replacing any file there (path's directory must
// exist); on failure or Abort
// nothing changes at path. The bytes go to path+TempSuffix, which Close
// syncs and renames to path before it syncs the directory. A process
// killed before Close leaves the temporary file, which the next CreateFile
// at the same path truncates.
func CreateFile(path string) (*Writer, error) {
	w, err := createLocal(path, path, true)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return w, nil
}

// localSink is a file written under a temporary name.
type localSink struct {
	f          *os.File
	tmp, final string
	replace    bool // rename over final; else link, which refuses an existing final
}

// createLocal opens the temporary file of path. A replacing writer uses the
// one name path+TempSuffix; an exclusive one (Store.Create) a unique hidden
// name .<base>.<random>+TempSuffix beside it, so that two writers racing
// for one key never write into the same file, and so that readers that
// take every file of a folder but hidden ones (pyarrow, Spark) skip it as
// they skip every name starting with "." or "_".
func createLocal(path, name string, replace bool) (*Writer, error) {
	dir := filepath.Dir(path)
	var f *os.File
	var err error
	if replace {
		f, err = os.OpenFile(path+TempSuffix, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	} else {
		// A key's folders exist as soon as one of its objects is created.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		f, err = os.CreateTemp(dir, "."+filepath.Base(path)+".*"+TempSuffix)
		if err == nil {
			err = f.Chmod(0o644) // CreateTemp makes it 0600
		}
	}
	if err != nil {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
		}
		return nil, err
	}
	return &Writer{name: name, sink: &localSink{f: f, tmp: f.Name(), final: path, replace: replace}}, nil
}

func (l *localSink) Write(p []byte) (int, error) { return l.f.Write(p) }

// commit syncs the temporary file, publishes it under the final name and
// syncs the directory, so that the name survives a crash.
func (l *localSink) commit() error {
	if err := l.f.Sync(); err != nil {
		l.abort()
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

// abort closes and removes the temporary file.
func (l *localSink) abort() error {
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

// localPath is the file of key.
func (s *Store) localPath(key string) string {
	return filepath.Join(s.dir, filepath.FromSlash(key))
}

// listLocal walks the directory below prefix. It returns the complete
// files, or with temps the temporary ones only.
func (s *Store) listLocal(ctx context.Context, prefix string, temps bool) ([]Object, error) {
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

// openLocal opens the file of key; an *os.File is an io.ReaderAt already.
func (s *Store) openLocal(key string) (*Reader, error) {
	f, err := os.Open(s.localPath(key))
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file: %w", key, fs.ErrNotExist)
	}
	return &Reader{key: key, size: info.Size(), ra: f, close: f.Close}, nil
}

func (s *Store) deleteLocal(key string) error {
	p := s.localPath(key)
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file: %w", key, fs.ErrNotExist)
	}
	return os.Remove(p)
}

// removeTempLocal removes the temporary files directly in the folder of
// prefix whose names start with its last element.
func (s *Store) removeTempLocal(ctx context.Context, prefix string) (int, error) {
	temps, err := s.listLocal(ctx, prefix, true)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range temps {
		if !inFolder(prefix, t.Key) {
			continue
		}
		if err := os.Remove(s.localPath(t.Key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}
