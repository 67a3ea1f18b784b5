package corpora

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestTruthFor: every default corpus page has a ground truth that decodes
// and checks, and every truth file belongs to a default page.
func TestTruthFor(t *testing.T) {
	want := map[string]int{
		"/index.html": 49, "/search.html": 85, "/products.html": 162, "/product.html": 64,
		"/login.html": 13, "/signup.html": 31, "/dashboard.html": 148, "/settings.html": 24,
		"/widgets.html": 29, "/article.html": 55, "/news.html": 129, "/cookie.html": 5,
		"/docs.html": 243, "/dynamic.html": 33,
	}
	for _, p := range DefaultPaths() {
		tr, err := TruthFor(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if got := tr.Size(); got != want[p] {
			t.Errorf("%s: %d elements in the truth, want %d", p, got, want[p])
		}
	}
	files, err := fs.Glob(truthFiles, "truth/*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(DefaultPaths()) {
		t.Errorf("%d truth files for %d default pages", len(files), len(DefaultPaths()))
	}
	if _, err := TruthFor("/nope.html"); !errors.Is(err, ErrNoTruth) {
		t.Errorf("TruthFor of an unknown page: %v, want ErrNoTruth", err)
	}
}

func TestTruth_Check(t *testing.T) {
	good := func() *Truth {
		return &Truth{Page: "/x.html", Elements: []TruthElement{{Locator: "a", What: "a link"}, {Locator: "b", Count: 2, What: "bold"}}}
	}
	if err := good().check("/x.html"); err != nil {
		t.Fatal(err)
	}
	if got := good().Size(); got != 3 {
		t.Errorf("Size() = %d, want 3", got)
	}
	for name, mutate := range map[string]func(*Truth){
		"other page":    func(tr *Truth) { tr.Page = "/y.html" },
		"no elements":   func(tr *Truth) { tr.Elements = nil },
		"empty locator": func(tr *Truth) { tr.Elements[0].Locator = " " },
		"count":         func(tr *Truth) { tr.Elements[1].Count = -1 },
		"description":   func(tr *Truth) { tr.Elements[1].What = "" },
		"twice":         func(tr *Truth) { tr.Elements[1].Locator = "a" },
	} {
		tr := good()
		mutate(tr)
		if err := tr.check("/x.html"); err == nil || strings.Contains(err.Error(), "%!") {
			t.Errorf("%s: check() = %v, want an error", name, err)
		}
	}
}
