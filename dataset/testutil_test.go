package dataset

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// testTime is a fixed capture time with microsecond precision, the precision
// the captured_at column keeps.
func testTime() time.Time { return time.Date(2026, 11, 1, 21, 4, 5, 123456000, time.UTC) }

// pageRow returns the i-th test page: every third one failed and has its
// optional columns null; the others are complete.
func pageRow(i int) PageRow {
	r := PageRow{
		RunID:          "run-1",
		PageID:         fmt.Sprintf("p%06d", i),
		SchemaVersion:  SchemaVersion,
		URL:            fmt.Sprintf("http://127.0.0.1:8080/page/%d?q=%s", i, strings.Repeat("x", i%7)),
		ViewportWidth:  1280,
		ViewportHeight: 720,
		BrowserVersion: "156.0.8078.73",
		Attempts:       1 + int64(i%2),
		TotalMS:        100.25 + float64(i),
		ProcessMS:      ptr(12.5 + float64(i)),
		CapturedAt:     testTime().Add(time.Duration(i) * time.Second),
		CaptureCapped:  []string{},
	}
	if i%3 == 2 {
		r.Status = StatusError
		r.ErrorKind = "timeout"
		r.ErrorMessage = fmt.Sprintf("navigate %s: timeout 30000ms exceeded", r.URL)
		r.NavigateMS = ptr(30000.5)
		return r
	}
	html := testHTML(i)
	r.FinalURL = r.URL + "#final"
	r.Status = StatusOK
	r.HTTPStatus = ptr(int64(200))
	r.ContentType = "text/html; charset=utf-8"
	r.Title = fmt.Sprintf("Page %d — ünïcödé", i)
	r.HTMLBytes = ptr(int64(len(html)))
	r.HTMLTokensCL100K = ptr(int64(10 * i))
	r.HTMLTokensO200K = ptr(int64(9 * i))
	r.DOMNodes = ptr(int64(40 + i))
	r.TextNodes = ptr(int64(20 + i))
	r.InteractiveNodes = ptr(int64(i % 11))
	r.ScrollX = ptr(0.0)
	r.ScrollY = ptr(float64(i) * 1.5)
	r.PageWidth = ptr(1280.0)
	r.PageHeight = ptr(720.0 + float64(i))
	r.DevicePixelRatio = ptr(1.0)
	r.NavigateMS = ptr(12.5 + float64(i))
	r.SettleMS = ptr(3.25)
	r.CaptureMS = ptr(7.125)
	r.ContentMS = ptr(1.0625)
	r.ScriptMS = ptr(4.5)
	r.CaptureTruncated = i%2 == 1
	if r.CaptureTruncated {
		r.CaptureCapped = []string{"title", "nodes"}
	}
	r.CaptureChars = ptr(int64(1000 + i))
	r.HTMLTruncated = i%4 == 1
	r.BlockedRequests = int64(i % 3)
	if i%2 == 0 {
		r.ScreenshotMS = ptr(35.5 + float64(i))
	}
	if i%5 == 0 {
		r.AXTreeMS, r.AISnapshotMS = ptr(80.25+float64(i)), ptr(40.5)
	} else if i%5 == 1 {
		r.AXTreeMS, r.AXTreeSkipped = ptr(3.5), SkippedTooLarge
		r.AISnapshotSkipped = SkippedFailed
	}
	return r
}

// elementRow returns the i-th test elements row: every third with a
// label, an ID at the whole page and an oracle element; others extra.
func elementRow(i int) ElementRow {
	r := ElementRow{RunID: "run-1", PageID: fmt.Sprintf("p%06d", i/4), SchemaVersion: SchemaVersion,
		URL: fmt.Sprintf("http://127.0.0.1:8080/page/%d", i/4), Step: int64(i % 2), Element: int64(3 * i), Tag: "button", Role: "button",
		Name: fmt.Sprintf("Go %d", i), Locator: fmt.Sprintf("/html/body/button[%d]", i+1),
		X: 10.5, Y: float64(40 * i), Width: 80, Height: 24.25, Frame: int64(i % 2), Shadow: i%3 == 1,
		Occluded: i%7 == 3, Nested: i%5 == 4, InModal: i%6 == 5, Signals: "tag,cursor"}
	if i%3 == 0 {
		r.LabelFor = ptr(int64(3*i + 1))
		r.WholePageID = ptr(fmt.Sprintf("B%d", i+1))
		r.OracleElement = ptr(int64(i))
		r.OutsidePX = ptr(int64(10 * i))
	} else {
		r.WholePageExclusion = "occluded"
		r.ExtraReason = ptr("cursor")
	}
	return r
}

