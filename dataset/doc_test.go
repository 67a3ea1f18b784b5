package dataset

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// The column documentation in docs/dataset.md (the dataset card) is generated
// from rows.go: the row structs are the schema and their doc comments are
// the columns' meanings. TestDoc_columns fails when either file's block
// differs from what rows.go says; -update rewrites the blocks.

var update = flag.Bool("update", false, "rewrite the generated column tables in ../docs/dataset.md")

// The generated tables sit between these two lines in every doc file.
const (
	columnsBegin = "<!-- columns:begin -->"
	columnsEnd   = "<!-- columns:end -->"
)

// docFiles returns the files that carry the generated column tables,
// relative to this package's directory.
func docFiles() []string { return []string{"../docs/dataset.md"} }

// docTable names one documented table: its name as readers know it (the
// Markdown heading), the Go struct in rows.go that defines it, and a zero
// value of that struct for its Parquet schema.
type docTable struct {
	name   string
	goName string
	model  any
}

func docTables() []docTable {
	return []docTable{
		{"pages", "PageRow", PageRow{}},
		{"blobs", "BlobRow", BlobRow{}},
		{"spaces", "SpaceRow", SpaceRow{}},
		{"elements", "ElementRow", ElementRow{}},
		{"oracle", "OracleRow", OracleRow{}},
		{"steps", "StepRow", StepRow{}},
		{"spaces.actions", "Action", Action{}},
	}
}

// docColumn is one documented column.
type docColumn struct {
	name     string
	typ      string // as readers see it: string, int64, timestamp[us, UTC] …
	unit     string
	nullable bool
	meaning  string
	note     string // a free-standing comment in the struct just before the field
}

// astStruct is what rows.go says about one struct: its doc comment and its
// fields in order.
type astStruct struct {
	doc    string
	fields []astField
}

type astField struct {
	goName string
	column string
	doc    string
	note   string
	embeds string // the struct an embedded field stands for; its fields are the columns
}

// parseRows parses the row structs of the Go file at path.
func parseRows(path string) (map[string]astStruct, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	structs := map[string]astStruct{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			doc := ts.Doc
			if doc == nil {
				doc = gd.Doc
			}
			s := astStruct{doc: oneLine(doc)}
			// Comment groups inside the struct that belong to no field are
			// notes on the fields that follow them.
			attached := map[*ast.CommentGroup]bool{}
			for _, fld := range st.Fields.List {
				attached[fld.Doc], attached[fld.Comment] = true, true
			}
			var notes []*ast.CommentGroup
			for _, cg := range f.Comments {
				if cg.Pos() > st.Fields.Opening && cg.End() < st.Fields.Closing && !attached[cg] {
					notes = append(notes, cg)
				}
			}
			for _, fld := range st.Fields.List {
				if id, ok := fld.Type.(*ast.Ident); ok && len(fld.Names) == 0 && fld.Tag == nil {
					s.fields = append(s.fields, astField{embeds: id.Name})
					continue
				}
				if len(fld.Names) != 1 || fld.Tag == nil {
					return nil, fmt.Errorf("%s: struct %s: every field must be named alone and tagged", fset.Position(fld.Pos()), ts.Name.Name)
				}
				tag, err := strconv.Unquote(fld.Tag.Value)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", fset.Position(fld.Pos()), err)
				}
				af := astField{goName: fld.Names[0].Name, column: columnName(reflect.StructTag(tag), fld.Names[0].Name), doc: oneLine(fld.Doc)}
				for len(notes) > 0 && notes[0].End() < fld.Pos() {
					af.note = oneLine(notes[0])
					notes = notes[1:]
				}
				s.fields = append(s.fields, af)
			}
			structs[ts.Name.Name] = s
		}
	}
	for name := range structs {
		s := structs[name]
		fields, err := expandEmbedded(structs, name, 0)
		if err != nil {
			return nil, err
		}
		s.fields = fields
		structs[name] = s
	}
	return structs, nil
}

