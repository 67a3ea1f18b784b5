package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The layout of a dataset directory DIR: one folder per table, and in
// each the part files.
//
//	DIR/pages/part-00000.parquet   DIR/spaces/part-00000.parquet   DIR/blobs/part-00000.parquet
//	DIR/pages/part-00001.parquet   DIR/spaces/part-00001.parquet   DIR/blobs/part-00001.parquet
//	...
//
// Parts with the same name hold the same pages: their pages rows in one
// table and the rows they gave every other table in the others. Each part
// is written under a temporary name (TempSuffix) and renamed when
// complete, the pages part last, so a pages part exists only when the
// part is complete in every table: a process killed at any moment leaves
// complete parts plus at most one set of temporary files (and, between
// two renames, parts of other tables without their pages part, which a
// resume removes). Readers take every *.parquet file below a table's
// folder, at any depth — DuckDB read_parquet('DIR/pages/**/*.parquet'),
// pyarrow dataset("DIR/pages") — so that partitions
// (DIR/pages/shard=0003/…) read as one table too.
const (
	// PagesDir is the folder of the pages table inside a dataset directory.
	PagesDir = "pages"
	// SpacesDir is the folder of the spaces table.
	SpacesDir = "spaces"
	// BlobsDir is the folder of the blobs table.
	BlobsDir = "blobs"
	// ElementsDir is the folder of the elements table.
	ElementsDir = "elements"
	// OracleDir is the folder of the oracle table.
	OracleDir = "oracle"
	// PartExt is the extension of a complete part file.
	PartExt = ".parquet"
	// PagesGlob, SpacesGlob, BlobsGlob, ElementsGlob and OracleGlob match
	// every part of each table relative to the dataset directory, in the **
	// syntax of DuckDB and Spark.
	PagesGlob    = PagesDir + "/**/*" + PartExt
	SpacesGlob   = SpacesDir + "/**/*" + PartExt
	BlobsGlob    = BlobsDir + "/**/*" + PartExt
	ElementsGlob = ElementsDir + "/**/*" + PartExt
	OracleGlob   = OracleDir + "/**/*" + PartExt
)

// Tables returns the folders of every table of a dataset directory in the
// order a part's files are completed: the pages table last.
func Tables() []string { return []string{SpacesDir, BlobsDir, ElementsDir, OracleDir, PagesDir} }

// partPrefix starts every part file name: part-00042.parquet.
const partPrefix = "part-"

// Row group sizes smaller than the default: a blobs row holds the raw HTML
// and the capture, tens of kilobytes each (up to the caps' megabytes); a
// pages row is small, but a part's pages row group stays in memory until
// it is written.
const (
	pagesRowGroup = 64
	blobsRowGroup = 16
)

// Defaults for [PartsConfig].
const (
	DefaultPartPages    = 500
	DefaultPartInterval = 5 * time.Minute
)

// PartsConfig says how a [Parts] writer rotates its part files and where
// in the dataset directory it puts them.
type PartsConfig struct {
	// PartPages closes a part after this many pages rows; 0 means no
	// limit. Smaller parts lose less to a kill -9 (only the open part's
	// pages are crawled again by a resume) and make more files.
	PartPages int
	// PartInterval closes a part that has been open this long; 0 means no
	// limit.
	PartInterval time.Duration
	// Partition, when set, is the subfolder of pages/ and spaces/ the
	// parts go into, such as "shard=0003", so that several writers
	// (shards) share one dataset directory. It is one path element: no
	// separators, not "." or "..".
	Partition string
}

// DefaultPartsConfig returns parts of DefaultPartPages pages, closed at
// least every DefaultPartInterval, in no partition.
func DefaultPartsConfig() PartsConfig {
	return PartsConfig{PartPages: DefaultPartPages, PartInterval: DefaultPartInterval}
}

