package bench

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"actionspace/dataset"
	"actionspace/dataset/parts"
)

// The columns of a crawl dataset (read through parts.Dataset) that a sweep
// reads.

// pageInfo are the columns of the pages table the bench reads: small, so
// a sweep holds them for every page while it streams the blobs.
type pageInfo struct {
	PageID string `parquet:"page_id"`
	URL    string `parquet:"url"`
	Status string `parquet:"status"`
	dataset.HTMLMetrics
	NavigateMS *float64 `parquet:"navigate_ms"`
	SettleMS   *float64 `parquet:"settle_ms"`
	CaptureMS  *float64 `parquet:"capture_ms"`
	ContentMS  *float64 `parquet:"content_ms"`
}

// blobColumns are the columns of the blobs table the bench reads.
type blobColumns struct {
	PageID string `parquet:"page_id"`
	// Step is the state of the blob: the bench sweeps step 0, the state
	// after load (the states after a crawl's --steps are not swept yet).
	Step            int64  `parquet:"step"`
	HTML            string `parquet:"html"`
	Capture         []byte `parquet:"capture,optional"`
	CaptureEncoding string `parquet:"capture_encoding"`
	AXTree          []byte `parquet:"axtree,optional"`
	AXTreeEncoding  string `parquet:"axtree_encoding"`
	// AISnapshot is null when the crawl did not take the AI snapshot
	// (--formats without playwright-ai, or skipped: too large).
	AISnapshot         []byte `parquet:"aisnapshot,optional"`
	AISnapshotEncoding string `parquet:"aisnapshot_encoding"`
}

// pageColumns is one page to render: its pages row joined with its blobs
// row.
type pageColumns struct {
	pageInfo
	HTML            string
	Capture         []byte
	CaptureEncoding string
	// AXTree is the accessibility tree of the page state (the oracle of
	// recall), encoded as AXTreeEncoding says; nil when none was taken.
	AXTree         []byte
	AXTreeEncoding string
	// AISnapshot is Playwright's AI snapshot of the page state (the
	// playwright-ai format), encoded as AISnapshotEncoding says; nil when
	// none was taken.
	AISnapshot         []byte
	AISnapshotEncoding string
}

// renderable reports whether the page has a capture the bench can decode.
func (p *pageColumns) renderable() bool {
	return p.Status == dataset.StatusOK && p.CaptureEncoding == dataset.CaptureEncoding && len(p.Capture) > 0
}

// join makes the page of blob b, whose pages row is info, copying b's
// strings and bytes out of the reader's buffers so that the page can
// outlive the Scan callback.
func join(info pageInfo, b blobColumns) pageColumns {
	return pageColumns{pageInfo: info, HTML: strings.Clone(b.HTML),
		Capture: bytes.Clone(b.Capture), CaptureEncoding: strings.Clone(b.CaptureEncoding),
		AXTree: bytes.Clone(b.AXTree), AXTreeEncoding: strings.Clone(b.AXTreeEncoding),
		AISnapshot: bytes.Clone(b.AISnapshot), AISnapshotEncoding: strings.Clone(b.AISnapshotEncoding)}
}

// readPages reads the pages rows of in, by page ID.
func readPages(ctx context.Context, in *parts.Dataset) (map[string]pageInfo, error) {
	pages := make(map[string]pageInfo)
	err := parts.ScanTable(ctx, in, in.Pages, func(r pageInfo) error {
		r.PageID, r.URL, r.Status = strings.Clone(r.PageID), strings.Clone(r.URL), strings.Clone(r.Status)
		pages[r.PageID] = r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read crawl dataset: %w", err)
	}
	return pages, nil
}

// captureColumns are the blobs columns counted before the sweep, to size
// the progress report.
type captureColumns struct {
	PageID          string `parquet:"page_id"`
	Step            int64  `parquet:"step"`
	CaptureEncoding string `parquet:"capture_encoding"`
}

// countRenderable returns how many pages of in have a capture to render.
func countRenderable(ctx context.Context, in *parts.Dataset, pages map[string]pageInfo) (int, error) {
	n := 0
	err := parts.ScanTable(ctx, in, in.Blobs, func(r captureColumns) error {
		if p, ok := pages[r.PageID]; ok && r.Step == 0 && p.Status == dataset.StatusOK && r.CaptureEncoding == dataset.CaptureEncoding {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read crawl dataset: %w", err)
	}
	return n, nil
}
