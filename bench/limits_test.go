package bench

import (
	"path/filepath"
	"strings"
	"testing"

	"actionspace/dataset"
)

// TestLimitsOf: the bounds follow the caps the crawl recorded; caps not
// recorded take the defaults; no bound passes dataset.MaxCaptureBytes.
func TestLimitsOf(t *testing.T) {
	def, err := limitsOf("")
	if err != nil {
		t.Fatal(err)
	}
	small, err := limitsOf(`{"capture_script_options":{"maxNodes":2000,"maxChars":200000},"max_frames":0,"max_aisnapshot_bytes":1000}`)
	if err != nil {
		t.Fatal(err)
	}
	if !(small.capture < def.capture && small.snapshot < def.snapshot) {
		t.Errorf("small caps %+v, defaults %+v: want smaller bounds", small, def)
	}
	for _, l := range []recordLimits{def, small} {
		for _, v := range []int64{l.capture, l.snapshot, l.axtree} {
			if v <= 0 || v > dataset.MaxCaptureBytes {
				t.Errorf("limits %+v: want each in (0, %d]", l, dataset.MaxCaptureBytes)
			}
		}
	}
	if _, err := limitsOf("{"); err == nil {
		t.Error("a config that does not parse: no error")
	}
	// The stored captures, taken under the default caps, are within the
	// bound of the smallest caps this test records.
	for _, path := range storedCaptures(t) {
		if n := int64(len(readCapture(t, path))); n > small.capture {
			t.Errorf("%s: %d bytes, above the bound %d", path, n, small.capture)
		}
	}
}

// TestSweep_DecompressionBomb: a capture of kilobytes that decompresses to
// 256 MiB, in a dataset whose crawl recorded caps that allow a few
// megabytes, is refused: its page gets error rows that say why, and the
// other pages render.
func TestSweep_DecompressionBomb(t *testing.T) {
	const caps = `{"capture_script_options":{"maxNodes":2000,"maxChars":200000},"max_frames":0}`
	dir := writeCaptureDataset(t, t.TempDir(), storedCaptures(t)[:2], datasetOptions{config: caps, bomb: 256 << 20})
	out := t.TempDir()
	mustSweep(t, testConfig("bomb"), dir, out)
	rows, err := dataset.ReadAll[CellRow](filepath.Join(out, CellsFile))
	if err != nil {
		t.Fatal(err)
	}
	bombRows, ok := 0, 0
	for _, r := range rows {
		switch {
		case r.URL == "http://corpus.test/bomb.html":
			bombRows++
			if !strings.Contains(r.Error, "dataset's caps") {
				t.Errorf("bomb row error %q, want the refusal by the caps", r.Error)
			}
		case r.Error == "":
			ok++
		}
	}
	if bombRows == 0 || ok == 0 {
		t.Errorf("%d bomb rows, %d good rows; want both", bombRows, ok)
	}
}
