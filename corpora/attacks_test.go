package corpora

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAttackPaths(t *testing.T) {
	if n := len(AttackPaths()); n != 6 {
		t.Errorf("%d attack paths, want 6", n)
	}
	checkPathList(t, AttackPaths, AttackURLs, AttackPrefix)
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
		{"/attacks/frames?rows=3", 0, [2]any{`frame?n=9&amp;rows=3"`, 1}},
		{"/attacks/frames?frames=12", 0, [2]any{`src="http://other.test/attacks/frames/frame?n=`, 12}},
		{"/attacks/frames?frames=0", 0, [2]any{`src="http://other.test/attacks/frames/frame?n=`, AttackFrames}},
		{"/attacks/frames?frames=51", 0, [2]any{`src="http://other.test/attacks/frames/frame?n=`, AttackFrames}},
		{"/attacks/frames/frame?n=7&rows=3", 0, [2]any{"<button", 30}},
		{"/attacks/frames/frame?n=7&rows=0", 0, [2]any{"<button", AttackFrameNodes / 10}},
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
