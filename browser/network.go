package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/egress"
	"actionspace/pipeline"
)

// The network policy (pipeline.NetworkConfig) is enforced by the egress
// proxy (package egress): every browser context gets its own proxy
// session, whose class is the class of the URLs it loads, fixed for the
// context's life from its first request on. A load of a URL of another
// class than the tab's last one gets a fresh context, after the old page
// has unloaded (to about:blank) under its own session, so that what it
// sends on its way out (a pagehide beacon, a keepalive fetch) is judged by
// its own class, never by the next page's.

const (
	// unloadWait bounds the navigation to about:blank that unloads a page
	// before its context is closed for a load of another class.
	unloadWait = 2 * time.Second
	// maxMainTargets caps the main-frame navigation targets remembered per
	// load (a page can navigate itself in a loop).
	maxMainTargets = 64
)

// guarded reports whether the page's requests go through the egress
// proxy: always, unless the policy is lifted.
func (p *pwPage) guarded() bool { return !p.cfg.Network.AllowPrivate }

// openEgress opens the proxy session of a new browser context whose pages
// load URLs of class, and the context's proxy option that points at it.
// Loopback is proxied too (<-loopback>): Chromium would otherwise reach it
// directly. A remote browser server gets the same option, so it must reach
// the proxy at the advertised address.
func (p *pwPage) openEgress(class pipeline.AddrClass) (*egress.Session, *playwright.Proxy, error) {
	s, err := egress.Listen(egress.Options{
		Policy:    p.cfg.Network,
		Class:     class,
		Listen:    net.JoinHostPort(cmp.Or(strings.Trim(p.cfg.Network.ProxyListen, "[]"), "127.0.0.1"), "0"),
		Advertise: strings.Trim(p.cfg.Network.ProxyAdvertise, "[]"),
		Logger:    p.log,
	})
	if err != nil {
		return nil, nil, &pipeline.PageError{Kind: pipeline.KindBrowser, Err: fmt.Errorf("new page: %w", err)}
	}
	return s, &playwright.Proxy{Server: s.Server(), Bypass: playwright.String("<-loopback>")}, nil
}

// listedClass returns the class of the listed URL rawURL, which decides
// what its page may reach; a blocked one is refused before any request.
func (p *pwPage) listedClass(ctx context.Context, rawURL string) (pipeline.AddrClass, error) {
	class := egress.URLClass(ctx, p.cfg.Network, nil, rawURL)
	if class == pipeline.ClassBlocked {
		host := rawURL
		if u, err := url.Parse(rawURL); err == nil {
			host = u.Hostname()
		}
		return class, &pipeline.PageError{Kind: pipeline.KindBlocked, URL: rawURL,
			Err: fmt.Errorf("%s is a %s address, refused to every page (crawl --allow-private lifts this)", host, class)}
	}
	return class, nil
}

// unload navigates tab's page to about:blank, so that the document unloads
// (and sends what it sends then) through its own proxy session before the
// context is closed. Failures are ignored: closing the context follows.
func (p *pwPage) unload(ctx context.Context, tab *pwTab) {
	wait := unloadWait
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl))
	}
	if wait <= 0 {
		return
	}
	_, err := tab.page.Goto("about:blank", playwright.PageGotoOptions{
		WaitUntil: playwright.WaitUntilStateLoad,
		Timeout:   playwright.Float(float64(wait.Milliseconds())),
	})
	if err != nil {
		p.log.Debug("unload before a change of network class", logError, shortError{err})
	}
}

// beginTargets starts the list of the main frame's navigation targets of
// a load with the listed URL's.
func (p *pwPage) beginTargets(rawURL string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mainTargets = []string{egress.Target(rawURL)}
}

// noteTarget adds where a main-frame navigation went (a redirect's
// Location, a request the proxy answered or that failed) to the load's
// list.
func (p *pwPage) noteTarget(rawURL string) {
	t := egress.Target(rawURL)
	if t == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.mainTargets) < maxMainTargets {
		p.mainTargets = append(p.mainTargets, t)
	}
}

// refusedMain says why a navigation of the main frame in this load was
// refused, "" when none was, and how many of the session's refusals were
// the main frame's. The proxy judges by host and the session's fixed
// class, so a main-frame target the proxy refused once was refused for
// the main frame too.
func (p *pwPage) refusedMain(tab *pwTab) (string, int) {
	if tab == nil || tab.egress == nil {
		return "", 0
	}
	p.mu.Lock()
	targets := append([]string(nil), p.mainTargets...)
	p.mu.Unlock()
	why, n := "", 0
	seen := map[string]bool{}
	for _, t := range targets {
		if seen[t] {
			continue
		}
		seen[t] = true
		if w := tab.egress.Why(t); w != "" {
			n++
			if why == "" {
				why = "navigation to " + t + ": " + w
			}
		}
	}
	return why, n
}

// onMainResponse notes where a main-frame navigation response leads: a
// redirect's Location, or the response itself when the proxy refused it.
func (p *pwPage) onMainResponse(r playwright.Response) {
	headers := r.Headers()
	if header(headers, egress.RefusedHeader) != "" {
		p.noteTarget(r.URL())
	}
	loc := headers["location"]
	if r.Status() < 300 || r.Status() >= 400 || loc == "" {
		return
	}
	base, err := url.Parse(r.URL())
	if err != nil {
		return
	}
	if next, err := base.Parse(loc); err == nil {
		p.noteTarget(next.String())
	}
}

// header returns the value of header name in h, a header map as
// Playwright gives it (names in lower case).
func header(h map[string]string, name string) string { return h[strings.ToLower(name)] }

// onRequestFailed notes a failed main-frame navigation: a refused tunnel
// fails it (net::ERR_TUNNEL_CONNECTION_FAILED).
func (p *pwPage) onRequestFailed(tab *pwTab, r playwright.Request) {
	if r.IsNavigationRequest() && r.Frame() == tab.mainFrame {
		p.noteTarget(r.URL())
	}
}

// blockedLoad turns the outcome of a load into a blocked one when a
// navigation of its main frame was refused, and counts the other refused
// requests in ld.
func (p *pwPage) blockedLoad(tab *pwTab, rawURL string, ld *pipeline.Load, err error) (*pipeline.Load, error) {
	if tab == nil || tab.egress == nil {
		return ld, err
	}
	why, main := p.refusedMain(tab)
	if why != "" && pipeline.ErrorKindOf(err) != pipeline.KindBlocked {
		err = &pipeline.PageError{Kind: pipeline.KindBlocked, URL: rawURL, Err: errors.New(why)}
	}
	if ld != nil {
		ld.BlockedRequests = max(0, tab.egress.Refused()-main)
	}
	return ld, err
}
