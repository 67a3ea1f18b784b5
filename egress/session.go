package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"actionspace/pipeline"
)

// Bounds of a [Session].
const (
	// dialTimeout bounds one connection to a target address.
	dialTimeout = 30 * time.Second
	// headerTimeout bounds how long the browser takes to send a request's
	// header to the proxy.
	headerTimeout = 30 * time.Second
	// idleTimeout closes the browser's idle keep-alive connections.
	idleTimeout = 90 * time.Second
	// maxWhy caps the targets a session remembers refusals of between two
	// Resets; the count goes on past it.
	maxWhy = 1024
)

// RefusedHeader marks the proxy's answer to a refused plain-HTTP request.
const RefusedHeader = "X-Egress-Refused"

// ErrorHeader carries, on the proxy's own 502 answer to a plain-HTTP
// request it could not forward, why (the name did not resolve, the
// connection was refused or cut): the browser adapter reports it as the
// network error it is, not as the target's status.
const ErrorHeader = "X-Egress-Error"

// maxErrorHeader caps the length of an ErrorHeader value.
const maxErrorHeader = 300

// Options configure a [Session].
type Options struct {
	// Policy is the network policy; AllowPrivate is ignored (a crawl that
	// lifts the policy opens no session).
	Policy pipeline.NetworkConfig
	// Class is the class of the URL the page was listed under: it decides
	// what the page may reach, for the session's whole life.
	Class pipeline.AddrClass
	// Listen is the address the proxy listens on: "127.0.0.1:0" when
	// empty. A port of 0 picks a free one.
	Listen string
	// Advertise is the host (or host:port) the browser is told to use;
	// empty: the address listened on. A browser on another machine needs
	// one it can reach.
	Advertise string
	// Resolver resolves host names; nil is the system's resolver.
	Resolver Resolver
	// Dial connects to one checked address; nil is a net.Dialer. A seam
	// for tests.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logger receives debug lines about refusals; nil is slog.Default().
	Logger *slog.Logger
}

// Session is one listener of the proxy, for one browser context, with a
// fixed policy class (see the package documentation): fixed from its first
// request on (see [Session.Reclass]). It is safe for concurrent use.
type Session struct {
	policy   pipeline.NetworkConfig
	resolver Resolver
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	log      *slog.Logger
	server   *http.Server
	forward  *httputil.ReverseProxy
	upstream *http.Transport
	addr     string

	mu      sync.Mutex
	class   pipeline.AddrClass
	served  bool // a request has come: class is fixed
	refused int
	why     map[string]string // target → why it was refused, since the last Reset
	tunnels map[net.Conn]struct{}
	closed  bool
}

// Listen opens a session and serves it until Close.
func Listen(opts Options) (*Session, error) {
	listen := opts.Listen
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("egress proxy: listen on %s: %w", listen, err)
	}
	s := &Session{
		policy:   opts.Policy,
		class:    opts.Class,
		resolver: opts.Resolver,
		dial:     opts.Dial,
		log:      opts.Logger,
		why:      map[string]string{},
		tunnels:  map[net.Conn]struct{}{},
	}
	if s.resolver == nil {
		s.resolver = net.DefaultResolver
	}
	if s.dial == nil {
		d := &net.Dialer{Timeout: dialTimeout}
		s.dial = d.DialContext
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.addr = advertised(ln.Addr().(*net.TCPAddr), opts.Advertise)
	quiet := slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)
	s.upstream = &http.Transport{
		DialContext:         s.dialChecked,
		DisableCompression:  true, // pass the body on as the server encoded it
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     idleTimeout,
	}
	s.forward = &httputil.ReverseProxy{
		Rewrite:      func(*httputil.ProxyRequest) {}, // the absolute URL already says where; no X-Forwarded-* headers
		Transport:    s.upstream,
		ErrorHandler: s.forwardFailed,
		ErrorLog:     quiet,
	}
	s.server = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          quiet,
	}
	go func() { _ = s.server.Serve(ln) }()
	return s, nil
}

// advertised is the proxy address the browser is told: the listened one,
// or adv with the listened port when adv names no port.
func advertised(ln *net.TCPAddr, adv string) string {
	if adv == "" {
		return ln.String()
	}
	if _, _, err := net.SplitHostPort(adv); err == nil {
		return adv
	}
	return net.JoinHostPort(adv, strconv.Itoa(ln.Port))
}

// Server is the proxy server the browser context is given: http://HOST:PORT.
func (s *Session) Server() string { return "http://" + s.addr }

// Class is the session's policy class.
func (s *Session) Class() pipeline.AddrClass {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.class
}