// expandEmbedded returns the fields of struct name with every embedded
// struct replaced by its own fields, in order, as Parquet flattens them.
func expandEmbedded(structs map[string]astStruct, name string, depth int) ([]astField, error) {
	if depth > 4 {
		return nil, fmt.Errorf("struct %s: embedding too deep", name)
	}
	var out []astField
	for _, f := range structs[name].fields {
		if f.embeds == "" {
			out = append(out, f)
			continue
		}
		if _, ok := structs[f.embeds]; !ok {
			return nil, fmt.Errorf("struct %s embeds %s, which rows.go does not define", name, f.embeds)
		}
		inner, err := expandEmbedded(structs, f.embeds, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, inner...)
	}
	return out, nil
}

// columnName returns the Parquet column name of a struct field: its parquet
// tag's name, else the Go name. "-" means the field is not a column.
func columnName(tag reflect.StructTag, goName string) string {
	name, _, _ := strings.Cut(tag.Get("parquet"), ",")
	if name == "" {
		return goName
	}
	return name
}

// oneLine returns a comment's text as one line.
func oneLine(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	return strings.Join(strings.Fields(cg.Text()), " ")
}

// reflectColumns returns the column names of the exported fields of a row
// struct, from its parquet tags.
func reflectColumns(model any) []string {
	var names []string
	for f := range reflect.TypeOf(model).Fields() {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			names = append(names, reflectColumns(reflect.Zero(f.Type).Interface())...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name := columnName(f.Tag, f.Name); name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// readerType returns the logical type of a Parquet node as DuckDB, Arrow and
// pandas readers see it.
func readerType(n parquet.Node) string {
	var logical format.LogicalTypeValue
	if lt := n.Type().LogicalType(); lt != nil {
		logical = lt.Value
	}
	if !n.Leaf() {
		if _, ok := logical.(*format.ListType); ok {
			return "list<" + readerType(n.Fields()[0].Fields()[0]) + ">"
		}
		return "struct<…>"
	}
	switch lt := logical.(type) {
	case *format.TimestampType:
		unit := map[string]string{"MILLIS": "ms", "MICROS": "us", "NANOS": "ns"}[lt.Unit.String()]
		if unit == "" {
			unit = lt.Unit.String()
		}
		if lt.IsAdjustedToUTC {
			return "timestamp[" + unit + ", UTC]"
		}
		return "timestamp[" + unit + "]"
	case *format.StringType:
		return "string"
	}
	switch n.Type().Kind() {
	case parquet.Boolean:
		return "bool"
	case parquet.Int32:
		return "int32"
	case parquet.Int64:
		return "int64"
	case parquet.Float:
		return "float32"
	case parquet.Double:
		return "float64"
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return "binary"
	}
	return n.Type().String()
}

// unitOf reads a numeric column's unit from its meaning, which rows.go
// states in words ("in milliseconds", "in CSS pixels", "number of …").
func unitOf(typ, meaning string) string {
	if strings.HasPrefix(typ, "timestamp") {
		return "UTC, µs"
	}
	if typ != "int64" && typ != "float64" {
		return ""
	}
	m := strings.ToLower(meaning)
	switch {
	case strings.Contains(m, "milliseconds"):
		return "ms"
	case strings.Contains(m, "divided by"):
		return "ratio"
	case strings.Contains(m, "fraction"):
		return "fraction"
	case strings.Contains(m, "css pixels"):
		return "CSS px"
	case strings.Contains(m, "image pixels"):
		return "px"
	case strings.Contains(m, "tokens"):
		return "tokens"
	case strings.Contains(m, "bytes"):
		return "bytes"
	case strings.Contains(m, "number of"):
		return "count"
	}
	return ""
}

var (
	qualifiedField = regexp.MustCompile(`\b(PageRow|SpaceRow)\.([A-Z][A-Za-z0-9]*)\b`)
	goIdent        = regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*\b`)
	snakeIdent     = regexp.MustCompile("`?\\b[a-z][a-z0-9]*_[a-z0-9_]*\\b`?")
)

// meaningOf turns a field's Go doc comment into a column's meaning: the
// leading field name is dropped ("PageID identifies …" → "Identifies …"),
// references to fields become column names, and Markdown table syntax is
// escaped. columns maps the Go names of the struct's fields, and of the
// other row structs' fields as "PageRow.URL", to column names; a key
// "column:NAME" marks NAME as a column of some table, so that a bare
// mention of it ("divided by tokens_cl100k") is set as code.
func meaningOf(goName, doc string, columns map[string]string) string {
	s := doc
	if rest, ok := strings.CutPrefix(s, goName+" "); ok {
		s = strings.TrimPrefix(rest, "is ")
		// Capitalize a plain word, not a name: "the" → "The", but
		// "window.devicePixelRatio" stays.
		word, _, _ := strings.Cut(s, " ")
		if strings.IndexFunc(word, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			r, size := utf8.DecodeRuneInString(s)
			s = string(unicode.ToUpper(r)) + s[size:]
		}
	}
	s = qualifiedField.ReplaceAllStringFunc(s, func(ref string) string {
		if col, ok := columns[ref]; ok {
			return "`" + col + "`"
		}
		return ref
	})
	s = goIdent.ReplaceAllStringFunc(s, func(id string) string {
		// All-capitals names (URL, HTML) are words too; leave them. A
		// field's mention of its own name is about a Go constant.
		if col, ok := columns[id]; ok && id != goName && strings.ToUpper(id) != id {
			return "`" + col + "`"
		}
		return id
	})
	s = snakeIdent.ReplaceAllStringFunc(s, func(id string) string {
		if !strings.HasPrefix(id, "`") && columns["column:"+id] != "" {
			return "`" + id + "`"
		}
		return id
	})
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "<", "&lt;")
	return s
}

