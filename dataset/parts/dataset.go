package parts

import (
	"context"
	"fmt"
	"os"
	"strings"

	"actionspace/dataset"
	"actionspace/dataset/store"
)

// Dataset is a crawl dataset opened for reading: the part files of its
// pages table (who was crawled, how it went) and of its blobs table (the
// captures and HTML that re-render offline), in a store. It is the one
// reader of a crawl dataset; bench sweeps over it. Close releases it.
type Dataset struct {
	// Loc is where the dataset is, without URL parameters (for reports).
	Loc string
	// Pages and Blobs are the keys of the complete part files of the two
	// tables in Store. A page crawled with steps has a blobs row per
	// state it captured (the blobs' step column; 0 is the state after
	// load).
	Pages, Blobs []string
	// Steps are the keys of the complete part files of the steps table:
	// what each step of a page did (none when the crawl had no steps).
	Steps []string
	// Store holds the parts; they are read by ranged reads.
	Store store.Store
}

// Open opens the crawl dataset at loc, a directory or a location URL (see
// store.Open), and lists its parts (Keys). A dataset without pages parts
// is an error, and so is a missing directory (which store.Open would
// create), and a dataset of another schema version than this build's
// (Scan refuses every part of one).
func Open(ctx context.Context, loc string) (*Dataset, error) {
	d := &Dataset{Loc: store.Redact(loc)}
	if !strings.Contains(loc, "://") {
		if _, err := os.Stat(loc); err != nil {
			return nil, fmt.Errorf("crawl dataset: %w", err)
		}
	}
	st, err := store.Open(ctx, loc, store.Config{})
	if err != nil {
		return nil, fmt.Errorf("crawl dataset: %w", err)
	}
	d.Store = st
	if d.Pages, err = Keys(ctx, st, dataset.PagesDir); err == nil {
		d.Blobs, err = Keys(ctx, st, dataset.BlobsDir)
	}
	if err == nil {
		d.Steps, err = Keys(ctx, st, dataset.StepsDir)
	}
	if err == nil && len(d.Pages) == 0 {
		err = fmt.Errorf("no pages files (want %s)", dataset.PagesGlob)
	}
	if err == nil {
		var meta dataset.Metadata
		if meta, err = ReadMetadata(ctx, st, d.Pages[0]); err == nil {
			err = checkVersion(meta, d.Pages[0])
		}
	}
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("crawl dataset %s: %w", d.Loc, err)
	}
	return d, nil
}

// Close releases the dataset's store.
func (d *Dataset) Close() error {
	if d == nil || d.Store == nil {
		return nil
	}
	return d.Store.Close()
}

// Metadata reads the metadata of the first pages part: the run that made
// the dataset.
func (d *Dataset) Metadata(ctx context.Context) (dataset.Metadata, error) {
	return ReadMetadata(ctx, d.Store, d.Pages[0])
}

// ScanTable calls fn for every row of every part of keys (d.Pages,
// d.Blobs or d.Steps), in order, as Scan does for one; it stops at the first error,
// and returns an error of fn unchanged.
func ScanTable[T any](ctx context.Context, d *Dataset, keys []string, fn func(T) error) error {
	for _, k := range keys {
		if err := Scan(ctx, d.Store, k, fn); err != nil {
			return err
		}
	}
	return nil
}

// IsDataset reports whether arg names a crawl dataset (a directory, or a
// location URL) rather than a URL list.
func IsDataset(arg string) bool {
	if scheme, _, ok := strings.Cut(arg, "://"); ok {
		return scheme == "s3" || scheme == "gs" || scheme == "file"
	}
	st, err := os.Stat(arg)
	return err == nil && st.IsDir()
}

// Scan is dataset.Scan over the object at key of st, read by ranged
// reads. A part of another schema version than this build's is refused
// before any row is read: a dataset is untrusted input, and its columns
// mean what this version's row structs say only in this version.
func Scan[T any](ctx context.Context, st store.Store, key string, fn func(T) error) error {
	r, err := st.OpenReader(ctx, key)
	if err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	defer r.Close()
	name := st.String() + key
	pf, err := dataset.OpenFile(r, r.Size(), name)
	if err != nil {
		return err
	}
	meta, err := dataset.FileMetadata(pf, name)
	if err != nil {
		return err
	}
	if err := checkVersion(meta, name); err != nil {
		return err
	}
	return dataset.ScanFile(pf, name, fn)
}

// checkVersion refuses a file of another schema version than this build's.
func checkVersion(meta dataset.Metadata, name string) error {
	if meta.SchemaVersion != dataset.SchemaVersion {
		return fmt.Errorf("%s: schema version %d, and this build reads version %d only: read it with the build that wrote it", name, meta.SchemaVersion, dataset.SchemaVersion)
	}
	return nil
}

// ReadMetadata is dataset.ReadMetadata of the object at key of st.
func ReadMetadata(ctx context.Context, st store.Store, key string) (dataset.Metadata, error) {
	r, err := st.OpenReader(ctx, key)
	if err != nil {
		return dataset.Metadata{}, fmt.Errorf("read metadata: %w", err)
	}
	defer r.Close()
	return dataset.ReadMetadataAt(r, r.Size(), st.String()+key)
}
