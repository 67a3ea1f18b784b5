// Package storetest is the conformance suite of store.Store: one set of
// tests that every backend runs (the directory and memory stores in
// package store's tests, S3 in package bucket's against a real server), so
// that the parts protocol can rely on the same behaviour everywhere.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/parquet-go/parquet-go"

	"actionspace/dataset/store"
)

// BigObject is the size of the objects the suite writes to cross part
// boundaries: more than two parts of store.MinPartSize, so that a bucket
// opened with that part size makes multipart uploads.
const BigObject = 12<<20 + 123

// Opener opens a fresh, empty store for one test; it registers its own
// clean-up.
type Opener func(t *testing.T) store.Store

// Run runs every conformance test against the stores open makes.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"CreateListReadDelete", testCreateListReadDelete},
		{"CreateRefusesExistingKey", testCreateRefusesExistingKey},
		{"InvisibleUntilClose", testInvisibleUntilClose},
		{"ParquetRangeReads", testParquetRangeReads},
		{"Rename", testRename},
		{"Replace", testReplace},
		{"InvalidKeys", testInvalidKeys},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

// RandomBytes returns n reproducible bytes.
func RandomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// Keys returns the keys of objs.
func Keys(objs []store.Object) []string {
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	return keys
}

func testCreateListReadDelete(t *testing.T, s store.Store) {
	ctx := context.Background()
	objects := map[string][]byte{
		"a.bin":                 []byte("small object"),
		"pages/part-00000.bin":  RandomBytes(BigObject, 1),
		"pages/x=1/part-01.bin": RandomBytes(70000, 2),
		"empty":                 {},
	}
	for key, b := range objects {
		if err := store.Put(ctx, s, key, b); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"a.bin", "empty", "pages/part-00000.bin", "pages/x=1/part-01.bin"}},
		{"pages/", []string{"pages/part-00000.bin", "pages/x=1/part-01.bin"}},
		{"pages/x=1/", []string{"pages/x=1/part-01.bin"}},
		{"pa", []string{"pages/part-00000.bin", "pages/x=1/part-01.bin"}},
		{"nothing/", nil},
	}
	for _, tt := range tests {
		objs, err := s.List(ctx, tt.prefix)
		if err != nil {
			t.Fatal(err)
		}
		if got := Keys(objs); !slices.Equal(got, tt.want) {
			t.Errorf("List(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
		for _, o := range objs {
			if got, want := o.Size, int64(len(objects[o.Key])); got != want {
				t.Errorf("List(%q): %s size %d, want %d", tt.prefix, o.Key, got, want)
			}
			if o.ModTime.IsZero() {
				t.Errorf("List(%q): %s has no ModTime", tt.prefix, o.Key)
			}
		}
	}

	big := objects["pages/part-00000.bin"]
	r, err := s.OpenReader(ctx, "pages/part-00000.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, want := r.Size(), int64(len(big)); got != want {
		t.Fatalf("Size = %d, want %d", got, want)
	}
	reads := []struct {
		off, n  int64
		wantN   int
		wantEOF bool
	}{
		{0, 8, 8, false},
		{int64(len(big)) - 8, 8, 8, false}, // a footer
		{6 << 20, 3 << 20, 3 << 20, false}, // across a part boundary, above read-ahead
		{100, 10, 10, false},               // served from a read-ahead block
		{int64(len(big)) - 4, 16, 4, true}, // past the end
		{int64(len(big)), 1, 0, true},      // at the end
		{5<<20 - 2, 4, 4, false},           // across a part boundary, small
		{int64(len(big)) - 1<<20, 1 << 20, 1 << 20, false},
	}
	for _, rd := range reads {
		p := make([]byte, rd.n)
		n, err := r.ReadAt(p, rd.off)
		if n != rd.wantN || (err == io.EOF) != rd.wantEOF || (err != nil && err != io.EOF) {
			t.Fatalf("ReadAt(%d bytes at %d) = %d, %v; want %d, EOF %v", rd.n, rd.off, n, err, rd.wantN, rd.wantEOF)
		}
		if !bytes.Equal(p[:n], big[rd.off:rd.off+int64(n)]) {
			t.Fatalf("ReadAt(%d bytes at %d): wrong bytes", rd.n, rd.off)
		}
	}
	if _, err := r.ReadAt(make([]byte, 1), -1); err == nil {
		t.Error("ReadAt at a negative offset: no error")
	}

	got, err := store.ReadAll(ctx, s, "empty")
	if err != nil || len(got) != 0 {
		t.Errorf("ReadAll(empty) = %q, %v", got, err)
	}
	if err := s.Delete(ctx, "a.bin"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a.bin"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("second Delete = %v, want fs.ErrNotExist", err)
	}
	if _, err := s.OpenReader(ctx, "a.bin"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenReader(deleted) = %v, want fs.ErrNotExist", err)
	}
	objs, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Keys(objs), []string{"empty", "pages/part-00000.bin", "pages/x=1/part-01.bin"}; !slices.Equal(got, want) {
		t.Errorf("List after Delete = %q, want %q", got, want)
	}
}

func testCreateRefusesExistingKey(t *testing.T, s store.Store) {
	ctx := context.Background()
	first := []byte("first")
	if err := store.Put(ctx, s, "k", first); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		body []byte
	}{
		{"single request", []byte("second")},
		{"multipart", RandomBytes(11<<20, 3)},
	}
	for _, tt := range tests {
		if err := store.Put(ctx, s, "k", tt.body); !errors.Is(err, fs.ErrExist) {
			t.Errorf("%s: second Put = %v, want fs.ErrExist", tt.name, err)
		}
		got, err := store.ReadAll(ctx, s, "k")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, first) {
			t.Errorf("%s: object overwritten: %d bytes, want %q", tt.name, len(got), first)
		}
	}

	// Racing writers of one new key: exactly one wins.
	const writers = 6
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			errs[i] = store.Put(ctx, s, "race", fmt.Appendf(nil, "writer %d", i))
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("racing Put: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d racing writers won, want 1 (errors %v)", won, writers, errs)
	}
}

