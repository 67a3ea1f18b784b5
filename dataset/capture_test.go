package dataset

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

func TestCompressCapture(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	var big bytes.Buffer
	big.WriteString(`{"nodes":[`)
	for i := range 20000 {
		fmt.Fprintf(&big, `{"tag":"div","id":%d,"rect":[0,%d,1280,24],"text":"row %d"},`, i, 24*i, i)
	}
	big.WriteString(`{}]}`)

	tests := []struct {
		name      string
		raw       []byte
		wantNil   bool
		wantSmall bool // compressed to under a quarter
	}{
		{"nil", nil, true, false},
		{"empty", []byte{}, true, false},
		{"small", []byte(`{"url":"http://127.0.0.1/","nodes":[]}`), false, false},
		{"large json", big.Bytes(), false, true},
		{"random", random, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := CompressCapture(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if (c == nil) != tt.wantNil {
				t.Fatalf("CompressCapture returned nil = %v, want %v", c == nil, tt.wantNil)
			}
			if tt.wantSmall && len(c) > len(tt.raw)/4 {
				t.Errorf("compressed %d bytes to %d", len(tt.raw), len(c))
			}
			got, err := DecompressCapture(c)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.raw) {
				t.Errorf("round trip changed the capture (%d bytes, want %d)", len(got), len(tt.raw))
			}
		})
	}
}

func TestDecompressCapture_invalid(t *testing.T) {
	c, err := CompressCapture([]byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"not zstd":  []byte(`{"a":1}`),
		"truncated": c[:len(c)-2],
	} {
		if _, err := DecompressCapture(b); err == nil {
			t.Errorf("%s: got nil error", name)
		}
	}
}

// Captures are compressed by many workers at once; run with -race.
func TestCompressCapture_concurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				raw := []byte(fmt.Sprintf(`{"worker":%d,"i":%d,"pad":"%0200d"}`, g, i, i))
				c, err := CompressCapture(raw)
				if err == nil {
					var got []byte
					got, err = DecompressCapture(c)
					if err == nil && !bytes.Equal(got, raw) {
						err = fmt.Errorf("worker %d: round trip %d changed the capture", g, i)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Blobs rows store the compressed capture; it reads back intact.
func TestBlobRow_captureRoundTrip(t *testing.T) {
	raw := []byte(`{"url":"http://127.0.0.1/login","nodes":[{"tag":"button","text":"Sign in"}]}`)
	c, err := CompressCapture(raw)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/blobs.parquet"
	rows := []BlobRow{
		{PageID: "p1", Capture: c, CaptureEncoding: CaptureEncoding},
		{PageID: "p2"},
	}
	mustWrite(t, path, Metadata{}, WriterConfig{}, rows)
	got, err := ReadAll[BlobRow](path)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := DecompressCapture(got[0].Capture)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dec, raw) || got[0].CaptureEncoding != CaptureEncoding {
		t.Errorf("capture = %q (%s), want %q (%s)", dec, got[0].CaptureEncoding, raw, CaptureEncoding)
	}
	if got[1].Capture != nil {
		t.Errorf("null capture read back as %#v, want nil", got[1].Capture)
	}
}
