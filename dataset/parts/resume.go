package parts

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"time"

	"actionspace/dataset"
	"actionspace/dataset/store"
)

// PageOutcome is how a page's row ended, as a resume reads it back: what
// decides whether the page is crawled again.
type PageOutcome struct {
	// Status, ErrorKind and HTTPStatus are the row's columns.
	Status     string
	ErrorKind  string
	HTTPStatus *int64
}

// ResumeOptions say what a resume makes of the rows it finds.
type ResumeOptions struct {
	// Retry reports whether the page of a row should be crawled again
	// (its failure was transient); its row is then superseded by the new
	// one. nil keeps every row: a failed page counts as done.
	Retry func(PageOutcome) bool
	// Logger receives what the clean-up did; nil means slog.Default().
	Logger *slog.Logger
}

// ResumeState is what a dataset already holds: what a resumed crawl skips,
// what it crawls again, and where it goes on.
type ResumeState struct {
	// Done holds the page_id of every page that is not crawled again: its
	// row is in a complete pages part (of any partition) and Retry did
	// not pick it.
	Done map[string]bool
	// Retry maps the page_id of every row of the partition that Retry
	// picked to the number of the part holding it.
	Retry map[string]int
	// Rows is the number of pages rows in the complete parts; Parts the
	// number of complete pages parts, in every partition.
	Rows, Parts int
	// NextPart is the number the next part of the partition gets: above
	// every part number seen in it, complete or not.
	NextPart int
	// RunID, Config and SchemaVersion are the metadata of the first pages
	// part; empty when there is none.
	RunID, Config string
	SchemaVersion int
	// Removed lists the keys cleaned up in the partition: pending files
	// of parts whose pages part never landed, and other tables' parts
	// without a pages part (left by an older version's protocol).
	// RemovedTemp counts the temporary files (in a directory) or
	// incomplete uploads (in a bucket) removed.
	Removed     []string
	RemovedTemp int
	// RolledForward lists the pending files made visible because their
	// pages part had landed.
	RolledForward []string
	// Duplicates is the number of pages rows removed because another row
	// of the same page was newer: the rows a crash left between the
	// commit of a retried page and the rewrite of its old part.
	Duplicates int
}

// resumeRow is what a resume reads of a pages row.
type resumeRow struct {
	PageID     string    `parquet:"page_id"`
	Status     string    `parquet:"status"`
	ErrorKind  string    `parquet:"error_kind"`
	HTTPStatus *int64    `parquet:"http_status"`
	CapturedAt time.Time `parquet:"captured_at,timestamp(microsecond:utc)"`
}

// pageIDColumn is the one column read from the pages parts of other
// partitions.
type pageIDColumn struct {
	PageID string `parquet:"page_id"`
}

