package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/parquet-go/parquet-go"

	"actionspace/internal/s3test"
)

// s3srv is the S3-compatible server of this package's tests, started by the
// first test that needs it.
var s3srv s3test.Shared

func TestMain(m *testing.M) { s3srv.Main(m) }

// testPartSize is the smallest part S3 takes, so that a 12 MiB object is a
// multipart upload of three parts.
const testPartSize = 5 << 20

// backend opens a fresh, empty store for one test.
type backend struct {
	name string
	open func(t *testing.T) *Store
}

// forEachBackend runs fn against a directory, and against a prefix of a
// bucket on a real S3-compatible server (skipped under -short).
func forEachBackend(t *testing.T, fn func(t *testing.T, open func(t *testing.T) *Store)) {
	t.Run("dir", func(t *testing.T) {
		fn(t, func(t *testing.T) *Store {
			return mustOpen(t, filepath.Join(t.TempDir(), "data"))
		})
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3srv.Start(t)
		srv.SetEnv(t)
		var n atomic.Int64
		fn(t, func(t *testing.T) *Store {
			return mustOpen(t, srv.URL(srv.Bucket, fmt.Sprintf("t%d/data", n.Add(1))))
		})
	})
}

func mustOpen(t *testing.T, loc string) *Store {
	t.Helper()
	s, err := Open(context.Background(), loc, Config{PartSize: testPartSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// randomBytes returns n reproducible bytes.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func keysOf(objs []Object) []string {
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	return keys
}

func TestStore_CreateListReadDelete(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(t *testing.T) *Store) {
		ctx := context.Background()
		s := open(t)
		objects := map[string][]byte{
			"a.bin":                 []byte("small object"),
			"pages/part-00000.bin":  randomBytes(12<<20+123, 1), // three parts on a bucket
			"pages/x=1/part-01.bin": randomBytes(70000, 2),
			"empty":                 {},
		}
		for key, b := range objects {
			if err := s.Put(ctx, key, b); err != nil {
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
			if got := keysOf(objs); !slices.Equal(got, tt.want) {
				t.Errorf("List(%q) = %q, want %q", tt.prefix, got, tt.want)
			}
			for _, o := range objs {
				if got, want := o.Size, int64(len(objects[o.Key])); got != want {
					t.Errorf("List(%q): %s size %d, want %d", tt.prefix, o.Key, got, want)
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
			{100, 10, 10, false},               // served from the read-ahead block
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

		got, err := s.ReadAll(ctx, "empty")
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
		if got, want := keysOf(objs), []string{"empty", "pages/part-00000.bin", "pages/x=1/part-01.bin"}; !slices.Equal(got, want) {
			t.Errorf("List after Delete = %q, want %q", got, want)
		}
	})
}

func TestStore_CreateRefusesExistingKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(t *testing.T) *Store) {
		ctx := context.Background()
		s := open(t)
		first := []byte("first")
		if err := s.Put(ctx, "k", first); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name string
			body []byte
		}{
			{"single request", []byte("second")},
			{"multipart", randomBytes(11<<20, 3)},
		}
		for _, tt := range tests {
			err := s.Put(ctx, "k", tt.body)
			if !errors.Is(err, fs.ErrExist) {
				t.Errorf("%s: second Put = %v, want fs.ErrExist", tt.name, err)
			}
			got, err := s.ReadAll(ctx, "k")
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
				errs[i] = s.Put(ctx, "race", []byte(fmt.Sprintf("writer %d", i)))
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
	})
}

func TestStore_ObjectInvisibleUntilClose(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(t *testing.T) *Store) {
		ctx := context.Background()
		s := open(t)
		body := randomBytes(12<<20, 4)

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
			t.Errorf("listed before Close: %q", keysOf(objs))
		}
		if _, err := s.OpenReader(ctx, "dir/obj"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("OpenReader before Close = %v, want fs.ErrNotExist", err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		objs, err = s.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := keysOf(objs), []string{"dir/obj"}; !slices.Equal(got, want) || objs[0].Size != int64(len(body)) {
			t.Errorf("after Close: %+v, want %q of %d bytes", objs, want, len(body))
		}
		got, err := s.ReadAll(ctx, "dir/obj")
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
		if _, err := s.RemoveTemp(ctx, "dir/"); err != nil {
			t.Fatal(err)
		}
		if s.s3 != nil {
			// The aborted multipart upload is gone too.
			out, err := s.s3.client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{
				Bucket: aws.String(s.s3.bucket), Prefix: aws.String(s.s3.prefix),
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Uploads) != 0 {
				t.Errorf("%d incomplete uploads left after RemoveTemp", len(out.Uploads))
			}
		}
		objs, err = s.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := keysOf(objs), []string{"dir/obj"}; !slices.Equal(got, want) {
			t.Errorf("after Abort: %q, want %q", got, want)
		}
	})
}

