package dataset

import (
	"context"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// These tests read the files back with arrow-go's Parquet reader, a second
// implementation, the way notebooks (pyarrow, polars, DuckDB) will.

// column is one expected column: its name, its Arrow type as Arrow prints it,
// and whether it is nullable.
type column struct {
	name     string
	typ      string
	nullable bool
}

const actionsType = "list<element: struct<id: utf8, role: utf8, tag: utf8, kind: utf8, name: utf8, " +
	"locator: utf8, x: float64, y: float64, width: float64, height: float64>>"

func pageColumns() []column {
	return []column{
		{"run_id", "utf8", false},
		{"page_id", "utf8", false},
		{"schema_version", "int64", false},
		{"url", "utf8", false},
		{"final_url", "utf8", false},
		{"status", "utf8", false},
		{"error_kind", "utf8", false},
		{"error_message", "utf8", false},
		{"http_status", "int64", true},
		{"content_type", "utf8", false},
		{"title", "utf8", false},
		{"html_bytes", "int64", true},
		{"html_tokens_cl100k", "int64", true},
		{"html_tokens_o200k", "int64", true},
		{"html_truncated", "bool", false},
		{"html_uncounted", "bool", false},
		{"html_tokens_skipped", "utf8", false},
		{"dom_nodes", "int64", true},
		{"text_nodes", "int64", true},
		{"interactive_nodes", "int64", true},
		{"viewport_width", "int64", false},
		{"viewport_height", "int64", false},
		{"scroll_x", "float64", true},
		{"scroll_y", "float64", true},
		{"page_width", "float64", true},
		{"page_height", "float64", true},
		{"device_pixel_ratio", "float64", true},
		{"browser_version", "utf8", false},
		{"attempts", "int64", false},
		{"navigate_ms", "float64", true},
		{"settle_ms", "float64", true},
		{"capture_ms", "float64", true},
		{"content_ms", "float64", true},
		{"screenshot_ms", "float64", true},
		{"axtree_ms", "float64", true},
		{"axtree_skipped", "utf8", false},
		{"aisnapshot_ms", "float64", true},
		{"aisnapshot_skipped", "utf8", false},
		{"script_ms", "float64", true},
		{"total_ms", "float64", false},
		{"process_ms", "float64", true},
		{"captured_at", "timestamp[us, tz=UTC]", false},
		{"capture_truncated", "bool", false},
		{"capture_capped", "list<element: utf8>", false},
		{"capture_chars", "int64", true},
		{"blocked_requests", "int64", false},
		{"actionable_probe", "utf8", false},
		{"actionable_probe_ms", "float64", true},
		{"actionable_probed", "int64", true},
		{"actionable_probe_capped", "bool", false},
		{"actionable_probe_skipped", "utf8", false},
	}
}

func blobColumns() []column {
	return []column{
		{"run_id", "utf8", false},
		{"page_id", "utf8", false},
		{"schema_version", "int64", false},
		{"url", "utf8", false},
		{"step", "int64", false},
		{"html", "utf8", false},
		{"capture", "binary", true},
		{"capture_encoding", "utf8", false},
		{"axtree", "binary", true},
		{"axtree_encoding", "utf8", false},
		{"aisnapshot", "binary", true},
		{"aisnapshot_encoding", "utf8", false},
		{"screenshot", "binary", true},
		{"screenshot_format", "utf8", false},
		{"screenshot_width", "int64", true},
		{"screenshot_height", "int64", true},
		{"screenshot_labeled", "bool", false},
	}
}

func spaceColumns() []column {
	return []column{
		{"run_id", "utf8", false},
		{"page_id", "utf8", false},
		{"schema_version", "int64", false},
		{"url", "utf8", false},
		{"step", "int64", false},
		{"format", "utf8", false},
		{"mode", "utf8", false},
		{"viewport_expansion", "int64", false},
		{"text_policy", "utf8", false},
		{"id_policy", "utf8", false},
		{"group_min_run", "int64", true},
		{"layout", "utf8", true},
		{"element_filter", "utf8", true},
		{"token_budget", "int64", true},
		{"budget_expansion", "int64", true},
		{"budget_stage", "utf8", true},
		{"dropped_ids", "int64", true},
		{"dropped_lines", "int64", true},
		{"cut_texts", "int64", true},
		{"page_recall", "float64", true},
		{"viewport_recall", "float64", true},
		{"action_space", "utf8", false},
		{"perception_text", "utf8", false},
		{"actions", actionsType, false},
		{"text_skipped", "utf8", false},
		{"action_count", "int64", false},
		{"ids_L", "int64", false},
		{"ids_B", "int64", false},
		{"ids_I", "int64", false},
		{"ids_F", "int64", false},
		{"ids_O", "int64", false},
		{"ids_M", "int64", false},
		{"space_bytes", "int64", false},
		{"perception_bytes", "int64", false},
		{"tokens_cl100k", "int64", true},
		{"tokens_o200k", "int64", true},
		{"perception_tokens_cl100k", "int64", true},
		{"perception_tokens_o200k", "int64", true},
		{"ratio_cl100k", "float64", true},
		{"ratio_o200k", "float64", true},
		{"tokens_skipped", "utf8", false},
		{"ratio_skipped", "utf8", false},
		{"oracle_in_window", "int64", true},
		{"recall", "float64", true},
		{"extra_handles", "int64", true},
		{"recall_skipped", "utf8", false},
		{"recall_filtered", "float64", true},
		{"actionable_in_window", "int64", true},
		{"actionable_recall", "float64", true},
		{"actionable_probe", "utf8", false},
		{"actionable_skipped", "utf8", false},
		{"text_coverage", "float64", true},
		{"text_coverage_skipped", "utf8", false},
		{"salient_in_window", "int64", true},
		{"salient_recall", "float64", true},
		{"salient_skipped", "utf8", false},
		{"salient_capped", "bool", false},
		{"render_ms", "float64", false},
		{"tokenize_ms", "float64", false},
		{"llm_model", "utf8", true},
		{"llm_ran", "bool", true},
		{"llm_calls", "int64", true},
		{"llm_rounds", "int64", true},
		{"prompt_tokens_api", "int64", true},
		{"completion_tokens_api", "int64", true},
		{"prompt_tokens_local", "int64", true},
		{"llm_ms", "float64", true},
		{"coverage", "float64", true},
		{"hallucinated_ids", "int64", true},
		{"cache_hits", "int64", true},
		{"handles_kept", "int64", true},
		{"handles_same", "int64", true},
		{"handles_wrong", "int64", true},
		{"handles_new", "int64", true},
		{"handles_removed", "int64", true},
		{"delta_bytes", "int64", true},
		{"delta_tokens_cl100k", "int64", true},
		{"delta_tokens_o200k", "int64", true},
		{"llm_error", "utf8", true},
	}
}

func elementColumns() []column {
	return []column{
		{"run_id", "utf8", false},
		{"page_id", "utf8", false},
		{"schema_version", "int64", false},
		{"url", "utf8", false},
		{"step", "int64", false},
		{"element", "int64", false},
		{"tag", "utf8", false},
		{"role", "utf8", false},
		{"name", "utf8", false},
		{"locator", "utf8", false},
		{"x", "float64", false},
		{"y", "float64", false},
		{"width", "float64", false},
		{"height", "float64", false},
		{"frame", "int64", false},
		{"shadow", "bool", false},
		{"occluded", "bool", false},
		{"nested", "bool", false},
		{"in_modal", "bool", false},
		{"label_for", "int64", true},
		{"outside_px", "int64", true},
		{"whole_page_id", "utf8", true},
		{"whole_page_exclusion", "utf8", false},
		{"signals", "utf8", false},
		{"oracle_element", "int64", true},
		{"extra_reason", "utf8", true},
	}
}

func oracleColumns() []column {
	return []column{
		{"run_id", "utf8", false},
		{"page_id", "utf8", false},
		{"schema_version", "int64", false},
		{"url", "utf8", false},
		{"step", "int64", false},
		{"element", "int64", false},
		{"role", "utf8", false},
		{"name", "utf8", false},
		{"x", "float64", false},
		{"y", "float64", false},
		{"width", "float64", false},
		{"height", "float64", false},
		{"frame", "int64", false},
		{"qualified_by", "utf8", false},
		{"outside_px", "int64", true},
		{"in_whole_page", "bool", false},
		{"capture_element", "int64", true},
		{"matched_by", "utf8", false},
		{"miss_reason", "utf8", true},
		{"actionable", "bool", true},
		{"actionable_skipped", "utf8", false},
		{"covering_tag", "utf8", true},
		{"covering_role", "utf8", true},
	}
}

func stepColumns() []column {
	return []column{
		{"run_id", "utf8", false},
		{"page_id", "utf8", false},
		{"schema_version", "int64", false},
		{"url", "utf8", false},
		{"step", "int64", false},
		{"action", "utf8", false},
		{"target", "utf8", false},
		{"status", "utf8", false},
		{"error_kind", "utf8", false},
		{"error_message", "utf8", false},
		{"final_url", "utf8", false},
		{"blocked_requests", "int64", false},
		{"ms", "float64", false},
	}
}

func TestWriter_arrow(t *testing.T) {
	meta := Metadata{
		ToolVersion:    "v0.1.0-test",
		BrowserVersion: "156.0.8078.73",
		RunID:          "run-1",
		Config:         `{"workers":4,"viewport":"1280x720"}`,
		CreatedAt:      testTime(),
	}
	tests := []struct {
		name  string
		cols  []column
		write func(path string) []any // writes the file, returns its rows
	}{
		{"pages", pageColumns(), func(path string) []any {
			rows := makeRows(25, pageRow)
			mustWrite(t, path, meta, WriterConfig{RowGroupRows: 10}, rows)
			return anys(rows)
		}},
		{"blobs", blobColumns(), func(path string) []any {
			var rows []BlobRow
			for i := range 25 {
				if pageRow(i).Status == StatusOK {
					rows = append(rows, blobRow(i))
				}
			}
			mustWrite(t, path, meta, WriterConfig{RowGroupRows: 10}, rows)
			return anys(rows)
		}},
		{"spaces", spaceColumns(), func(path string) []any {
			rows := makeRows(25, spaceRow)
			mustWrite(t, path, meta, WriterConfig{RowGroupRows: 10}, rows)
			return anys(rows)
		}},
		{"elements", elementColumns(), func(path string) []any {
			rows := makeRows(25, elementRow)
			mustWrite(t, path, meta, WriterConfig{RowGroupRows: 10}, rows)
			return anys(rows)
		}},
		{"oracle", oracleColumns(), func(path string) []any {
			rows := makeRows(25, oracleRow)
			mustWrite(t, path, meta, WriterConfig{RowGroupRows: 10}, rows)
			return anys(rows)
		}},
		{"steps", stepColumns(), func(path string) []any {
			rows := makeRows(25, stepRow)
			mustWrite(t, path, meta, WriterConfig{RowGroupRows: 10}, rows)
			return anys(rows)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name+".parquet")
			rows := tt.write(path)

			pf, err := file.OpenParquetFile(path, false)
			if err != nil {
				t.Fatalf("arrow: open %s: %v", path, err)
			}
			defer pf.Close()
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := fr.ReadTable(context.Background())
			if err != nil {
				t.Fatalf("arrow: read table: %v", err)
			}
			defer tbl.Release()

			// Schema: names in order, types, nullability.
			fields := tbl.Schema().Fields()
			var gotNames, wantNames []string
			for _, f := range fields {
				gotNames = append(gotNames, f.Name)
			}
			for _, c := range tt.cols {
				wantNames = append(wantNames, c.name)
			}
			if !reflect.DeepEqual(gotNames, wantNames) {
				t.Fatalf("columns:\n got %v\nwant %v", gotNames, wantNames)
			}
			for i, c := range tt.cols {
				if got := fields[i].Type.String(); got != c.typ {
					t.Errorf("column %s: type %s, want %s", c.name, got, c.typ)
				}
				if got := fields[i].Nullable; got != c.nullable {
					t.Errorf("column %s: nullable %v, want %v", c.name, got, c.nullable)
				}
			}

			// Values, row by row, against the Go rows.
			if got, want := tbl.NumRows(), int64(len(rows)); got != want {
				t.Fatalf("rows: %d, want %d", got, want)
			}
			for ci, c := range tt.cols {
				got := columnValues(t, tbl.Column(ci))
				for ri, row := range rows {
					want := goField(reflect.ValueOf(row), c.name)
					if !reflect.DeepEqual(got[ri], want) {
						t.Errorf("row %d column %s: got %#v, want %#v", ri, c.name, got[ri], want)
					}
				}
			}

			// Key-value metadata.
			kv := pf.MetaData().KeyValueMetadata()
			wantKV := map[string]string{
				"actionspace.schema_version":  strconv.Itoa(SchemaVersion),
				"actionspace.tool_version":    meta.ToolVersion,
				"actionspace.browser_version": meta.BrowserVersion,
				"actionspace.run_id":          meta.RunID,
				"actionspace.config":          meta.Config,
				"actionspace.created_at":      "2026-11-01T21:04:05.123456Z",
			}
			for k, want := range wantKV {
				got := kv.FindValue(k)
				if got == nil {
					t.Errorf("metadata %s missing", k)
					continue
				}
				if *got != want {
					t.Errorf("metadata %s = %q, want %q", k, *got, want)
				}
			}

			// Compression: every column chunk is zstd.
			rg := pf.MetaData().RowGroup(0)
			for i := range rg.NumColumns() {
				cc, err := rg.ColumnChunk(i)
				if err != nil {
					t.Fatal(err)
				}
				want := "ZSTD"
				switch cc.PathInSchema().String() {
				case "capture", "axtree", "aisnapshot":
					want = "UNCOMPRESSED" // already a zstd frame
				case "screenshot":
					want = "UNCOMPRESSED" // already JPEG or PNG
				}
				if got := cc.Compression().String(); got != want {
					t.Errorf("column %s: compression %s, want %s", cc.PathInSchema(), got, want)
				}
			}
		})
	}
}

