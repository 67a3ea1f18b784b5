package egress

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"actionspace/pipeline"
)

// counted is a loopback HTTP server that counts the requests it gets.
type counted struct {
	port string
	hits atomic.Int32
}

func startCounted(t *testing.T, addr, body string) *counted {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("listen on %s: %v", addr, err)
	}
	c := &counted{}
	_, c.port, _ = net.SplitHostPort(ln.Addr().String())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		io.WriteString(w, body)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return c
}

// fakeDNS answers names from a table and counts the lookups.
type fakeDNS struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
	asked   map[string]int
}

func (f *fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked[host]++
	if a, ok := f.answers[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (f *fakeDNS) lookups(host string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked[host]
}

// testPolicy makes 127.0.0.1 play a public host and 127.0.0.2 a metadata
// service.
var testPolicy = pipeline.NetworkConfig{
	Blocked: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")},
	Public:  []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
}

func newTestSession(t *testing.T, class pipeline.AddrClass, dns *fakeDNS) *Session {
	t.Helper()
	s, err := Listen(Options{Policy: testPolicy, Class: class, Resolver: dns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// proxied is an HTTP client whose requests all go through s.
func proxied(t *testing.T, s *Session) *http.Client {
	t.Helper()
	u, err := url.Parse(s.Server())
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}, Timeout: 10 * time.Second}
}

// TestEgress_ResolvedNames sends plain-HTTP requests through a public
// page's session, with names answered by a stand-in resolver: a name
// that resolves to the refused address (127.0.0.2, playing a metadata
// service), or to it among others, is refused with an empty 204 and never
// reaches it; so are a private IP literal, localhost and a metadata name
// (not even resolved); a name resolving to the public address is
// forwarded to exactly that address.
func TestEgress_ResolvedNames(t *testing.T) {
	t.Parallel()
	pub := startCounted(t, "127.0.0.1:0", "public page")
	meta := startCounted(t, "127.0.0.2:0", "metadata secret")
	dns := &fakeDNS{asked: map[string]int{}, answers: map[string][]netip.Addr{
		"www.example.test":    {netip.MustParseAddr("127.0.0.1")},
		"rebind.example.test": {netip.MustParseAddr("127.0.0.2")},
		"mixed.example.test":  {netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.0.2")},
		"localhost":           {netip.MustParseAddr("127.0.0.1")},
	}}
	s := newTestSession(t, pipeline.ClassPublic, dns)
	client := proxied(t, s)

	for _, tc := range []struct {
		url     string
		refused bool
	}{
		{"http://www.example.test:" + pub.port + "/", false},
		{"http://rebind.example.test:" + meta.port + "/latest/meta-data/", true},
		{"http://mixed.example.test:" + meta.port + "/", true},
		{"http://127.0.0.2:" + meta.port + "/", true},
		{"http://10.0.0.7:" + meta.port + "/", true},
		{"http://localhost:" + pub.port + "/", true},
		{"http://metadata.google.internal/computeMetadata/v1/", true},
	} {
		before := s.Refused()
		resp, err := client.Get(tc.url)
		if err != nil {
			t.Errorf("GET %s: %v", tc.url, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		refused := resp.StatusCode == http.StatusNoContent && resp.Header.Get(RefusedHeader) != ""
		if refused != tc.refused || (refused && len(body) > 0) {
			t.Errorf("GET %s: %s %q, want refused=%v", tc.url, resp.Status, body, tc.refused)
		}
		if tc.refused && (s.Refused() != before+1 || s.Why(Target(tc.url)) == "") {
			t.Errorf("GET %s: refusals %d→%d, why %q: want one more, remembered", tc.url, before, s.Refused(), s.Why(Target(tc.url)))
		}
	}
	if n := meta.hits.Load(); n != 0 {
		t.Errorf("the refused address got %d requests", n)
	}
	if n := pub.hits.Load(); n != 1 {
		t.Errorf("the public address got %d requests, want 1", n)
	}
	if n := dns.lookups("metadata.google.internal"); n != 0 {
		t.Errorf("metadata.google.internal resolved %d times; a metadata name is refused by name", n)
	}
	// A target that does not answer is the proxy's 502, saying why, and
	// no refusal.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	before := s.Refused()
	resp, err := client.Get("http://" + closed + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(resp.Header.Get(ErrorHeader), "connection refused") || s.Refused() != before {
		t.Errorf("GET a closed port: %s, %s %q, %d refusals more", resp.Status, ErrorHeader, resp.Header.Get(ErrorHeader), s.Refused()-before)
	}
	s.Reset()
	if s.Refused() != 0 || s.Why(Target("http://127.0.0.2:"+meta.port+"/")) != "" {
		t.Error("Reset kept refusals")
	}
}

// TestEgress_DialsCheckedAddress makes the resolver change its answer
// after the first lookup, from the public address to the refused one (DNS
// rebinding): every request is checked and dialed on one answer, so the
// refused address is never reached, and a public answer is dialed as
// resolved, never by name.
func TestEgress_DialsCheckedAddress(t *testing.T) {
	t.Parallel()
	meta := startCounted(t, "127.0.0.2:0", "metadata secret")
	dns := &fakeDNS{asked: map[string]int{}, answers: map[string][]netip.Addr{}}
	var dialed []string
	var mu sync.Mutex
	s, err := Listen(Options{Policy: testPolicy, Class: pipeline.ClassPublic, Resolver: dns,
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			dialed = append(dialed, addr)
			mu.Unlock()
			// The next lookup points the name at the refused address.
			dns.mu.Lock()
			dns.answers["flip.example.test"] = []netip.Addr{netip.MustParseAddr("127.0.0.2")}
			dns.mu.Unlock()
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dns.answers["flip.example.test"] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	client := proxied(t, s)
	client.Transport.(*http.Transport).DisableKeepAlives = true
	for range 2 {
		resp, err := client.Get("http://flip.example.test:" + meta.port + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialed) != 1 || dialed[0] != "127.0.0.1:"+meta.port {
		t.Errorf("dialed %v, want only the checked public address", dialed)
	}
	if n := meta.hits.Load(); n != 0 {
		t.Errorf("the refused address got %d requests", n)
	}
	if s.Refused() != 1 {
		t.Errorf("%d refusals, want 1 (the second request, on the rebound answer)", s.Refused())
	}
}

// TestEgress_Tunnel opens CONNECT tunnels, as the browser does for HTTPS
// and WebSockets: one to the refused address is answered 403 and never
// dialed; one a private page may open carries bytes both ways.
func TestEgress_Tunnel(t *testing.T) {
	t.Parallel()
	priv := startCounted(t, "127.0.0.3:0", "private page")
	meta := startCounted(t, "127.0.0.2:0", "metadata secret")
	dns := &fakeDNS{asked: map[string]int{}}
	for _, tc := range []struct {
		class  pipeline.AddrClass
		target string
		want   int
	}{
		{pipeline.ClassPrivate, "127.0.0.2:" + meta.port, http.StatusForbidden},
		{pipeline.ClassPublic, "127.0.0.3:" + priv.port, http.StatusForbidden},
		{pipeline.ClassPrivate, "127.0.0.3:" + priv.port, http.StatusOK},
	} {
		s := newTestSession(t, tc.class, dns)
		conn, err := net.Dial("tcp", s.addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "CONNECT %[1]s HTTP/1.1\r\nHost: %[1]s\r\n\r\n", tc.target)
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatalf("CONNECT %s: %v", tc.target, err)
		}
		if resp.StatusCode != tc.want {
			t.Errorf("%s page, CONNECT %s: %s, want %d", tc.class, tc.target, resp.Status, tc.want)
		}
		if resp.StatusCode == http.StatusOK {
			fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", tc.target)
			inner, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("GET through the tunnel: %v", err)
			}
			body, _ := io.ReadAll(inner.Body)
			if string(body) != "private page" {
				t.Errorf("through the tunnel: %q", body)
			}
		} else if s.Refused() != 1 {
			t.Errorf("CONNECT %s: %d refusals, want 1", tc.target, s.Refused())
		}
		conn.Close()
	}
	if n := meta.hits.Load(); n != 0 {
		t.Errorf("the refused address got %d requests", n)
	}
}

// TestEgress_URLClass checks the class of listed URLs, which decides what
// their pages may reach.
func TestEgress_URLClass(t *testing.T) {
	t.Parallel()
	dns := &fakeDNS{asked: map[string]int{}, answers: map[string][]netip.Addr{
		"www.example.test":      {netip.MustParseAddr("93.184.216.34")},
		"intranet.example.test": {netip.MustParseAddr("93.184.216.35"), netip.MustParseAddr("10.0.0.7")},
	}}
	for _, tc := range []struct {
		url  string
		want pipeline.AddrClass
	}{
		{"http://www.example.test/", pipeline.ClassPublic},
		{"http://intranet.example.test/", pipeline.ClassPrivate},
		{"http://unknown.example.test/", pipeline.ClassPublic},
		{"http://127.0.0.1:8080/", pipeline.ClassPublic}, // made public by the test policy
		{"http://127.0.0.3/", pipeline.ClassPrivate},
		{"http://[::1]/", pipeline.ClassPrivate},
		{"http://127.0.0.2/", pipeline.ClassBlocked},
		{"http://metadata.google.internal/", pipeline.ClassBlocked},
		{"not a url\x7f", pipeline.ClassPublic},
	} {
		if got := URLClass(context.Background(), testPolicy, dns, tc.url); got != tc.want {
			t.Errorf("URLClass(%q) = %s, want %s", tc.url, got, tc.want)
		}
	}
	for _, tc := range []struct{ url, want string }{
		{"http://Example.TEST./a", "example.test:80"},
		{"wss://example.test/s", "example.test:443"},
		{"http://[::1]:8080/", "[::1]:8080"},
		{"data:text/plain,x", ""},
	} {
		if got := Target(tc.url); got != tc.want {
			t.Errorf("Target(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}

// TestEgress_Reclass: a session takes another class only while no request
// has come to it. A public session made private before its first request
// forwards a request to a private address; once a request has come, the
// session keeps its class, and the private address stays refused.
func TestEgress_Reclass(t *testing.T) {
	t.Parallel()
	priv := startCounted(t, "127.0.0.3:0", "private page")
	target := "http://127.0.0.3:" + priv.port + "/"
	for _, tc := range []struct {
		name      string
		firstGet  bool // a request comes before Reclass
		want      pipeline.AddrClass
		reclassed bool
		refused   bool
	}{
		{"fresh", false, pipeline.ClassPrivate, true, false},
		{"served", true, pipeline.ClassPublic, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSession(t, pipeline.ClassPublic, &fakeDNS{asked: map[string]int{}})
			client := proxied(t, s)
			get := func() bool {
				resp, err := client.Get(target)
				if err != nil {
					t.Fatalf("GET %s: %v", target, err)
				}
				resp.Body.Close()
				return resp.StatusCode == http.StatusNoContent && resp.Header.Get(RefusedHeader) != ""
			}
			if tc.firstGet && !get() {
				t.Fatalf("a public session forwarded a request to %s", target)
			}
			if got := s.Reclass(pipeline.ClassPrivate); got != tc.reclassed {
				t.Errorf("Reclass = %v, want %v", got, tc.reclassed)
			}
			if got := s.Class(); got != tc.want {
				t.Errorf("class %s, want %s", got, tc.want)
			}
			if got := get(); got != tc.refused {
				t.Errorf("GET %s refused = %v, want %v", target, got, tc.refused)
			}
		})
	}
}
