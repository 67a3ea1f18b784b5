package corpora

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFaultPaths(t *testing.T) {
	if n := len(FaultPaths()); n < 20 {
		t.Errorf("%d fault paths, want at least 20", n)
	}
	checkPathList(t, FaultPaths, FaultURLs, FaultPrefix)
}

// checkPathList checks a list of extra pages: every path under prefix and
// out of the default crawl list, a fresh slice on each call, and urls
// joining a base with each path.
func checkPathList(t *testing.T, list func() []string, urls func(string) []string, prefix string) {
	t.Helper()
	paths := list()
	for _, p := range paths {
		if !strings.HasPrefix(p, prefix) {
			t.Errorf("%s: not under %s", p, prefix)
		}
		if slices.Contains(DefaultPaths(), p) {
			t.Errorf("%s is in the default crawl list", p)
		}
	}
	want := "http://h:1" + paths[len(paths)-1]
	paths[len(paths)-1] = "changed"
	if list()[len(paths)-1] == "changed" {
		t.Error("the list function returns its own slice")
	}
	if got := urls("http://h:1/"); len(got) != len(paths) || got[len(got)-1] != want {
		t.Errorf("URLs = %v, want the last one %q", got, want)
	}
}

// TestHandler_Faults checks the responses of the fault pages that answer
// at once.
func TestHandler_Faults(t *testing.T) {
	tests := []struct {
		path        string
		status      int
		contentType string // prefix
		header      [2]string
		body        string // substring
	}{
		{"/faults/status/404", 404, "text/html", [2]string{}, "404 Not Found"},
		{"/faults/status/500", 500, "text/html", [2]string{}, "500"},
		{"/faults/status/503", 503, "text/html", [2]string{"Retry-After", "1"}, "503"},
		{"/faults/status/200", 404, "text/html", [2]string{}, "Page not found"},
		{"/faults/redirect-loop?n=4", 302, "", [2]string{"Location", "/faults/redirect-loop?n=5"}, ""},
		{"/faults/meta-refresh-loop?n=2", 200, "text/html", [2]string{}, `content="0;url=/faults/meta-refresh-loop?n=3"`},
		{"/faults/dialogs", 200, "text/html", [2]string{}, "confirm("},
		{"/faults/popups", 200, "text/html", [2]string{}, "window.open("},
		{"/faults/download", 200, "application/octet-stream", [2]string{"Content-Disposition", `attachment; filename="report.bin"`}, ""},
		{"/faults/pdf", 200, "application/pdf", [2]string{}, "%PDF-1.4"},
		{"/faults/image", 200, "image/png", [2]string{}, "\x89PNG"},
		{"/faults/invalid-utf8", 200, "text/html; charset=utf-8", [2]string{}, "\xe2\x82"},
		{"/faults/wrong-charset", 200, "text/html; charset=iso-8859-1", [2]string{}, "Grüße"},
		{"/faults/deep-nesting", 200, "text/html", [2]string{}, "i < 10000"},
		{"/faults/busy-loop", 200, "text/html", [2]string{}, "for (;;)"},
		{"/faults/crash", 200, "text/html", [2]string{}, "keep.push"},
		{"/faults/navigate-away", 200, "text/html", [2]string{}, "/faults/landing?from=navigate-away"},
		{"/faults/landing", 200, "text/html", [2]string{}, "<title>Landing</title>"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res, body := get(t, tt.path)
			if res.StatusCode != tt.status {
				t.Errorf("status = %d, want %d", res.StatusCode, tt.status)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type = %q, want %q", ct, tt.contentType)
			}
			if tt.header[0] != "" && res.Header.Get(tt.header[0]) != tt.header[1] {
				t.Errorf("%s = %q, want %q", tt.header[0], res.Header.Get(tt.header[0]), tt.header[1])
			}
			if !strings.Contains(body, tt.body) {
				t.Errorf("body %.300q lacks %q", body, tt.body)
			}
		})
	}
	if _, body := get(t, "/faults/invalid-utf8"); utf8.ValidString(body) {
		t.Error("/faults/invalid-utf8 is valid UTF-8")
	}
}

func TestHandler_FaultFrameBust(t *testing.T) {
	tests := []struct{ host, frameHost string }{
		{"127.0.0.1:8080", "localhost:8080"},
		{"localhost:8080", "127.0.0.1:8080"},
		{"example.test", "example.test"},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, "/faults/frame-bust", nil)
		req.Host = tt.host
		rec := httptest.NewRecorder()
		Handler().ServeHTTP(rec, req)
		want := `src="http://` + tt.frameHost + `/faults/frame-bust/frame?to=http://` + tt.host + `/faults/landing%3Ffrom%3Dframe-bust"`
		if body := rec.Body.String(); !strings.Contains(body, want) {
			t.Errorf("host %s: body %q lacks %q", tt.host, body, want)
		}
	}
}

func TestHandler_FaultHugeDOM(t *testing.T) {
	_, body := get(t, "/faults/huge-dom")
	if got := strings.Count(body, "<i></i>") + strings.Count(body, "<div>"); got != HugeDOMNodes {
		t.Errorf("%d elements in the rows, want %d", got, HugeDOMNodes)
	}
}

// TestDocs_FaultSizes: the fault table of docs/crawl.md gives the sizes
// of the pages that this package serves.
func TestDocs_FaultSizes(t *testing.T) {
	doc, err := os.ReadFile("../docs/crawl.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("| %s elements |", thousands(HugeDOMNodes)),
		fmt.Sprintf("%s nested elements overflow", thousands(DeepNesting)),
	} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/crawl.md lacks %q", want)
		}
	}
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestHandler_SlowFaults: /faults/never and /faults/drip hold the request
// until the client goes away, and then return.
func TestHandler_SlowFaults(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for _, path := range []string{"/faults/never", "/faults/drip"} {
		t.Run(path, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 1200*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
			start := time.Now()
			res, err := http.DefaultClient.Do(req)
			var got []byte
			if err == nil {
				got, err = io.ReadAll(res.Body)
				res.Body.Close()
			}
			if err == nil {
				t.Fatalf("the response ended: %q", got)
			}
			if elapsed := time.Since(start); elapsed < time.Second {
				t.Errorf("gave up after %v, before the client's deadline", elapsed)
			}
			if path == "/faults/drip" && !strings.Contains(string(got), "<h1>Drip</h1><p>.") {
				t.Errorf("drip sent %q, want the page start and a drop", got)
			}
		})
	}
}
