package browser

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"actionspace/pipeline"
)

// evidenceSite serves a static page, and a page whose content arrives from
// a request of its own origin that takes 900 ms, during which its DOM is
// quiet.
func evidenceSite(tb testing.TB) *httptest.Server {
	tb.Helper()
	mux := http.NewServeMux()
	page := func(title, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body>%s</body></html>", title, body)
		}
	}
	mux.HandleFunc("/static", page("Static", `<h1>Static</h1><a href="/a">A</a>`))
	mux.HandleFunc("/fetching", page("Fetching", `<main id="root">loading</main>
<script>
window.addEventListener('load', () => {
  fetch('/data').then((r) => r.text()).then((text) => {
    const p = document.createElement('p');
    p.id = 'late';
    p.textContent = text;
    document.body.appendChild(p);
  });
});
</script>`))
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(900 * time.Millisecond):
		case <-r.Context().Done():
		}
		io.WriteString(w, "arrived")
	})
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	return srv
}

// TestChromium_LoadSettleEvidence: settling on evidence waits for a
// request of the page's own origin that the quiet-DOM rule does not see
// (the DOM is quiet while it is pending), and captures a page that is
// done sooner than the quiet rule's 500 ms of quiet.
func TestChromium_LoadSettleEvidence(t *testing.T) {
	site := evidenceSite(t)
	tests := []struct {
		settle    string
		url       string
		wantLate  bool
		maxSettle time.Duration // 0: no bound checked
		minSettle time.Duration
	}{
		{pipeline.SettleQuietRule, "/fetching", false, 0, 0},
		{pipeline.SettleEvidence, "/fetching", true, 0, 0},
		{pipeline.SettleQuietRule, "/static", false, 0, pipeline.DefaultSettleQuiet},
		{pipeline.SettleEvidence, "/static", false, pipeline.DefaultSettleQuiet * 8 / 10, 0},
	}
	for _, tt := range tests {
		t.Run(tt.settle+tt.url, func(t *testing.T) {
			cfg := testBrowserConfig()
			cfg.page.Settle = tt.settle
			cfg.page.SettleMax = 3 * time.Second
			b := mustLaunchChromium(t, cfg)
			page := mustNewPage(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			ld, err := page.Load(ctx, site.URL+tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if c := decodeTestCapture(t, ld); c.Late != tt.wantLate {
				t.Errorf("captured the content that came with the request: %v, want %v (settled in %v)", c.Late, tt.wantLate, ld.Settle)
			}
			if tt.maxSettle > 0 && ld.Settle > tt.maxSettle {
				t.Errorf("settled in %v, want less than %v", ld.Settle, tt.maxSettle)
			}
			if ld.Settle < tt.minSettle {
				t.Errorf("settled in %v, want at least %v", ld.Settle, tt.minSettle)
			}
			t.Logf("%s %s: settled in %v", tt.settle, tt.url, ld.Settle)
		})
	}
}
