package browser

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"sync"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/pipeline"
)

// dnsTimeout bounds the lookup of one host name by the network guard.
const dnsTimeout = 5 * time.Second

// netGuard enforces a page's network policy (pipeline.NetworkConfig) on
// every request of its browser context: Playwright routes each request
// through route, which lets it go on or aborts it. The class of the URL
// being loaded is set by begin, once per load; host names are resolved
// here, the most restricted address winning, so that a public name that
// resolves to a private address is private. (Chromium resolves the name
// again when it connects: a DNS answer that changes in between, on
// purpose, is not caught.)
type netGuard struct {
	policy pipeline.NetworkConfig
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)

	mu      sync.Mutex
	page    pipeline.AddrClass
	classes map[string]pipeline.AddrClass // host names resolved during this load
	main    string                        // why the main frame's last navigation was refused
	others  int                           // other requests refused
}

func newNetGuard(policy pipeline.NetworkConfig) *netGuard {
	lookup := func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	}
	return &netGuard{policy: policy, lookup: lookup}
}

// begin starts a load of rawURL: it classes its host (which decides what
// the page may reach) and resets the counts.
func (g *netGuard) begin(ctx context.Context, rawURL string) {
	g.mu.Lock()
	g.classes, g.main, g.others = map[string]pipeline.AddrClass{}, "", 0
	g.mu.Unlock()
	class := pipeline.ClassPublic
	if u, err := url.Parse(rawURL); err == nil {
		class = g.class(ctx, u.Hostname())
	}
	g.mu.Lock()
	g.page = class
	g.mu.Unlock()
}

// refusedMain returns why the main frame's navigation was refused; "" if
// it was not.
func (g *netGuard) refusedMain() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.main
}

// refused returns the number of requests refused in this load, the main
// frame's navigations left out (they fail the load).
func (g *netGuard) refused() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.others
}

// class returns the policy's class of host, resolving a name (once per
// load).
func (g *netGuard) class(ctx context.Context, host string) pipeline.AddrClass {
	if _, err := netip.ParseAddr(host); err == nil {
		return g.policy.Class(host, nil)
	}
	g.mu.Lock()
	c, ok := g.classes[host]
	g.mu.Unlock()
	if ok {
		return c
	}
	if c = g.policy.Class(host, nil); c == pipeline.ClassPublic {
		lctx, cancel := context.WithTimeout(ctx, dnsTimeout)
		addrs, _ := g.lookup(lctx, host) // a name that does not resolve fails in the browser too
		cancel()
		c = g.policy.Class(host, addrs)
	}
	g.mu.Lock()
	if g.classes != nil {
		g.classes[host] = c
	}
	g.mu.Unlock()
	return c
}

// verdict says whether the page being loaded may send a request to
// rawURL, and if not, why. URLs that are not fetched from the network
// (data:, blob:, about:) are allowed.
func (g *netGuard) verdict(ctx context.Context, rawURL string) (bool, string) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false, fmt.Sprintf("unparsable URL: %v", err)
	}
	switch u.Scheme {
	case "http", "https", "ws", "wss", "ftp":
	default:
		return true, ""
	}
	host := u.Hostname()
	target := g.class(ctx, host)
	g.mu.Lock()
	page := g.page
	g.mu.Unlock()
	if g.policy.Allows(page, target) {
		return true, ""
	}
	return false, fmt.Sprintf("%s is a %s address, refused to a %s page (crawl --allow-private lifts this)", host, target, page)
}

// route lets a request go on or aborts it. Chromium follows a redirect
// without asking the route again, so a navigation (of the page or of a
// frame) is fetched here with redirects off: a redirect's target is
// checked before the browser is handed the redirect and asks for it (and
// the route sees that request again).
func (g *netGuard) route(tab *pwTab, r playwright.Route) {
	req := r.Request()
	main := req.IsNavigationRequest() && req.Frame() == tab.mainFrame
	ok, why := g.verdict(context.Background(), req.URL())
	if ok && req.IsNavigationRequest() {
		resp, err := r.Fetch(playwright.RouteFetchOptions{MaxRedirects: playwright.Int(0), Timeout: playwright.Float(0)})
		if err != nil {
			_ = r.Abort("failed")
			return
		}
		if loc := resp.Headers()["location"]; resp.Status() >= 300 && resp.Status() < 400 && loc != "" {
			if base, err := url.Parse(req.URL()); err == nil {
				if next, err := base.Parse(loc); err == nil {
					ok, why = g.verdict(context.Background(), next.String())
					why = "redirect to " + next.String() + ": " + why
				}
			}
		}
		if ok {
			_ = r.Fulfill(playwright.RouteFulfillOptions{Response: resp})
			return
		}
		_ = resp.Dispose()
	}
	if ok {
		_ = r.Continue()
		return
	}
	g.mu.Lock()
	if main {
		g.main = why
	} else {
		g.others++
	}
	g.mu.Unlock()
	_ = r.Abort("blockedbyclient")
}
