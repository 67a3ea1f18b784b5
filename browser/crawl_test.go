package browser

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"actionspace/axtree"
	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/metrics"
	"actionspace/pipeline"
)

// arrowRows reads a Parquet file with arrow-go (a second implementation,
// independent of the parquet-go writer) into one map per row. Nulls are nil.
func arrowRows(t *testing.T, path string) ([]map[string]any, map[string]string) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer pf.Close()
	meta := map[string]string{}
	kv := pf.MetaData().KeyValueMetadata()
	for i, k := range kv.Keys() {
		meta[k] = kv.Values()[i]
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	defer tbl.Release()
	rows := make([]map[string]any, tbl.NumRows())
	for i := range rows {
		rows[i] = map[string]any{}
	}
	for c := 0; c < int(tbl.NumCols()); c++ {
		col := tbl.Column(c)
		r := 0
		for _, chunk := range col.Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				rows[r][col.Name()] = arrowValue(chunk, i)
				r++
			}
		}
	}
	return rows, meta
}

func arrowValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		return a.Value(i)
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit)
	case *array.List:
		start, end := a.ValueOffsets(i)
		return int(end - start) // the number of elements is enough here
	}
	return fmt.Sprintf("%T", a)
}

// arrowTable reads every part of one table with arrowRows and returns all
// rows, in part order, and the metadata of the first part. Every part must
// carry the same schema version and run.
func arrowTable(t *testing.T, files []string) ([]map[string]any, map[string]string) {
	t.Helper()
	var rows []map[string]any
	var first map[string]string
	for _, f := range files {
		r, meta := arrowRows(t, f)
		rows = append(rows, r...)
		if first == nil {
			first = meta
		} else if meta[dataset.KeyRunID] != first[dataset.KeyRunID] || meta[dataset.KeySchemaVersion] != first[dataset.KeySchemaVersion] {
			t.Errorf("%s: metadata %v differs from the first part's %v", f, meta, first)
		}
	}
	return rows, first
}

// readBlobs reads the blobs table of the dataset in dir, by page ID.
func readBlobs(t *testing.T, dir string) map[string]dataset.BlobRow {
	t.Helper()
	files, err := parts.Files(dir, dataset.BlobsDir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]dataset.BlobRow{}
	for _, f := range files {
		rows, err := dataset.ReadAll[dataset.BlobRow](f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out[r.PageID] = r
		}
	}
	return out
}

