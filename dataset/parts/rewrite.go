package parts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/parquet-go/parquet-go"

	"actionspace/dataset"
)

// rewritten is what rewritePart did.
type rewritten struct {
	removed int   // pages rows dropped
	written bool  // a new part holds the rows kept
	bytes   int64 // bytes of the new part
}

// copyBatch is the number of rows a rewrite copies at a time.
const copyBatch = 64

// rewritePart removes the rows of the pages in drop from part old of the
// output's partition: it writes the part's rows of every table but those
// as a new part, numbered by next, published like any part (see publish),
// and then deletes part old, the other tables' files first and its pages
// file last. When no pages row is left, no new part is written. Parts are
// never changed in place, so a kill at any moment leaves either part old
// alone, or old and its copy (whose rows then appear twice, and which the
// next resume finds as duplicates and cleans up), or the copy alone.
func (o *Output) rewritePart(ctx context.Context, tables []table, old int, drop map[string]bool, next func() int) (rewritten, error) {
	var res rewritten
	pagesKey := partKey(dataset.PagesDir, o.partition, old)
	meta, err := ReadMetadata(ctx, o.st, pagesKey)
	if err != nil {
		return res, err
	}
	kept := 0
	err = Scan(ctx, o.st, pagesKey, func(r pageIDColumn) error {
		if drop[r.PageID] {
			res.removed++
		} else {
			kept++
		}
		return nil
	})
	if err != nil || res.removed == 0 {
		return res, err
	}
	if kept > 0 {
		n := next()
		meta.CreatedAt = time.Time{}
		ws, err := o.createPart(ctx, tables, n, meta)
		if err != nil {
			return res, err
		}
		for i, t := range tables {
			if err := o.copyRows(ctx, t, partKey(t.dir, o.partition, old), ws[i], drop); err != nil {
				for _, w := range ws {
					_ = w.Abort()
				}
				return res, fmt.Errorf("copy part %d to part %d: %w", old, n, err)
			}
		}
		if res.bytes, err = o.publish(ctx, tables, n, ws); err != nil {
			return res, fmt.Errorf("publish part %d: %w", n, err)
		}
		res.written = true
	}
	return res, o.deletePart(ctx, tables, old)
}

// copyRows copies the rows of the part file at key, but those of the
// pages in drop, to w. The file must have the table's schema (a part of
// another schema version is not rewritten). A missing file (a table the
// part predates) copies nothing.
func (o *Output) copyRows(ctx context.Context, t table, key string, w *partWriter, drop map[string]bool) error {
	r, err := o.st.OpenReader(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer r.Close()
	pf, err := dataset.OpenFile(r, r.Size(), key)
	if err != nil {
		return err
	}
	if !parquet.EqualNodes(pf.Schema(), t.schema) {
		return fmt.Errorf("%s: its schema is not this version's %s table", key, t.dir)
	}
	leaf, ok := pf.Schema().Lookup("page_id")
	if !ok {
		return fmt.Errorf("%s: no page_id column", key)
	}
	col := leaf.ColumnIndex
	buf := make([]parquet.Row, copyBatch)
	keep := make([]parquet.Row, 0, copyBatch)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			keep = keep[:0]
			for _, row := range buf[:n] {
				if !drop[rowPageID(row, col)] {
					keep = append(keep, row)
				}
			}
			if len(keep) > 0 {
				if werr := w.writeRows(keep); werr != nil {
					rows.Close()
					return werr
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rows.Close()
				return fmt.Errorf("read %s: %w", key, err)
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// rowPageID returns the page_id value of row, column col.
func rowPageID(row parquet.Row, col int) string {
	for _, v := range row {
		if v.Column() == col {
			return string(v.ByteArray())
		}
	}
	return ""
}

// deletePart deletes part n of every table of the partition: the other
// tables' files (final and pending) first, the pages file last, so that
// no other table's part is ever left without its pages part. It checks the
// lock first.
func (o *Output) deletePart(ctx context.Context, tables []table, n int) error {
	if err := o.Check(); err != nil {
		return err
	}
	for _, t := range tables {
		keys := []string{partKey(t.dir, o.partition, n)}
		if t.dir != dataset.PagesDir {
			keys = append(keys, pendingKey(t.dir, o.partition, n))
		}
		for _, k := range keys {
			if err := o.remove(ctx, k); err != nil {
				return fmt.Errorf("delete part %d: %w", n, err)
			}
		}
	}
	return nil
}
