package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"actionspace/dataset"
	"actionspace/dataset/store"
)

// Dataset is a crawl dataset to sweep: the part files of its pages table
// (who was crawled, how it went) and of its blobs table (the captures and
// HTML that re-render offline), in a directory or a bucket. Close releases
// it.
type Dataset struct {
	// Loc is where the dataset is, without URL parameters (for reports).
	Loc string
	// Pages and Blobs are the keys of the complete part files of the two
	// tables in Store.
	Pages, Blobs []string
	// Store holds the parts; the sweep reads them by ranged reads.
	Store *store.Store
}

// OpenDataset opens the crawl dataset at loc, a directory or a bucket URL
// (see store.Open), and lists its parts (dataset.PartKeys). A dataset
// without pages parts is an error.
func OpenDataset(ctx context.Context, loc string) (Dataset, error) {
	in := Dataset{Loc: store.Redact(loc)}
	if !strings.Contains(loc, "://") {
		// store.Open would create a missing directory.
		if _, err := os.Stat(loc); err != nil {
			return in, fmt.Errorf("crawl dataset: %w", err)
		}
	}
	st, err := store.Open(ctx, loc, store.Config{})
	if err != nil {
		return in, fmt.Errorf("crawl dataset: %w", err)
	}
	in.Store = st
	if in.Pages, err = dataset.PartKeys(ctx, st, dataset.PagesDir); err == nil {
		in.Blobs, err = dataset.PartKeys(ctx, st, dataset.BlobsDir)
	}
	if err == nil && len(in.Pages) == 0 {
		err = fmt.Errorf("no pages files (want %s)", dataset.PagesGlob)
	}
	if err != nil {
		st.Close()
		in.Store = nil
		return in, fmt.Errorf("crawl dataset %s: %w", in.Loc, err)
	}
	return in, nil
}

// Close releases the dataset's store.
func (in Dataset) Close() error {
	if in.Store == nil {
		return nil
	}
	return in.Store.Close()
}

// IsDataset reports whether arg names a crawl dataset (a directory, or a
// bucket or file URL) rather than a URL list.
func IsDataset(arg string) bool {
	if scheme, _, ok := strings.Cut(arg, "://"); ok {
		return scheme == "s3" || scheme == "gs" || scheme == "file"
	}
	st, err := os.Stat(arg)
	return err == nil && st.IsDir()
}

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
	PageID          string `parquet:"page_id"`
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
func readPages(ctx context.Context, in Dataset) (map[string]pageInfo, error) {
	pages := make(map[string]pageInfo)
	for _, f := range in.Pages {
		err := dataset.ScanObject(ctx, in.Store, f, func(r pageInfo) error {
			r.PageID, r.URL, r.Status = strings.Clone(r.PageID), strings.Clone(r.URL), strings.Clone(r.Status)
			pages[r.PageID] = r
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read crawl dataset: %w", err)
		}
	}
	return pages, nil
}

// captureColumns are the blobs columns counted before the sweep, to size
// the progress report.
type captureColumns struct {
	PageID          string `parquet:"page_id"`
	CaptureEncoding string `parquet:"capture_encoding"`
}

// countRenderable returns how many pages of in have a capture to render.
func countRenderable(ctx context.Context, in Dataset, pages map[string]pageInfo) (int, error) {
	n := 0
	for _, f := range in.Blobs {
		err := dataset.ScanObject(ctx, in.Store, f, func(r captureColumns) error {
			if p, ok := pages[r.PageID]; ok && p.Status == dataset.StatusOK && r.CaptureEncoding == dataset.CaptureEncoding {
				n++
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("read crawl dataset: %w", err)
		}
	}
	return n, nil
}
