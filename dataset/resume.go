package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// ResumeState is what a dataset directory already holds: what a resumed
// crawl skips and where it goes on.
type ResumeState struct {
	// Done holds the page_id of every pages row in the complete parts.
	Done map[string]bool
	// Rows is the number of pages rows in the complete parts (more than
	// len(Done) only if a URL was written twice).
	Rows int
	// Parts is the number of complete pages parts, in every partition.
	Parts int
	// NextPart is the number the next part of the partition gets.
	NextPart int
	// RunID and Config are the metadata of the first part; empty when
	// there is none.
	RunID, Config string
	// Removed lists the files cleaned up in the partition: temporary files
	// of parts that were never completed, and parts of other tables whose
	// pages part is missing.
	Removed []string
}

// pageIDColumn is the one column a resume reads from the pages parts.
type pageIDColumn struct {
	PageID string `parquet:"page_id"`
}

// OpenForResume reads the state of the dataset in dir for a resume of the
// writer of partition ("" for none; see [PartsConfig]). It cleans
// up what an interrupted run left in that partition — temporary part files,
// and parts of other tables without their pages part — and reads the page IDs of
// every complete pages part of the dataset. A directory with no dataset yet
// gives an empty state. It fails when a complete part cannot be read.
func OpenForResume(dir, partition string, log *slog.Logger) (ResumeState, error) {
	if log == nil {
		log = slog.Default()
	}
	st := ResumeState{Done: make(map[string]bool)}
	// Only the partition's own files, directly in its folders: those below
	// (other partitions) may belong to crawls still running.
	parts := map[string][]string{}
	for _, table := range Tables() {
		d := partitionDir(dir, table, partition)
		entries, err := os.ReadDir(d)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return st, fmt.Errorf("resume: %w", err)
		}
		for _, e := range entries {
			path := filepath.Join(d, e.Name())
			switch {
			case !e.Type().IsRegular():
			case strings.HasSuffix(e.Name(), PartExt+TempSuffix):
				// A part that was never completed.
				if err := os.Remove(path); err != nil {
					return st, fmt.Errorf("clean up dataset %s: %w", dir, err)
				}
				st.Removed = append(st.Removed, path)
			case strings.HasSuffix(e.Name(), PartExt):
				parts[table] = append(parts[table], path)
			}
		}
	}
	havePages := make(map[string]bool)
	for _, p := range parts[PagesDir] {
		havePages[filepath.Base(p)] = true
		if n, ok := partNumber(filepath.Base(p)); ok && n >= st.NextPart {
			st.NextPart = n + 1
		}
	}
	for _, table := range Tables() {
		for _, p := range parts[table] {
			if table == PagesDir || havePages[filepath.Base(p)] {
				continue
			}
			// The run died between completing this part and its pages
			// part: its pages are not done, so its rows must go.
			if err := os.Remove(p); err != nil {
				return st, fmt.Errorf("clean up dataset %s: %w", dir, err)
			}
			st.Removed = append(st.Removed, p)
		}
	}
	for _, p := range st.Removed {
		log.Info("removed an unfinished part file", "path", p)
	}

	pages, err := Files(dir, PagesDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return st, nil
		}
		return st, err
	}

	for i, p := range pages {
		if i == 0 {
			meta, err := ReadMetadata(p)
			if err != nil {
				return st, fmt.Errorf("resume: %w", err)
			}
			st.RunID, st.Config = meta.RunID, meta.Config
		}
		err := Scan(p, func(row pageIDColumn) error {
			st.Done[row.PageID] = true
			st.Rows++
			return nil
		})
		if err != nil {
			return st, fmt.Errorf("resume: %w", err)
		}
		st.Parts++
	}
	return st, nil
}