// TestStore_ParquetRangeReads reads a Parquet file through a Reader, as
// bench will: the footer and one column, not the whole object.
func TestStore_ParquetRangeReads(t *testing.T) {
	type row struct {
		ID   int64  `parquet:"id"`
		Text string `parquet:"text"`
	}
	forEachBackend(t, func(t *testing.T, open func(t *testing.T) *Store) {
		ctx := context.Background()
		s := open(t)
		w, err := s.Create(ctx, "t/part-0.parquet")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		pw := parquet.NewGenericWriter[row](w)
		const rows = 20000
		for i := range rows {
			text := fmt.Sprintf("%d %x", i, randomBytes(400, uint64(i)))
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
		if rr, ok := r.ra.(*rangeReader); ok {
			if fetched := rr.fetched.Load(); fetched*2 > r.Size() {
				t.Errorf("fetched %d bytes of a %d-byte object for one small column", fetched, r.Size())
			}
			t.Logf("%d ranged requests fetching %d bytes", rr.requests.Load(), rr.fetched.Load())
		}
	})
}

// TestOpen_S3FromEnvironment: the endpoint and region may come from the
// usual AWS variables instead of URL parameters.
func TestOpen_S3FromEnvironment(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint)
	t.Setenv("AWS_REGION", s3test.Region)
	ctx := context.Background()
	for _, loc := range []string{
		"s3://" + srv.Bucket + "/env?use_path_style=true",
		"s3://" + srv.Bucket + "/env", // an IP endpoint is addressed path style anyway
	} {
		s := mustOpen(t, loc)
		if err := s.Put(ctx, "k", []byte("v")); err != nil && !errors.Is(err, fs.ErrExist) {
			t.Errorf("%s: Put: %v", loc, err)
			continue
		}
		objs, err := s.List(ctx, "")
		if err != nil || len(objs) != 1 {
			t.Errorf("%s: List = %+v, %v", loc, objs, err)
		}
	}
}

type countingReaderAt struct {
	r            io.ReaderAt
	calls, bytes atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.calls.Add(1)
	c.bytes.Add(int64(len(p)))
	return c.r.ReadAt(p, off)
}

func TestStore_LocalTempFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir)
	w, err := s.Create(ctx, "p/part-1.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	// A killed writer leaves its temporary file: simulate by not closing.
	temps, _ := filepath.Glob(filepath.Join(dir, "p", ".part-1.parquet.*"+TempSuffix))
	if len(temps) != 1 {
		t.Fatalf("temporary files %q, want one", temps)
	}
	objs, err := s.List(ctx, "")
	if err != nil || len(objs) != 0 {
		t.Errorf("List with a file in the making = %q, %v; want none", keysOf(objs), err)
	}
	n, err := s.RemoveTemp(ctx, "p/")
	if err != nil || n != 1 {
		t.Errorf("RemoveTemp = %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(temps[0]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file still there: %v", err)
	}
}