// Blob columns carry statistics of at most MaxStatBytes: whole pages of
// HTML never reach the footer, while url keeps the statistics that let
// readers skip row groups.
func TestWriter_blobStatistics(t *testing.T) {
	path := filepath.Join(t.TempDir(), "blobs.parquet")
	row := blobRow(0)
	row.HTML = "<html>" + strings.Repeat("unique content ", 10000) + "</html>"
	mustWrite(t, path, Metadata{}, WriterConfig{}, []BlobRow{row})

	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	rg := pf.MetaData().RowGroup(0)
	for i := range rg.NumColumns() {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		name := cc.PathInSchema().String()
		stats, err := cc.Statistics()
		if err != nil {
			t.Fatal(err)
		}
		hasMinMax := stats != nil && stats.HasMinMax()
		if hasMinMax && (len(stats.EncodeMin()) > MaxStatBytes || len(stats.EncodeMax()) > MaxStatBytes) {
			t.Errorf("column %s has statistics of %d and %d bytes", name, len(stats.EncodeMin()), len(stats.EncodeMax()))
		}
		if name == "url" && !hasMinMax {
			t.Errorf("column url has no min/max statistics")
		}
	}
	if got := pf.MetaData().Size(); got > 16<<10 {
		t.Errorf("footer is %d bytes, want < 16 KiB", got)
	}
	if got, max := pf.MetaData().GetSourceFileSize(), int64(len(row.HTML)/10); got > max {
		t.Errorf("file is %d bytes, want < %d (a tenth of the repetitive HTML)", got, max)
	}
}