// Resume reads the state of the dataset of out for a resume of its
// partition, which out's lock keeps to this process. It first finishes
// what an interrupted writer of the partition left:
//
//   - temporary files and incomplete uploads are removed;
//   - pending files whose part's pages file is in are rolled forward
//     (made visible); those whose pages file never landed are removed, as
//     are other tables' parts without a pages part;
//   - a page with two rows in the partition (a crash after a retried
//     page's commit and before its old row's part was rewritten) keeps
//     the newer row, by captured_at and then part number: the older one's
//     part is rewritten without it.
//
// Then it reads the page IDs of every complete pages part of the dataset:
// those of the partition that opts.Retry picks go to Retry, the others to
// Done. Only the partition's own files are changed: others may belong to
// writers still running. A dataset with no parts gives an empty state.
func Resume(ctx context.Context, out *Output, opts ResumeOptions) (ResumeState, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	st := ResumeState{Done: make(map[string]bool), Retry: make(map[string]int)}
	if err := out.Check(); err != nil {
		return st, err
	}
	if err := out.recover(ctx, &st); err != nil {
		return st, fmt.Errorf("resume: clean up %s: %w", out.st, err)
	}
	for _, k := range st.Removed {
		log.Info("removed an unfinished part file", "key", k)
	}
	for _, k := range st.RolledForward {
		log.Info("rolled a pending part file forward", "key", k)
	}

	tables := tableDefs()
	var own map[string]ownRow
	for round := 0; ; round++ {
		rows, drops, err := out.scanOwn(ctx)
		if err != nil {
			return st, fmt.Errorf("resume: %w", err)
		}
		if len(drops) == 0 {
			own = rows
			break
		}
		if round > 0 {
			return st, fmt.Errorf("resume: %s: pages rows still duplicated after a clean-up", out.st)
		}
		parts := make([]int, 0, len(drops))
		for p := range drops {
			parts = append(parts, p)
		}
		slices.Sort(parts)
		for _, p := range parts {
			res, err := out.rewritePart(ctx, tables, p, drops[p], func() int { st.NextPart++; return st.NextPart - 1 })
			if err != nil {
				return st, fmt.Errorf("resume: remove duplicated rows: %w", err)
			}
			log.Info("removed pages rows superseded by newer rows of the same pages", "part", p, "rows", res.removed)
			st.Duplicates += res.removed
		}
	}
	for id, r := range own {
		if opts.Retry != nil && opts.Retry(r.outcome) {
			st.Retry[id] = r.part
		} else {
			st.Done[id] = true
		}
	}

	keys, err := Keys(ctx, out.st, dataset.PagesDir)
	if err != nil {
		return st, fmt.Errorf("resume: %w", err)
	}
	ownPrefix := partitionPrefix(dataset.PagesDir, out.partition)
	for i, key := range keys {
		if i == 0 {
			meta, err := ReadMetadata(ctx, out.st, key)
			if err != nil {
				return st, fmt.Errorf("resume: %w", err)
			}
			st.RunID, st.Config, st.SchemaVersion = meta.RunID, meta.Config, meta.SchemaVersion
		}
		st.Parts++
		if inFolder(ownPrefix, key) {
			continue // read by scanOwn
		}
		err := Scan(ctx, out.st, key, func(row pageIDColumn) error {
			st.Done[row.PageID] = true
			st.Rows++
			return nil
		})
		if err != nil {
			return st, fmt.Errorf("resume: %w", err)
		}
	}
	st.Rows += len(own)
	return st, nil
}

// ownRow is the row of a page in the partition a resume keeps.
type ownRow struct {
	part    int
	at      time.Time
	outcome PageOutcome
}

// newer reports whether r should win over o, another row of the same
// page: the later capture, and of two equal ones the later part (a
// rewritten copy of a part is numbered after it).
func (r ownRow) newer(o ownRow) bool {
	if !r.at.Equal(o.at) {
		return r.at.After(o.at)
	}
	return r.part > o.part
}

