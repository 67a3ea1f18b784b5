package dataset

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	parquetzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// TestColumnCodec_SameBytesAsParquetGo: the codec that keeps its encoders
// writes exactly the bytes parquet-go's own zstd codec writes, so files
// written before and after it differ in nothing, and decodes them back.
func TestColumnCodec_SameBytesAsParquetGo(t *testing.T) {
	t.Parallel()
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(rand.N(256))
	}
	tests := []struct {
		name string
		src  []byte
	}{
		{"empty", nil},
		{"one byte", []byte{7}},
		{"text", []byte(strings.Repeat("<button>Add to cart</button>\n", 5000))},
		{"random", random},
		{"over one block", bytes.Repeat([]byte("0123456789abcdef"), 1<<16)},
	}
	ours, theirs := &columnCodec{}, &parquetzstd.Codec{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := theirs.Encode(nil, tc.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ours.Encode(make([]byte, 0, 16), tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%d bytes compressed to %d bytes, parquet-go's codec wrote %d different ones", len(tc.src), len(got), len(want))
			}
			back, err := ours.Decode(nil, got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, tc.src) {
				t.Fatalf("decoded %d bytes, want the %d written", len(back), len(tc.src))
			}
		})
	}
}