// firstSentence returns the first sentence of s, with the leading Go name
// dropped as meaningOf does.
func firstSentence(goName, s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return meaningOf(goName, s, nil)
}

// buildColumns returns the documented columns of every table, from rows.go
// and the Parquet schema of the row structs.
func buildColumns(structs map[string]astStruct) (map[string][]docColumn, error) {
	refs := map[string]string{}
	for _, tbl := range docTables() {
		for _, f := range structs[tbl.goName].fields {
			refs[tbl.goName+"."+f.goName] = tbl.name + "." + f.column
			if strings.Contains(f.column, "_") {
				refs["column:"+f.column] = f.column
			}
		}
	}
	out := map[string][]docColumn{}
	for _, tbl := range docTables() {
		s, ok := structs[tbl.goName]
		if !ok {
			return nil, fmt.Errorf("rows.go has no struct %s", tbl.goName)
		}
		own := map[string]string{}
		for k, v := range refs {
			own[k] = v
		}
		for _, f := range s.fields {
			own[f.goName] = f.column
		}
		schema := parquet.SchemaOf(tbl.model)
		for _, f := range s.fields {
			if f.column == "-" {
				continue
			}
			if f.doc == "" {
				return nil, fmt.Errorf("%s.%s (column %s) has no doc comment", tbl.goName, f.goName, f.column)
			}
			var node parquet.Node
			for _, n := range schema.Fields() {
				if n.Name() == f.column {
					node = n
				}
			}
			if node == nil {
				return nil, fmt.Errorf("%s.%s: column %s is not in the Parquet schema", tbl.goName, f.goName, f.column)
			}
			c := docColumn{
				name:     f.column,
				typ:      readerType(node),
				nullable: node.Optional(),
				meaning:  meaningOf(f.goName, f.doc, own),
				note:     f.note,
			}
			c.unit = unitOf(c.typ, c.meaning)
			out[tbl.name] = append(out[tbl.name], c)
		}
	}
	return out, nil
}

const columnsHeader = "| column | type | unit | nullable | meaning |\n|---|---|---|---|---|\n"

