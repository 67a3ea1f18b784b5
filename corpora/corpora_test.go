package corpora

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// get sends a GET for target to Handler and returns the response and body.
func get(t *testing.T, target string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	res := rec.Result()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body of %s: %v", target, err)
	}
	return res, string(body)
}

var titleRE = regexp.MustCompile(`(?is)<title>\s*([^<]*\S)\s*</title>`)

func TestHandler_DefaultPaths(t *testing.T) {
	paths := DefaultPaths()
	if got, want := len(paths), 14; got < want {
		t.Fatalf("len(DefaultPaths()) = %d, want at least %d", got, want)
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			res, body := get(t, p)
			if got, want := res.StatusCode, http.StatusOK; got != want {
				t.Fatalf("status = %d, want %d", got, want)
			}
			if got, want := res.Header.Get("Content-Type"), "text/html; charset=utf-8"; got != want {
				t.Errorf("Content-Type = %q, want %q", got, want)
			}
			if !strings.HasPrefix(body, "<!DOCTYPE html>") {
				t.Errorf("body does not start with <!DOCTYPE html>: %.40q", body)
			}
			if m := titleRE.FindStringSubmatch(body); m == nil {
				t.Errorf("no non-empty <title>")
			}
		})
	}
}

// TestDefaultPaths_ListsEveryPage keeps urls.txt and the site in step: every
// HTML page of the site is in the default list, and every listed path exists.
// The fidelity pages are listed by FidelityPaths instead, the mutation
// pages by MutationPaths; the oracle pages (site/oracles) are test pages
// of the oracles, not of the corpus.
func TestDefaultPaths_ListsEveryPage(t *testing.T) {
	var pages []string
	err := fs.WalkDir(files, "site", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (p == "site/fidelity" || p == "site/oracles" || p == "site/mutation") {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".html") {
			pages = append(pages, strings.TrimPrefix(p, "site"))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk site: %v", err)
	}
	got := slices.Sorted(slices.Values(DefaultPaths()))
	slices.Sort(pages)
	if !slices.Equal(got, pages) {
		t.Errorf("DefaultPaths() = %v\nwant the site's pages %v", got, pages)
	}
	want := []string{
		"/login.html", "/signup.html", "/search.html", "/products.html", "/product.html",
		"/article.html", "/docs.html", "/dashboard.html", "/settings.html", "/cookie.html",
		"/dynamic.html", "/widgets.html", "/index.html", "/news.html",
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("DefaultPaths() lacks %s", p)
		}
	}
}

func TestHandler_PageContent(t *testing.T) {
	sidebarRE := regexp.MustCompile(`(?s)<nav class="docs-sidebar"[^>]*>(.*?)</nav>`)
	tests := []struct {
		path  string
		name  string
		count func(body string) int
		min   int
		max   int
	}{
		{"/products.html", "product cards", countRE(`<article class="product-card" data-product-id="`), 40, 40},
		{"/products.html", "add-to-cart buttons", countRE(`<button[^>]*>Add to cart</button>`), 40, 40},
		{"/products.html", "images with alt", countRE(`<img src="assets/img/[^"]+" alt="[^"]+"`), 40, 40},
		{"/docs.html", "sidebar links", func(body string) int {
			m := sidebarRE.FindStringSubmatch(body)
			if m == nil {
				return 0
			}
			return strings.Count(m[1], "<a ")
		}, 200, 1000},
		{"/search.html", "results", countRE(`<li class="result"`), 10, 10},
		{"/dashboard.html", "table rows", countRE(`<tr data-invoice=`), 20, 30},
		{"/dashboard.html", "kebab menus", countRE(`aria-haspopup="menu"[^>]*aria-label="More actions`), 20, 30},
		{"/settings.html", "switches", countRE(`role="switch"`), 3, 100},
		{"/settings.html", "tabs", countRE(`role="tab" `), 3, 100},
		{"/settings.html", "disabled buttons", countRE(`<button[^>]* disabled`), 1, 100},
		{"/cookie.html", "modal dialogs", countRE(`role="dialog" aria-modal="true"`), 1, 1},
		{"/signup.html", "country options", countRE(`<option value="[A-Z]{2}">`), 20, 300},
		{"/signup.html", "radios", countRE(`type="radio"`), 3, 100},
		{"/signup.html", "textareas", countRE(`<textarea`), 1, 10},
		{"/login.html", "password inputs", countRE(`type="password"`), 1, 1},
		{"/widgets.html", "multi-token roles", countRE(`role="switch button"`), 1, 1},
		{"/widgets.html", "contenteditable", countRE(`contenteditable="true"`), 1, 10},
		{"/widgets.html", "onclick divs", countRE(`<div[^>]* onclick=`), 1, 10},
		{"/news.html", "links", countRE(`<a `), 60, 1000},
		{"/article.html", "paragraphs", countRE(`<p>`), 30, 1000},
		{"/dynamic.html", "setTimeout", countRE(`setTimeout\(render, 300\)`), 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.path+"/"+tt.name, func(t *testing.T) {
			res, body := get(t, tt.path)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200", res.StatusCode)
			}
			if got := tt.count(body); got < tt.min || got > tt.max {
				t.Errorf("%s = %d, want %d..%d", tt.name, got, tt.min, tt.max)
			}
		})
	}
}

