package store_test

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actionspace/dataset/store"
	"actionspace/dataset/store/storetest"
)

// TestDir_Conformance runs the conformance suite on a local directory.
func TestDir_Conformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store {
		return mustOpen(t, filepath.Join(t.TempDir(), "data"))
	})
}

// TestMemory_Conformance runs the conformance suite in memory.
func TestMemory_Conformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store { return store.NewMemory(t.Name()) })
}

func mustOpen(t *testing.T, loc string) store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), loc, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestDir_TempFiles(t *testing.T) {
	t.Parallel()
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
	temps, _ := filepath.Glob(filepath.Join(dir, "p", ".part-1.parquet.*"+store.TempSuffix))
	if len(temps) != 1 {
		t.Fatalf("temporary files %q, want one", temps)
	}
	objs, err := s.List(ctx, "")
	if err != nil || len(objs) != 0 {
		t.Errorf("List with a file in the making = %q, %v; want none", storetest.Keys(objs), err)
	}
	n, err := s.RemoveTemp(ctx, "p/")
	if err != nil || n != 1 {
		t.Errorf("RemoveTemp = %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(temps[0]); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temporary file still there: %v", err)
	}
}

// TestDir_RemoveTempShallow: a partition's clean-up does not reach the
// partitions below it.
func TestDir_RemoveTempShallow(t *testing.T) {
	t.Parallel()
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
	if temps, _ := filepath.Glob(filepath.Join(dir, "p", "shard=0001", ".part-1.parquet.*"+store.TempSuffix)); len(temps) != 1 {
		t.Errorf("the subfolder's temporary file: %q, want it left", temps)
	}
}

// TestOpen_Locations: paths and file URLs open a directory; a bucket
// scheme nobody registered is refused with a message that says so; no
// error quotes a credential.
func TestOpen_Locations(t *testing.T) {
	secret := "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
	dir := t.TempDir()
	tests := []struct {
		loc     string
		wantErr string // "" for success
	}{
		{dir, ""},
		{"file://" + dir + "/sub", ""},
		{"", "empty location"},
		{"file://host/x", "want file:///absolute/path"},
		{"file://" + dir + "?x=1", "takes no parameters"},
		{"s3://AKIAEXAMPLE:" + secret + "@bucket/p", "credentials in the URL are refused"},
		{"ftp://x/y", `unknown scheme "ftp"`},
		{"s3://bucket/p", `unknown scheme "s3"`},
	}
	for _, tt := range tests {
		s, err := store.Open(context.Background(), tt.loc, store.Config{})
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("Open(%q) = %v", tt.loc, err)
				continue
			}
			if _, ok := s.(*store.Dir); !ok {
				t.Errorf("Open(%q) = %T, want a *store.Dir", tt.loc, s)
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
	t.Parallel()
	tests := []struct {
		cfg     store.Config
		wantErr string
	}{
		{store.Config{}, ""},
		{store.DefaultConfig(), ""},
		{store.Config{PartSize: 1 << 20}, "PartSize"},
		{store.Config{Concurrency: -1}, "Concurrency"},
		{store.Config{ReadAhead: -2}, "ReadAhead"},
		{store.Config{ReadAhead: -1}, ""},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%+v.Validate() = %v, want %q", tt.cfg, err, tt.wantErr)
		}
	}
}

func TestValidKey(t *testing.T) {
	t.Parallel()
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
		{"a.parquet" + store.TempSuffix, false},
		{`a\b`, false},
	}
	for _, tt := range tests {
		if got := store.ValidKey(tt.key); got != tt.want {
			t.Errorf("ValidKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestJoinAndRedact(t *testing.T) {
	t.Parallel()
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
		got, err := store.Join(tc.loc, tc.elem)
		if err != nil {
			t.Errorf("Join(%q): %v", tc.loc, err)
			continue
		}
		u1, _ := url.Parse(got)
		u2, _ := url.Parse(tc.joined)
		if got != tc.joined && (u1 == nil || u2 == nil || u1.Path != u2.Path || u1.Query().Encode() != u2.Query().Encode()) {
			t.Errorf("Join(%q, %q) = %q, want %q", tc.loc, tc.elem, got, tc.joined)
		}
		if got := store.Redact(tc.loc); got != tc.redacted {
			t.Errorf("Redact(%q) = %q, want %q", tc.loc, got, tc.redacted)
		}
	}
	if got := store.Redact("ws://user:secret@host:3000/?token=abc"); strings.Contains(got, "secret") || strings.Contains(got, "abc") {
		t.Errorf("Redact kept a secret: %q", got)
	}
}

// TestReadAll_refusesLarge: ReadAll allocates an object's size, so it
// refuses one larger than MaxReadAll.
func TestReadAll_refusesLarge(t *testing.T) {
	ctx := context.Background()
	m := store.NewMemory(t.Name())
	if err := store.Put(ctx, m, "big", make([]byte, store.MaxReadAll+1)); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ReadAll(ctx, m, "big"); err == nil || !strings.Contains(err.Error(), "small object") {
		t.Errorf("ReadAll of %d bytes: %v, want it refused", store.MaxReadAll+1, err)
	}
	if err := store.Put(ctx, m, "small", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, err := store.ReadAll(ctx, m, "small"); err != nil || string(b) != "x" {
		t.Errorf("ReadAll of a small object: %q, %v", b, err)
	}
}