// renderColumns renders the block that goes between the markers.
func renderColumns(structs map[string]astStruct, cols map[string][]docColumn) string {
	var b strings.Builder
	b.WriteString("\n<!-- Generated from dataset/rows.go by `go test ./dataset -run Doc -update`. Do not edit by hand. -->\n")
	for _, tbl := range docTables() {
		fmt.Fprintf(&b, "\n### %s\n\n", tbl.name)
		b.WriteString(firstSentence(tbl.goName, structs[tbl.goName].doc))
		if tbl.name == "spaces.actions" {
			b.WriteString(" Each element of the `actions` list of a spaces row is one such struct.")
		}
		b.WriteString("\n\n" + columnsHeader)
		for _, c := range cols[tbl.name] {
			if c.note != "" {
				fmt.Fprintf(&b, "\n%s\n\n%s", meaningOf("", c.note, nil), columnsHeader)
			}
			nullable := "no"
			if c.nullable {
				nullable = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s |\n", c.name, c.typ, c.unit, nullable, c.meaning)
		}
	}
	return b.String()
}

// splitBlock returns the text of a doc file before, inside and after the
// column markers.
func splitBlock(text string) (before, block, after string, err error) {
	i := strings.Index(text, columnsBegin)
	j := strings.Index(text, columnsEnd)
	if i < 0 || j < i || strings.Count(text, columnsBegin) != 1 || strings.Count(text, columnsEnd) != 1 {
		return "", "", "", fmt.Errorf("want exactly one %s followed by one %s", columnsBegin, columnsEnd)
	}
	i += len(columnsBegin)
	return text[:i], text[i:j], text[j:], nil
}

// blockRows returns the column rows of a rendered block, keyed by
// "table.column", and the keys in order.
func blockRows(block string) (map[string]string, []string) {
	rows := map[string]string{}
	var keys []string
	table := ""
	for line := range strings.Lines(block) {
		line = strings.TrimRight(line, "\n")
		if h, ok := strings.CutPrefix(line, "### "); ok {
			table = strings.TrimSpace(h)
			continue
		}
		rest, ok := strings.CutPrefix(line, "| `")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, "`")
		key := table + "." + name
		rows[key] = line
		keys = append(keys, key)
	}
	return rows, keys
}

// blockDiff describes how a block in a file (got) differs from the
// generated one (want), naming the columns.
func blockDiff(got, want string) []string {
	gotRows, gotKeys := blockRows(got)
	wantRows, wantKeys := blockRows(want)
	var diffs []string
	for _, k := range wantKeys {
		switch g, ok := gotRows[k]; {
		case !ok:
			diffs = append(diffs, "missing column "+k)
		case g != wantRows[k]:
			diffs = append(diffs, fmt.Sprintf("changed column %s:\n\t\tgot  %s\n\t\twant %s", k, g, wantRows[k]))
		}
	}
	for _, k := range gotKeys {
		if _, ok := wantRows[k]; !ok {
			diffs = append(diffs, "extra column "+k+" (not in rows.go)")
		}
	}
	if len(diffs) == 0 && !slices.Equal(gotKeys, wantKeys) {
		diffs = append(diffs, "columns out of order")
	}
	if len(diffs) == 0 && got != want {
		diffs = append(diffs, "text around the column rows differs (headings, intros or notes)")
	}
	return diffs
}

// TestDoc_columns checks that the column tables of
// docs/dataset.md are exactly what rows.go generates (and rewrites them
// with -update), and that they name every column of the row structs and no
// other.
func TestDoc_columns(t *testing.T) {
	structs, err := parseRows("rows.go")
	if err != nil {
		t.Fatal(err)
	}
	cols, err := buildColumns(structs)
	if err != nil {
		t.Fatal(err)
	}
	want := renderColumns(structs, cols)

	// The generated block must cover the compiled schema exactly.
	wantRows, _ := blockRows(want)
	for _, tbl := range docTables() {
		reflected := reflectColumns(tbl.model)
		for _, name := range reflected {
			if _, ok := wantRows[tbl.name+"."+name]; !ok {
				t.Errorf("%s: column %s of %s is not documented", tbl.name, name, tbl.goName)
			}
		}
		for _, c := range cols[tbl.name] {
			if !slices.Contains(reflected, c.name) {
				t.Errorf("%s: documented column %s is not a column of %s", tbl.name, c.name, tbl.goName)
			}
		}
	}

	for _, path := range docFiles() {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		before, got, after, err := splitBlock(string(data))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if got == want {
			continue
		}
		if *update {
			if err := os.WriteFile(path, []byte(before+want+after), 0o644); err != nil {
				t.Error(err)
			}
			t.Logf("%s: column tables rewritten", path)
			continue
		}
		t.Errorf("%s: the column tables differ from dataset/rows.go (run `go test ./dataset -run Doc -update`):\n\t%s",
			path, strings.Join(blockDiff(got, want), "\n\t"))
	}
}

