package corpora

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestAttackPaths(t *testing.T) {
	paths := AttackPaths()
	if len(paths) != 6 {
		t.Errorf("%d attack paths, want 6", len(paths))
	}
	for _, p := range paths {
		if !strings.HasPrefix(p, AttackPrefix) {
			t.Errorf("%s: not under %s", p, AttackPrefix)
		}
		if slices.Contains(DefaultPaths(), p) {
			t.Errorf("%s is in the default crawl list", p)
		}
	}
	paths[0] = "changed"
	if AttackPaths()[0] == "changed" {
		t.Error("AttackPaths returns its own slice")
	}
	if got, want := AttackURLs("http://h:1/")[2], "http://h:1/attacks/title"; got != want {
		t.Errorf("AttackURLs()[2] = %q, want %q", got, want)
	}
}

// TestHandler_Attacks checks that each attack page is served with the size
// it promises.
func TestHandler_Attacks(t *testing.T) {
	srv := httptest.NewServer(newHandler("http://other.test", ""))
	defer srv.Close()
	tests := []struct {
		path    string
		minSize int
		count   [2]any // a substring and how often it occurs
	}{
		{"/attacks/deep-controls", 0, [2]any{"i < 2000", 1}},
		{"/attacks/frames", 0, [2]any{`src="http://other.test/attacks/frames/frame?n=`, AttackFrames}},
		{"/attacks/frames/frame?n=7", 0, [2]any{"<button", AttackFrameNodes / 10}},
		{"/attacks/title", AttackTitleBytes, [2]any{"<title>", 1}},
		{"/attacks/attributes", 0, [2]any{`="`, AttackAttributes + 2}}, // and html lang, meta charset
		{"/attacks/html", AttackHTMLBytes, [2]any{"<button", 0}},
		{"/attacks/options", 0, [2]any{"<option", AttackOptions + 1000}},
	}
	for _, tt := range tests {
		res, err := http.Get(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s: status %d, Content-Type %q", tt.path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		if len(body) < tt.minSize {
			t.Errorf("%s: %d bytes, want at least %d", tt.path, len(body), tt.minSize)
		}
		sub, want := tt.count[0].(string), tt.count[1].(int)
		if got := strings.Count(string(body), sub); want > 0 && got != want {
			t.Errorf("%s: %q occurs %d times, want %d", tt.path, sub, got, want)
		}
	}
}