// oracleRow returns the i-th test oracle row: every other one tied and
// handled, the others missed.
func oracleRow(i int) OracleRow {
	r := OracleRow{RunID: "run-1", PageID: fmt.Sprintf("p%06d", i/4), SchemaVersion: SchemaVersion,
		URL: fmt.Sprintf("http://127.0.0.1:8080/page/%d", i/4), Step: int64(i % 3), Element: int64(i), Role: "link", Name: fmt.Sprintf("Link %d", i),
		X: 1, Y: float64(20 * i), Width: 50.5, Height: 18, Frame: int64(i % 3), QualifiedBy: "role", InWholePage: i%4 != 3}
	if i%2 == 0 {
		r.CaptureElement, r.MatchedBy = ptr(int64(2*i)), "identity"
		r.OutsidePX = ptr(int64(i))
	} else {
		r.MissReason = ptr("not_captured")
	}
	return r
}

// testHTML is the HTML of the i-th test page.
func testHTML(i int) string {
	return fmt.Sprintf("<!DOCTYPE html><html><head><title>Page %d — ünïcödé</title></head><body>%s<|endoftext|></body></html>",
		i, strings.Repeat(fmt.Sprintf("<p>row %d</p>", i), 1+i%50))
}

// stepRow returns the i-th steps row: the steps of the test pages, four
// a page, of every status, the failed ones with an error.
func stepRow(i int) StepRow {
	p := pageRow(i / 4)
	actions := []string{"scroll", "expand", "type", "wait", "back"}
	statuses := []string{StepOK, StepNavigated, StepSkipped, StepFailed, StepTimeout}
	r := StepRow{RunID: p.RunID, PageID: p.PageID, SchemaVersion: SchemaVersion, URL: p.URL, Step: int64(1 + i%4),
		Action: actions[i%5], Target: fmt.Sprintf("button \"Step %d ünï\" (aria-expanded=false)", i), Status: statuses[i%5],
		MS: float64(i) * 12.5}
	switch r.Status {
	case StepOK, StepNavigated:
		r.FinalURL, r.BlockedRequests = p.URL+"#after", int64(i%3)
	case StepFailed, StepTimeout:
		r.ErrorKind, r.ErrorMessage = "timeout", fmt.Sprintf("step %d: deadline", r.Step)
	}
	return r
}

// blobRow returns the blobs row of the i-th test page (pageRow(i) must be
// ok): every other one with a screenshot, some labeled; some with the
// accessibility tree and AI snapshot.
func blobRow(i int) BlobRow {
	p := pageRow(i)
	r := BlobRow{RunID: p.RunID, PageID: p.PageID, SchemaVersion: SchemaVersion, URL: p.URL, Step: int64(i % 3), HTML: testHTML(i),
		Capture: []byte(fmt.Sprintf(`{"zstd":"pretend","i":%d}`, i)), CaptureEncoding: CaptureEncoding}
	if i%2 == 0 {
		r.Screenshot = []byte(fmt.Sprintf("\xff\xd8\xff pretend JPEG %d", i))
		r.ScreenshotFormat = "jpeg"
		r.ScreenshotWidth, r.ScreenshotHeight = ptr(int64(1280)), ptr(int64(720))
		r.ScreenshotLabeled = i%4 == 0
	}
	if i%5 == 0 {
		r.AXTree, r.AXTreeEncoding = []byte(fmt.Sprintf("pretend axtree %d", i)), CaptureEncoding
		r.AISnapshot, r.AISnapshotEncoding = []byte(fmt.Sprintf("pretend snapshot %d", i)), CaptureEncoding
	}
	return r
}

