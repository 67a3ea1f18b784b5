package dataset

import (
	"bytes"
	"encoding/binary"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// bomb returns a zstd frame of a few kilobytes that decompresses to n
// bytes of JSON-looking padding; with size, the frame declares n.
func bomb(t *testing.T, n int, size bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		t.Fatal(err)
	}
	if size {
		enc.ResetContentSize(&buf, int64(n))
	} else {
		enc.Reset(&buf)
	}
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	copy(chunk, `{"version":1,"page":{"url":"`)
	for written := 0; written < n; written += len(chunk) {
		if _, err := enc.Write(chunk[:min(len(chunk), n-written)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDecompressCaptureMax_bomb: a capture of tens of kilobytes that
// decompresses to 256 MiB is refused for a bound of a few megabytes, having
// allocated a few times the bound (the output buffer's growth, the
// decoder's window), never the 256 MiB; with its size declared in the
// frame, before decoding at all. A record within the bound decodes.
func TestDecompressCaptureMax_bomb(t *testing.T) {
	const huge, limit = 256 << 20, 4 << 20
	for _, declared := range []bool{true, false} {
		b := bomb(t, huge, declared)
		if len(b) > 64<<10 {
			t.Fatalf("the bomb is %d bytes, want a few kilobytes", len(b))
		}
		var err error
		alloc := allocated(func() { _, err = DecompressCaptureMax(b, limit) })
		if err == nil || !strings.Contains(err.Error(), "dataset's caps") {
			t.Errorf("declared %v: a %d-byte frame of %d bytes: %v, want it refused by the bound", declared, len(b), huge, err)
		}
		// 16 times the bound is still a quarter of the bomb: without the
		// bound it allocates the whole 256 MiB. The margin covers the race
		// detector, under which sync.Pool keeps nothing, so the decoder's
		// buffers are allocated afresh (38 MB measured there, 1 KB to a
		// few MB without it).
		if alloc > 16*limit {
			t.Errorf("declared %v: refusing allocated %d bytes, want a few times the bound (%d) at most", declared, alloc, limit)
		}
		t.Logf("declared %v: %d-byte frame refused, %d bytes allocated: %v", declared, len(b), alloc, err)
	}
	small := bomb(t, limit/2, false)
	raw, err := DecompressCaptureMax(small, limit)
	if err != nil || len(raw) != limit/2 {
		t.Errorf("a record within the bound: %d bytes, %v; want %d", len(raw), err, limit/2)
	}
}

// TestOpenFile_hostileFooter: a file whose last bytes claim a footer
// larger than the file (or than MaxFooterBytes) is refused before a
// reader allocates the footer.
func TestOpenFile_hostileFooter(t *testing.T) {
	for _, n := range []uint32{0xFFFFFFF0, MaxFooterBytes + 1, 100} {
		file := append([]byte("PAR1"), make([]byte, 40)...)
		file = append(file, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
		file = append(file, "PAR1"...)
		var err error
		alloc := allocated(func() { _, err = OpenFile(bytes.NewReader(file), int64(len(file)), "hostile") })
		if err == nil || !strings.Contains(err.Error(), "footer") {
			t.Errorf("footer length %d: %v, want it refused", n, err)
		}
		if alloc > 1<<20 {
			t.Errorf("footer length %d: refusing allocated %d bytes", n, alloc)
		}
	}
}

// TestOpenFile_hostilePageIndex: a footer that claims a page index of
// 2 GiB does not make OpenFile or a scan allocate it: the page index is
// not read.
func TestOpenFile_hostilePageIndex(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter[PageRow](&buf, "pages", Metadata{}, WriterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := w.Write(pageRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	n := int(binary.LittleEndian.Uint32(file[len(file)-8:]))
	start := len(file) - 8 - n
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), file[start:len(file)-8], &md); err != nil {
		t.Fatal(err)
	}
	for r := range md.RowGroups {
		for c := range md.RowGroups[r].Columns {
			md.RowGroups[r].Columns[c].ColumnIndexOffset = 4
			md.RowGroups[r].Columns[c].ColumnIndexLength = math.MaxInt32
		}
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		t.Fatal(err)
	}
	hostile := append(bytes.Clone(file[:start]), footer...)
	hostile = binary.LittleEndian.AppendUint32(hostile, uint32(len(footer)))
	hostile = append(hostile, "PAR1"...)
	var rows int
	alloc := allocated(func() {
		err = ScanAt(bytes.NewReader(hostile), int64(len(hostile)), "hostile", func(PageRow) error { rows++; return nil })
	})
	if err != nil || rows != 3 {
		t.Errorf("scan of a file claiming a 2 GiB page index: %d rows, %v; want the 3 rows", rows, err)
	}
	if alloc > 64<<20 {
		t.Errorf("scan allocated %d bytes, want the page index left unread", alloc)
	}
}
