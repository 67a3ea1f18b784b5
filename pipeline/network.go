package pipeline

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// NetworkConfig is the network policy of a crawl's pages: which addresses
// a page may reach, for its own navigation (redirects and script
// navigations included) and for every request it makes (subresources,
// frames, fetches, WebSockets, beacons). The egress proxy (package egress)
// enforces it for every request of a page; [NetworkConfig.Class] and
// [NetworkConfig.Allows] are the rule itself.
//
// Every host falls in one [AddrClass]:
//
//   - blocked: link-local addresses (169.254.0.0/16, fe80::/10, where
//     cloud metadata services answer), the other metadata addresses
//     (100.100.100.200, fd00:ec2::254), the metadata host names
//     (metadata.google.internal, metadata.goog) and Blocked. No page may
//     reach them.
//   - private: loopback, the private ranges (10.0.0.0/8, 172.16.0.0/12,
//     192.168.0.0/16, fc00::/7), shared address space (100.64.0.0/10),
//     0.0.0.0/8 and the unspecified addresses, "localhost" and names under
//     it. Only a page whose listed URL is itself private may reach them: a
//     crawl of the bundled corpus on 127.0.0.1 or of an intranet works,
//     while a public page cannot redirect or script the browser into the
//     crawler's own network.
//   - public: every other address, and Public.
//
// A host name is classed by the addresses it resolves to, the most
// restricted one winning, so that a public name pointing at 10.0.0.1 is
// private.
type NetworkConfig struct {
	// AllowPrivate lifts the policy: pages may reach every address.
	AllowPrivate bool
	// Blocked adds ranges to the blocked class; they win over Public.
	Blocked []netip.Prefix
	// Public makes ranges public that would otherwise be private or
	// blocked (a routed 100.64.0.0/10, say; tests make one loopback
	// address play a public host).
	Public []netip.Prefix
	// ProxyListen is the host (an address, no port) the egress proxy that
	// enforces the policy listens on, on a free port per browser context;
	// 127.0.0.1 when empty. Browser servers on other machines need an
	// address they can reach.
	ProxyListen string
	// ProxyAdvertise is the host browsers are told to reach the proxy at;
	// empty: ProxyListen.
	ProxyAdvertise string
}

// AddrClass is how far a host is from the public internet, as the network
// policy sees it; larger is more restricted.
type AddrClass int

// The classes of [NetworkConfig].
const (
	ClassPublic AddrClass = iota
	ClassPrivate
	ClassBlocked
)

// String names the class as log lines and error messages say it.
func (c AddrClass) String() string {
	switch c {
	case ClassPublic:
		return "public"
	case ClassPrivate:
		return "private"
	case ClassBlocked:
		return "link-local or metadata"
	}
	return fmt.Sprintf("class %d", int(c))
}

// metadataHosts are host names of cloud metadata services.
var metadataHosts = []string{"metadata.google.internal", "metadata.goog"}

// metadataAddrs are metadata services outside the link-local ranges.
var metadataAddrs = []netip.Prefix{
	netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS over IPv6
}

// privateRanges are private ranges that netip.Addr's predicates do not
// cover.
var privateRanges = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"), // shared address space (carrier NAT)
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
}

// Validate reports a range that is not valid.
func (c NetworkConfig) Validate() error {
	for _, p := range slices.Concat(c.Blocked, c.Public) {
		if !p.IsValid() {
			return fmt.Errorf("network policy: invalid range %v", p)
		}
	}
	for _, h := range []string{c.ProxyListen, c.ProxyAdvertise} {
		if _, _, err := net.SplitHostPort(h); err == nil || strings.ContainsAny(h, "/ ") {
			return fmt.Errorf("egress proxy host %q: want a host without port (each browser context gets a free port)", h)
		}
	}
	if a, err := netip.ParseAddr(strings.Trim(c.ProxyListen, "[]")); err == nil && a.IsUnspecified() && c.ProxyAdvertise == "" {
		return fmt.Errorf("egress proxy host %q is every interface: say which address browsers reach it at (ProxyAdvertise)", c.ProxyListen)
	}
	return nil
}

// ParsePrefixes parses a comma-separated list of CIDR ranges; a bare
// address is a range of one.
func ParsePrefixes(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for f := range strings.SplitSeq(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if a, err := netip.ParseAddr(f); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("range %q: want a CIDR such as 10.0.0.0/8 or an address", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Class returns the class of host (a URL's host name or IP literal,
// without port; IPv6 literals with or without brackets), given the
// addresses it resolved to (ignored for an IP literal). A name that
// resolved to nothing is public: the browser will not reach it either.
func (c NetworkConfig) Class(host string, addrs []netip.Addr) AddrClass {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if slices.Contains(metadataHosts, host) {
		return ClassBlocked
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return c.AddrClass(a)
	}
	class := ClassPublic
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		class = ClassPrivate // the browser resolves these itself
	}
	for _, a := range addrs {
		class = max(class, c.AddrClass(a))
	}
	return class
}

// AddrClass returns the class of one address.
func (c NetworkConfig) AddrClass(a netip.Addr) AddrClass {
	a = a.Unmap().WithZone("")
	in := func(ps []netip.Prefix) bool {
		return slices.ContainsFunc(ps, func(p netip.Prefix) bool { return p.Contains(a) })
	}
	switch {
	case in(c.Blocked):
		return ClassBlocked
	case in(c.Public):
		return ClassPublic
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast(), in(metadataAddrs):
		return ClassBlocked
	case a.IsLoopback(), a.IsPrivate(), a.IsUnspecified(), a.IsInterfaceLocalMulticast(), in(privateRanges):
		return ClassPrivate
	}
	return ClassPublic
}

// Allows reports whether a page whose listed URL's host is of class page
// may send a request to a host of class target.
func (c NetworkConfig) Allows(page, target AddrClass) bool {
	switch {
	case c.AllowPrivate:
		return true
	case target == ClassBlocked:
		return false
	case target == ClassPrivate:
		return page >= ClassPrivate
	}
	return true
}
