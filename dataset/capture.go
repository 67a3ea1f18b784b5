package dataset

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// CaptureEncoding is the value of PageRow.CaptureEncoding for captures
// compressed by CompressCapture: the capture record's JSON, compressed as one
// zstd frame.
const CaptureEncoding = "json+zstd"

// MaxCaptureBytes bounds the decompressed size DecompressCapture accepts, so
// that a corrupt or hostile frame cannot exhaust memory.
const MaxCaptureBytes = 1 << 30

// The zstd encoder and decoder are built once, on first use, and never
// change afterwards; their EncodeAll and DecodeAll methods are safe for
// concurrent use.
var (
	captureEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
		return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(true))
	})
	captureDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
		return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(MaxCaptureBytes))
	})
)

// CompressCapture compresses a raw capture record (its JSON) into one zstd
// frame, for PageRow.Capture. It returns nil for a nil or empty record, so
// that "no capture" stays null. It is safe for concurrent use.
func CompressCapture(raw []byte) ([]byte, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	enc, err := captureEncoder()
	if err != nil {
		return nil, fmt.Errorf("compress capture: %w", err)
	}
	return enc.EncodeAll(raw, make([]byte, 0, len(raw)/4)), nil
}

// DecompressCapture reverses CompressCapture. It returns nil for a nil or
// empty input, and an error when b is not a valid zstd frame or decompresses
// to more than MaxCaptureBytes. It is safe for concurrent use.
func DecompressCapture(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return nil, nil
	}
	dec, err := captureDecoder()
	if err != nil {
		return nil, fmt.Errorf("decompress capture: %w", err)
	}
	raw, err := dec.DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("decompress capture of %d bytes: %w", len(b), err)
	}
	return raw, nil
}