func testInvisibleUntilClose(t *testing.T, s store.Store) {
	ctx := context.Background()
	body := RandomBytes(BigObject, 4)
	w, err := s.Create(ctx, "dir/obj")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	// More than two parts: a bucket has sent parts by now.
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	objs, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 0 {
		t.Errorf("listed before Close: %q", Keys(objs))
	}
	if _, err := s.OpenReader(ctx, "dir/obj"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenReader before Close = %v, want fs.ErrNotExist", err)
	}
	if ok, err := s.Exists(ctx, "dir/obj"); ok || err != nil {
		t.Errorf("Exists before Close = %v, %v; want false", ok, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("second Close: no error")
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("Write after Close: no error")
	}
	objs, err = s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Keys(objs), []string{"dir/obj"}; !slices.Equal(got, want) || objs[0].Size != int64(len(body)) {
		t.Errorf("after Close: %+v, want %q of %d bytes", objs, want, len(body))
	}
	got, err := store.ReadAll(ctx, s, "dir/obj")
	if err != nil || !bytes.Equal(got, body) {
		t.Errorf("ReadAll after Close: %d bytes, %v; want the %d written", len(got), err, len(body))
	}

	// An aborted object never appears; its leftovers can be cleaned.
	w, err = s.Create(ctx, "dir/aborted")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("second Abort = %v, want nil", err)
	}
	if _, err := s.RemoveTemp(ctx, "dir/"); err != nil {
		t.Fatal(err)
	}
	// A cancelled context aborts the write.
	cctx, cancel := context.WithCancel(ctx)
	w, err = s.Create(cctx, "dir/cancelled")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("x"))
	cancel()
	if err := w.Close(); err == nil {
		t.Error("Close after the context was cancelled: no error")
	}
	objs, err = s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Keys(objs), []string{"dir/obj"}; !slices.Equal(got, want) {
		t.Errorf("after Abort and cancel: %q, want %q", got, want)
	}
}

