package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// MaxStatBytes is the most bytes a min or max statistic of a string or byte
// column holds, in the footer and in the page index.
const MaxStatBytes = 64

// parquetMagic ends a Parquet file, after the footer and its length.
var parquetMagic = []byte("PAR1")

// footerCutter passes a Parquet file's bytes on to w until hold is
// called before the writer's Close; it then keeps what follows (the page
// index and the footer), and flush writes it on with the footer's
// statistics cut (see cutFooter). So the file is streamed once, to a
// local file or an upload alike, and never read back.
type footerCutter struct {
	w       io.Writer
	holding bool
	tail    bytes.Buffer
}

func (f *footerCutter) Write(p []byte) (int, error) {
	if f.holding {
		return f.tail.Write(p)
	}
	return f.w.Write(p)
}

func (f *footerCutter) hold() { f.holding = true }

// flush writes what was held, its footer's statistics cut to maxBytes.
func (f *footerCutter) flush(maxBytes int) error {
	out, err := cutFooter(f.tail.Bytes(), maxBytes)
	if err != nil {
		return err
	}
	_, err = f.w.Write(out)
	return err
}

// cutFooter returns the end of a Parquet file, tail (which holds at least
// the footer, its length and the magic), with the min and max statistics
// of the footer's byte-array column chunks cut to maxBytes. The bytes
// before the footer are kept as they are, so every offset the footer
// holds stays right.
func cutFooter(tail []byte, maxBytes int) ([]byte, error) {
	if len(tail) < 8 || !bytes.Equal(tail[len(tail)-4:], parquetMagic) {
		return nil, errors.New("cut footer statistics: not the end of a Parquet file")
	}
	n := int(binary.LittleEndian.Uint32(tail[len(tail)-8:]))
	start := len(tail) - 8 - n
	if start < 0 {
		return nil, errors.New("cut footer statistics: footer length out of range")
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), tail[start:len(tail)-8], &md); err != nil {
		return nil, fmt.Errorf("cut footer statistics: decode footer: %w", err)
	}
	if !cutStatistics(&md, maxBytes) {
		return tail, nil
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		return nil, fmt.Errorf("cut footer statistics: encode footer: %w", err)
	}
	out := append(bytes.Clone(tail[:start]), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, parquetMagic...), nil
}

// cutStatistics cuts the min and max statistics of the byte-array column
// chunks of md to maxBytes, and reports whether it changed any. A max that
// cannot be cut and still bound the values (all its kept bytes are 0xFF),
// and any statistic of a fixed-length column that is too long, is dropped
// with its pair.
func cutStatistics(md *format.FileMetaData, maxBytes int) bool {
	changed := false
	for r := range md.RowGroups {
		for c := range md.RowGroups[r].Columns {
			m := &md.RowGroups[r].Columns[c].MetaData
			if m.Type != format.ByteArray && m.Type != format.FixedLenByteArray {
				continue
			}
			s := &m.Statistics
			for _, pair := range [][2]*[]byte{{&s.MinValue, &s.MaxValue}, {&s.Min, &s.Max}} {
				min, max := *pair[0], *pair[1]
				if len(min) <= maxBytes && len(max) <= maxBytes {
					continue
				}
				changed = true
				cmin, cmax, ok := cutMin(min, maxBytes), []byte(nil), false
				if cmax, ok = cutMax(max, maxBytes); !ok || m.Type == format.FixedLenByteArray {
					*pair[0], *pair[1] = nil, nil
					continue
				}
				*pair[0], *pair[1] = cmin, cmax
			}
		}
	}
	return changed
}

// cutMin returns a lower bound of min of at most maxBytes: its prefix.
func cutMin(min []byte, maxBytes int) []byte {
	if len(min) <= maxBytes {
		return min
	}
	return bytes.Clone(min[:maxBytes])
}

// cutMax returns an upper bound of max of at most maxBytes, in the
// unsigned byte order Parquet compares byte arrays in: its prefix with the
// last byte that is not 0xFF raised by one (and the 0xFF bytes after it
// dropped); false when every byte of the prefix is 0xFF.
func cutMax(max []byte, maxBytes int) ([]byte, bool) {
	if len(max) <= maxBytes {
		return max, true
	}
	p := bytes.Clone(max[:maxBytes])
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xFF {
			p[i]++
			return p[:i+1], true
		}
	}
	return nil, false
}
