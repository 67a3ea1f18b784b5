package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// CaptureEncoding is the value of PageRow.CaptureEncoding for captures
// compressed by CompressCapture: the capture record's JSON, compressed as one
// zstd frame.
const CaptureEncoding = "json+zstd"

// MaxCaptureBytes bounds the decompressed size DecompressCapture accepts,
// so that a corrupt or hostile frame cannot exhaust memory; readers that
// know the caps of the crawl that wrote a record bound it tighter
// (DecompressCaptureMax).
const MaxCaptureBytes = 1 << 30

// The zstd encoder is built once, on first use, and never changes
// afterwards; its EncodeAll method is safe for concurrent use.
var captureEncoder = sync.OnceValues(func() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(true))
})

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

// DecompressCapture reverses CompressCapture, refusing more than
// MaxCaptureBytes (see DecompressCaptureMax).
func DecompressCapture(b []byte) ([]byte, error) {
	return DecompressCaptureMax(b, MaxCaptureBytes)
}

// decodeChunk is how much a decompression reads at a time: the output
// grows by what the frame really holds, never by what it declares.
const decodeChunk = 64 << 10

// DecompressCaptureMax reverses CompressCapture for a record of at most limit
// bytes, the bound of what the crawl that wrote it could have written (a
// stored dataset is untrusted input). A frame that declares a larger size
// is refused before anything is decoded; one that does not declare its
// size is decoded until it passes limit, and refused then. Nothing is
// allocated from the sizes the input declares. It returns nil for a nil or
// empty input, and an error when b is not a valid zstd frame. It is safe
// for concurrent use.
func DecompressCaptureMax(b []byte, limit int64) ([]byte, error) {
	if len(b) == 0 {
		return nil, nil
	}
	limit = min(limit, MaxCaptureBytes)
	var h zstd.Header
	if err := h.Decode(b); err != nil {
		return nil, fmt.Errorf("decompress capture of %d bytes: %w", len(b), err)
	}
	if h.HasFCS && h.FrameContentSize > uint64(limit) {
		return nil, fmt.Errorf("decompress capture of %d bytes: it declares %d bytes, more than the %d a crawl with the dataset's caps writes", len(b), h.FrameContentSize, limit)
	}
	dec, err := zstd.NewReader(bytes.NewReader(b), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(uint64(limit)+1), zstd.WithDecoderMaxWindow(min(max(uint64(limit)+1, zstd.MinWindowSize), zstd.MaxWindowSize)))
	if err != nil {
		return nil, fmt.Errorf("decompress capture: %w", err)
	}
	defer dec.Close()
	var out bytes.Buffer
	chunk := make([]byte, decodeChunk)
	for {
		n, err := dec.Read(chunk)
		out.Write(chunk[:n])
		if int64(out.Len()) > limit {
			return nil, fmt.Errorf("decompress capture of %d bytes: more than the %d bytes a crawl with the dataset's caps writes", len(b), limit)
		}
		if errors.Is(err, io.EOF) {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("decompress capture of %d bytes: %w", len(b), err)
		}
	}
}