func countRE(expr string) func(string) int {
	re := regexp.MustCompile(expr)
	return func(s string) int { return len(re.FindAllStringIndex(s, -1)) }
}

// TestHandler_SelfContained checks that pages load nothing from other hosts
// and that every local asset they load exists.
func TestHandler_SelfContained(t *testing.T) {
	externalRE := regexp.MustCompile(`(?i)(?:\b(?:src|href|action)\s*=\s*"|url\()\s*(?:https?:)?//`)
	assetRE := regexp.MustCompile(`\b(?:src|href)="(assets/[^"#?]+)"`)
	for _, p := range DefaultPaths() {
		t.Run(p, func(t *testing.T) {
			_, body := get(t, p)
			if loc := externalRE.FindStringIndex(body); loc != nil {
				t.Errorf("refers to another host: %q", body[loc[0]:min(loc[1]+40, len(body))])
			}
			for _, m := range assetRE.FindAllStringSubmatch(body, -1) {
				ref, err := url.JoinPath("/", m[1])
				if err != nil {
					t.Fatalf("join %s: %v", m[1], err)
				}
				if res, _ := get(t, ref); res.StatusCode != http.StatusOK {
					t.Errorf("asset %s: status %d, want 200", ref, res.StatusCode)
				}
			}
		})
	}
	_, css := get(t, "/assets/style.css")
	if loc := externalRE.FindStringIndex(css); loc != nil {
		t.Errorf("style.css refers to another host: %q", css[loc[0]:loc[1]])
	}
}

func TestHandler_Responses(t *testing.T) {
	tests := []struct {
		target     string
		wantStatus int
		wantType   string
	}{
		{"/", http.StatusOK, "text/html; charset=utf-8"},
		{"/index.html", http.StatusOK, "text/html; charset=utf-8"},
		{"/assets/style.css", http.StatusOK, "text/css; charset=utf-8"},
		{"/assets/img/tent.svg", http.StatusOK, "image/svg+xml; charset=utf-8"},
		{"/no-such-page.html", http.StatusNotFound, "text/html; charset=utf-8"},
		{"/assets/", http.StatusNotFound, "text/html; charset=utf-8"},
		{"/assets", http.StatusNotFound, "text/html; charset=utf-8"},
		{"/urls.txt", http.StatusNotFound, "text/html; charset=utf-8"},
		{"/gen/table?rows=abc", http.StatusBadRequest, "text/plain; charset=utf-8"},
		{"/gen/table?rows=-1", http.StatusBadRequest, "text/plain; charset=utf-8"},
		{"/gen/table?rows=50001", http.StatusBadRequest, "text/plain; charset=utf-8"},
		{"/gen/nothing", http.StatusNotFound, "text/html; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			res, _ := get(t, tt.target)
			if got := res.StatusCode; got != tt.wantStatus {
				t.Errorf("status = %d, want %d", got, tt.wantStatus)
			}
			if got := res.Header.Get("Content-Type"); got != tt.wantType {
				t.Errorf("Content-Type = %q, want %q", got, tt.wantType)
			}
		})
	}
}