// spaceRow returns the i-th test space: odd ones are deep mode with the
// deep columns set, even ones fast mode with them null.
func spaceRow(i int) SpaceRow {
	r := SpaceRow{
		RunID:             "run-1",
		PageID:            fmt.Sprintf("p%06d", i/2),
		SchemaVersion:     SchemaVersion,
		Step:              int64(i % 2),
		Format:            "actionspace",
		URL:               fmt.Sprintf("http://127.0.0.1:8080/page/%d", i/2),
		Mode:              "fast",
		ViewportExpansion: []int64{0, 500, -1}[i%3],
		TextPolicy:        []string{"viewport", "all", "none"}[i%3],
		ActionSpace:       fmt.Sprintf("B1[:]<button>Submit %d</button>\n_[:]Forgot your password?", i),
		SpaceMetrics: SpaceMetrics{
			IDsL:         int64(i % 5),
			IDsB:         int64(i % 3),
			IDsI:         1,
			IDsF:         0,
			IDsO:         int64(i % 2),
			IDsM:         2,
			TokensCL100K: ptr(int64(15 + i)),
			TokensO200K:  ptr(int64(14 + i)),
			RatioCL100K:  ptr(41.5),
			RatioO200K:   nil, // e.g. the HTML count was missing
			RenderMS:     0.75,
			ExtraHandles: ptr(int64(i % 4)),
			TokenizeMS:   0.5,
		},
	}
	r.ActionCount = r.IDsL + r.IDsB + r.IDsI + r.IDsF + r.IDsO + r.IDsM
	r.PerceptionText = "[Start of page]\n" + r.ActionSpace + "\n[End of page]"
	r.SpaceBytes = int64(len(r.ActionSpace))
	r.PerceptionBytes = int64(len(r.PerceptionText))
	r.PerceptionTokensCL100K = ptr(int64(25 + i))
	r.PerceptionTokensO200K = ptr(int64(24 + i))
	if i%4 != 3 {
		r.OracleInWindow = ptr(int64(10 + i))
		r.Recall = ptr(float64(5+i%5) / float64(10+i))
	}
	// Reads return an empty, non-nil list for a row without actions.
	r.Actions = []Action{}
	for k := range i % 4 {
		r.Actions = append(r.Actions, Action{
			ID: fmt.Sprintf("B%d", k+1), Role: "button", Tag: "button", Kind: "click",
			Name: fmt.Sprintf("Submit %d", k), Locator: fmt.Sprintf("/html/body/button[%d]", k+1),
			X: 10.5, Y: float64(100 * k), Width: 80, Height: 24.25,
		})
	}
	if i%4 == 2 { // a budgeted row; recall null on every other one
		r.TokenBudget, r.BudgetExpansion, r.BudgetStage = ptr(int64(1000*i)), ptr(int64(125)), ptr("grow")
		r.DroppedIDs, r.DroppedLines, r.CutTexts = ptr(int64(0)), ptr(int64(i%3)), ptr(int64(i%5))
		if i%8 == 2 {
			r.PageRecall, r.ViewportRecall = ptr(0.625), ptr(1.0)
		}
	}
	if i%2 == 1 {
		r.Mode = "deep"
		r.LLMModel = ptr("qwen2.5-7b-instruct")
		r.LLMRan = ptr(i%4 == 1)
		r.LLMCalls = ptr(int64(2))
		r.LLMRounds = ptr(int64(1))
		r.PromptTokensAPI = ptr(int64(1200))
		r.CompletionTokensAPI = ptr(int64(300))
		r.PromptTokensLocal = ptr(int64(1190))
		r.LLMMS = ptr(850.5)
		r.Coverage = ptr(0.96)
		r.HallucinatedIDs = ptr(int64(0))
		r.CacheHits = ptr(int64(1))
		r.LLMError = ptr("HTTP 503 after 4 attempts")
	}
	return r
}

func makeRows[T any](n int, gen func(int) T) []T {
	rows := make([]T, n)
	for i := range rows {
		rows[i] = gen(i)
	}
	return rows
}

// mustWrite writes rows to a new dataset file at path and closes it.
func mustWrite[T any](tb testing.TB, path string, meta Metadata, cfg WriterConfig, rows []T) {
	tb.Helper()
	w, err := create[T](path, meta, cfg)
	if err != nil {
		tb.Fatalf("Create(%s): %v", path, err)
	}
	for i, r := range rows {
		if err := w.Write(r); err != nil {
			tb.Fatalf("Write(row %d): %v", i, err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatalf("Close(%s): %v", path, err)
	}
}

// fileWriter is a Writer to a file that its Close closes: what the tests
// use in place of a store.
type fileWriter[T any] struct {
	*Writer[T]
	f *os.File
}

// create starts a dataset file at path.
func create[T any](path string, meta Metadata, cfg WriterConfig) (*fileWriter[T], error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w, err := NewWriter[T](f, path, meta, cfg)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &fileWriter[T]{Writer: w, f: f}, nil
}

// Close finishes the file and closes it.
func (w *fileWriter[T]) Close() error {
	err := w.Writer.Close()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readAllAt reads every row of the dataset file b.
func readAllAt[T any](b []byte) ([]T, error) {
	var rows []T
	err := ScanAt(bytes.NewReader(b), int64(len(b)), "buffer", func(r T) error {
		rows = append(rows, r)
		return nil
	})
	return rows, err
}