// scanOwn reads the pages parts of the partition: the newest row of every
// page, and for each part the pages whose rows there lost to newer ones.
func (o *Output) scanOwn(ctx context.Context) (map[string]ownRow, map[int]map[string]bool, error) {
	objs, err := o.listFolder(ctx, dataset.PagesDir)
	if err != nil {
		return nil, nil, err
	}
	rows := make(map[string]ownRow)
	drops := make(map[int]map[string]bool)
	lose := func(id string, part int) {
		if drops[part] == nil {
			drops[part] = make(map[string]bool)
		}
		drops[part][id] = true
	}
	for _, obj := range objs {
		n, pending, ok := partNumber(obj.name)
		if !ok || pending {
			continue
		}
		err := Scan(ctx, o.st, obj.Key, func(r resumeRow) error {
			cur := ownRow{part: n, at: r.CapturedAt}
			id := strings.Clone(r.PageID)
			cur.outcome.Status, cur.outcome.ErrorKind = strings.Clone(r.Status), strings.Clone(r.ErrorKind)
			if r.HTTPStatus != nil {
				code := *r.HTTPStatus
				cur.outcome.HTTPStatus = &code
			}
			prev, dup := rows[id]
			switch {
			case !dup:
				rows[id] = cur
			case cur.newer(prev):
				lose(id, prev.part)
				rows[id] = cur
			default:
				lose(id, cur.part)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return rows, drops, nil
}

// folderObject is an object directly in a partition's folder, with its
// name in the folder.
type folderObject struct {
	store.Object
	name string
}

// listFolder lists the objects directly in the partition's folder of
// table (not in the partitions below it).
func (o *Output) listFolder(ctx context.Context, table string) ([]folderObject, error) {
	prefix := partitionPrefix(table, o.partition)
	objs, err := o.st.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	var out []folderObject
	for _, obj := range objs {
		if name := strings.TrimPrefix(obj.Key, prefix); !strings.Contains(name, "/") {
			out = append(out, folderObject{Object: obj, name: name})
		}
	}
	return out, nil
}

// inFolder reports whether key lies directly in the folder prefix (which
// ends in a slash), not below it.
func inFolder(prefix, key string) bool {
	rest, ok := strings.CutPrefix(key, prefix)
	return ok && !strings.Contains(rest, "/")
}

// recover cleans up the partition after an interrupted writer (see
// Resume) and sets st.NextPart above every part number in it.
func (o *Output) recover(ctx context.Context, st *ResumeState) error {
	finals := map[string]map[int]bool{}
	pendings := map[string]map[int]bool{}
	for _, t := range tableDefs() {
		n, err := o.st.RemoveTemp(ctx, partitionPrefix(t.dir, o.partition))
		if err != nil {
			return err
		}
		st.RemovedTemp += n
		objs, err := o.listFolder(ctx, t.dir)
		if err != nil {
			return err
		}
		finals[t.dir], pendings[t.dir] = map[int]bool{}, map[int]bool{}
		for _, obj := range objs {
			n, pending, ok := partNumber(obj.name)
			if !ok {
				continue
			}
			if pending {
				pendings[t.dir][n] = true
			} else {
				finals[t.dir][n] = true
			}
			st.NextPart = max(st.NextPart, n+1)
		}
	}
	committed := finals[dataset.PagesDir]
	for _, t := range tableDefs() {
		if t.dir == dataset.PagesDir {
			continue
		}
		for _, n := range sortedKeys(pendings[t.dir]) {
			pending, final := pendingKey(t.dir, o.partition, n), partKey(t.dir, o.partition, n)
			switch {
			case committed[n] && finals[t.dir][n]:
				// Killed between the copy and the delete of a roll-forward.
				if err := o.remove(ctx, pending); err != nil {
					return err
				}
				st.Removed = append(st.Removed, pending)
			case committed[n]:
				if err := o.rename(ctx, pending, final); err != nil {
					return err
				}
				finals[t.dir][n] = true
				st.RolledForward = append(st.RolledForward, final)
			default:
				if err := o.remove(ctx, pending); err != nil {
					return err
				}
				st.Removed = append(st.Removed, pending)
			}
		}
		for _, n := range sortedKeys(finals[t.dir]) {
			if committed[n] {
				continue
			}
			key := partKey(t.dir, o.partition, n)
			if err := o.remove(ctx, key); err != nil {
				return err
			}
			st.Removed = append(st.Removed, key)
		}
	}
	return nil
}

// remove deletes key; a key already gone is fine.
func (o *Output) remove(ctx context.Context, key string) error {
	if err := o.step("delete", key); err != nil {
		return err
	}
	if err := o.st.Delete(ctx, key); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// rename moves a pending part file to its final key.
func (o *Output) rename(ctx context.Context, from, to string) error {
	if err := o.step("rename", from); err != nil {
		return err
	}
	return o.st.Rename(ctx, from, to)
}

// Count counts the part files, complete or pending, of the output's
// partition: a new (not resumed) crawl must find none.
func Count(ctx context.Context, out *Output) (int, error) {
	n := 0
	for _, t := range tableDefs() {
		objs, err := out.listFolder(ctx, t.dir)
		if err != nil {
			return 0, fmt.Errorf("output: %w", err)
		}
		for _, obj := range objs {
			if _, _, ok := partNumber(obj.name); ok {
				n++
			}
		}
	}
	return n, nil
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys(m map[int]bool) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
