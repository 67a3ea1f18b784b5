package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"actionspace/pipeline"
)

// lookupTimeout bounds the resolution of one host name.
const lookupTimeout = 5 * time.Second

// Resolver resolves host names; *net.Resolver is one. Tests inject their
// own to play names that resolve to refused addresses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ErrRefused is wrapped by the errors of requests the policy refused.
var ErrRefused = errors.New("refused by the network policy")

// Reason says why a page of class page may not reach host, of class
// target: the text of a blocked row's error.
func Reason(host string, target, page pipeline.AddrClass) string {
	return fmt.Sprintf("%s is a %s address, refused to a %s page (crawl --allow-private lifts this)", host, target, page)
}

// resolve classes host (a name or an IP literal, without port) and
// returns the addresses to dial. A name is resolved with r and takes the
// most restricted class of its addresses; a name the policy classes by
// itself as blocked (a metadata host) is not resolved at all.
func resolve(ctx context.Context, policy pipeline.NetworkConfig, r Resolver, host string) (pipeline.AddrClass, []netip.Addr, error) {
	host = strings.Trim(host, "[]")
	if a, err := netip.ParseAddr(host); err == nil {
		return policy.AddrClass(a), []netip.Addr{a.WithZone("")}, nil
	}
	if class := policy.Class(host, nil); class == pipeline.ClassBlocked {
		return class, nil, nil
	}
	lctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := r.LookupNetIP(lctx, "ip", host)
	if err != nil {
		return pipeline.ClassPublic, nil, fmt.Errorf("resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return pipeline.ClassPublic, nil, fmt.Errorf("resolve %s: no addresses", host)
	}
	return policy.Class(host, addrs), addrs, nil
}

// URLClass returns the class of rawURL's host, resolved with r (nil: the
// system's resolver): the class of a listed URL decides what its page may
// reach. A URL that does not parse or a name that does not resolve is
// public, which allows the page the least.
func URLClass(ctx context.Context, policy pipeline.NetworkConfig, r Resolver, rawURL string) pipeline.AddrClass {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return pipeline.ClassPublic
	}
	if r == nil {
		r = net.DefaultResolver
	}
	class, _, _ := resolve(ctx, policy, r, u.Hostname())
	return class
}

// Target returns the host:port a request for rawURL goes to, as the
// proxy names it in [Session.Why]: the host name in lower case without a
// trailing dot, the scheme's default port when there is none. "" when the
// URL is not fetched from the network.
func Target(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "http", "ws":
			port = "80"
		case "https", "wss":
			port = "443"
		default:
			return ""
		}
	}
	return target(u.Hostname(), port)
}

// target is the canonical host:port of host and port.
func target(host, port string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	return net.JoinHostPort(host, port)
}
