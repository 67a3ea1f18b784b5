package store

import (
	"errors"
	"fmt"
	"io"
)

// Writer writes one object, which becomes visible only when Close succeeds
// (see [Store.Create] and [Store.Replace]). It is not safe for concurrent
// use. After an error, every method but Abort returns it.
type Writer interface {
	io.Writer
	// Close finishes the object and makes it visible. On error nothing is
	// visible under the key (but for a local directory whose sync fails
	// after the file was linked into place), and an existing object is
	// untouched: Create's object that exists already gives an error
	// matching fs.ErrExist.
	Close() error
	// Abort discards the object. It does nothing after Close or Abort, so
	// it can be deferred right after Create.
	Abort() error
}

// Sink is where a backend's Writer sends the bytes of one object (a
// temporary file, an upload, a buffer); [NewWriter] makes it a Writer.
type Sink interface {
	Write(p []byte) (int, error)
	// Commit makes the object visible under its final name.
	Commit() error
	// Abort discards everything written.
	Abort() error
}

// errClosed is returned by a Writer's methods after Close or Abort.
var errClosed = errors.New("store writer already closed")

// NewWriter returns the Writer of the object key written to sink: it keeps
// the first error, refuses use after Close or Abort, and wraps every error
// with wrap (the backend's "op location: err", which may also mask
// credentials).
func NewWriter(key string, sink Sink, wrap func(op, key string, err error) error) Writer {
	return &writer{key: key, sink: sink, wrap: wrap}
}

// writer is the Writer NewWriter returns.
type writer struct {
	key  string
	sink Sink
	wrap func(op, key string, err error) error
	err  error
	done bool
}

func (w *writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, errClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.sink.Write(p)
	if err != nil {
		w.err = w.wrap("write", w.key, err)
	}
	return n, w.err
}

func (w *writer) Close() error {
	if w.done {
		return errClosed
	}
	w.done = true
	if w.err != nil {
		w.sink.Abort()
		return w.err
	}
	if err := w.sink.Commit(); err != nil {
		w.err = w.wrap("publish", w.key, err)
		return w.err
	}
	return nil
}

func (w *writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	if w.err == nil {
		w.err = errClosed
	}
	if err := w.sink.Abort(); err != nil {
		return w.wrap("abort", w.key, err)
	}
	return nil
}

// Reader reads one object at random offsets, which is what a Parquet
// reader needs: the footer, then the column chunks it wants. Its ReadAt
// is safe for concurrent use, as io.ReaderAt asks; fewer bytes than asked
// come only with an error, io.EOF at the end of the object.
type Reader interface {
	io.ReaderAt
	// Size returns the object's size in bytes, as it was when opened.
	Size() int64
	// Close releases the Reader.
	Close() error
}

// NewReader returns the Reader of an object of size bytes read through ra;
// close, if not nil, releases it. A negative offset is refused before ra
// sees it.
func NewReader(key string, size int64, ra io.ReaderAt, close func() error) Reader {
	return &reader{key: key, size: size, ra: ra, close: close}
}

// reader is the Reader NewReader returns.
type reader struct {
	key   string
	size  int64
	ra    io.ReaderAt
	close func() error
}

func (r *reader) Size() int64 { return r.size }

func (r *reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", r.key, off)
	}
	return r.ra.ReadAt(p, off)
}

func (r *reader) Close() error {
	if r.close == nil {
		return nil
	}
	return r.close()
}

// Unwrap returns the io.ReaderAt the Reader reads through, for tests that
// count a backend's requests.
func (r *reader) Unwrap() io.ReaderAt { return r.ra }
