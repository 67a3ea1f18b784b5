package parts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/dataset/store"
	"actionspace/dataset/store/bucket"
	"actionspace/internal/s3test"
)

// s3srv is the S3-compatible server of this package's tests, started by the
// first test that needs it.
var s3srv s3test.Shared

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdLockEnv); dir != "" {
		holdLock(dir)
		return
	}
	bucket.Register()
	s3srv.Main(m)
}

// testTime is a fixed capture time with microsecond precision, the
// precision of the timestamp columns.
func testTime() time.Time { return time.Date(2026, 11, 1, 21, 4, 5, 123456000, time.UTC) }

// pageID is the page ID of fakeResult(i).
func pageID(i int) string { return fakeResult(i).Page.PageID }

// fakeResult is the i-th page's rows: a pages row, a blobs row, two
// spaces rows, three elements rows and one oracle row.
func fakeResult(i int) Rows {
	url := fmt.Sprintf("http://fake.test/page?n=%d", i)
	id := fmt.Sprintf("%016x", i)
	return Rows{
		Page:   dataset.PageRow{RunID: "r", PageID: id, URL: url, Status: dataset.StatusOK, CapturedAt: testTime().Add(time.Duration(i) * time.Second)},
		Blob:   &dataset.BlobRow{RunID: "r", PageID: id, URL: url, HTML: "<p>hi</p>"},
		Spaces: []dataset.SpaceRow{{RunID: "r", PageID: id, URL: url, Mode: "fast"}, {RunID: "r", PageID: id, URL: url, Mode: "fast", ViewportExpansion: -1}},
		Elements: []dataset.ElementRow{{RunID: "r", PageID: id, URL: url, Element: 3}, {RunID: "r", PageID: id, URL: url, Element: 5},
			{RunID: "r", PageID: id, URL: url, Element: 8}},
		Oracle: []dataset.OracleRow{{RunID: "r", PageID: id, URL: url}},
	}
}

// failedResult is the i-th page failed with kind: a pages row only.
func failedResult(i int, kind string) Rows {
	r := fakeResult(i)
	r.Page.Status, r.Page.ErrorKind, r.Page.ErrorMessage = dataset.StatusError, kind, kind+" "+r.Page.URL
	r.Blob, r.Spaces = nil, nil
	return r
}

// quiet is a logger that drops everything.
func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

// backends are the stores the protocol tests run on: memory and a prefix
// of a bucket on a real S3-compatible server (skipped under -short).
func backends(t *testing.T, fn func(t *testing.T, open func(t *testing.T) store.Store)) {
	t.Run("memory", func(t *testing.T) {
		fn(t, func(t *testing.T) store.Store { return store.NewMemory(t.Name()) })
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3srv.Start(t)
		srv.SetEnv(t)
		var n atomic.Int64
		fn(t, func(t *testing.T) store.Store {
			return openStore(t, srv.URL(srv.Bucket, fmt.Sprintf("ds%d", n.Add(1))))
		})
	})
}

// openStore opens loc for the test.
func openStore(t *testing.T, loc string) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), loc, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// openOutput locks partition of st for the test.
func openOutput(t *testing.T, st store.Store, cfg Config) *Output {
	t.Helper()
	out, err := OpenOutput(context.Background(), st, "test", cfg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close(context.Background()) })
	return out
}

// writeParts writes rows into new parts of out from part next on.
func writeParts(t *testing.T, out *Output, next int, retry map[string]int, rows ...Rows) Stats {
	t.Helper()
	s, err := NewWriter(context.Background(), out, dataset.Metadata{RunID: "r"}, next, retry)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := s.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Stats()
}

// partRows are the visible rows of one table, by part key without the
// table folder ("shard=0001/part-00002.parquet").
type partRows map[string][]pageIDColumn

