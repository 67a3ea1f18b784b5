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

// route lets a request go on or aborts it.
func (g *netGuard) route(tab *pwTab, r playwright.Route) {
	req := r.Request()
	ok, why := g.verdict(context.Background(), req.URL())
	if ok {
		_ = r.Continue()
		return
	}
	g.mu.Lock()
	if req.IsNavigationRequest() && req.Frame() == tab.mainFrame {
		g.main = why
	} else {
		g.others++
	}
	g.mu.Unlock()
	_ = r.Abort("blockedbyclient")
}

// redirected checks where a redirect of the main frame's navigation leads.
// Chromium follows redirects without asking the route again, so the
// request to a refused target may already be on its way when this runs:
// the load then fails as blocked, and nothing of that target is stored.
func (g *netGuard) redirected(tab *pwTab, resp playwright.Response) {
	loc := resp.Headers()["location"]
	if resp.Status() < 300 || resp.Status() >= 400 || loc == "" {
		return
	}
	req := resp.Request()
	if !req.IsNavigationRequest() || req.Frame() != tab.mainFrame {
		return
	}
	base, err := url.Parse(resp.URL())
	if err != nil {
		return
	}
	next, err := base.Parse(loc)
	if err != nil {
		return
	}
	if ok, why := g.verdict(context.Background(), next.String()); !ok {
		g.mu.Lock()
		g.main = "redirect to " + next.String() + ": " + why
		g.mu.Unlock()
	}
}
