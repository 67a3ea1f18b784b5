package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"actionspace/dataset"
)

// legacyPagesFile is the pages file of crawls made before part files.
const legacyPagesFile = "pages.parquet"

// PagesFiles returns the pages files of the crawl dataset at path: path
// itself when it is a Parquet file; for a dataset directory, every part
// below DIR/pages (see dataset.Files), or DIR/pages.parquet for a
// crawl written before part files.
func PagesFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("crawl dataset: %w", err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	pages, _, err := dataset.Files(path)
	if err != nil {
		return nil, fmt.Errorf("crawl dataset %s: %w", path, err)
	}
	if len(pages) > 0 {
		return pages, nil
	}
	legacy := filepath.Join(path, legacyPagesFile)
	if _, err := os.Stat(legacy); err == nil {
		return []string{legacy}, nil
	}
	return nil, fmt.Errorf("crawl dataset %s: no pages files (want %s or %s)", path,
		filepath.Join(dataset.PagesDir, "*.parquet"), legacyPagesFile)
}

// IsDataset reports whether path names a crawl dataset (a directory
// holding pages.parquet, or a .parquet file) rather than a URL list.
func IsDataset(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if st.IsDir() {
		return true
	}
	return strings.HasSuffix(path, ".parquet")
}

// pageColumns are the columns of pages.parquet the bench reads.
type pageColumns struct {
	PageID string `parquet:"page_id"`
	URL    string `parquet:"url"`
	Status string `parquet:"status"`
	HTML   string `parquet:"html"`
	dataset.HTMLMetrics
	NavigateMS      *float64 `parquet:"navigate_ms"`
	SettleMS        *float64 `parquet:"settle_ms"`
	CaptureMS       *float64 `parquet:"capture_ms"`
	ContentMS       *float64 `parquet:"content_ms"`
	Capture         []byte   `parquet:"capture,optional"`
	CaptureEncoding string   `parquet:"capture_encoding"`
}

// renderable reports whether the page has a capture the bench can decode.
func (p *pageColumns) renderable() bool {
	return p.Status == dataset.StatusOK && p.CaptureEncoding == dataset.CaptureEncoding && len(p.Capture) > 0
}

// own copies the row's strings and bytes out of the reader's buffers, so
// that the row can outlive the Scan callback.
func (p pageColumns) own() pageColumns {
	p.PageID = strings.Clone(p.PageID)
	p.URL = strings.Clone(p.URL)
	p.Status = strings.Clone(p.Status)
	p.HTML = strings.Clone(p.HTML)
	p.CaptureEncoding = strings.Clone(p.CaptureEncoding)
	p.Capture = bytes.Clone(p.Capture)
	return p
}

// statusColumns are the columns counted before the sweep, to size the
// progress report.
type statusColumns struct {
	Status          string `parquet:"status"`
	CaptureEncoding string `parquet:"capture_encoding"`
}

// countPages returns the number of rows of the pages files and how many
// of them have a capture to render.
func countPages(files []string) (rows, renderable int, err error) {
	for _, f := range files {
		err = dataset.Scan(f, func(r statusColumns) error {
			rows++
			if r.Status == dataset.StatusOK && r.CaptureEncoding == dataset.CaptureEncoding {
				renderable++
			}
			return nil
		})
		if err != nil {
			return 0, 0, fmt.Errorf("read crawl dataset: %w", err)
		}
	}
	return rows, renderable, nil
}