// readTables reads every visible part of every table of st.
func readTables(t *testing.T, st store.Store) map[string]partRows {
	t.Helper()
	ctx := context.Background()
	out := map[string]partRows{}
	for _, table := range Tables() {
		keys, err := Keys(ctx, st, table)
		if err != nil {
			t.Fatal(err)
		}
		out[table] = partRows{}
		for _, k := range keys {
			err := Scan(ctx, st, k, func(r pageIDColumn) error {
				out[table][strings.TrimPrefix(k, table+"/")] = append(out[table][strings.TrimPrefix(k, table+"/")], pageIDColumn{strings.Clone(r.PageID)})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := out[table][strings.TrimPrefix(k, table+"/")]; !ok {
				out[table][strings.TrimPrefix(k, table+"/")] = nil
			}
		}
	}
	return out
}

// checkVisible asserts the visibility rule on what readers see: every
// other table's part has its pages part, with rows only of that part's
// pages. It returns the number of pages rows per page ID.
func checkVisible(t *testing.T, st store.Store) map[string]int {
	t.Helper()
	tables := readTables(t, st)
	perPage := map[string]int{}
	for part, rows := range tables[dataset.PagesDir] {
		for _, r := range rows {
			perPage[r.PageID]++
		}
		_ = part
	}
	for table, parts := range tables {
		if table == dataset.PagesDir {
			continue
		}
		for part, rows := range parts {
			pages, ok := tables[dataset.PagesDir][part]
			if !ok {
				t.Errorf("%s/%s is visible without its pages part", table, part)
				continue
			}
			for _, r := range rows {
				if !slices.Contains(pages, r) {
					t.Errorf("%s/%s: a row of page %s, not in its pages part", table, part, r.PageID)
				}
			}
		}
	}
	return perPage
}

// TestParts_Rotation: parts close every PartPages pages, under the same
// names in every table, and each holds its pages' rows of every table; no
// pending file is left.
func TestParts_Rotation(t *testing.T) {
	backends(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		ctx := context.Background()
		st := open(t)
		out := openOutput(t, st, Config{PartPages: 3, Partition: "shard=0001"})
		var rows []Rows
		for i := range 7 {
			rows = append(rows, fakeResult(i))
		}
		stats := writeParts(t, out, 0, nil, rows...)
		if stats.Parts != 3 || stats.Bytes == 0 {
			t.Errorf("stats %+v, want 3 parts and their bytes", stats)
		}
		want := []string{"part-00000.parquet", "part-00001.parquet", "part-00002.parquet"}
		tables := readTables(t, st)
		perPage := map[string]int{dataset.PagesDir: 1, dataset.BlobsDir: 1, dataset.SpacesDir: 2, dataset.ElementsDir: 3, dataset.OracleDir: 1}
		for _, table := range Tables() {
			var names []string
			for part, rows := range tables[table] {
				dir, name := path.Split(part)
				if dir != "shard=0001/" {
					t.Errorf("%s/%s not in the partition", table, part)
				}
				names = append(names, name)
				wantPages := 3
				if name == want[2] {
					wantPages = 1
				}
				if len(rows) != perPage[table]*wantPages {
					t.Errorf("%s/%s: %d rows, want %d", table, part, len(rows), perPage[table]*wantPages)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, want) {
				t.Errorf("%s parts = %v, want %v", table, names, want)
			}
		}
		checkVisible(t, st)
		objs, err := st.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if strings.Contains(o.Key, PendingExt) {
				t.Errorf("pending file left: %s", o.Key)
			}
		}
	})
}

// TestParts_Interval: a part open longer than PartInterval is closed by
// rotateIfDue; a part with no rows is never written.
func TestParts_Interval(t *testing.T) {
	st := store.NewMemory(t.Name())
	out := openOutput(t, st, Config{PartInterval: time.Minute})
	s, err := NewWriter(context.Background(), out, dataset.Metadata{}, 5, nil)
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
	pages, _ := Keys(context.Background(), st, dataset.PagesDir)
	if len(pages) != 1 || path.Base(pages[0]) != "part-00005.parquet" {
		t.Errorf("pages parts = %v, want part-00005 only", pages)
	}
}

// TestResume_AfterKill builds what kills at several moments leave —
// the files in the making of an open part, a pending file whose pages part
// never landed, pending files of a committed part not yet rolled forward,
// a roll-forward killed between its copy and its delete, and another
// table's part without a pages part — and checks what a resume makes of
// it.
func TestResume_AfterKill(t *testing.T) {
	backends(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		ctx := context.Background()
		st := open(t)
		out := openOutput(t, st, Config{PartPages: 2})
		s, err := NewWriter(ctx, out, dataset.Metadata{RunID: "run-1", Config: `{"text":"viewport"}`}, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 { // parts 0 and 1 complete; part 2 open with one page
			if err := s.Write(fakeResult(i)); err != nil {
				t.Fatal(err)
			}
		}
		// kill -9 now: part 2 stays in the making. Then fake the rest:
		put := func(key string, b []byte) {
			t.Helper()
			if err := store.Put(ctx, st, key, b); err != nil {
				t.Fatal(err)
			}
		}
		put(pendingKey(dataset.SpacesDir, "", 7), []byte("PAR1 never committed"))
		put(partKey(dataset.BlobsDir, "", 8), []byte("PAR1 an older protocol's orphan"))
		// Part 1 committed, its spaces file not rolled forward yet.
		if err := st.Rename(ctx, partKey(dataset.SpacesDir, "", 1), pendingKey(dataset.SpacesDir, "", 1)); err != nil {
			t.Fatal(err)
		}
		// Part 0's blobs file copied forward but its pending copy not deleted.
		b, err := store.ReadAll(ctx, st, partKey(dataset.BlobsDir, "", 0))
		if err != nil {
			t.Fatal(err)
		}
		put(pendingKey(dataset.BlobsDir, "", 0), b)

		if n, err := Count(ctx, out); err != nil || n != 2*len(Tables())+3 {
			t.Errorf("Count = %d, %v; want the %d part files, 2 pending and 1 orphan files", n, err, 2*len(Tables()))
		}

		state, err := Resume(ctx, out, ResumeOptions{Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		if state.Parts != 2 || state.Rows != 4 || len(state.Done) != 4 || state.NextPart != 9 || state.RunID != "run-1" || state.SchemaVersion != dataset.SchemaVersion {
			t.Errorf("state = parts %d rows %d done %d next %d run %q version %d, want 2, 4, 4, 9, run-1, %d",
				state.Parts, state.Rows, len(state.Done), state.NextPart, state.RunID, state.SchemaVersion, dataset.SchemaVersion)
		}
		for i := range 4 {
			if !state.Done[pageID(i)] {
				t.Errorf("page %d not done", i)
			}
		}
		wantRemoved := []string{pendingKey(dataset.SpacesDir, "", 7), pendingKey(dataset.BlobsDir, "", 0), partKey(dataset.BlobsDir, "", 8)}
		slices.Sort(wantRemoved)
		slices.Sort(state.Removed)
		if !slices.Equal(state.Removed, wantRemoved) {
			t.Errorf("removed %v, want %v", state.Removed, wantRemoved)
		}
		if want := []string{partKey(dataset.SpacesDir, "", 1)}; !slices.Equal(state.RolledForward, want) {
			t.Errorf("rolled forward %v, want %v", state.RolledForward, want)
		}
		objs, err := st.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for _, o := range objs {
			if !strings.HasPrefix(o.Key, LocksDir+"/") {
				left = append(left, o.Key)
			}
		}
		var want []string
		for _, table := range Tables() {
			want = append(want, partKey(table, "", 0), partKey(table, "", 1))
		}
		slices.Sort(want)
		if !slices.Equal(left, want) {
			t.Errorf("objects after the resume %v, want %v", left, want)
		}
		if _, ok := st.(*store.Dir); ok && state.RemovedTemp != len(Tables()) {
			t.Errorf("removed %d temporary files, want the open part's %d", state.RemovedTemp, len(Tables()))
		}
		checkVisible(t, st)
	})
}

// TestResume_Retry: failed rows that Retry picks are crawled again
// and superseded: after the resume every page has one row, the new one,
// and the parts that held the old rows are gone.
func TestResume_Retry(t *testing.T) {
	backends(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		ctx := context.Background()
		st := open(t)
		cfg := Config{PartPages: 2}
		out := openOutput(t, st, cfg)
		first := []Rows{fakeResult(0), failedResult(1, "timeout"), fakeResult(2), failedResult(3, "http"), failedResult(4, "timeout"), fakeResult(5)}
		writeParts(t, out, 0, nil, first...)

		transient := ResumeOptions{Logger: quiet(), Retry: func(p PageOutcome) bool { return p.ErrorKind == "timeout" }}
		state, err := Resume(ctx, out, transient)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := state.Retry, map[string]int{pageID(1): 0, pageID(4): 2}; !equalMaps(got, want) {
			t.Errorf("retry %v, want %v", got, want)
		}
		if len(state.Done) != 4 || state.Done[pageID(1)] || !state.Done[pageID(3)] {
			t.Errorf("done %v, want 0, 2, 3 (a 4xx-like failure is kept), 5", state.Done)
		}
		stats := writeParts(t, out, state.NextPart, state.Retry, fakeResult(1), fakeResult(4))
		if stats.Superseded != 2 || stats.Rewritten != 2 {
			t.Errorf("stats %+v, want 2 rows superseded in 2 parts", stats)
		}
		perPage := checkVisible(t, st)
		for i := range 6 {
			if perPage[pageID(i)] != 1 {
				t.Errorf("page %d: %d pages rows, want 1", i, perPage[pageID(i)])
			}
		}
		state, err = Resume(ctx, out, transient)
		if err != nil {
			t.Fatal(err)
		}
		if len(state.Retry) != 0 || len(state.Done) != 6 || state.Duplicates != 0 {
			t.Errorf("second resume: retry %v, done %d, duplicates %d; want nothing left", state.Retry, len(state.Done), state.Duplicates)
		}
	})
}

func equalMaps[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// errKilled is the fault that stands for a kill.
var errKilled = errors.New("killed")

// TestParts_KillAtEveryStep kills a resume that supersedes failed rows at
// every change it makes to the store in turn — every publish, commit,
// roll-forward and delete, of new parts and of rewritten parts — then
// kills the resume that cleans up after it at one of its first changes,
// and checks after each kill that readers see no other table's part
// without its pages part and no page without its row, and that one more
// resume leaves every page with exactly its newest row.
func TestParts_KillAtEveryStep(t *testing.T) {
	ctx := context.Background()
	first := []Rows{fakeResult(0), failedResult(1, "timeout"), fakeResult(2), failedResult(3, "timeout"), failedResult(4, "timeout"), fakeResult(5)}
	retry := ResumeOptions{Logger: quiet(), Retry: func(p PageOutcome) bool { return p.ErrorKind == "timeout" }}
	again := []Rows{fakeResult(1), fakeResult(3), fakeResult(4), fakeResult(6)}
	for i := range again {
		again[i].Page.CapturedAt = again[i].Page.CapturedAt.Add(time.Hour)
	}

	// resume runs a resume: Resume, then the pages picked crawled
	// again and the new page 6, into parts of two pages.
	resume := func(out *Output) error {
		state, err := Resume(ctx, out, retry)
		if err != nil {
			return err
		}
		s, err := NewWriter(ctx, out, dataset.Metadata{RunID: "r"}, state.NextPart, state.Retry)
		if err != nil {
			return err
		}
		for _, r := range again {
			if state.Done[r.Page.PageID] {
				continue
			}
			if err := s.Write(r); err != nil {
				s.abort()
				return err
			}
		}
		return s.Close()
	}

	// fresh is a dataset of the first crawl's parts, in a directory of
	// its own, and the output that resumes it.
	fresh := func(t *testing.T) (string, store.Store, *Output) {
		dir := t.TempDir()
		st := openStore(t, dir)
		out := openOutput(t, st, Config{PartPages: 2})
		writeParts(t, out, 0, nil, first...)
		return dir, st, out
	}

	// killAt kills a resume of a fresh dataset at its change number kill,
	// and checks what readers see after it and after the resumes that follow.
	killAt := func(t *testing.T, kill int) {
		dir, st, out := fresh(t)
		n := 0
		var killedAt string
		out.fault = func(op string) error {
			if n++; n == kill+1 {
				killedAt = op
				return errKilled
			}
			return nil
		}
		err := resume(out)
		if killedAt == "" {
			t.Fatalf("no change %d to kill at (the resume made %d): %v", kill, n, err)
		}
		if !errors.Is(err, errKilled) {
			t.Fatalf("kill at %q: resume returned %v, want the kill", killedAt, err)
		}
		perPage := checkVisible(t, st)
		for i := range 6 {
			if perPage[pageID(i)] == 0 {
				t.Errorf("kill at %q: page %d has no pages row", killedAt, i)
			}
		}
		// The resume that cleans up is killed too, at one of its first
		// changes (which one varies with kill), and checked again.
		n, second, secondAt := 0, kill%6+1, ""
		out.fault = func(op string) error {
			if n++; n == second {
				secondAt = op
				return errKilled
			}
			return nil
		}
		if err := resume(out); secondAt != "" {
			if !errors.Is(err, errKilled) {
				t.Fatalf("kill at %q, then at %q: resume returned %v, want the kill", killedAt, secondAt, err)
			}
			perPage := checkVisible(t, st)
			for i := range 6 {
				if perPage[pageID(i)] == 0 {
					t.Errorf("kill at %q, then at %q: page %d has no pages row", killedAt, secondAt, i)
				}
			}
			killedAt += ", then at " + secondAt
		} else if err != nil {
			t.Fatalf("kill at %q: the next resume: %v", killedAt, err)
		}
		out.fault = nil
		if err := resume(out); err != nil {
			t.Fatalf("kill at %q: the last resume: %v", killedAt, err)
		}
		perPage = checkVisible(t, st)
		tables := readTables(t, st)
		for i := range 7 {
			if perPage[pageID(i)] != 1 {
				t.Errorf("kill at %q, then a resume: page %d has %d pages rows, want 1", killedAt, i, perPage[pageID(i)])
			}
		}
		for _, id := range []int{1, 3, 4} {
			blobs := 0
			for _, rows := range tables[dataset.BlobsDir] {
				for _, r := range rows {
					if r.PageID == pageID(id) {
						blobs++
					}
				}
			}
			if blobs != 1 {
				t.Errorf("kill at %q, then a resume: page %d has %d blobs rows, want 1 (its retried row's)", killedAt, id, blobs)
			}
		}
		if tmps := localTemps(t, dir); len(tmps) != 0 {
			t.Errorf("kill at %q, then a resume: leftovers %v", killedAt, tmps)
		}
	}

	// A resume without a kill counts the changes to kill at.
	_, _, out := fresh(t)
	steps := 0
	out.fault = func(string) error { steps++; return nil }
	if err := resume(out); err != nil {
		t.Fatalf("resume without a kill: %v", err)
	}
	if steps < 20 {
		t.Fatalf("a resume made %d changes to the store; want the kill tried at each of more", steps)
	}

	// Each kill runs on a dataset of its own, in parallel: the store's
	// syncs make every kill wait on the disk. Under -short (the race
	// detector's pass of make test) every tenth step; the full pass kills
	// at each.
	stride := 1
	if testing.Short() {
		stride = 10
	}
	t.Logf("killing a resume at every %d of its %d changes to the store", stride, steps)
	for kill := 0; kill < steps; kill += stride {
		t.Run(fmt.Sprintf("kill at %d", kill), func(t *testing.T) {
			t.Parallel()
			killAt(t, kill)
		})
	}
}

// localTemps lists the files in a dataset directory that are neither
// parts nor locks.
func localTemps(t *testing.T, dir string) []string {
	t.Helper()
	st := openStore(t, dir)
	objs, err := st.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		if !strings.HasPrefix(o.Key, LocksDir+"/") && !isPartKey(o.Key) {
			out = append(out, o.Key)
		}
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, "*", "*"+store.TempSuffix))
	return append(out, tmps...)
}

// TestOutput_Lock: a second writer of a partition is refused while the
// first holds its lock, waits for it when told to, and takes over a lock
// whose holder stopped renewing it; the first writer then publishes
// nothing more.
func TestOutput_Lock(t *testing.T) {
	backends(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		ctx := context.Background()
		st := open(t)
		// The TTL leaves a busy machine room: the holder renews every
		// TTL/3, and Check refuses once less than TTL/6 is left, so a
		// slow renewal or two of the S3 server must not lose the lease
		// (with a 1 s TTL, make test lost it once).
		cfg := Config{PartPages: 1, Partition: "shard=0002", LockTTL: 3 * time.Second}
		first, err := OpenOutput(ctx, st, "first", cfg, quiet())
		if err != nil {
			t.Fatal(err)
		}
		_, err = OpenOutput(ctx, st, "second", cfg, quiet())
		var held *HeldError
		if !errors.As(err, &held) || held.Holder.Owner != "first" {
			t.Fatalf("second writer: %v, want the lock held by first", err)
		}
		if other, err := OpenOutput(ctx, st, "other shard", Config{Partition: "shard=0003"}, quiet()); err != nil {
			t.Errorf("another partition: %v, want its own lock", err)
		} else {
			other.Close(ctx)
		}
		// Renewals keep the lock past its TTL.
		time.Sleep(cfg.LockTTL * 3 / 2)
		if err := first.Check(); err != nil {
			t.Fatalf("the holder after 1.5 TTL: %v, want its renewals to keep the lock", err)
		}
		s, err := NewWriter(ctx, first, dataset.Metadata{}, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Write(fakeResult(0)); err != nil {
			t.Fatal(err)
		}

		// The holder dies: its renewals stop, the lock goes stale.
		close(first.stop)
		<-first.stopped
		start := time.Now()
		cfg.LockWait = 10 * time.Second
		second, err := OpenOutput(ctx, st, "second", cfg, quiet())
		if err != nil {
			t.Fatalf("take over a stale lock: %v", err)
		}
		defer second.Close(ctx)
		t.Logf("took over the stale lock after %v", time.Since(start).Round(time.Millisecond))
		if err := first.Check(); !errors.Is(err, ErrLockLost) {
			t.Errorf("the old holder's Check: %v, want ErrLockLost", err)
		}
		if err := s.Write(fakeResult(1)); !errors.Is(err, ErrLockLost) {
			t.Errorf("the old holder publishes: %v, want ErrLockLost", err)
		}
		if pages, err := Keys(ctx, st, dataset.PagesDir); err != nil || len(pages) != 1 {
			t.Errorf("pages parts %v, %v; want only the one published under the lock", pages, err)
		}
	})
}

// TestConfig_Validate names the bad field.
func TestConfig_Validate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{PartPages: -1}, "part-pages"},
		{Config{PartInterval: -1}, "part-interval"},
		{Config{Partition: "a/b"}, "partition"},
		{Config{Partition: "_hidden"}, "partition"},
		{Config{Partition: ".hidden"}, "partition"},
		{Config{LockTTL: time.Millisecond}, "lock-ttl"},
		{Config{LockWait: -time.Second}, "lock-wait"},
	}
	for _, tc := range tests {
		if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %s", tc.cfg, err, tc.want)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

func TestPartNumber(t *testing.T) {
	tests := []struct {
		name          string
		n             int
		pending, isOK bool
	}{
		{"part-00042.parquet", 42, false, true},
		{"_part-00042.parquet.pending", 42, true, true},
		{"part-00042.parquet.pending", 0, false, false},
		{"_part-00042.parquet", 0, false, false},
		{".part-00042.parquet.123.tmp", 0, false, false},
		{"part-x.parquet", 0, false, false},
	}
	for _, tc := range tests {
		n, pending, ok := partNumber(tc.name)
		if n != tc.n || pending != tc.pending || ok != tc.isOK {
			t.Errorf("partNumber(%q) = %d, %v, %v; want %d, %v, %v", tc.name, n, pending, ok, tc.n, tc.pending, tc.isOK)
		}
	}
	for key, want := range map[string]bool{
		"pages/part-00001.parquet":                true,
		"pages/shard=0001/part-00001.parquet":     true,
		"pages/_part-00001.parquet.pending":       false,
		"pages/_tmp/part-00001.parquet":           false,
		"pages/.part-00001.parquet.1.tmp":         false,
		"pages/shard=0001/part-00001.parquet.tmp": false,
	} {
		if got := isPartKey(key); got != want {
			t.Errorf("isPartKey(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestResume_Duplicates: what a crash between a retried page's
// commit and the rewrite of its old part leaves — two rows of one page —
// is cleaned up by the next resume, which keeps the newer row; so is a
// rewritten part's copy left beside its original (equal rows: the later
// part wins).
func TestResume_Duplicates(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory(t.Name())
	out := openOutput(t, st, Config{PartPages: 2})
	retried := fakeResult(1)
	retried.Page.CapturedAt = retried.Page.CapturedAt.Add(time.Hour)
	// Part 0: pages 0 and 1 (1 timed out). Part 1: page 1 again, ok, and
	// page 2. Part 2: a copy of part 0 (a rewrite killed before it deleted
	// its original).
	writeParts(t, out, 0, nil, fakeResult(0), failedResult(1, "timeout"))
	writeParts(t, out, 1, nil, retried, fakeResult(2))
	writeParts(t, out, 2, nil, fakeResult(0), failedResult(1, "timeout"))

	state, err := Resume(ctx, out, ResumeOptions{Logger: quiet(), Retry: func(p PageOutcome) bool { return p.ErrorKind == "timeout" }})
	if err != nil {
		t.Fatal(err)
	}
	if state.Duplicates != 3 || len(state.Retry) != 0 || len(state.Done) != 3 {
		t.Errorf("duplicates %d, retry %v, done %d; want 3 rows removed (page 1 twice, page 0 once), nothing to retry, 3 done", state.Duplicates, state.Retry, len(state.Done))
	}
	perPage := checkVisible(t, st)
	for i := range 3 {
		if perPage[pageID(i)] != 1 {
			t.Errorf("page %d: %d rows, want 1", i, perPage[pageID(i)])
		}
	}
	rows := map[string]dataset.PageRow{}
	keys, _ := Keys(ctx, st, dataset.PagesDir)
	for _, k := range keys {
		if err := Scan(ctx, st, k, func(r dataset.PageRow) error { rows[r.PageID] = r; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if r := rows[pageID(1)]; r.Status != dataset.StatusOK {
		t.Errorf("page 1 kept %s %s, want the newer ok row", r.Status, r.ErrorKind)
	}
	if slices.Contains(keys, partKey(dataset.PagesDir, "", 0)) {
		t.Errorf("parts %v: part 0, whose rows are all in later parts, is still there", keys)
	}
}
