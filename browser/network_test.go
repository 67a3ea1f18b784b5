package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/pipeline"
)

// hitServer is a loopback HTTP server on addr that serves a small page at
// every path and records the paths requested.
type hitServer struct {
	url  string
	mu   sync.Mutex
	hits []string
}

func startHitServer(t *testing.T, addr string, mux func(s *hitServer) http.Handler) *hitServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("listen on %s: %v", addr, err)
	}
	s := &hitServer{url: "http://" + ln.Addr().String()}
	h := mux(s)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.URL.Path)
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (s *hitServer) took() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

func (s *hitServer) reset() {
	s.mu.Lock()
	s.hits = nil
	s.mu.Unlock()
}

// htmlPage answers with body in a small HTML document.
func htmlPage(w http.ResponseWriter, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>%s</title></head><body>%s</body></html>", title, body)
}

// TestNetwork_Policy loads pages on two loopback origins with real
// Chromium: 127.0.0.1 lists the pages, and 127.0.0.2, whose server records
// every request, plays the address the policy must keep them from. First
// 127.0.0.2 is blocked (as a link-local or metadata address is): the page
// loads but its image, frame, fetch and beacon to it are refused and
// counted (the server never sees them), a listed URL or a redirect there
// fails as blocked (the egress proxy never dials it), and so does
// metadata.google.internal, which is never resolved. Then 127.0.0.1 plays
// a public host and 127.0.0.2 stays what it is, private: a redirect, a
// subresource or a script navigation from the public page into it is
// refused (the navigations fail the page as blocked: Chromium would show
// its error page instead), and "localhost" is private by its name, while a listed URL on
// 127.0.0.2 itself loads. --allow-private lets everything through.
func TestNetwork_Policy(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	inner := startHitServer(t, "127.0.0.2:0", func(*hitServer) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "inner", "<p>inside the private network</p>")
		})
	})
	outer := startHitServer(t, "127.0.0.1:0", func(*hitServer) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("/subresources", func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "outer", fmt.Sprintf(`<h1>Outer</h1><img src="%[1]s/img.png">
<iframe src="%[1]s/frame"></iframe><iframe src="http://localhost:%[2]s/frame"></iframe>
<script>fetch(%[1]q + "/api").catch(() => {}); navigator.sendBeacon(%[1]q + "/beacon", "x");</script>`,
				inner.url, strings.TrimPrefix(r.Host[strings.LastIndex(r.Host, ":"):], ":")))
		})
		mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, inner.url+"/landing", http.StatusFound)
		})
		mux.HandleFunc("/script-nav", func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "outer", fmt.Sprintf(`<h1>Outer</h1><script>setTimeout(() => { location.href = %q; }, 50);</script>`, inner.url+"/landing"))
		})
		mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) { htmlPage(w, "plain", "<p>plain</p>") })
		return mux
	})

	load := func(t *testing.T, policy pipeline.NetworkConfig, url string) (*pipeline.Load, error) {
		t.Helper()
		cfg := defaultTestConfig()
		cfg.page.Network = policy
		cfg.page.SettleQuiet, cfg.page.SettleMax = 300*time.Millisecond, time.Second
		page := mustNewPage(t, mustLaunchChromium(t, cfg))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return page.Load(ctx, url)
	}
	wantBlocked := func(t *testing.T, err error, detail string) {
		t.Helper()
		var pe *pipeline.PageError
		if !errors.As(err, &pe) || pe.Kind != pipeline.KindBlocked || !strings.Contains(pe.Error(), detail) {
			t.Errorf("err = %v, want a %s error naming %q", err, pipeline.KindBlocked, detail)
		}
	}
	noHits := func(t *testing.T) {
		t.Helper()
		if hits := inner.took(); len(hits) > 0 {
			t.Errorf("the refused server got requests: %v", hits)
		}
		inner.reset()
	}
	innerHost := strings.TrimPrefix(inner.url, "http://")
	innerIP := innerHost[:strings.LastIndex(innerHost, ":")]

	blocked := pipeline.NetworkConfig{Blocked: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}
	t.Run("blocked subresources", func(t *testing.T) {
		ld, err := load(t, blocked, outer.url+"/subresources")
		if err != nil {
			t.Fatal(err)
		}
		// The image, the frame, the fetch and the beacon; the localhost
		// frame is the page's own network.
		if ld.BlockedRequests < 4 {
			t.Errorf("%d requests refused, want at least 4", ld.BlockedRequests)
		}
		noHits(t)
	})
	t.Run("blocked listed URL", func(t *testing.T) {
		_, err := load(t, blocked, inner.url+"/landing")
		wantBlocked(t, err, innerIP)
		noHits(t)
	})
	t.Run("blocked redirect", func(t *testing.T) {
		ld, err := load(t, blocked, outer.url+"/redirect")
		wantBlocked(t, err, "navigation to "+innerHost)
		if ld == nil || ld.BlockedRequests != 0 {
			t.Errorf("load %+v: want the partial load, the refused navigation not counted with the others", ld)
		}
		noHits(t) // the proxy never dials the redirect's target
	})
	t.Run("metadata name", func(t *testing.T) {
		_, err := load(t, pipeline.NetworkConfig{}, "http://metadata.google.internal/computeMetadata/v1/")
		wantBlocked(t, err, "metadata.google.internal")
	})
	t.Run("allow private", func(t *testing.T) {
		open := blocked
		open.AllowPrivate = true
		ld, err := load(t, open, outer.url+"/subresources")
		if err != nil {
			t.Fatal(err)
		}
		if ld.BlockedRequests != 0 || len(inner.took()) < 3 {
			t.Errorf("%d refused, the server got %v: want nothing refused", ld.BlockedRequests, inner.took())
		}
		inner.reset()
		if _, err := load(t, open, outer.url+"/redirect"); err != nil {
			t.Errorf("redirect with AllowPrivate: %v", err)
		}
		inner.reset()
	})

	public := pipeline.NetworkConfig{Public: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	t.Run("public to private redirect", func(t *testing.T) {
		_, err := load(t, public, outer.url+"/redirect")
		wantBlocked(t, err, "private")
		noHits(t)
	})
	t.Run("public to private subresources", func(t *testing.T) {
		ld, err := load(t, public, outer.url+"/subresources")
		if err != nil {
			t.Fatal(err)
		}
		// Now the localhost frame is refused too.
		if ld.BlockedRequests < 5 {
			t.Errorf("%d requests refused, want at least 5", ld.BlockedRequests)
		}
		noHits(t)
	})
	t.Run("public to private script navigation", func(t *testing.T) {
		_, err := load(t, public, outer.url+"/script-nav")
		wantBlocked(t, err, "private")
		noHits(t)
	})
	t.Run("private listed URL", func(t *testing.T) {
		if _, err := load(t, public, inner.url+"/landing"); err != nil {
			t.Errorf("a listed private URL: %v", err)
		}
		if len(inner.took()) == 0 {
			t.Error("the listed private page was not requested")
		}
		inner.reset()
	})
}
