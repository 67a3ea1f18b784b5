package dataset

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	parquetzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// columnCodec compresses the columns of every file this package writes.
//
// It writes the same bytes as parquet-go's zstd codec at its default
// settings, but it keeps its encoders. parquet-go's codec keeps them in a
// pool that every garbage collection empties, and each file had a codec of
// its own, so a crawl built a fresh encoder, megabytes of match tables,
// for most of the column pages it wrote. Decoding is parquet-go's.
type columnCodec struct {
	parquetzstd.Codec
}

// Encode compresses src into dst, as parquet-go's codec does.
func (c *columnCodec) Encode(dst, src []byte) ([]byte, error) {
	enc, err := columnEncoders.get()
	if err != nil {
		return dst[:0], err
	}
	defer columnEncoders.put(enc)
	return enc.EncodeAll(src, dst[:0]), nil
}

// columnEncoders holds the idle encoders of every columnCodec. Like
// captureEncoder it is package state only as a cache is (fmt's printer
// pool is another): what it holds never changes what is written.
var columnEncoders encoderStack

// encoderStack is a last-in, first-out stack of idle zstd encoders. The
// last encoder put back is the next one taken, so a writer working alone
// keeps reusing one encoder whose tables are still in the CPU's cache (a
// first-in, first-out pool of two made one writer 10–20% slower). It
// keeps at most one idle encoder per CPU.
type encoderStack struct {
	mu   sync.Mutex
	idle []*zstd.Encoder
}

func (s *encoderStack) get() (*zstd.Encoder, error) {
	s.mu.Lock()
	if n := len(s.idle); n > 0 {
		enc := s.idle[n-1]
		s.idle = s.idle[:n-1]
		s.mu.Unlock()
		return enc, nil
	}
	s.mu.Unlock()
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(parquetzstd.DefaultLevel),
		zstd.WithEncoderConcurrency(1),
		zstd.WithZeroFrames(true),
		zstd.WithEncoderCRC(false),
	)
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	return enc, nil
}

func (s *encoderStack) put(enc *zstd.Encoder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.idle) < runtime.GOMAXPROCS(0) {
		s.idle = append(s.idle, enc)
	}
}
