package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/dataset/store"
	"actionspace/dom"
	"actionspace/internal/storedtest"
	"actionspace/pipeline"
	"actionspace/space"
)

// storedCaptures returns the corpus captures stored for the render
// goldens, ../render/testdata/<page>/capture.json.gz, in name order.
func storedCaptures(tb testing.TB) []string {
	tb.Helper()
	return storedtest.Captures(tb, filepath.Join("..", "render", "testdata"))
}

// readCapture returns a stored capture's raw JSON (or any stored, gzipped
// file's content).
func readCapture(tb testing.TB, path string) []byte {
	tb.Helper()
	return storedtest.Read(tb, path)
}

// datasetOptions shape a test crawl dataset.
type datasetOptions struct {
	// failed adds a page whose crawl failed: no capture.
	failed bool
	// corrupt adds a page whose capture does not decode.
	corrupt bool
	// noAXTree leaves the accessibility trees out (no recall).
	noAXTree bool
	// noSnapshot leaves the AI snapshots out of the pages listed (by
	// corpus page name, e.g. "news"); "*" leaves out every one.
	noSnapshot []string
	// config is the crawl's recorded configuration (Metadata.Config):
	// its caps bound the records the bench decodes.
	config string
	// bomb adds a page whose capture is a few kilobytes that decompress
	// to bomb bytes.
	bomb int
}