// datasetFiles lists the parts of the dataset in dir and checks the layout:
// only complete parts, one per table under the same name, nothing else in
// dir but the partition locks. It returns the pages and spaces parts.
func datasetFiles(t *testing.T, dir string) (pages, spaces []string) {
	t.Helper()
	tables := map[string][]string{}
	for _, table := range parts.Tables() {
		files, err := parts.Files(dir, table)
		if err != nil {
			t.Fatal(err)
		}
		tables[table] = files
	}
	pages, spaces = tables[dataset.PagesDir], tables[dataset.SpacesDir]
	if len(pages) == 0 {
		t.Fatal("no pages parts")
	}
	want := map[string]bool{}
	for _, table := range parts.Tables() {
		if len(tables[table]) != len(pages) {
			t.Fatalf("%d %s parts and %d pages parts, want the same number", len(tables[table]), table, len(pages))
		}
		for i, f := range tables[table] {
			rel, _ := filepath.Rel(dir, f)
			if filepath.Base(f) != filepath.Base(pages[i]) {
				t.Errorf("part %d: %s, want the pages part's name %s", i, rel, filepath.Base(pages[i]))
			}
			want[rel] = true
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if !want[rel] && !strings.HasPrefix(rel, parts.LocksDir+string(filepath.Separator)) {
			t.Errorf("unexpected file in the dataset directory: %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages, spaces
}

// closedAddr returns a loopback address where nothing listens.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

var lineFormat = regexp.MustCompile(`^(?:[LBIFOM][0-9]+\[:\]<[a-z][a-z0-9-]*( [^>]*)?>.*</[a-z][a-z0-9-]*>|_\[:\].+)$`)

// TestCrawl_Corpus crawls the bundled corpus, the fidelity page of frames
// (cross-origin frames stitched into the capture), a 404 and an
// unreachable URL through real Chromium, in every format, and reads every
// table back with arrow-go: the extras stored beside the capture, one
// spaces row per format and window with exact tokens and recall against
// the oracle (pinned on pages whose misses are known), and the elements
// and oracle tables, which agree with the spaces rows.
func TestCrawl_Corpus(t *testing.T) {
	// Not parallel: each page's extras may take half the time left to its
	// load, and the test requires every one of them, so it runs alone.
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	frames := srv.URL + "/fidelity/frames.html"
	urls := append(corpora.DefaultURLs(srv.URL), frames)
	unreachable := "http://" + closedAddr(t) + "/unreachable"
	list := strings.Join(urls, "\n") + "\n" + srv.URL + "/no-such-page.html\n" + unreachable + "\nnot a url\n# comment\n\n"
	targets, err := pipeline.ReadTargets(strings.NewReader(list), pipeline.DefaultSchemes())
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.DefaultConfig()
	cfg.RunID = "test-run"
	cfg.Workers = 2
	cfg.Timeout = 20 * time.Second
	cfg.Expansions = []int{0, -1}
	cfg.Output.PartPages = 4 // several parts, the last one partial
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	stats, err := pipeline.Crawl(ctx, cfg, targets, out, localOpener(cfg), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := stats.Targets, len(urls)+3; got != want {
		t.Errorf("targets = %d, want %d", got, want)
	}
	if stats.OK != len(urls) || stats.Failed != 3 {
		t.Errorf("ok=%d failed=%d, want %d and 3", stats.OK, stats.Failed, len(urls))
	}

	pageFiles, spaceFiles := datasetFiles(t, out)
	pages, meta := arrowTable(t, pageFiles)
	if len(pages) != len(urls)+3 {
		t.Fatalf("pages rows = %d, want %d", len(pages), len(urls)+3)
	}
	if meta[dataset.KeySchemaVersion] != strconv.Itoa(dataset.SchemaVersion) || meta[dataset.KeyRunID] != "test-run" ||
		!strings.Contains(meta[dataset.KeyBrowserVersion], ".") || !strings.Contains(meta[dataset.KeyConfig], `"viewport_expansions":[0,-1]`) {
		t.Errorf("metadata = %v", meta)
	}
	byURL := map[string]map[string]any{}
	for _, p := range pages {
		byURL[p["url"].(string)] = p
		if p["schema_version"] != int64(dataset.SchemaVersion) {
			t.Errorf("%s: schema_version %v, want %d", p["url"], p["schema_version"], dataset.SchemaVersion)
		}
	}
	blobs := readBlobs(t, out)
	if len(blobs) != len(urls) {
		t.Errorf("blobs rows = %d, want one per captured page, %d", len(blobs), len(urls))
	}
	for _, u := range urls {
		p := byURL[u]
		if p == nil || p["status"] != "ok" {
			t.Errorf("%s: row %v", u, p)
			continue
		}
		b := blobs[p["page_id"].(string)]
		if p["http_status"] != int64(200) || p["title"] == "" || p["html_tokens_cl100k"].(int64) <= 0 ||
			p["dom_nodes"].(int64) <= 0 || p["viewport_width"] != int64(1280) || b.Capture == nil ||
			b.CaptureEncoding != dataset.CaptureEncoding || int64(len(b.HTML)) > p["html_bytes"].(int64) || b.URL != u {
			t.Errorf("%s: unexpected values: status=%v title=%q tokens=%v nodes=%v", u, p["http_status"], p["title"], p["html_tokens_cl100k"], p["dom_nodes"])
		}
	}
	for u, want := range map[string][2]any{
		srv.URL + "/no-such-page.html": {"http", int64(404)},
		unreachable:                    {"navigate", nil},
		"not a url":                    {"invalid_url", nil},
	} {
		p := byURL[u]
		if p == nil || p["status"] != "error" || p["error_kind"] != want[0] || p["http_status"] != want[1] || p["error_message"] == "" {
			t.Errorf("%s: row %v, want error %v", u, p, want)
		}
	}

	for _, u := range urls {
		p := byURL[u]
		if p == nil || p["status"] != "ok" {
			continue
		}
		if ms, _ := p["axtree_ms"].(float64); ms <= 0 || p["axtree_skipped"] != "" {
			t.Errorf("%s: axtree_ms %v, axtree_skipped %q", u, p["axtree_ms"], p["axtree_skipped"])
		}
		if ms, _ := p["aisnapshot_ms"].(float64); ms <= 0 || p["aisnapshot_skipped"] != "" {
			t.Errorf("%s: aisnapshot_ms %v, aisnapshot_skipped %q", u, p["aisnapshot_ms"], p["aisnapshot_skipped"])
		}
		if n, _ := p["actionable_probed"].(int64); p["actionable_probe"] != "viewport" || n <= 0 || p["actionable_probe_skipped"] != "" {
			t.Errorf("%s: actionable_probe %v, probed %v, skipped %q", u, p["actionable_probe"], p["actionable_probed"], p["actionable_probe_skipped"])
		}
		b := blobs[p["page_id"].(string)]
		if b.AXTreeEncoding != dataset.CaptureEncoding || b.AISnapshotEncoding != dataset.CaptureEncoding {
			t.Errorf("%s: axtree_encoding %q, aisnapshot_encoding %q", u, b.AXTreeEncoding, b.AISnapshotEncoding)
			continue
		}
		raw, err := dataset.DecompressCapture(b.AXTree)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := axtree.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if m := rec.Match; m.Elements == 0 || m.Resolved != m.Elements {
			t.Errorf("%s: the accessibility tree resolved %+v of the capture's elements, want all", u, m)
		}
		if raw, err = dataset.DecompressCapture(b.AISnapshot); err != nil {
			t.Fatal(err)
		}
		if snap, err := axtree.ParseSnapshotRecord(raw); err != nil || !strings.Contains(snap.Text, "[ref=") {
			t.Errorf("%s: AI snapshot %v", u, err)
		}
	}

	spaces, _ := arrowTable(t, spaceFiles)
	// Per page: actionspace, browser-use, playwright-ai and axtree at E=0
	// and E=-1, html once.
	if got, want := len(spaces), 9*len(urls); got != want {
		t.Fatalf("spaces rows = %d, want %d", got, want)
	}
	counter, err := metrics.NewCounter(metrics.CL100K, metrics.O200K)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		url, format string
		e           int64
	}
	byKey := map[key]map[string]any{}
	perPage := map[string][2]int64{} // actions at E=0 and E=-1
	for _, s := range spaces {
		text := s["action_space"].(string)
		format := s["format"].(string)
		k := key{s["url"].(string), format, s["viewport_expansion"].(int64)}
		if format == "html" {
			// The html row keeps no copy of the page: its text is blobs.html.
			if text != "" || s["text_skipped"] != "in_blobs" {
				t.Errorf("%v: %d bytes of text, text_skipped %v; want none, in_blobs", k, len(text), s["text_skipped"])
			}
			text = blobs[byURL[k.url]["page_id"].(string)].HTML
		}
		if byKey[k] != nil {
			t.Errorf("%v: two rows", k)
		}
		byKey[k] = s
		for col, enc := range map[string]metrics.Encoding{"tokens_cl100k": metrics.CL100K, "tokens_o200k": metrics.O200K} {
			want, _ := counter.Count(enc, text)
			if s[col] != want {
				t.Errorf("%v %s = %v, want %d", k, col, s[col], want)
			}
		}
		page := byURL[k.url]
		wantRatio := float64(page["html_tokens_cl100k"].(int64)) / float64(s["tokens_cl100k"].(int64))
		if r, ok := s["ratio_cl100k"].(float64); !ok || r != wantRatio {
			t.Errorf("%v ratio_cl100k = %v, want %v", k, s["ratio_cl100k"], wantRatio)
		}
		inWindow, _ := s["oracle_in_window"].(int64)
		if s["oracle_in_window"] == nil || s["extra_handles"] == nil || (s["recall"] == nil) != (format == "html" || inWindow == 0) {
			t.Errorf("%v: oracle_in_window %v, recall %v, extra_handles %v", k, s["oracle_in_window"], s["recall"], s["extra_handles"])
		}
		if format != "actionspace" {
			if s["mode"] != "" || s["text_policy"] != "" || s["perception_text"] != "" || s["perception_tokens_cl100k"] != nil || s["actions"] != 0 {
				t.Errorf("%v: mode %q, text %q, perception %d bytes (%v tokens), %v actions; want none", k, s["mode"], s["text_policy"],
					len(s["perception_text"].(string)), s["perception_tokens_cl100k"], s["actions"])
			}
			if (format == "html") != (k.e == -1 && text == blobs[page["page_id"].(string)].HTML && s["action_count"] == int64(0)) {
				t.Errorf("%v: %d bytes, %v handles", k, len(text), s["action_count"])
			}
			continue
		}
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if line != "" && !lineFormat.MatchString(line) {
				t.Errorf("%s: line %q does not match the format", s["url"], line)
			}
		}
		if s["mode"] != "fast" || s["text_policy"] != "viewport" || s["llm_ran"] != nil {
			t.Errorf("%s: mode=%v text=%v llm_ran=%v", s["url"], s["mode"], s["text_policy"], s["llm_ran"])
		}
		ids := s["ids_L"].(int64) + s["ids_B"].(int64) + s["ids_I"].(int64) + s["ids_F"].(int64) + s["ids_O"].(int64) + s["ids_M"].(int64)
		if ids != s["action_count"].(int64) || int64(s["actions"].(int)) != ids {
			t.Errorf("%s: ids %d, action_count %v, actions %v", s["url"], ids, s["action_count"], s["actions"])
		}
		c := perPage[s["url"].(string)]
		if s["viewport_expansion"] == int64(0) {
			c[0] = ids
		} else {
			c[1] = ids
		}
		perPage[s["url"].(string)] = c
	}
	for u, c := range perPage {
		if c[1] < c[0] {
			t.Errorf("%s: %d IDs for the whole page, fewer than %d on screen", u, c[1], c[0])
		}
	}
	if c := perPage[srv.URL+"/products.html"]; c[1] < 80 {
		t.Errorf("products: %d IDs for the whole page, want >= 80 (40 cards, a link and a button each)", c[1])
	}
	// Known recall: widgets has a button our rules find hidden and one
	// they find disabled (a not-allowed cursor), and seven extra handles;
	// on cookie a modal dialog keeps 5 of the 47 oracle elements.
	for k, want := range map[key]string{
		{srv.URL + "/widgets.html", "actionspace", -1}:   "24 0.9167 7",
		{srv.URL + "/widgets.html", "playwright-ai", -1}: "24 1.0000 89",
		{srv.URL + "/widgets.html", "html", -1}:          "24 null 0",
		{srv.URL + "/cookie.html", "actionspace", -1}:    "47 0.1064 0",
		{srv.URL + "/login.html", "axtree", 0}:           "13 1.0000 11",
	} {
		s := byKey[k]
		rec := "null"
		if r, ok := s["recall"].(float64); ok {
			rec = strconv.FormatFloat(r, 'f', 4, 64)
		}
		if got := fmt.Sprintf("%v %s %v", s["oracle_in_window"], rec, s["extra_handles"]); got != want {
			t.Errorf("%v: oracle_in_window, recall, extra_handles = %s, want %s", k, got, want)
		}
	}

	checkElementTables(t, out, byKey[key{frames, "actionspace", -1}]["page_id"].(string), func(url string) map[string]any {
		return byKey[key{url, "actionspace", -1}]
	})
}

// checkElementTables reads the elements and oracle tables of the dataset in
// out with arrow-go and checks them against each page's actionspace row at
// the whole page (whole): the elements with an ID are its IDs, those with
// an extra reason its extra handles, the oracle elements in the whole page
// its oracle_in_window, those without a miss reason the handled ones. On
// the page of frames (framesID) every oracle element is tied by DOM
// identity, the stitched cross-origin frames' buttons included.
func checkElementTables(t *testing.T, out, framesID string, whole func(url string) map[string]any) {
	t.Helper()
	files := func(table string) []string {
		f, err := parts.Files(out, table)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	elements, _ := arrowTable(t, files(dataset.ElementsDir))
	oracleRows, _ := arrowTable(t, files(dataset.OracleDir))
	type counts struct{ ids, extras, inWindow, handled int64 }
	got := map[string]*counts{}
	at := func(url string) *counts {
		if got[url] == nil {
			got[url] = &counts{}
		}
		return got[url]
	}
	byElement := map[[2]any]map[string]any{}
	for _, e := range elements {
		c := at(e["url"].(string))
		byElement[[2]any{e["page_id"], e["element"]}] = e
		if e["whole_page_id"] != nil {
			c.ids++
			if e["extra_reason"] != nil {
				c.extras++
			}
		}
		if (e["oracle_element"] == nil) == (e["extra_reason"] == nil) {
			t.Errorf("%s element %v: oracle_element %v, extra_reason %v", e["url"], e["element"], e["oracle_element"], e["extra_reason"])
		}
	}
	tied := map[string]string{}
	for _, o := range oracleRows {
		c := at(o["url"].(string))
		if o["in_whole_page"] == true {
			c.inWindow++
			if o["miss_reason"] == nil {
				c.handled++
			}
		}
		if o["page_id"] != framesID || o["role"] != "button" {
			continue
		}
		e := byElement[[2]any{framesID, o["capture_element"]}]
		if e == nil {
			tied[o["name"].(string)] = fmt.Sprintf("%v, no element", o["matched_by"])
			continue
		}
		tied[o["name"].(string)] = fmt.Sprintf("%v %v %q frame %v", o["matched_by"], e["tag"], e["name"], e["frame"])
	}
	for url, c := range got {
		s := whole(url)
		if s == nil {
			t.Errorf("%s: element rows but no spaces row", url)
			continue
		}
		recall, _ := s["recall"].(float64)
		in := s["oracle_in_window"].(int64)
		want := counts{s["action_count"].(int64), s["extra_handles"].(int64), in, int64(math.Round(recall * float64(in)))}
		if *c != want {
			t.Errorf("%s: from the elements and oracle tables %+v, from the spaces row %+v", url, *c, want)
		}
	}
	for name, frame := range map[string]int{"Before frames": 0, "Same-origin button": 1, "Cross-origin button": 1, "Cross-site button": 1, "Nested": 2, "After frames": 0} {
		if want := fmt.Sprintf("identity button %q frame %d", name, frame); tied[name] != want {
			t.Errorf("frames page: %s tied as %s, want %s", name, tied[name], want)
		}
	}
}
