package store

import (
	"errors"
	"fmt"
	"io"
)

// errClosed is returned by a Writer's methods after Close or Abort.
var errClosed = errors.New("store writer already closed")

// sink is where a Writer's bytes go: a local temporary file or an upload.
type sink interface {
	Write(p []byte) (int, error)
	// commit makes the object visible under its final name.
	commit() error
	// abort discards everything written.
	abort() error
}

// Writer writes one object, which becomes visible only when Close succeeds
// (see [Store.Create] and [CreateFile]). It is not safe for concurrent use.
// After an error, every method but Abort returns it.
type Writer struct {
	name  string // the key, or the path of a CreateFile
	sink  sink
	store *Store // nil for CreateFile
	n     int64
	err   error
	done  bool
}

// Name returns the key of the object (for CreateFile, its path).
func (w *Writer) Name() string { return w.name }

// Size returns the number of bytes written so far.
func (w *Writer) Size() int64 { return w.n }

// Write writes p to the object.
func (w *Writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, errClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.sink.Write(p)
	w.n += int64(n)
	if err != nil {
		w.err = w.wrap("write", err)
	}
	return n, w.err
}

// Close finishes the object and makes it visible. On error nothing is
// visible under the name (but for a local directory whose sync fails after
// the file was linked into place), and an existing object is untouched: a
// Store's object that exists already gives an error matching fs.ErrExist.
func (w *Writer) Close() error {
	if w.done {
		return errClosed
	}
	w.done = true
	if w.err != nil {
		w.sink.abort()
		return w.err
	}
	if err := w.sink.commit(); err != nil {
		w.err = w.wrap("publish", err)
		return w.err
	}
	return nil
}

// Abort discards the object. It does nothing after Close or Abort, so it
// can be deferred right after Create.
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	if w.err == nil {
		w.err = errClosed
	}
	if err := w.sink.abort(); err != nil {
		return w.wrap("abort", err)
	}
	return nil
}

func (w *Writer) wrap(op string, err error) error {
	if w.store != nil {
		return w.store.fail(op, w.name, err)
	}
	return fmt.Errorf("%s %s: %w", op, w.name, err)
}

// Reader reads one object at random offsets. Its ReadAt is safe for
// concurrent use, as io.ReaderAt asks.
type Reader struct {
	key   string
	size  int64
	ra    io.ReaderAt
	close func() error
}

var _ io.ReaderAt = (*Reader)(nil)

// Key returns the object's key.
func (r *Reader) Key() string { return r.key }

// Size returns the object's size in bytes, as it was when opened.
func (r *Reader) Size() int64 { return r.size }

// ReadAt reads len(p) bytes from offset off, with io.ReaderAt's contract:
// fewer bytes come only with an error, io.EOF at the end of the object.
func (r *Reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", r.key, off)
	}
	return r.ra.ReadAt(p, off)
}

// Close releases the Reader.
func (r *Reader) Close() error {
	if r.close == nil {
		return nil
	}
	return r.close()
}