// TestDoc_schemaColumns checks the card's coverage from the files
// themselves: every column the row structs define appears in each file's
// block, and each block documents no other column.
func TestDoc_schemaColumns(t *testing.T) {
	want := map[string]bool{}
	for _, tbl := range docTables() {
		for _, name := range reflectColumns(tbl.model) {
			want[tbl.name+"."+name] = true
		}
	}
	for _, path := range docFiles() {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		_, block, _, err := splitBlock(string(data))
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		got, gotKeys := blockRows(block)
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if _, ok := got[k]; !ok {
				t.Errorf("%s: schema column %s is not documented", path, k)
			}
		}
		for _, k := range gotKeys {
			if !want[k] {
				t.Errorf("%s: documented column %s is not in the schema", path, k)
			}
		}
	}
}

func TestMeaningOf(t *testing.T) {
	refs := map[string]string{"column:html_tokens_o200k": "html_tokens_o200k", "column:tokens_o200k": "tokens_o200k", "CaptureEncoding": "capture_encoding", "ActionSpace": "action_space", "HTML": "html", "PageRow.RunID": "pages.run_id", "Status": "status"}
	tests := []struct {
		goName, doc, want string
	}{
		{"PageID", "PageID identifies the URL.", "Identifies the URL."},
		{"FinalURL", "FinalURL is the URL of the document.", "The URL of the document."},
		{"LLMRan", "LLMRan is true when it ran.", "True when it ran."},
		{"SpaceBytes", "SpaceBytes is the length of ActionSpace in bytes.", "The length of `action_space` in bytes."},
		{"HTMLBytes", "HTMLBytes is the length of HTML in bytes.", "The length of HTML in bytes."},
		{"RunID", "RunID identifies the run; see PageRow.RunID.", "Identifies the run; see `pages.run_id`."},
		{"ErrorKind", "ErrorKind is a | b; empty when Status is ok.", "A \\| b; empty when `status` is ok."},
		{"X", "X is <x>.", "&lt;x>."},
		{"DPR", "DPR is window.devicePixelRatio.", "window.devicePixelRatio."},
		{"R", "R is html_tokens_o200k divided by `tokens_o200k`; as for cl100k_base.", "`html_tokens_o200k` divided by `tokens_o200k`; as for cl100k_base."},
		{"CaptureEncoding", "CaptureEncoding names it (CaptureEncoding).", "Names it (CaptureEncoding)."},
	}
	for _, tt := range tests {
		if got := meaningOf(tt.goName, tt.doc, refs); got != tt.want {
			t.Errorf("meaningOf(%q, %q) = %q, want %q", tt.goName, tt.doc, got, tt.want)
		}
	}
}

func TestUnitOf(t *testing.T) {
	tests := []struct {
		typ, meaning, want string
	}{
		{"float64", "The time taken, in milliseconds.", "ms"},
		{"float64", "`html_tokens_o200k` divided by `tokens_o200k`.", "ratio"},
		{"int64", "The number of cl100k_base tokens in HTML.", "tokens"},
		{"int64", "The number of CSS pixels the viewport was grown by.", "CSS px"},
		{"int64", "The width of the screenshot in image pixels.", "px"},
		{"int64", "The length of HTML in bytes (UTF-8).", "bytes"},
		{"int64", "The number of L (link) IDs.", "count"},
		{"int64", "The HTTP status code.", ""},
		{"string", "The number of things.", ""},
		{"timestamp[us, UTC]", "When.", "UTC, µs"},
	}
	for _, tt := range tests {
		if got := unitOf(tt.typ, tt.meaning); got != tt.want {
			t.Errorf("unitOf(%q, %q) = %q, want %q", tt.typ, tt.meaning, got, tt.want)
		}
	}
}