func anys[T any](rows []T) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out
}

// columnValues converts an Arrow column to Go values: nil for null, int64,
// float64, string, bool, []byte, time.Time (UTC), []any for lists and
// map[string]any for structs.
func columnValues(t *testing.T, col *arrow.Column) []any {
	t.Helper()
	var out []any
	for _, chunk := range col.Data().Chunks() {
		for i := range chunk.Len() {
			out = append(out, arrowValue(t, chunk, i))
		}
	}
	return out
}

func arrowValue(t *testing.T, a arrow.Array, i int) any {
	t.Helper()
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Binary:
		return append([]byte{}, a.Value(i)...)
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC()
	case *array.List:
		start, end := a.ValueOffsets(i)
		out := []any{}
		for j := start; j < end; j++ {
			out = append(out, arrowValue(t, a.ListValues(), int(j)))
		}
		return out
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		m := map[string]any{}
		for f := range a.NumField() {
			m[st.Field(f).Name] = arrowValue(t, a.Field(f), i)
		}
		return m
	}
	t.Fatalf("unexpected Arrow array %T", a)
	return nil
}

// goField returns the value of the field of row whose parquet name is name,
// in the form arrowValue gives.
func goField(row reflect.Value, name string) any {
	for i := range row.NumField() {
		if row.Type().Field(i).Anonymous {
			if v, ok := findField(row.Field(i), name); ok {
				return v
			}
			continue
		}
		tag, _, _ := strings.Cut(row.Type().Field(i).Tag.Get("parquet"), ",")
		if tag == name {
			return goValue(row.Field(i))
		}
	}
	panic("no field " + name)
}

// findField is goField that reports a missing field instead of panicking.
func findField(row reflect.Value, name string) (v any, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	return goField(row, name), true
}

func goValue(v reflect.Value) any {
	switch {
	case v.Kind() == reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return goValue(v.Elem())
	case v.Type() == reflect.TypeFor[time.Time]():
		return v.Interface().(time.Time).UTC()
	case v.Type() == reflect.TypeFor[[]byte]():
		if v.IsNil() {
			return nil
		}
		return v.Interface()
	case v.Kind() == reflect.Slice:
		out := []any{}
		for i := range v.Len() {
			out = append(out, goValue(v.Index(i)))
		}
		return out
	case v.Kind() == reflect.Struct:
		m := map[string]any{}
		for i := range v.NumField() {
			tag, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("parquet"), ",")
			m[tag] = goValue(v.Field(i))
		}
		return m
	}
	return v.Interface()
}
