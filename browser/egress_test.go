package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"actionspace/pipeline"
)

// secretToken is what the refused server answers; no record may hold it.
const secretToken = "EGRESS-SECRET-7f3a9c"

// tcpCounter is a loopback listener that counts the connections it
// accepts and closes them: whatever reaches it got past the proxy.
type tcpCounter struct {
	addr     string
	accepted atomic.Int32
}

func startTCPCounter(t *testing.T, addr string) *tcpCounter {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("listen on %s: %v", addr, err)
	}
	c := &tcpCounter{addr: ln.Addr().String()}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.accepted.Add(1)
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return c
}

// egressPolicy makes 127.0.0.1 play a public host and 127.0.0.2 a
// metadata service; 127.0.0.3 stays what it is, private.
var egressPolicy = pipeline.NetworkConfig{
	Blocked: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")},
	Public:  []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
}

// TestEgress_Pages loads hostile pages in real Chromium, every request
// through the egress proxy, and checks what reached the servers and what
// the records hold.
func TestEgress_Pages(t *testing.T) {
	requireChromium(t)
	secret := startHitServer(t, "127.0.0.2:0", func(*hitServer) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, secretToken, "<p>"+secretToken+"</p><button>"+secretToken+"</button>")
		})
	})
	private := startHitServer(t, "127.0.0.3:0", func(*hitServer) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "private", "<h1>Private page</h1>")
		})
	})
	secretPort := secret.url[strings.LastIndex(secret.url, ":")+1:]
	ws := startTCPCounter(t, "127.0.0.3:0")
	stun, err := net.ListenPacket("udp", "127.0.0.3:0")
	if err != nil {
		t.Skipf("listen on udp: %v", err)
	}
	defer stun.Close()
	var stunPackets atomic.Int32
	go func() {
		buf := make([]byte, 1500)
		for {
			if _, _, err := stun.ReadFrom(buf); err != nil {
				return
			}
			stunPackets.Add(1)
		}
	}()
	public := startHitServer(t, "127.0.0.1:0", func(s *hitServer) http.Handler {
		mux := http.NewServeMux()
		// A frame whose own server redirects it into the refused address,
		// over plain HTTP (the proxy answers 204) and over a tunnel (403,
		// Chromium's error page), one level down and two.
		mux.HandleFunc("/frames", func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "frames", `<h1>Frames</h1><iframe src="/hop"></iframe><iframe src="/hop-tls"></iframe><iframe src="/nest"></iframe>`)
		})
		mux.HandleFunc("/nest", func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "nest", `<p>nest</p><iframe src="/hop"></iframe>`)
		})
		mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, secret.url+"/token", http.StatusFound)
		})
		mux.HandleFunc("/hop-tls", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://127.0.0.2:"+secretPort+"/token", http.StatusFound)
		})
		mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "ws", fmt.Sprintf(`<h1 id="state">pending</h1><script>
for (const u of [%q, %q]) {
  const s = new WebSocket(u);
  s.onopen = () => { document.getElementById('state').textContent = 'open ' + u; };
}</script>`, "ws://"+ws.addr+"/", "wss://"+ws.addr+"/"))
		})
		mux.HandleFunc("/beacon", func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "beacon", fmt.Sprintf(`<h1>Leaving</h1><script>
addEventListener('pagehide', () => {
  navigator.sendBeacon(%[1]q + '/beacon', 'bye');
  fetch(%[1]q + '/keepalive', {method: 'POST', body: 'bye', keepalive: true, mode: 'no-cors'});
});</script>`, private.url))
		})
		// A service worker and a prefetch, both reaching for the private
		// server; the page records whether the worker got an answer.
		mux.HandleFunc("/sw-page", func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "sw", fmt.Sprintf(`<h1 id="state">Worker</h1><link rel="prefetch" href="%s/prefetch"><script>
navigator.serviceWorker.register('/sw.js');
navigator.serviceWorker.addEventListener('message', (e) => { document.getElementById('state').textContent = e.data; });
</script>`, private.url))
		})
		mux.HandleFunc("/sw.js", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprintf(w, `self.addEventListener('activate', (e) => e.waitUntil(
  fetch(%q, {mode: 'no-cors'}).then((r) => 'worker reached ' + r.status, (err) => 'worker refused').then(async (msg) => {
    for (const c of await self.clients.matchAll({includeUncontrolled: true})) c.postMessage(msg);
  })));`, private.url+"/from-worker")
		})
		mux.HandleFunc("/webrtc", func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "webrtc", fmt.Sprintf(`<h1>WebRTC</h1><script>
const pc = new RTCPeerConnection({iceServers: [{urls: %q}]});
pc.createDataChannel('x');
pc.createOffer().then((o) => pc.setLocalDescription(o));
</script>`, "stun:"+stun.LocalAddr().String()))
		})
		return mux
	})

	cfg := defaultTestConfig()
	cfg.page.Network = egressPolicy
	cfg.page.SettleQuiet, cfg.page.SettleMax = 300*time.Millisecond, 2*time.Second
	cfg.page.Extras.AXTree, cfg.page.Extras.AISnapshot = true, true
	b := mustLaunchChromium(t, cfg)
	load := func(t *testing.T, page pipeline.Page, url string) *pipeline.Load {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ld, err := page.Load(ctx, url)
		if err != nil {
			t.Fatalf("load %s: %v", url, err)
		}
		return ld
	}

	t.Run("frame redirected into a refused address", func(t *testing.T) {
		ld := load(t, mustNewPage(t, b), public.url+"/frames")
		if hits := secret.took(); len(hits) > 0 {
			t.Errorf("the refused server got %v", hits)
		}
		// Two plain-HTTP frames (one nested) and a tunnel.
		if ld.BlockedRequests < 3 {
			t.Errorf("blocked_requests = %d, want at least 3", ld.BlockedRequests)
		}
		if ld.AXTree == nil || ld.AISnapshot == nil {
			t.Fatalf("extras missing: axtree %v (%s), aisnapshot %v (%s)", ld.AXTree != nil, ld.AXTreeSkipped, ld.AISnapshot != nil, ld.AISnapshotSkipped)
		}
		ax, _ := json.Marshal(ld.AXTree)
		ai, _ := json.Marshal(ld.AISnapshot)
		for name, rec := range map[string]string{"capture": string(ld.Capture), "HTML": ld.HTML, "axtree": string(ax), "aisnapshot": string(ai)} {
			if !strings.Contains(rec, "Frames") {
				t.Errorf("the %s does not hold the page itself", name)
			}
			if strings.Contains(rec, secretToken) {
				t.Errorf("the %s holds the refused server's token", name)
			}
		}
	})

	t.Run("WebSocket to a private server", func(t *testing.T) {
		page := mustNewPage(t, b)
		ld := load(t, page, public.url+"/ws")
		if n := ws.accepted.Load(); n > 0 {
			t.Errorf("the WebSocket server accepted %d connections", n)
		}
		if ld.BlockedRequests < 2 {
			t.Errorf("blocked_requests = %d, want 2 (ws and wss)", ld.BlockedRequests)
		}
		if strings.Contains(string(ld.Capture), "open ws") {
			t.Error("a WebSocket opened")
		}
	})

	t.Run("service worker and prefetch", func(t *testing.T) {
		page := mustNewPage(t, b)
		private.reset()
		before := public.took()
		ld := load(t, page, public.url+"/sw-page")
		time.Sleep(500 * time.Millisecond) // the worker's fetch, had it gone out
		if hits := private.took(); len(hits) > 0 {
			t.Errorf("the private server got %v", hits)
		}
		if !slices.Contains(public.took()[len(before):], "/sw.js") {
			t.Error("the service worker was not fetched: the test did not run")
		}
		if ld.BlockedRequests < 1 {
			t.Errorf("blocked_requests = %d, want at least 1", ld.BlockedRequests)
		}
	})

	t.Run("WebRTC to a private STUN server", func(t *testing.T) {
		load(t, mustNewPage(t, b), public.url+"/webrtc")
		time.Sleep(500 * time.Millisecond)
		if n := stunPackets.Load(); n > 0 {
			t.Errorf("the STUN server got %d UDP packets", n)
		}
	})

	t.Run("target unreachable", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ld, err := mustNewPage(t, b).Load(ctx, closedURL(t))
		var pe *pipeline.PageError
		if !errors.As(err, &pe) || pe.Kind != pipeline.KindNavigate || !strings.Contains(pe.Error(), "connection refused") {
			t.Errorf("load of a closed port: %v, want a %s error saying the connection was refused", err, pipeline.KindNavigate)
		}
		if ld != nil && ld.HTTPStatus != 0 {
			t.Errorf("http status %d: the proxy's answer is not the target's", ld.HTTPStatus)
		}
	})

	t.Run("proxy unreachable", func(t *testing.T) {
		unreachable := cfg.page
		unreachable.Network.ProxyAdvertise = "127.0.0.9" // nothing listens there
		page, err := b.NewPage(context.Background(), unreachable)
		if err != nil {
			t.Fatal(err)
		}
		defer page.Close()
		before := len(public.took())
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := page.Load(ctx, public.url+"/frames"); err == nil || !strings.Contains(err.Error(), "ERR_PROXY_CONNECTION_FAILED") {
			t.Errorf("load through an unreachable proxy: %v, want net::ERR_PROXY_CONNECTION_FAILED", err)
		}
		if hits := public.took()[before:]; len(hits) > 0 {
			t.Errorf("the page was fetched directly: %v", hits)
		}
	})

	t.Run("fresh page takes its first URL's class", func(t *testing.T) {
		page := mustNewPage(t, b)
		first := page.(*pwPage).activeTab()
		private.reset()
		load(t, page, private.url+"/listed")
		if got := page.(*pwPage).activeTab(); got != first {
			t.Error("the fresh tab was replaced for a private URL; nothing had gone through its proxy")
		}
		if got := first.egress.Class(); got != pipeline.ClassPrivate {
			t.Errorf("the tab's proxy has class %s, want %s", got, pipeline.ClassPrivate)
		}
		if hits := private.took(); !slices.Contains(hits, "/listed") {
			t.Errorf("the private server got %v, want /listed", hits)
		}
	})

	t.Run("beacon as a public page unloads for a private one", func(t *testing.T) {
		page := mustNewPage(t, b)
		private.reset()
		load(t, page, public.url+"/beacon")
		load(t, page, private.url+"/listed")
		time.Sleep(500 * time.Millisecond) // a late beacon would arrive by now
		for _, h := range private.took() {
			if h != "/listed" && h != "/favicon.ico" {
				t.Errorf("the private server got %s from the public page", h)
			}
		}
	})
}

