package pipeline

import (
	"net/netip"
	"testing"
)

func addrs(ss ...string) []netip.Addr {
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

func TestNetworkConfig_Class(t *testing.T) {
	def := NetworkConfig{}
	tuned := NetworkConfig{
		Blocked: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")},
		Public:  []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("169.254.1.0/24")},
	}
	tests := []struct {
		name  string
		cfg   NetworkConfig
		host  string
		addrs []netip.Addr
		want  AddrClass
	}{
		{"public v4", def, "93.184.216.34", nil, ClassPublic},
		{"public v6", def, "[2606:2800:220:1:248:1893:25c8:1946]", nil, ClassPublic},
		{"metadata v4", def, "169.254.169.254", nil, ClassBlocked},
		{"link-local v4", def, "169.254.1.1", nil, ClassBlocked},
		{"link-local v6", def, "[fe80::1]", nil, ClassBlocked},
		{"link-local v6 bare", def, "fe80::abcd", nil, ClassBlocked},
		{"link-local v6 with zone", def, "fe80::1%eth0", nil, ClassBlocked},
		{"mapped link-local", def, "[::ffff:169.254.169.254]", nil, ClassBlocked},
		{"metadata name", def, "metadata.google.internal", nil, ClassBlocked},
		{"metadata name, upper case and root dot", def, "Metadata.Google.Internal.", addrs("93.184.216.34"), ClassBlocked},
		{"metadata.goog", def, "metadata.goog", nil, ClassBlocked},
		{"alibaba metadata", def, "100.100.100.200", nil, ClassBlocked},
		{"aws v6 metadata", def, "[fd00:ec2::254]", nil, ClassBlocked},
		{"loopback", def, "127.0.0.1", nil, ClassPrivate},
		{"loopback 127.0.0.2", def, "127.0.0.2", nil, ClassPrivate},
		{"loopback v6", def, "[::1]", nil, ClassPrivate},
		{"10/8", def, "10.1.2.3", nil, ClassPrivate},
		{"172.16/12", def, "172.31.255.255", nil, ClassPrivate},
		{"172.32 is public", def, "172.32.0.1", nil, ClassPublic},
		{"192.168/16", def, "192.168.1.1", nil, ClassPrivate},
		{"unique local v6", def, "[fd12:3456::1]", nil, ClassPrivate},
		{"carrier NAT", def, "100.64.0.1", nil, ClassPrivate},
		{"this network", def, "0.0.0.0", nil, ClassPrivate},
		{"unspecified v6", def, "[::]", nil, ClassPrivate},
		{"localhost", def, "localhost", nil, ClassPrivate},
		{"under localhost", def, "app.localhost", nil, ClassPrivate},
		{"name resolving to public", def, "example.com", addrs("93.184.216.34"), ClassPublic},
		{"name resolving to private", def, "intranet.example.com", addrs("10.0.0.5"), ClassPrivate},
		{"name resolving to link-local", def, "rebind.example.com", addrs("93.184.216.34", "169.254.169.254"), ClassBlocked},
		{"name resolving to mapped loopback", def, "x.example.com", addrs("::ffff:127.0.0.1"), ClassPrivate},
		{"name resolving to nothing", def, "nowhere.invalid", nil, ClassPublic},
		{"blocked by config wins over public", tuned, "127.0.0.2", nil, ClassBlocked},
		{"public by config", tuned, "127.0.0.1", nil, ClassPublic},
		{"public by config over built-in link-local", tuned, "169.254.1.9", nil, ClassPublic},
		{"still link-local outside the public range", tuned, "169.254.2.9", nil, ClassBlocked},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.Class(tc.host, tc.addrs); got != tc.want {
				t.Errorf("Class(%q, %v) = %v, want %v", tc.host, tc.addrs, got, tc.want)
			}
		})
	}
}

func TestNetworkConfig_Allows(t *testing.T) {
	tests := []struct {
		page, target AddrClass
		want, open   bool // default policy; with AllowPrivate
	}{
		{ClassPublic, ClassPublic, true, true},
		{ClassPublic, ClassPrivate, false, true}, // a public page into the crawler's network
		{ClassPublic, ClassBlocked, false, true},
		{ClassPrivate, ClassPublic, true, true},
		{ClassPrivate, ClassPrivate, true, true}, // the corpus on loopback
		{ClassPrivate, ClassBlocked, false, true},
		{ClassBlocked, ClassBlocked, false, true}, // a listed metadata URL
	}
	for _, tc := range tests {
		if got := (NetworkConfig{}).Allows(tc.page, tc.target); got != tc.want {
			t.Errorf("Allows(%v page, %v target) = %v, want %v", tc.page, tc.target, got, tc.want)
		}
		if got := (NetworkConfig{AllowPrivate: true}).Allows(tc.page, tc.target); got != tc.open {
			t.Errorf("with AllowPrivate: Allows(%v, %v) = %v, want %v", tc.page, tc.target, got, tc.open)
		}
	}
}

func TestNetworkConfig_Validate(t *testing.T) {
	if err := (NetworkConfig{Public: []netip.Prefix{{}}}).Validate(); err == nil {
		t.Error("an invalid range passed")
	}
	if err := DefaultPageConfig().Validate(); err != nil {
		t.Errorf("default page config: %v", err)
	}
}
