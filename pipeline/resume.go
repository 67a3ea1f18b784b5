package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"actionspace/dataset"
)

// DatasetState is what a dataset directory already holds: what a resumed
// crawl skips and where it goes on.
type DatasetState struct {
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
	// of parts that were never completed, and spaces parts whose pages part
	// is missing.
	Removed []string
}

// pageIDColumn is the one column a resume reads from the pages parts.
type pageIDColumn struct {
	PageID string `parquet:"page_id"`
}

// OpenDataset reads the state of the dataset in dir for a resume of the
// crawl that writes partition ("" for none; see [OutputConfig]). It cleans
// up what an interrupted run left in that partition — temporary part files,
// and spaces parts without their pages part — and reads the page IDs of
// every complete pages part of the dataset. A directory with no dataset yet
// gives an empty state. It fails when a complete part cannot be read.
func OpenDataset(dir, partition string, log *slog.Logger) (DatasetState, error) {
	if log == nil {
		log = slog.Default()
	}
	st := DatasetState{Done: make(map[string]bool)}
	pagesDir, spacesDir := partitionDirs(dir, partition)

	// Only the partition's own files, directly in its folders: those below
	// (other partitions) may belong to crawls still running.
	var pages, spaces []string
	for _, d := range []struct {
		dir   string
		parts *[]string
	}{{pagesDir, &pages}, {spacesDir, &spaces}} {
		entries, err := os.ReadDir(d.dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return st, fmt.Errorf("resume: %w", err)
		}
		for _, e := range entries {
			path := filepath.Join(d.dir, e.Name())
			switch {
			case !e.Type().IsRegular():
			case strings.HasSuffix(e.Name(), PartExt+dataset.TempSuffix):
				// A part that was never completed.
				if err := os.Remove(path); err != nil {
					return st, fmt.Errorf("clean up dataset %s: %w", dir, err)
				}
				st.Removed = append(st.Removed, path)
			case strings.HasSuffix(e.Name(), PartExt):
				*d.parts = append(*d.parts, path)
			}
		}
	}
	havePages := make(map[string]bool, len(pages))
	for _, p := range pages {
		havePages[filepath.Base(p)] = true
		if n, ok := partNumber(filepath.Base(p)); ok && n >= st.NextPart {
			st.NextPart = n + 1
		}
	}
	for _, s := range spaces {
		if havePages[filepath.Base(s)] {
			continue
		}
		// The run died between closing the spaces part and its pages
		// part: its pages are not done, so its spaces rows must go.
		if err := os.Remove(s); err != nil {
			return st, fmt.Errorf("clean up dataset %s: %w", dir, err)
		}
		st.Removed = append(st.Removed, s)
	}
	for _, p := range st.Removed {
		log.Info("removed an unfinished part file", "path", p)
	}

	pages, _, err := DatasetFiles(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return st, nil
		}
		return st, err
	}

	for i, p := range pages {
		if i == 0 {
			meta, err := dataset.ReadMetadata(p)
			if err != nil {
				return st, fmt.Errorf("resume: %w", err)
			}
			st.RunID, st.Config = meta.RunID, meta.Config
		}
		err := dataset.Scan(p, func(row pageIDColumn) error {
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

// resumeKeys are the settings of Config.record that shape the rows: a
// resume with other values would mix two kinds of rows in one dataset.
var resumeKeys = []string{"viewport_expansions", "text", "encodings", "viewport_width", "viewport_height", "capture_script_sha256", "capture_script_options"}

// checkResumable reports the first row-shaping setting in which the new
// run's config record differs from the dataset's.
func checkResumable(datasetConfig, runConfig string) error {
	if datasetConfig == "" {
		return nil
	}
	var old, cur map[string]any
	if err := json.Unmarshal([]byte(datasetConfig), &old); err != nil {
		return fmt.Errorf("resume: the dataset's config metadata does not parse: %w", err)
	}
	if err := json.Unmarshal([]byte(runConfig), &cur); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	for _, k := range resumeKeys {
		if !reflect.DeepEqual(old[k], cur[k]) {
			return fmt.Errorf("resume: %s is %v in the dataset but %v now; resume with the same settings or crawl into a new directory", k, jsonText(old[k]), jsonText(cur[k]))
		}
	}
	return nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