// TestEgress_Remote gives a page on a Playwright browser server the same
// proxy, through its browser context's proxy option, advertised at an
// address given apart from the one listened on: a public page's frame
// redirected into the refused address stays out of the capture, and its
// WebSocket to the browser server itself (private, on loopback) is
// refused.
func TestEgress_Remote(t *testing.T) {
	tools := requireRunServer(t)
	srv := startRunServer(t, tools)
	secret := startHitServer(t, "127.0.0.2:0", func(*hitServer) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, secretToken, "<p>"+secretToken+"</p>")
		})
	})
	public := startHitServer(t, "127.0.0.3:0", func(*hitServer) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
			htmlPage(w, "remote", fmt.Sprintf(`<h1 id="state">Remote page</h1><iframe src="/hop"></iframe><script>
const s = new WebSocket(%q);
s.onopen = () => { document.getElementById('state').textContent = 'socket open'; };
</script>`, srv.endpoint))
		})
		mux.HandleFunc("/hop", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, secret.url+"/token", http.StatusFound)
		})
		return mux
	})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := ConnectRemote(ctx, Config{Endpoints: []string{srv.endpoint}, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pc := defaultTestConfig().page
	pc.Network = pipeline.NetworkConfig{
		Blocked:        []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")},
		Public:         []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")},
		ProxyListen:    "0.0.0.0",
		ProxyAdvertise: "127.0.0.1",
	}
	pc.SettleQuiet, pc.SettleMax = 300*time.Millisecond, 2*time.Second
	page, err := r.NewPage(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	ld, err := page.Load(ctx, public.url+"/page")
	if err != nil {
		t.Fatal(err)
	}
	if hits := secret.took(); len(hits) > 0 {
		t.Errorf("the refused server got %v", hits)
	}
	capture := string(ld.Capture)
	if !strings.Contains(capture, "Remote page") || strings.Contains(capture, "socket open") || strings.Contains(capture, secretToken) {
		t.Errorf("capture: want the page, its WebSocket refused and no token: %.500s", capture)
	}
	if ld.BlockedRequests < 2 {
		t.Errorf("blocked_requests = %d, want at least 2 (the frame, the WebSocket)", ld.BlockedRequests)
	}
}