func TestHandler_GenTable(t *testing.T) {
	rowRE := regexp.MustCompile(`^<tr data-row="\d+"><td>[^<]+</td><td><input [^>]+></td><td><button [^>]*>[^<]+</button></td></tr>$`)
	tests := []struct {
		target string
		want   int
	}{
		{"/gen/table?rows=5", 5},
		{"/gen/table?rows=0", 0},
		{"/gen/table", DefaultTableRows},
		{"/gen/table?rows=50000", MaxTableRows},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			res, body := get(t, tt.target)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200", res.StatusCode)
			}
			if got, want := res.Header.Get("Content-Type"), "text/html; charset=utf-8"; got != want {
				t.Errorf("Content-Type = %q, want %q", got, want)
			}
			var rows []string
			for line := range strings.Lines(body) {
				if strings.HasPrefix(line, "<tr data-row=") {
					rows = append(rows, strings.TrimSuffix(line, "\n"))
				}
			}
			if len(rows) != tt.want || strings.Count(body, "<tr data-row=") != tt.want {
				t.Errorf("%d rows, %d on lines of their own; want %d", strings.Count(body, "<tr data-row="), len(rows), tt.want)
			}
			// Every row has its text, input and button. The race
			// detector's pass (-short) checks every 100th row, and the
			// last: its regexp on 50,000 rows took 15 s.
			step := 1
			if testing.Short() {
				step = 100
			}
			for i, row := range rows {
				if (i%step == 0 || i == len(rows)-1) && !rowRE.MatchString(row) {
					t.Errorf("row %d is not text, input and button: %q", i+1, row)
				}
			}
			if titleRE.FindStringSubmatch(body) == nil {
				t.Errorf("no non-empty <title>")
			}
			if !strings.HasSuffix(body, "</html>\n") {
				t.Errorf("page is not complete: ends %q", body[max(0, len(body)-30):])
			}
		})
	}
}

func TestParsePaths(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"comments and blanks", "# head\n\n/a.html\n   \n  # indented comment\n/b.html\n", []string{"/a.html", "/b.html"}},
		{"crlf and spaces", "/a.html\r\n  /b.html  \r\n", []string{"/a.html", "/b.html"}},
		{"no leading slash", "c.html", []string{"/c.html"}},
		{"no final newline", "/a.html\n/b.html", []string{"/a.html", "/b.html"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parsePaths(tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("parsePaths(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDefaultURLs(t *testing.T) {
	paths := DefaultPaths()
	for _, base := range []string{"http://127.0.0.1:8080", "http://127.0.0.1:8080/"} {
		got := DefaultURLs(base)
		if len(got) != len(paths) {
			t.Fatalf("DefaultURLs(%q) has %d URLs, want %d", base, len(got), len(paths))
		}
		for i, u := range got {
			if want := "http://127.0.0.1:8080" + paths[i]; u != want {
				t.Errorf("DefaultURLs(%q)[%d] = %q, want %q", base, i, u, want)
			}
		}
	}
}

func TestStart(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatalf("parse URL %q: %v", s.URL, err)
	}
	if got, want := u.Hostname(), "127.0.0.1"; got != want {
		t.Errorf("host = %q, want %q", got, want)
	}
	if u.Port() == "" || u.Port() == "0" {
		t.Errorf("port = %q, want a real port", u.Port())
	}
	for _, target := range DefaultURLs(s.URL)[:3] {
		res, err := http.Get(target)
		if err != nil {
			t.Fatalf("GET %s: %v", target, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d, want 200", target, res.StatusCode)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if res, err := http.Get(s.URL + "/"); err == nil {
		res.Body.Close()
		t.Errorf("GET after Close succeeded with status %d, want an error", res.StatusCode)
	}
}

// TestServeDir serves a folder of saved pages: files by path, index.html
// for a folder, 404 for the rest, nothing outside the folder.
func TestServeDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "site"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"a.html": "<p>a</p>", "site/index.html": "<p>site</p>"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := ServeDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tt := range []struct {
		path, body, ctype string
		code              int
	}{
		{"/a.html", "<p>a</p>", "text/html; charset=utf-8", 200},
		{"/site/", "<p>site</p>", "text/html; charset=utf-8", 200},
		{"/missing.html", "", "text/html; charset=utf-8", 404},
		{"/../etc/passwd", "", "text/html; charset=utf-8", 404},
	} {
		resp, err := http.Get(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || resp.Header.Get("Content-Type") != tt.ctype || (tt.code == 200 && string(body) != tt.body) {
			t.Errorf("GET %s = %d %q %q, want %d %q %q", tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.code, tt.ctype, tt.body)
		}
	}
	if _, err := ServeDir(filepath.Join(dir, "a.html")); err == nil {
		t.Error("ServeDir of a file succeeded")
	}
}
