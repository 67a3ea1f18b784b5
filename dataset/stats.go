package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// MaxStatBytes is the most bytes a min or max statistic of a string or byte
// column holds, in the footer and in the page index.
const MaxStatBytes = 64

// parquetMagic ends a Parquet file, after the footer and its length.
var parquetMagic = []byte("PAR1")

// cutFooterStatistics rewrites the footer at the end of the Parquet file f
// with the min and max statistics of its byte-array column chunks cut to
// maxBytes (see cutMin and cutMax). It leaves the file alone when nothing
// needs cutting.
func cutFooterStatistics(f *os.File, maxBytes int) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cut footer statistics: %w", err)
	}
	size := st.Size()
	var tail [8]byte
	if size < int64(len(tail)) {
		return errors.New("cut footer statistics: file too short")
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("cut footer statistics: read footer length: %w", err)
	}
	if !bytes.Equal(tail[4:], parquetMagic) {
		return errors.New("cut footer statistics: not a Parquet file")
	}
	start := size - 8 - int64(binary.LittleEndian.Uint32(tail[:4]))
	if start < 4 {
		return errors.New("cut footer statistics: footer length out of range")
	}
	footer := make([]byte, size-8-start)
	if _, err := f.ReadAt(footer, start); err != nil {
		return fmt.Errorf("cut footer statistics: read footer: %w", err)
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		return fmt.Errorf("cut footer statistics: decode footer: %w", err)
	}
	if !cutStatistics(&md, maxBytes) {
		return nil
	}
	out, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		return fmt.Errorf("cut footer statistics: encode footer: %w", err)
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(len(out)))
	out = append(out, parquetMagic...)
	if _, err := f.WriteAt(out, start); err != nil {
		return fmt.Errorf("cut footer statistics: write footer: %w", err)
	}
	if err := f.Truncate(start + int64(len(out))); err != nil {
		return fmt.Errorf("cut footer statistics: %w", err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return fmt.Errorf("cut footer statistics: %w", err)
	}
	return nil
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