func TestCreateFile_Replaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.parquet")
	for _, content := range []string{"one", "two"} {
		w, err := CreateFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, content); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("after Close: %q, %v; want %q", got, err, content)
		}
	}
	w, err := CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, "aborted")
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "two" {
		t.Errorf("after Abort: %q, want two", got)
	}
	if _, err := os.Stat(path + TempSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file left after Abort: %v", err)
	}
}

func TestOpen_Locations(t *testing.T) {
	secret := "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
	dir := t.TempDir()
	tests := []struct {
		loc     string
		wantErr string // "" for success
		kind    Kind
	}{
		{dir, "", KindLocal},
		{"file://" + dir + "/sub", "", KindLocal},
		{"s3://bucket/prefix?endpoint=http://127.0.0.1:9&use_path_style=true&region=us-east-1", "", KindS3},
		{"s3://bucket", "", KindS3},
		{"", "empty location", ""},
		{"s3:///prefix", "without a bucket", ""},
		{"s3://AKIAEXAMPLE:" + secret + "@bucket/p", "credentials in the URL are refused", ""},
		{"s3://bucket/p?secret_key=" + secret, `unknown URL parameter "secret_key"`, ""},
		{"s3://bucket/p?endpoint=http://AKIAEXAMPLE:" + secret + "@127.0.0.1:9", "without credentials", ""},
		{"s3://bucket/p?use_path_style=maybe", "want true or false", ""},
		{"s3://bucket/../p", "invalid prefix", ""},
		{"file://host/x", "want file:///absolute/path", ""},
		{"gs://bucket/p?access_id=" + secret, "takes no URL parameters", ""},
		{"ftp://x/y", `unknown scheme "ftp"`, ""},
	}
	for _, tt := range tests {
		s, err := Open(context.Background(), tt.loc, Config{})
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("Open(%q) = %v", tt.loc, err)
				continue
			}
			if s.Kind() != tt.kind {
				t.Errorf("Open(%q).Kind() = %s, want %s", tt.loc, s.Kind(), tt.kind)
			}
			if strings.Contains(s.String(), "?") {
				t.Errorf("Open(%q).String() = %q carries the parameters", tt.loc, s.String())
			}
			s.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Open(%q) = %v, want an error with %q", tt.loc, err, tt.wantErr)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "AKIAEXAMPLE") {
			t.Errorf("Open(%q): the error quotes a credential: %v", tt.loc, err)
		}
	}
}

func TestConfig_Validate(t *testing.T) {
	tests := []struct {
		cfg     Config
		wantErr string
	}{
		{Config{}, ""},
		{DefaultConfig(), ""},
		{Config{PartSize: 1 << 20}, "PartSize"},
		{Config{Concurrency: -1}, "Concurrency"},
		{Config{ReadAhead: -2}, "ReadAhead"},
		{Config{ReadAhead: -1}, ""},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%+v.Validate() = %v, want %q", tt.cfg, err, tt.wantErr)
		}
	}
}