// writeCaptureDataset writes a crawl dataset at dir (one part of each
// table, parts.Writer) from stored captures, as a crawl of the corpus would
// have: one ok row per capture, its HTML served by the corpus handler. The
// HTML token columns are left null, so the bench counts them itself. It
// returns dir.
func writeCaptureDataset(tb testing.TB, dir string, captures []string, o datasetOptions) string {
	tb.Helper()
	w, err := parts.Create(context.Background(), dir, dataset.Metadata{RunID: "stored-captures", BrowserVersion: "stored", Config: o.config}, parts.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, path := range captures {
		raw := readCapture(tb, path)
		c, err := dom.Parse(raw)
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		html := servedHTML(tb, c.Page.URL)
		packed, err := dataset.CompressCapture(raw)
		if err != nil {
			tb.Fatal(err)
		}
		row := okRow(c.Page.URL, c.Page.Title, html, packed, at)
		// The accessibility tree stored beside the capture: the oracle of
		// recall.
		if ax := filepath.Join(filepath.Dir(path), "axtree.json.gz"); !o.noAXTree {
			if row.Blob.AXTree, err = dataset.CompressCapture(readCapture(tb, ax)); err != nil {
				tb.Fatal(err)
			}
			row.Blob.AXTreeEncoding = dataset.CaptureEncoding
		}
		page := filepath.Base(filepath.Dir(path))
		if !slices.Contains(o.noSnapshot, "*") && !slices.Contains(o.noSnapshot, page) {
			if row.Blob.AISnapshot, err = dataset.CompressCapture(readCapture(tb, filepath.Join(filepath.Dir(path), "aisnapshot.json.gz"))); err != nil {
				tb.Fatal(err)
			}
			row.Blob.AISnapshotEncoding = dataset.CaptureEncoding
		}
		if err := w.Write(row); err != nil {
			tb.Fatal(err)
		}
	}
	if o.failed {
		u := "http://corpus.test/no-such-page.html"
		if err := w.Write(parts.Rows{Page: dataset.PageRow{RunID: "stored-captures", PageID: pipeline.PageID(u), URL: u,
			Status: dataset.StatusError, ErrorKind: "http", ErrorMessage: "HTTP 404", CapturedAt: at}}); err != nil {
			tb.Fatal(err)
		}
	}
	if o.corrupt {
		packed, err := dataset.CompressCapture([]byte(`{"version":1,"page":{"url":`))
		if err != nil {
			tb.Fatal(err)
		}
		if err := w.Write(okRow("http://corpus.test/corrupt.html", "Corrupt", "<html></html>", packed, at)); err != nil {
			tb.Fatal(err)
		}
	}
	if o.bomb > 0 {
		raw := bytes.Repeat([]byte(" "), o.bomb)
		copy(raw, `{"version":1,"page":{"url":"`)
		packed, err := dataset.CompressCapture(raw)
		if err != nil {
			tb.Fatal(err)
		}
		if err := w.Write(okRow("http://corpus.test/bomb.html", "Bomb", "<html></html>", packed, at)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// servedHTML returns the HTML the corpus handler serves for a corpus
// page's URL: the html of a test dataset's blobs rows.
func servedHTML(tb testing.TB, pageURL string) string {
	tb.Helper()
	u, err := url.Parse(pageURL)
	if err != nil {
		tb.Fatal(err)
	}
	rec := httptest.NewRecorder()
	corpora.Handler().ServeHTTP(rec, httptest.NewRequest("GET", u.Path, nil))
	if rec.Code != 200 {
		tb.Fatalf("corpus %s: HTTP %d", u.Path, rec.Code)
	}
	return rec.Body.String()
}

func okRow(u, title, html string, packed []byte, at time.Time) parts.Rows {
	n := int64(len(html))
	nav, settle, capture, content := 120.0, 500.0, 40.0, 10.0
	id := pipeline.PageID(u)
	return parts.Rows{
		Page: dataset.PageRow{
			RunID: "stored-captures", PageID: id, URL: u, FinalURL: u,
			Status: dataset.StatusOK, HTTPStatus: ptr(int64(200)), ContentType: "text/html; charset=utf-8",
			Title: title, HTMLMetrics: dataset.HTMLMetrics{HTMLBytes: &n}, ViewportWidth: 1280, ViewportHeight: 720,
			BrowserVersion: "stored", Attempts: 1,
			NavigateMS: &nav, SettleMS: &settle, CaptureMS: &capture, ContentMS: &content,
			CapturedAt: at,
		},
		Blob: &dataset.BlobRow{RunID: "stored-captures", PageID: id, URL: u, HTML: html,
			Capture: packed, CaptureEncoding: dataset.CaptureEncoding},
	}
}

// testConfig is a small matrix: actionspace alone, fast mode, three
// expansions, two text policies, both encodings, no token budgets.
func testConfig(runID string) Config {
	cfg := DefaultConfig()
	cfg.RunID = runID
	cfg.Formats = []string{space.FormatActionSpace}
	cfg.Expansions = []int{0, 500, dom.WholePage}
	cfg.Budgets = nil
	cfg.Workers = 3
	cfg.Repeat = 2
	cfg.Prices = DefaultPrices()
	return cfg
}

// mustSweep sweeps the dataset at dir into out and writes the results.
func mustSweep(tb testing.TB, cfg Config, dir, out string) *Result {
	tb.Helper()
	ctx := context.Background()
	data, err := parts.Open(ctx, dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer data.Close()
	st := openOut(tb, out)
	res, err := Sweep(ctx, cfg, data, st)
	if err != nil {
		tb.Fatalf("Sweep: %v", err)
	}
	if err := WriteResults(ctx, st, res, nil); err != nil {
		tb.Fatalf("WriteResults: %v", err)
	}
	return res
}

// openOut opens the output location out for the test.
func openOut(tb testing.TB, out string) store.Store {
	tb.Helper()
	st, err := store.Open(context.Background(), out, store.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// arrowTable reads a Parquet file with arrow-go (an implementation
// independent of the parquet-go writer): its column names in order and
// one map per row, nulls as nil.
func arrowTable(tb testing.TB, path string) ([]string, []map[string]any) {
	tb.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		tb.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	defer tbl.Release()
	var names []string
	rows := make([]map[string]any, tbl.NumRows())
	for i := range rows {
		rows[i] = map[string]any{}
	}
	for c := 0; c < int(tbl.NumCols()); c++ {
		col := tbl.Column(c)
		names = append(names, col.Name())
		r := 0
		for _, chunk := range col.Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				rows[r][col.Name()] = arrowValue(chunk, i)
				r++
			}
		}
	}
	return names, rows
}

func arrowValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		return a.Value(i)
	case *array.List:
		start, end := a.ValueOffsets(i)
		return int(end - start) // the number of elements
	}
	return fmt.Sprintf("%T", a)
}