// Reclass gives the session the class class if no request has come to it
// yet, and reports whether the session now has that class. A browser
// context is opened before the class of the first URL it loads is known;
// while nothing has gone through its proxy, nothing can have been judged
// by the wrong class, and the context need not be replaced for that URL.
func (s *Session) Reclass(class pipeline.AddrClass) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.served {
		s.class = class
	}
	return s.class == class
}

// Reset forgets the refusals counted and remembered so far: a load starts
// with none.
func (s *Session) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refused = 0
	clear(s.why)
}

// Refused returns the number of requests refused since the last Reset.
func (s *Session) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// Why says why requests to target (host:port, as [Target] names it) were
// refused since the last Reset; "" when none was.
func (s *Session) Why(target string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why[target]
}

// Close stops the listener and ends every connection it holds, tunnels
// included.
func (s *Session) Close() error {
	s.mu.Lock()
	s.closed = true
	tunnels := s.tunnels
	s.tunnels = map[net.Conn]struct{}{}
	s.mu.Unlock()
	err := s.server.Close()
	for c := range tunnels {
		_ = c.Close()
	}
	s.upstream.CloseIdleConnections()
	if err != nil {
		return fmt.Errorf("close egress proxy %s: %w", s.addr, err)
	}
	return nil
}

// ServeHTTP serves one request of the browser: a CONNECT tunnel or a
// plain-HTTP request to forward.
func (s *Session) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.served = true
	s.mu.Unlock()
	if r.Method == http.MethodConnect {
		s.tunnel(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "egress proxy: want an absolute http:// URL or CONNECT", http.StatusBadRequest)
		return
	}
	s.forward.ServeHTTP(w, r)
}

// dialChecked resolves addr's host, refuses it when the policy does not
// let the session's class reach it, and otherwise dials exactly the
// addresses it checked, in order, until one answers.
func (s *Session) dialChecked(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("target %q: %w", addr, err)
	}
	pn, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("target %q: bad port", addr)
	}
	class, addrs, err := resolve(ctx, s.policy, s.resolver, host)
	if err != nil {
		return nil, err
	}
	own := s.Class()
	if !s.policy.Allows(own, class) {
		why := Reason(host, class, own)
		s.note(target(host, port), why)
		return nil, fmt.Errorf("%w: %s", ErrRefused, why)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("dial %s: no address to dial", addr)
	}
	var errs []error
	for _, a := range addrs {
		c, err := s.dial(ctx, network, netip.AddrPortFrom(a, uint16(pn)).String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("dial %s: %w", addr, errors.Join(errs...))
}

// note counts a refusal of target and remembers why.
func (s *Session) note(target, why string) {
	s.mu.Lock()
	s.refused++
	if _, ok := s.why[target]; ok || len(s.why) < maxWhy {
		s.why[target] = why
	}
	s.mu.Unlock()
	s.log.Debug("egress refused", "target", target, "why", why)
}

// forwardFailed answers a plain-HTTP request that could not be forwarded:
// 204 marked with RefusedHeader when the policy refused it, an empty 502
// marked with ErrorHeader when the target could not be reached (Chromium
// shows its own error page for it, as for a failed connection).
func (s *Session) forwardFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrRefused) {
		w.Header().Set(RefusedHeader, "1")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if len(msg) > maxErrorHeader {
		msg = msg[:maxErrorHeader]
	}
	w.Header().Set(ErrorHeader, msg)
	w.WriteHeader(http.StatusBadGateway)
}

// tunnel serves CONNECT: it checks and dials the target, then splices the
// two connections until either side closes.
func (s *Session) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := s.dialChecked(r.Context(), "tcp", r.Host)
	if err != nil {
		code := http.StatusBadGateway
		if errors.Is(err, ErrRefused) {
			w.Header().Set(RefusedHeader, "1")
			code = http.StatusForbidden
		}
		http.Error(w, "egress proxy: "+err.Error(), code)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close()
		http.Error(w, "egress proxy: cannot tunnel on this connection", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	if !s.track(down, up) {
		_ = down.Close()
		_ = up.Close()
		return
	}
	defer s.untrack(down, up)
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	splice(down, buf.Reader, up)
}

// splice copies between the browser's connection (whose first bytes may
// be buffered in in) and the target's until one direction ends, then
// closes both.
func splice(down net.Conn, in *bufio.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(up, in) // in reads on from down once its buffer is empty
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(down, up)
		done <- struct{}{}
	}()
	<-done
	_ = down.Close()
	_ = up.Close()
	<-done
}

// track registers a tunnel's connections so that Close ends them; false
// when the session is already closed.
func (s *Session) track(conns ...net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	for _, c := range conns {
		s.tunnels[c] = struct{}{}
	}
	return true
}

func (s *Session) untrack(conns ...net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range conns {
		delete(s.tunnels, c)
	}
}