func TestValidKey(t *testing.T) {
	tests := []struct {
		key  string
		want bool
	}{
		{"a", true},
		{"pages/shard=0003/part-00000.parquet", true},
		{"", false},
		{".", false},
		{"/a", false},
		{"a/", false},
		{"a//b", false},
		{"a/../b", false},
		{"a.parquet" + TempSuffix, false},
		{`a\b`, false},
	}
	for _, tt := range tests {
		if got := ValidKey(tt.key); got != tt.want {
			t.Errorf("ValidKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

// waitUntil sleeps until t, for lock expiry.
func waitUntil(t time.Time) { time.Sleep(time.Until(t) + 10*time.Millisecond) }

// TestStore_Rename moves an object to a free key, refuses a taken one and
// a missing source, on a directory and on S3.
func TestStore_Rename(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(t *testing.T) *Store) {
		ctx := context.Background()
		s := open(t)
		body := randomBytes(1<<20, 7)
		if err := s.Put(ctx, "t/_a.pending", body); err != nil {
			t.Fatal(err)
		}
		if err := s.Put(ctx, "t/taken", []byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := s.Rename(ctx, "t/_a.pending", "t/taken"); !errors.Is(err, fs.ErrExist) {
			t.Errorf("rename onto a taken key: %v, want fs.ErrExist", err)
		}
		if err := s.Rename(ctx, "t/_a.pending", "t/sub/a"); err != nil {
			t.Fatal(err)
		}
		objs, err := s.List(ctx, "t/")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := keysOf(objs), []string{"t/sub/a", "t/taken"}; !slices.Equal(got, want) {
			t.Errorf("after rename: %q, want %q", got, want)
		}
		if got, err := s.ReadAll(ctx, "t/sub/a"); err != nil || !bytes.Equal(got, body) {
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
	})
}

// TestStore_Replace replaces an object, unlike Create.
func TestStore_Replace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, open func(t *testing.T) *Store) {
		ctx := context.Background()
		s := open(t)
		for _, content := range []string{"first", "second"} {
			w, err := s.Replace(ctx, "r/report.md")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write([]byte(content)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatalf("replace with %q: %v", content, err)
			}
		}
		if got, err := s.ReadAll(ctx, "r/report.md"); err != nil || string(got) != "second" {
			t.Errorf("after two replaces: %q, %v; want second", got, err)
		}
	})
}

// TestStore_RemoveTempShallow: a partition's clean-up does not reach the
// partitions below it.
func TestStore_RemoveTempShallow(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := mustOpen(t, dir)
	for _, key := range []string{"p/part-1.parquet", "p/shard=0001/part-1.parquet"} {
		w, err := s.Create(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if _, err := w.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.RemoveTemp(ctx, "p/")
	if err != nil || n != 1 {
		t.Errorf("RemoveTemp(p/) = %d, %v; want 1 (not the one in p/shard=0001/)", n, err)
	}
	if temps, _ := filepath.Glob(filepath.Join(dir, "p", "shard=0001", ".part-1.parquet.*"+TempSuffix)); len(temps) != 1 {
		t.Errorf("the subfolder's temporary file: %q, want it left", temps)
	}
}

func TestJoinAndRedact(t *testing.T) {
	tests := []struct {
		loc, elem, joined, redacted string
	}{
		{"runs/x", "crawl", filepath.Join("runs/x", "crawl"), "runs/x"},
		{"s3://b/runs?endpoint=http://127.0.0.1:9000&region=us-east-1", "crawl", "s3://b/runs/crawl?endpoint=http://127.0.0.1:9000&region=us-east-1", "s3://b/runs"},
		{"s3://b", "crawl", "s3://b/crawl", "s3://b"},
		{"gs://b/p/", "crawl", "gs://b/p/crawl", "gs://b/p/"},
		{"file:///data/runs", "crawl", "file:///data/runs/crawl", "file:///data/runs"},
	}
	for _, tc := range tests {
		got, err := Join(tc.loc, tc.elem)
		if err != nil {
			t.Errorf("Join(%q): %v", tc.loc, err)
			continue
		}
		u1, _ := url.Parse(got)
		u2, _ := url.Parse(tc.joined)
		if got != tc.joined && (u1 == nil || u2 == nil || u1.Path != u2.Path || u1.Query().Encode() != u2.Query().Encode()) {
			t.Errorf("Join(%q, %q) = %q, want %q", tc.loc, tc.elem, got, tc.joined)
		}
		if got := Redact(tc.loc); got != tc.redacted {
			t.Errorf("Redact(%q) = %q, want %q", tc.loc, got, tc.redacted)
		}
	}
	if got := Redact("ws://user:secret@host:3000/?token=abc"); strings.Contains(got, "secret") || strings.Contains(got, "abc") {
		t.Errorf("Redact kept a secret: %q", got)
	}
}
