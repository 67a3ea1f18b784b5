package parts

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"actionspace/dataset"
	"actionspace/dataset/store"
)

// Defaults for [Config].
const (
	DefaultPartPages    = 500
	DefaultPartInterval = 5 * time.Minute
)

// minLockTTL is the shortest lock TTL Config takes: renewals come
// every third of it.
const minLockTTL = time.Second

// Config says how a [Writer] rotates its part files, where in
// the dataset it puts them, and how it locks that place.
type Config struct {
	// PartPages closes a part after this many pages rows; 0 means no
	// limit. Smaller parts lose less to a kill -9 (only the open part's
	// pages are crawled again by a resume) and make more files.
	PartPages int
	// PartInterval closes a part that has been open this long; 0 means no
	// limit.
	PartInterval time.Duration
	// Partition, when set, is the subfolder of every table's folder the
	// parts go into, such as "shard=0003", so that several writers
	// (shards) share one dataset. It is one path element: no separators,
	// not starting with "." or "_" (names readers skip).
	Partition string
	// LockTTL is how long the partition's lock lasts without a renewal
	// (see [OpenOutput]); a writer killed with the lock held blocks the
	// partition this long. 0 means DefaultLockTTL; otherwise at least 1s.
	LockTTL time.Duration
	// LockWait is how long OpenOutput waits for a lock another writer
	// holds to be released or to go stale; 0 refuses at once.
	LockWait time.Duration
}

// DefaultConfig returns parts of DefaultPartPages pages, closed at
// least every DefaultPartInterval, in no partition, under a lock of
// DefaultLockTTL that a second writer is refused at once.
func DefaultConfig() Config {
	return Config{PartPages: DefaultPartPages, PartInterval: DefaultPartInterval, LockTTL: DefaultLockTTL}
}

