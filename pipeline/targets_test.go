package pipeline

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestReadTargets(t *testing.T) {
	long := "http://example.test/" + strings.Repeat("a", MaxURLLine)
	list := strings.Join([]string{
		"\ufeffhttp://example.test/first",     // 1: byte-order mark trimmed
		"",                                    // 2
		"# a comment",                         // 3
		"  https://example.test/spaced  ",     // 4
		"http://example.test/first",           // 5: duplicate of line 1
		"not a url",                           // 6
		"example.test/no-scheme",              // 7
		"file:///etc/passwd",                  // 8
		"javascript:alert(document.cookie)",   // 9
		"data:text/html,<h1>hi</h1>",          // 10
		"chrome://settings",                   // 11
		"about:blank",                         // 12
		"view-source:http://example.test/",    // 13
		"ftp://example.test/file",             // 14
		"http:///no-host",                     // 15
		"http://[::1",                         // 16
		"http://example.test/\x00nul",         // 17
		"http://example.test/\xff\xfe",        // 18: not UTF-8
		long,                                  // 19
		"http://example.test/after-long\r",    // 20: CRLF
		"HTTPS://EXAMPLE.TEST/upper",          // 21
		"http://example.test/last-no-newline", // 22
	}, "\n")
	got, err := ReadTargets(strings.NewReader(list), DefaultSchemes())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line   int
		url    string // "" to skip the check
		reason string // "" for a crawlable URL; else a substring of the error
	}{
		{1, "http://example.test/first", ""},
		{4, "https://example.test/spaced", ""},
		{6, "not a url", "not an absolute URL"},
		{7, "example.test/no-scheme", "not an absolute URL"},
		{8, "file:///etc/passwd", `scheme "file" not allowed`},
		{9, "javascript:alert(document.cookie)", `scheme "javascript" not allowed`},
		{10, "data:text/html,<h1>hi</h1>", `scheme "data" not allowed`},
		{11, "chrome://settings", `scheme "chrome" not allowed`},
		{12, "about:blank", `scheme "about" not allowed`},
		{13, "view-source:http://example.test/", `scheme "view-source" not allowed`},
		{14, "ftp://example.test/file", `scheme "ftp" not allowed`},
		{15, "http:///no-host", "no host"},
		{16, "http://[::1", "not a URL"},
		{17, "", "control character"},
		{18, "http://example.test/\uFFFD", "not UTF-8"},
		{19, "", "longer than"},
		{20, "http://example.test/after-long", ""},
		{21, "HTTPS://EXAMPLE.TEST/upper", ""},
		{22, "http://example.test/last-no-newline", ""},
	}
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("line %d: %.60q %v", g.Line, g.URL, g.Err)
		}
		t.Fatalf("%d targets, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Line != w.line || (w.url != "" && g.URL != w.url) {
			t.Errorf("target %d: line %d %.60q, want line %d %q", i, g.Line, g.URL, w.line, w.url)
		}
		if g.PageID == "" {
			t.Errorf("line %d: no page ID", g.Line)
		}
		switch {
		case w.reason == "" && g.Err != nil:
			t.Errorf("line %d: refused: %v", g.Line, g.Err)
		case w.reason != "" && g.Err == nil:
			t.Errorf("line %d: accepted, want it refused (%s)", g.Line, w.reason)
		case w.reason != "":
			msg := g.Err.Error()
			if g.Err.Kind != KindInvalidURL || !strings.Contains(msg, w.reason) || !strings.Contains(msg, "line "+strconv.Itoa(w.line)+":") {
				t.Errorf("line %d: error %q (kind %s), want invalid_url naming the line and %q", g.Line, msg, g.Err.Kind, w.reason)
			}
		}
	}
	if n := len(got[15].URL); got[15].Line != 19 || n > MaxURLLine {
		t.Errorf("the over-long line's row keeps %d bytes, want at most %d", n, MaxURLLine)
	}
}

func TestReadTargets_AllowScheme(t *testing.T) {
	tests := []struct {
		schemes []string
		url     string
		ok      bool
	}{
		{DefaultSchemes(), "http://a.test/", true},
		{DefaultSchemes(), "https://a.test/", true},
		{DefaultSchemes(), "file:///etc/passwd", false},
		{[]string{"http", "https", "file"}, "file:///etc/passwd", true},
		{[]string{"HTTP"}, "http://a.test/", true},
		{[]string{"https"}, "http://a.test/", false},
		{nil, "http://a.test/", false},
	}
	for _, tt := range tests {
		got, err := ReadTargets(strings.NewReader(tt.url), tt.schemes)
		if err != nil || len(got) != 1 {
			t.Fatalf("ReadTargets(%q, %v) = %v, %v", tt.url, tt.schemes, got, err)
		}
		if ok := got[0].Err == nil; ok != tt.ok {
			t.Errorf("ReadTargets(%q, %v): accepted = %v (%v), want %v", tt.url, tt.schemes, ok, got[0].Err, tt.ok)
		}
	}
}

func TestReadTargets_Duplicates(t *testing.T) {
	got, err := ReadTargets(strings.NewReader("http://a.test/\nhttp://b.test/\n  http://a.test/  \nhttp://a.test/#frag\nbad line\nbad line\n"), DefaultSchemes())
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, g := range got {
		urls = append(urls, g.URL)
	}
	if want := "http://a.test/ http://b.test/ http://a.test/#frag bad line"; strings.Join(urls, " ") != want {
		t.Errorf("targets %q, want %q (each URL once, at its first line)", urls, want)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadTargets_ReadError(t *testing.T) {
	_, err := ReadTargets(io.MultiReader(strings.NewReader("http://a.test/\n"), failingReader{}), DefaultSchemes())
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("ReadTargets error = %v, want the read error", err)
	}
}
