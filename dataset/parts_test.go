package dataset

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// pageID is the page ID of fakeResult(i).
func pageID(i int) string { return fakeResult(i).Page.PageID }

// fakeResult is the i-th page's rows: a pages row, a blobs row, two
// spaces rows, three elements rows and one oracle row.
func fakeResult(i int) Rows {
	url := fmt.Sprintf("http://fake.test/page?n=%d", i)
	id := fmt.Sprintf("%016x", i)
	return Rows{
		Page:   PageRow{RunID: "r", PageID: id, URL: url, Status: StatusOK},
		Blob:   &BlobRow{RunID: "r", PageID: id, URL: url, HTML: "<p>hi</p>"},
		Spaces: []SpaceRow{{RunID: "r", PageID: id, URL: url, Mode: "fast"}, {RunID: "r", PageID: id, URL: url, Mode: "fast", ViewportExpansion: -1}},
		Elements: []ElementRow{{RunID: "r", PageID: id, URL: url, Element: 3}, {RunID: "r", PageID: id, URL: url, Element: 5},
			{RunID: "r", PageID: id, URL: url, Element: 8}},
		Oracle: []OracleRow{{RunID: "r", PageID: id, URL: url}},
	}
}

// TestParts_Rotation: parts close every PartPages pages, in pairs with
// the same names, and each holds its pages' spaces rows.
func TestParts_Rotation(t *testing.T) {
	dir := t.TempDir()
	s, err := NewParts(dir, 0, Metadata{RunID: "r"}, PartsConfig{PartPages: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		if err := s.Write(fakeResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"part-00000.parquet", "part-00001.parquet", "part-00002.parquet"}
	files := map[string][]string{}
	for _, table := range Tables() {
		got, err := Files(dir, table)
		if err != nil {
			t.Fatal(err)
		}
		files[table] = got
		var names []string
		for _, f := range got {
			if filepath.Dir(f) != filepath.Join(dir, table) {
				t.Errorf("%s not in %s", f, table)
			}
			names = append(names, filepath.Base(f))
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s parts = %v, want %v", table, names, want)
		}
	}
	perPage := map[string]int{PagesDir: 1, BlobsDir: 1, SpacesDir: 2, ElementsDir: 3, OracleDir: 1}
	for i, wantPages := range []int{3, 3, 1} {
		p, err := ReadAll[pageIDColumn](files[PagesDir][i])
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range Tables() {
			rows, err := ReadAll[pageIDColumn](files[table][i])
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != perPage[table]*wantPages {
				t.Errorf("part %d: %d %s rows, want %d", i, len(rows), table, perPage[table]*wantPages)
			}
			for _, r := range rows {
				if !slices.Contains(p, r) {
					t.Errorf("part %d: %s row of %s, whose page is in another part", i, table, r.PageID)
				}
			}
		}
	}
}

// TestParts_Interval: a part open longer than PartInterval is closed by
// rotateIfDue; a part with no rows is never written.
func TestParts_Interval(t *testing.T) {
	dir := t.TempDir()
	s, err := NewParts(dir, 5, Metadata{}, PartsConfig{PartInterval: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.rotateIfDue(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(fakeResult(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.rotateIfDue(time.Now()); err != nil || s.Completed() != 0 {
		t.Fatalf("rotateIfDue(now) = %v with %d parts, want the part left open", err, s.Completed())
	}
	if err := s.rotateIfDue(time.Now().Add(2 * time.Minute)); err != nil || s.Completed() != 1 {
		t.Fatalf("rotateIfDue(+2m) = %v with %d parts, want the part closed", err, s.Completed())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	pages, _ := Files(dir, PagesDir)
	if len(pages) != 1 || filepath.Base(pages[0]) != "part-00005.parquet" {
		t.Errorf("pages parts = %v, want part-00005 only", pages)
	}
}

// TestOpenForResume_AfterKill builds what a kill -9 leaves — complete parts,
// the temporary files of the open part, and a spaces part whose pages part
// was never renamed — and checks what a resume makes of it.
func TestOpenForResume_AfterKill(t *testing.T) {
	dir := t.TempDir()
	s, err := NewParts(dir, 0, Metadata{RunID: "run-1", Config: `{"text":"viewport"}`}, PartsConfig{PartPages: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 { // parts 0 and 1 complete; part 2 open with one page
		if err := s.Write(fakeResult(i)); err != nil {
			t.Fatal(err)
		}
	}
	// kill -9 now: part 2 stays as temporary files.
	orphan := filepath.Join(dir, SpacesDir, partName(7))
	if err := os.WriteFile(orphan, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	orphanBlobs := filepath.Join(dir, BlobsDir, partName(7))
	if err := os.WriteFile(orphanBlobs, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	orphanElements := filepath.Join(dir, ElementsDir, partName(7))
	if err := os.WriteFile(orphanElements, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "*", "*"+TempSuffix))
	if len(tmps) != len(Tables()) {
		t.Fatalf("temporary files %v, want the open part's one per table", tmps)
	}

	if n, err := CountParts(dir, ""); err != nil || n != 18 {
		t.Errorf("CountParts = %d, %v; want the 10 complete, 5 temporary and 3 orphan files", n, err)
	}

	st, err := OpenForResume(dir, "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if st.Parts != 2 || st.Rows != 4 || len(st.Done) != 4 || st.NextPart != 2 || st.RunID != "run-1" {
		t.Errorf("state = parts %d rows %d done %d next %d run %q, want 2, 4, 4, 2, run-1", st.Parts, st.Rows, len(st.Done), st.NextPart, st.RunID)
	}
	for i := range 4 {
		if !st.Done[pageID(i)] {
			t.Errorf("page %d not done", i)
		}
	}
	slices.Sort(st.Removed)
	wantRemoved := append(tmps, orphan, orphanBlobs, orphanElements)
	slices.Sort(wantRemoved)
	if !slices.Equal(st.Removed, wantRemoved) {
		t.Errorf("removed %v, want %v", st.Removed, wantRemoved)
	}
	for _, f := range wantRemoved {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", f, err)
		}
	}
}