// Validate reports the first invalid setting, naming it.
func (c Config) Validate() error {
	switch {
	case c.PartPages < 0:
		return fmt.Errorf("part-pages: %d, want >= 0", c.PartPages)
	case c.PartInterval < 0:
		return fmt.Errorf("part-interval: %v, want >= 0", c.PartInterval)
	case c.Partition != "" && (!filepath.IsLocal(c.Partition) || strings.ContainsAny(c.Partition, `/\`) || strings.HasPrefix(c.Partition, ".") || strings.HasPrefix(c.Partition, "_")):
		return fmt.Errorf("partition: %q, want one folder name, not starting with . or _", c.Partition)
	case c.LockTTL != 0 && c.LockTTL < minLockTTL:
		return fmt.Errorf("lock-ttl: %v, want at least %v", c.LockTTL, minLockTTL)
	case c.LockWait < 0:
		return fmt.Errorf("lock-wait: %v, want >= 0", c.LockWait)
	}
	return nil
}

// Keys returns the keys of the complete part files of table
// (dataset.PagesDir, dataset.SpacesDir, dataset.BlobsDir) in the dataset in st: every *.parquet
// object below table/, at any depth, in lexical order, but the names
// readers skip (see [isPartKey]). Files being written, and parts that are
// not visible yet, are not listed. A dataset with no parts gives none.
func Keys(ctx context.Context, st store.Store, table string) ([]string, error) {
	objs, err := st.List(ctx, table+"/")
	if err != nil {
		return nil, fmt.Errorf("list dataset parts: %w", err)
	}
	var keys []string
	for _, o := range objs {
		if isPartKey(o.Key) {
			keys = append(keys, o.Key)
		}
	}
	return keys, nil
}

// Files returns the complete part files of table in the dataset directory
// dir, as paths (Keys of a local store). A dir that does not exist is
// an error.
func Files(dir, table string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	st, err := store.Open(context.Background(), dir, store.Config{})
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer st.Close()
	keys, err := Keys(context.Background(), st, table)
	if err != nil {
		return nil, err
	}
	files := make([]string, len(keys))
	for i, k := range keys {
		files[i] = filepath.Join(dir, filepath.FromSlash(k))
	}
	return files, nil
}

// ReadTable reads every row of every complete part of table in the
// dataset directory dir (see Files), in file order.
func ReadTable[T any](dir, table string) ([]T, error) {
	files, err := Files(dir, table)
	if err != nil {
		return nil, err
	}
	var rows []T
	for _, f := range files {
		rs, err := dataset.ReadAll[T](f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
		rows = append(rows, rs...)
	}
	return rows, nil
}

// Rows are the rows one page gives the tables of a dataset: a Writer
// writer writes them together, into the same part.
type Rows struct {
	// Page is the page's pages row; every URL has one.
	Page dataset.PageRow
	// Blob holds the page's heavy values; nil for a page without any (one
	// that was not captured).
	Blob *dataset.BlobRow
	// Spaces are the page's spaces rows.
	Spaces []dataset.SpaceRow
	// Elements are the page's elements rows: its elements interactive by
	// our rules.
	Elements []dataset.ElementRow
	// Oracle are the page's oracle rows; none when its accessibility tree
	// was not stored.
	Oracle []dataset.OracleRow
	// Steps are the page's steps rows, one per step performed after its
	// first capture (crawl --steps); none without steps.
	Steps []dataset.StepRow
	// StepBlobs hold the heavy values of the states the page's steps
	// left, one per step with a state, in step order; Blob is step 0's.
	StepBlobs []dataset.BlobRow
}

// Writer writes a crawl's rows into rotating parts of its output partition:
// each page's rows of every table go into the same part, so that a part's
// files always hold the same pages. It closes a part every PartPages pages
// and, on a timer of its own, every PartInterval. Write and Close may be
// called from different goroutines.
//
// Publishing a part (see the layout above): the other tables' files are
// streamed to pending keys and published there, then — if the output's
// lock still holds — the pages file is published under its final key,
// which commits the part, then the pending files are renamed to their
// final keys. Nothing is ever overwritten: every key is created once.
//
// Superseding: a resume hands Writer the page IDs whose failed rows it
// crawls again (and the part holding each). Once every such page of an
// old part has its new row in a committed part, the old part is written
// again without those rows under a new number (published as above) and
// then deleted, its pages file last; Close does the same for old parts
// only some of whose pages were crawled again. A URL so never has zero
// rows; a kill between the commit of the new row and the deletion of the
// old part leaves both rows, which the next resume finds and cleans up
// (see Resume).
type Writer struct {
	ctx      context.Context
	out      *Output
	meta     dataset.Metadata
	cfg      Config
	tables   []table
	stopTick chan struct{}
	ticked   chan struct{}

	mu      sync.Mutex
	next    int           // number of the next part to open
	open    []*partWriter // the open part, one writer per table; nil if none
	openNum int
	ids     []string // page IDs in the open part
	opened  time.Time
	stats   Stats
	err     error

	release  func() error     // what Close releases besides (Create)
	retry    map[string]int   // page_id → old part whose row its new row supersedes
	waiting  map[int]int      // old part → pages of it not yet crawled again
	replaced map[int][]string // old part → pages of it whose new rows are committed
}

// Stats counts what a Writer published.
type Stats struct {
	// Parts is the number of parts committed, rewritten ones included.
	Parts int
	// Bytes is the number of bytes of the objects published (what was
	// uploaded, to a bucket); the server-side copies of a roll-forward are
	// not counted.
	Bytes int64
	// Superseded is the number of failed pages rows removed because a new
	// row of the same page was committed; Rewritten the number of old
	// parts written again (or deleted) for that.
	Superseded, Rewritten int
}

// NewWriter starts writing parts into out's partition, numbering them from
// next (see [ResumeState].NextPart). meta goes into every file. retry maps
// the page IDs whose rows the new rows supersede to the part holding each
// (a subset of ResumeState.Retry: the pages about to be crawled again); it
// may be nil. ctx bounds every upload and clean-up: a crawl that is
// interrupted still wants its open part published, so it passes a context
// that its interruption does not cancel.
func NewWriter(ctx context.Context, out *Output, meta dataset.Metadata, next int, retry map[string]int) (*Writer, error) {
	s := &Writer{
		ctx:      ctx,
		out:      out,
		meta:     meta,
		cfg:      out.cfg,
		tables:   tableDefs(),
		next:     next,
		stopTick: make(chan struct{}),
		ticked:   make(chan struct{}),
		retry:    make(map[string]int, len(retry)),
		waiting:  make(map[int]int),
		replaced: make(map[int][]string),
	}
	for id, part := range retry {
		s.retry[id] = part
		s.waiting[part]++
	}
	if every := s.cfg.PartInterval; every > 0 {
		go s.tick(min(time.Second, max(every/2, time.Millisecond)))
	} else {
		close(s.ticked)
	}
	return s, nil
}

// Create opens the dataset location loc (see store.Open), locks
// partition cfg.Partition for owner "parts.Create", and returns a Writer
// writer into it numbering parts from 0; its Close also releases the lock
// and the store. It is the one-call way for a tool or a test to write a
// new dataset: a partition that already holds parts is refused.
func Create(ctx context.Context, loc string, meta dataset.Metadata, cfg Config) (*Writer, error) {
	st, err := store.Open(ctx, loc, store.Config{})
	if err != nil {
		return nil, err
	}
	out, err := OpenOutput(ctx, st, "parts.Create", cfg, nil)
	if err != nil {
		st.Close()
		return nil, err
	}
	release := func() error {
		err := out.Close(ctx)
		if cerr := st.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if n, err := Count(ctx, out); err != nil || n > 0 {
		release()
		if err == nil {
			err = fmt.Errorf("%s already holds %d part files", store.Redact(loc), n)
		}
		return nil, err
	}
	s, err := NewWriter(ctx, out, meta, 0, nil)
	if err != nil {
		release()
		return nil, err
	}
	s.release = release
	return s, nil
}

// tick closes parts that have been open PartInterval until Close.
func (s *Writer) tick(every time.Duration) {
	defer close(s.ticked)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case now := <-t.C:
			_ = s.rotateIfDue(now) // a failure is sticky: the next Write returns it
		case <-s.stopTick:
			return
		}
	}
}

// Write adds one page's rows to the open part, opening one when none is,
// and closes the part when it is full. After a failure every call returns
// that failure.
func (s *Writer) Write(r Rows) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.open == nil {
		if err := s.openPart(); err != nil {
			return s.fail(err)
		}
	}
	for i, t := range s.tables {
		if err := t.write(s.open[i], &r); err != nil {
			return s.fail(err)
		}
	}
	s.ids = append(s.ids, r.Page.PageID)
	if s.cfg.PartPages > 0 && len(s.ids) >= s.cfg.PartPages {
		return s.fail(s.finish())
	}
	return nil
}

// rotateIfDue closes the open part when it has been open PartInterval.
func (s *Writer) rotateIfDue(now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.open == nil || s.cfg.PartInterval <= 0 || now.Sub(s.opened) < s.cfg.PartInterval {
		return s.err
	}
	return s.fail(s.finish())
}

// Close completes the open part, if any, supersedes the rows of old parts
// whose pages were crawled again, and stops the rotation timer. After a
// failure it discards the open part and returns the failure.
func (s *Writer) Close() error {
	err := s.close()
	if s.release != nil {
		if rerr := s.release(); err == nil {
			err = rerr
		}
		s.release = nil
	}
	return err
}

func (s *Writer) close() error {
	select {
	case <-s.stopTick:
	default:
		close(s.stopTick)
	}
	<-s.ticked
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		s.abort()
		return s.err
	}
	if err := s.fail(s.finish()); err != nil {
		return err
	}
	return s.fail(s.supersede(true))
}

// Completed returns the number of parts committed.
func (s *Writer) Completed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats.Parts
}

// Stats returns what was published so far.
func (s *Writer) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// openPart starts the next part: a writer per table, the pages one under
// its final key, the others under their pending keys.
func (s *Writer) openPart() error {
	n := s.next
	ws, err := s.out.createPart(s.ctx, s.tables, n, s.meta)
	if err != nil {
		return err
	}
	s.next++
	s.open, s.openNum, s.ids, s.opened = ws, n, nil, time.Now()
	return nil
}

// finish publishes the open part, then supersedes the old rows it
// replaces once their old parts have no more pages waiting.
func (s *Writer) finish() error {
	if s.open == nil {
		return nil
	}
	ws, ids, n := s.open, s.ids, s.openNum
	s.open, s.ids = nil, nil
	bytes, err := s.out.publish(s.ctx, s.tables, n, ws)
	if err != nil {
		return fmt.Errorf("close part %d: %w", n, err)
	}
	s.stats.Parts++
	s.stats.Bytes += bytes
	for _, id := range ids {
		if old, ok := s.retry[id]; ok {
			delete(s.retry, id)
			s.waiting[old]--
			s.replaced[old] = append(s.replaced[old], id)
		}
	}
	return s.supersede(false)
}

// supersede rewrites the old parts whose replaced rows are all committed
// (with all, every old part with any).
func (s *Writer) supersede(all bool) error {
	olds := make([]int, 0, len(s.replaced))
	for old := range s.replaced {
		if all || s.waiting[old] == 0 {
			olds = append(olds, old)
		}
	}
	slices.Sort(olds)
	for _, old := range olds {
		drop := make(map[string]bool, len(s.replaced[old]))
		for _, id := range s.replaced[old] {
			drop[id] = true
		}
		res, err := s.out.rewritePart(s.ctx, s.tables, old, drop, func() int { s.next++; return s.next - 1 })
		if err != nil {
			return fmt.Errorf("supersede the old rows of part %d: %w", old, err)
		}
		delete(s.replaced, old)
		s.stats.Superseded += res.removed
		s.stats.Rewritten++
		s.stats.Bytes += res.bytes
		if res.written {
			s.stats.Parts++
		}
	}
	return nil
}

// abort discards the open part.
func (s *Writer) abort() {
	for _, w := range s.open {
		_ = w.Abort()
	}
	s.open, s.ids = nil, nil
}

// fail makes err sticky.
func (s *Writer) fail(err error) error {
	if err != nil && s.err == nil {
		s.err = err
		s.abort()
	}
	return err
}

// createPart starts part n of every table in the partition: the pages
// file under its final key, the others under their pending keys.
func (o *Output) createPart(ctx context.Context, tables []table, n int, meta dataset.Metadata) ([]*partWriter, error) {
	ws := make([]*partWriter, 0, len(tables))
	fail := func(err error) ([]*partWriter, error) {
		for _, w := range ws {
			_ = w.Abort()
		}
		return nil, err
	}
	for _, t := range tables {
		key := pendingKey(t.dir, o.partition, n)
		if t.dir == dataset.PagesDir {
			key = partKey(t.dir, o.partition, n)
		}
		out, err := o.st.Create(ctx, key)
		if err != nil {
			return fail(err)
		}
		w, err := t.open(out, key, meta)
		if err != nil {
			return fail(err)
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// publish makes part n, whose files ws (one per table, pages last) have
// been written, visible: it publishes the other tables' files under their
// pending keys, checks the lock, publishes the pages file (the commit),
// and renames the pending files to their final keys. It returns the bytes
// published. A failure before the commit leaves pending files that a
// resume removes; after it, pending files that a resume rolls forward.
func (o *Output) publish(ctx context.Context, tables []table, n int, ws []*partWriter) (int64, error) {
	last := len(ws) - 1
	var bytes int64
	for i, w := range ws[:last] {
		err := o.step("publish", w.Path())
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			for _, rest := range ws[i+1:] {
				_ = rest.Abort()
			}
			return 0, err
		}
		bytes += w.size()
	}
	err := o.Check()
	if err == nil {
		err = o.step("commit", ws[last].Path())
	}
	if err != nil {
		_ = ws[last].Abort()
		return 0, err
	}
	if err := ws[last].Close(); err != nil {
		return 0, err
	}
	bytes += ws[last].size()
	for _, t := range tables[:last] {
		if err := o.rename(ctx, pendingKey(t.dir, o.partition, n), partKey(t.dir, o.partition, n)); err != nil {
			return bytes, fmt.Errorf("roll forward (a resume finishes it): %w", err)
		}
	}
	return bytes, nil
}
