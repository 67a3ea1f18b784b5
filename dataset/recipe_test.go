package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"actionspace/dom"
	"actionspace/internal/storedtest"
)

// card reads the dataset card.
func card(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "dataset.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// pythonWithZstd returns a python3 that imports the zstandard module: the
// one on PATH, else Debian's /usr/bin/python3 (where make setup installs
// python3-zstandard; a pyenv shim on PATH may come first). It skips the test
// when there is none, unless ACTIONSPACE_REQUIRE_CHROMIUM=1 (make test) makes
// that a failure.
func pythonWithZstd(t *testing.T) string {
	t.Helper()
	var errs []string
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		out, err := exec.Command(py, "-c", "import zstandard").CombinedOutput()
		if err == nil {
			return py
		}
		errs = append(errs, fmt.Sprintf("%s: %v %s", py, err, bytes.TrimSpace(out)))
	}
	if os.Getenv("ACTIONSPACE_REQUIRE_CHROMIUM") == "1" {
		t.Fatalf("no python3 with zstandard (make setup installs python3-zstandard): %s", strings.Join(errs, "; "))
	}
	t.Skipf("no python3 with zstandard: %s", strings.Join(errs, "; "))
	return ""
}

// TestCard_CaptureRecipe runs the card's Python recipe (the code between
// its recipe markers, as written) on the capture column of a real blobs
// file: a stored corpus capture, compressed and written as the crawl does,
// then read back. What Python decodes must equal what Go's decoder reads:
// the version, the title, the nodes and the elements.
func TestCard_CaptureRecipe(t *testing.T) {
	python := pythonWithZstd(t)
	text := card(t)
	_, rest, ok := strings.Cut(text, "<!-- recipe:begin -->")
	recipe, _, ok2 := strings.Cut(rest, "<!-- recipe:end -->")
	if !ok || !ok2 {
		t.Fatal("the card has no recipe markers")
	}
	recipe = strings.TrimSpace(recipe)
	recipe = strings.TrimSuffix(strings.TrimPrefix(recipe, "```python"), "```")

	raw := storedtest.Read(t, filepath.Join("..", "render", "testdata", "login", "capture.json.gz"))
	packed, err := CompressCapture(raw)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "part-00000.parquet")
	mustWrite(t, path, Metadata{RunID: "recipe"}, WriterConfig{}, []BlobRow{{RunID: "recipe", PageID: "p1", URL: "http://x/",
		Capture: packed, CaptureEncoding: CaptureEncoding}})
	rows, err := ReadAll[BlobRow](path)
	if err != nil || len(rows) != 1 || rows[0].CaptureEncoding != "json+zstd" {
		t.Fatalf("read back: %v %+v", err, rows)
	}
	blob := filepath.Join(dir, "capture.bin")
	if err := os.WriteFile(blob, rows[0].Capture, 0o644); err != nil {
		t.Fatal(err)
	}
	script := recipe + `

import sys
cap = decode_capture(open(sys.argv[1], "rb").read())
print(json.dumps({"version": cap["version"], "title": cap["page"]["title"],
                  "nodes": len(cap["nodes"]), "elements": sum(1 for _ in elements(cap))}))
`
	cmd := exec.Command(python, "-c", script, blob)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, &stderr)
	}
	var got struct {
		Version  int    `json:"version"`
		Title    string `json:"title"`
		Nodes    int    `json:"nodes"`
		Elements int    `json:"elements"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("python printed %q: %v", out, err)
	}
	c, err := dom.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	elements := 0
	for _, n := range c.Nodes {
		if n.Kind == dom.ElementNode {
			elements++
		}
	}
	if got.Version != c.Version || got.Title != c.Page.Title || got.Nodes != len(c.Nodes) || got.Elements != elements {
		t.Errorf("python decoded %+v; Go: version %d, title %q, %d nodes, %d elements", got, c.Version, c.Page.Title, len(c.Nodes), elements)
	}
	t.Logf("python decoded %+v from %d bytes", got, len(rows[0].Capture))
}

// TestCard_CaptureKeys checks that the card's section on the capture record
// names every JSON key of the record, the page and a node.
func TestCard_CaptureKeys(t *testing.T) {
	text := card(t)
	_, section, _ := strings.Cut(text, "## The capture record")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, typ := range []reflect.Type{reflect.TypeFor[dom.Capture](), reflect.TypeFor[dom.PageInfo](), reflect.TypeFor[dom.Node]()} {
		for i := range typ.NumField() {
			key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if key != "" && !strings.Contains(section, "`"+key+"`") {
				t.Errorf("the card does not document the capture key %q (%s.%s)", key, typ.Name(), typ.Field(i).Name)
			}
		}
	}
}