// Validate reports the first invalid setting, naming it.
func (c PartsConfig) Validate() error {
	switch {
	case c.PartPages < 0:
		return fmt.Errorf("part-pages: %d, want >= 0", c.PartPages)
	case c.PartInterval < 0:
		return fmt.Errorf("part-interval: %v, want >= 0", c.PartInterval)
	case c.Partition != "" && (!filepath.IsLocal(c.Partition) || strings.ContainsAny(c.Partition, `/\`) || strings.HasPrefix(c.Partition, ".")):
		return fmt.Errorf("partition: %q, want one folder name", c.Partition)
	}
	return nil
}

// partitionDir returns the folder the parts of table in partition go into.
func partitionDir(dir, table, partition string) string {
	return filepath.Join(dir, table, partition)
}

// Files returns the complete part files of table (PagesDir, SpacesDir,
// BlobsDir) in the dataset in dir: every *.parquet file below dir/table,
// at any depth, in lexical order. Temporary files of an unfinished part are
// not listed. A dataset with no parts yet gives no files and no error; a
// dir that does not exist is an error.
func Files(dir, table string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return partFiles(filepath.Join(dir, table))
}

// partFiles lists the *.parquet files below root; none when root is
// missing.
func partFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == root {
				return fs.SkipAll
			}
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), PartExt) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list dataset parts: %w", err)
	}
	slices.Sort(files)
	return files, nil
}

// CountParts counts the part files, complete or temporary, that partition
// of the dataset in dir holds: a new (not resumed) crawl must find none.
func CountParts(dir, partition string) (int, error) {
	n := 0
	for _, table := range Tables() {
		entries, err := os.ReadDir(partitionDir(dir, table, partition))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("output directory: %w", err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() && (strings.HasSuffix(e.Name(), PartExt) || strings.HasSuffix(e.Name(), PartExt+TempSuffix)) {
				n++
			}
		}
	}
	return n, nil
}

// partName is the file name of part n.
func partName(n int) string { return fmt.Sprintf("%s%05d%s", partPrefix, n, PartExt) }

// partNumber parses a part file name; ok false for other names.
func partNumber(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, partPrefix)
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, PartExt)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// Rows are the rows one page gives the tables of a dataset: a Parts
// writer writes them together, into the same part.
type Rows struct {
	// Page is the page's pages row; every URL has one.
	Page PageRow
	// Blob holds the page's heavy values; nil for a page without any (one
	// that was not captured).
	Blob *BlobRow
	// Spaces are the page's spaces rows.
	Spaces []SpaceRow
	// Elements are the page's elements rows: its elements interactive by
	// our rules.
	Elements []ElementRow
	// Oracle are the page's oracle rows; none when its accessibility tree
	// was not stored.
	Oracle []OracleRow
}

// Parts writes a crawl's rows into rotating parts of a dataset directory:
// each page's rows of every table go into the same part, so that a part's
// files always hold the same pages. It closes a part every
// PartPages pages and, on a timer of its own, every PartInterval. Write
// and Close may be called from different goroutines.
type Parts struct {
	dir      string
	meta     Metadata
	cfg      PartsConfig
	stopTick chan struct{}
	ticked   chan struct{}

	mu       sync.Mutex
	next     int // number of the next part to open
	pages    *Writer[PageRow]
	spaces   *Writer[SpaceRow]
	blobs    *Writer[BlobRow]
	elements *Writer[ElementRow]
	oracle   *Writer[OracleRow]
	opened   time.Time
	done     int // parts completed
	err      error
}

// NewParts starts writing parts into the pages and spaces folders of dir
// (of cfg.Partition in them), numbering them from next (see
// [ResumeState].NextPart). meta goes into every file.
func NewParts(dir string, next int, meta Metadata, cfg PartsConfig) (*Parts, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Parts{
		dir:      dir,
		meta:     meta,
		cfg:      cfg,
		next:     next,
		stopTick: make(chan struct{}),
		ticked:   make(chan struct{}),
	}
	for _, table := range Tables() {
		if err := os.MkdirAll(partitionDir(dir, table, cfg.Partition), 0o755); err != nil {
			return nil, fmt.Errorf("create dataset directory: %w", err)
		}
	}
	if every := cfg.PartInterval; every > 0 {
		go s.tick(min(time.Second, max(every/2, time.Millisecond)))
	} else {
		close(s.ticked)
	}
	return s, nil
}

// tick closes parts that have been open PartInterval until Close.
func (s *Parts) tick(every time.Duration) {
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
func (s *Parts) Write(r Rows) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if s.pages == nil {
		if err := s.open(); err != nil {
			return s.fail(err)
		}
	}
	if err := s.pages.Write(r.Page); err != nil {
		return s.fail(err)
	}
	if r.Blob != nil {
		if err := s.blobs.Write(*r.Blob); err != nil {
			return s.fail(err)
		}
	}
	for _, sp := range r.Spaces {
		if err := s.spaces.Write(sp); err != nil {
			return s.fail(err)
		}
	}
	for _, e := range r.Elements {
		if err := s.elements.Write(e); err != nil {
			return s.fail(err)
		}
	}
	for _, o := range r.Oracle {
		if err := s.oracle.Write(o); err != nil {
			return s.fail(err)
		}
	}
	if s.cfg.PartPages > 0 && s.pages.Rows() >= int64(s.cfg.PartPages) {
		return s.fail(s.finish())
	}
	return nil
}

// rotateIfDue closes the open part when it has been open PartInterval.
func (s *Parts) rotateIfDue(now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.pages == nil || s.cfg.PartInterval <= 0 || now.Sub(s.opened) < s.cfg.PartInterval {
		return s.err
	}
	return s.fail(s.finish())
}

// Close completes the open part, if any, and stops the rotation timer.
// After a failure it discards the open part and returns the failure.
func (s *Parts) Close() error {
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
	return s.fail(s.finish())
}

// Completed returns the number of parts completed.
func (s *Parts) Completed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

func (s *Parts) open() error {
	name := partName(s.next)
	path := func(table string) string { return filepath.Join(partitionDir(s.dir, table, s.cfg.Partition), name) }
	var opened []interface{ Abort() error }
	fail := func(err error) error {
		for _, w := range opened {
			_ = w.Abort()
		}
		return err
	}
	pages, err := Create[PageRow](path(PagesDir), s.meta, WriterConfig{RowGroupRows: pagesRowGroup})
	if err != nil {
		return err
	}
	opened = append(opened, pages)
	spaces, err := Create[SpaceRow](path(SpacesDir), s.meta, DefaultWriterConfig())
	if err != nil {
		return fail(err)
	}
	opened = append(opened, spaces)
	blobs, err := Create[BlobRow](path(BlobsDir), s.meta, WriterConfig{RowGroupRows: blobsRowGroup})
	if err != nil {
		return fail(err)
	}
	opened = append(opened, blobs)
	elements, err := Create[ElementRow](path(ElementsDir), s.meta, DefaultWriterConfig())
	if err != nil {
		return fail(err)
	}
	opened = append(opened, elements)
	oracle, err := Create[OracleRow](path(OracleDir), s.meta, DefaultWriterConfig())
	if err != nil {
		return fail(err)
	}
	s.pages, s.spaces, s.blobs, s.elements, s.oracle, s.opened = pages, spaces, blobs, elements, oracle, time.Now()
	s.next++
	return nil
}

// others returns the open part's writers of every table but pages, in the
// order they are completed.
func (s *Parts) others() []interface {
	Close() error
	Abort() error
} {
	return []interface {
		Close() error
		Abort() error
	}{s.spaces, s.blobs, s.elements, s.oracle}
}

// finish closes the open part: the pages file last, so that a pages part
// (what a resume counts as done) never exists without the other tables'
// parts.
func (s *Parts) finish() error {
	if s.pages == nil {
		return nil
	}
	pages, others := s.pages, s.others()
	s.pages, s.spaces, s.blobs, s.elements, s.oracle = nil, nil, nil, nil, nil
	for _, w := range others {
		if err := w.Close(); err != nil {
			for _, o := range others {
				_ = o.Abort()
			}
			_ = pages.Abort()
			return fmt.Errorf("close part: %w", err)
		}
	}
	if err := pages.Close(); err != nil {
		// The other tables' parts are orphans now; a resume removes them.
		return fmt.Errorf("close part: %w", err)
	}
	s.done++
	return nil
}

// abort discards the open part.
func (s *Parts) abort() {
	if s.pages != nil {
		_ = s.pages.Abort()
		for _, w := range s.others() {
			_ = w.Abort()
		}
		s.pages, s.spaces, s.blobs, s.elements, s.oracle = nil, nil, nil, nil, nil
	}
}

// fail makes err sticky.
func (s *Parts) fail(err error) error {
	if err != nil && s.err == nil {
		s.err = err
		s.abort()
	}
	return err
}
