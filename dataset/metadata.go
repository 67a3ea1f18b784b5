package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"
)

// The Parquet key-value metadata keys a Writer writes into every file. All
// values are strings.
const (
	// KeySchemaVersion holds SchemaVersion in decimal, e.g. "1". Its
	// presence marks a file as an actionspace dataset.
	KeySchemaVersion = "actionspace.schema_version"
	// KeyToolVersion holds the version of the actionspace build that wrote
	// the file.
	KeyToolVersion = "actionspace.tool_version"
	// KeyBrowserVersion holds the browser's version string, e.g.
	// "156.0.8078.73".
	KeyBrowserVersion = "actionspace.browser_version"
	// KeyRunID holds the run's ID, the value of every row's run_id.
	KeyRunID = "actionspace.run_id"
	// KeyConfig holds the run's configuration as a JSON object.
	KeyConfig = "actionspace.config"
	// KeyCreatedAt holds the time the file was created, in RFC 3339 format
	// with nanoseconds, in UTC, e.g. "2026-11-01T21:04:05.123456789Z".
	KeyCreatedAt = "actionspace.created_at"
)

// Metadata describes a dataset file as a whole. It is stored in the file's
// Parquet key-value metadata, one key per field (see the Key constants), so
// that a notebook can tell how a file was made without the run's logs.
type Metadata struct {
	// SchemaVersion is the schema version of the file's rows. Writers
	// ignore the field and always write SchemaVersion.
	SchemaVersion int
	// ToolVersion is the version of the actionspace build; empty when
	// unknown.
	ToolVersion string
	// BrowserVersion is the browser's version string; empty when unknown
	// (e.g. a benchmark over stored captures).
	BrowserVersion string
	// RunID identifies the run; empty when unknown.
	RunID string
	// Config is the run's configuration as JSON; empty when not recorded.
	// Never put secrets (API keys) in it.
	Config string
	// CreatedAt is when the file was created. Zero means the time Create
	// is called. It is stored in UTC.
	CreatedAt time.Time
}

// keyValues returns m as key-value pairs, with the schema version and the
// creation time filled in.
func (m Metadata) keyValues(now time.Time) [][2]string {
	created := m.CreatedAt
	if created.IsZero() {
		created = now
	}
	return [][2]string{
		{KeySchemaVersion, strconv.Itoa(SchemaVersion)},
		{KeyToolVersion, m.ToolVersion},
		{KeyBrowserVersion, m.BrowserVersion},
		{KeyRunID, m.RunID},
		{KeyConfig, m.Config},
		{KeyCreatedAt, created.UTC().Format(time.RFC3339Nano)},
	}
}

// ReadMetadata reads the metadata of the dataset file at path. It fails when
// the file is not Parquet or has no KeySchemaVersion key (it was not written
// by this package); other missing keys leave their fields empty.
func ReadMetadata(path string) (Metadata, error) {
	f, pf, err := openParquet(path)
	if err != nil {
		return Metadata{}, err
	}
	defer f.Close()
	return FileMetadata(pf, path)
}

// ReadMetadataAt is ReadMetadata of a dataset file read through r, size
// bytes long (see ScanAt); name names it in errors.
func ReadMetadataAt(r io.ReaderAt, size int64, name string) (Metadata, error) {
	pf, err := OpenFile(r, size, name)
	if err != nil {
		return Metadata{}, err
	}
	return FileMetadata(pf, name)
}

// FileMetadata reads the key-value metadata of a file OpenFile opened, as
// ReadMetadata does.
func FileMetadata(pf *parquet.File, path string) (Metadata, error) {
	var err error
	var m Metadata
	v, ok := pf.Lookup(KeySchemaVersion)
	if !ok {
		return Metadata{}, fmt.Errorf("read metadata of %s: no %s key: not an actionspace dataset", path, KeySchemaVersion)
	}
	if m.SchemaVersion, err = strconv.Atoi(v); err != nil {
		return Metadata{}, fmt.Errorf("read metadata of %s: %s: %w", path, KeySchemaVersion, err)
	}
	m.ToolVersion, _ = pf.Lookup(KeyToolVersion)
	m.BrowserVersion, _ = pf.Lookup(KeyBrowserVersion)
	m.RunID, _ = pf.Lookup(KeyRunID)
	m.Config, _ = pf.Lookup(KeyConfig)
	if v, ok := pf.Lookup(KeyCreatedAt); ok && v != "" {
		if m.CreatedAt, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return Metadata{}, fmt.Errorf("read metadata of %s: %s: %w", path, KeyCreatedAt, err)
		}
	}
	return m, nil
}

// openParquet opens the Parquet file at path for reading. The caller closes
// the returned *os.File.
func openParquet(path string) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open dataset: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("open dataset: %w", err)
	}
	pf, err := OpenFile(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, pf, nil
}

// OpenFile opens the Parquet file read through r, size bytes long, for
// the raw access of a tool that copies rows (see Writer.WriteRows); name
// names it in errors. A file is untrusted input: its footer's length is
// checked before a reader allocates it, and neither the bloom filters nor
// the page index (whose lengths the footer gives, and a reader would
// allocate) are read; a scan needs neither.
func OpenFile(r io.ReaderAt, size int64, name string) (*parquet.File, error) {
	if err := checkFooter(r, size); err != nil {
		return nil, fmt.Errorf("open dataset %s: %w", name, err)
	}
	pf, err := parquet.OpenFile(r, size, parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, fmt.Errorf("open dataset %s: %w", name, err)
	}
	return pf, nil
}

// ToolVersion is the version of this build, as Metadata.ToolVersion
// records it: the module version and, when built from a checkout, the VCS
// revision.
func ToolVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += "+" + s.Value[:12]
		}
		if s.Key == "vcs.modified" && s.Value == "true" {
			v += "-dirty"
		}
	}
	return v
}

// MaxFooterBytes bounds the footer of a file OpenFile opens. A file is
// untrusted input: its last bytes say how long its footer is, and a
// Parquet reader allocates that much before it reads it. Ours are a few
// hundred kilobytes (row groups of a part, statistics cut to MaxStatBytes).
const MaxFooterBytes = 64 << 20

// checkFooter checks the end of a Parquet file before a reader trusts it:
// the magic, and a footer length that fits in the file and under
// MaxFooterBytes.
func checkFooter(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("%d bytes: too short for Parquet", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("read footer length: %w", err)
	}
	if !bytes.Equal(tail[4:], parquetMagic) {
		return errors.New("not a Parquet file (no PAR1 at the end)")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > MaxFooterBytes || n+12 > size {
		return fmt.Errorf("footer of %d bytes in a file of %d: corrupt or hostile", n, size)
	}
	return nil
}