// countingReaderAt counts the reads a Parquet reader makes.
type countingReaderAt struct {
	r            io.ReaderAt
	calls, bytes atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.calls.Add(1)
	c.bytes.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

// testParquetRangeReads reads a Parquet file through a Reader, as bench
// does: the footer and one column, not the whole object.
func testParquetRangeReads(t *testing.T, s store.Store) {
	type row struct {
		ID   int64  `parquet:"id"`
		Text string `parquet:"text"`
	}
	ctx := context.Background()
	w, err := s.Create(ctx, "t/part-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	pw := parquet.NewGenericWriter[row](w)
	const rows = 20000
	for i := range rows {
		text := fmt.Sprintf("%d %x", i, RandomBytes(400, uint64(i)))
		if _, err := pw.Write([]row{{ID: int64(i), Text: text}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := s.OpenReader(ctx, "t/part-0.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	counted := &countingReaderAt{r: r}
	f, err := parquet.OpenFile(counted, r.Size())
	if err != nil {
		t.Fatal(err)
	}
	if got := f.NumRows(); got != rows {
		t.Fatalf("NumRows = %d, want %d", got, rows)
	}
	col, ok := f.Schema().Lookup("id")
	if !ok {
		t.Fatal("no id column")
	}
	var sum, n int64
	for _, rg := range f.RowGroups() {
		pages := rg.ColumnChunks()[col.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			vals := make([]parquet.Value, p.NumValues())
			k, _ := p.Values().ReadValues(vals)
			for _, v := range vals[:k] {
				sum += v.Int64()
				n++
			}
		}
		pages.Close()
	}
	if n != rows || sum != rows*(rows-1)/2 {
		t.Errorf("id column: %d values summing to %d, want %d summing to %d", n, sum, rows, rows*(rows-1)/2)
	}
	if read := counted.bytes.Load(); read*2 > r.Size() {
		t.Errorf("read %d bytes of a %d-byte file for one small column: not ranged", read, r.Size())
	}
	t.Logf("%d ReadAt calls asking %d bytes of %d", counted.calls.Load(), counted.bytes.Load(), r.Size())
}

// testRename moves an object to a free key, refuses a taken one and a
// missing source.
func testRename(t *testing.T, s store.Store) {
	ctx := context.Background()
	body := RandomBytes(1<<20, 7)
	if err := store.Put(ctx, s, "t/_a.pending", body); err != nil {
		t.Fatal(err)
	}
	if err := store.Put(ctx, s, "t/taken", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Rename(ctx, "t/_a.pending", "t/taken"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("rename onto a taken key: %v, want fs.ErrExist", err)
	}
	if got, err := store.ReadAll(ctx, s, "t/taken"); err != nil || string(got) != "x" {
		t.Errorf("the taken key after a refused rename: %q, %v; want x", got, err)
	}
	if err := s.Rename(ctx, "t/_a.pending", "t/sub/a"); err != nil {
		t.Fatal(err)
	}
	objs, err := s.List(ctx, "t/")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Keys(objs), []string{"t/sub/a", "t/taken"}; !slices.Equal(got, want) {
		t.Errorf("after rename: %q, want %q", got, want)
	}
	if got, err := store.ReadAll(ctx, s, "t/sub/a"); err != nil || !bytes.Equal(got, body) {
		t.Errorf("renamed object: %d bytes, %v; want the %d written", len(got), err, len(body))
	}
	if err := s.Rename(ctx, "t/_a.pending", "t/b"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("rename of a missing key: %v, want fs.ErrNotExist", err)
	}
	if ok, err := s.Exists(ctx, "t/sub/a"); !ok || err != nil {
		t.Errorf("Exists(t/sub/a) = %v, %v; want true", ok, err)
	}
	if ok, err := s.Exists(ctx, "t/_a.pending"); ok || err != nil {
		t.Errorf("Exists(t/_a.pending) = %v, %v; want false", ok, err)
	}
}

// testReplace replaces an object, unlike Create, and leaves the old one
// until Close.
func testReplace(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, content := range []string{"first", "second"} {
		w, err := s.Replace(ctx, "r/report.md")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
		if content == "second" {
			if got, err := store.ReadAll(ctx, s, "r/report.md"); err != nil || string(got) != "first" {
				t.Errorf("before the second Close: %q, %v; want first", got, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatalf("replace with %q: %v", content, err)
		}
	}
	if got, err := store.ReadAll(ctx, s, "r/report.md"); err != nil || string(got) != "second" {
		t.Errorf("after two replaces: %q, %v; want second", got, err)
	}
	w, err := s.Replace(ctx, "r/report.md")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("aborted"))
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if got, err := store.ReadAll(ctx, s, "r/report.md"); err != nil || string(got) != "second" {
		t.Errorf("after an aborted replace: %q, %v; want second", got, err)
	}
}

// testInvalidKeys: every method refuses a key ValidKey refuses, before it
// touches the store.
func testInvalidKeys(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, key := range []string{"", "/a", "a/../b", "a" + store.TempSuffix} {
		if _, err := s.Create(ctx, key); err == nil {
			t.Errorf("Create(%q): no error", key)
		}
		if _, err := s.OpenReader(ctx, key); err == nil {
			t.Errorf("OpenReader(%q): no error", key)
		}
		if err := s.Delete(ctx, key); err == nil {
			t.Errorf("Delete(%q): no error", key)
		}
		if _, err := s.Exists(ctx, key); err == nil {
			t.Errorf("Exists(%q): no error", key)
		}
	}
	if _, err := s.List(ctx, "../x"); err == nil {
		t.Error(`List("../x"): no error`)
	}
}
