package pipeline

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestParsePrefixes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{"127.0.0.2/32", []string{"127.0.0.2/32"}, ""},
		{" 10.1.2.3/16 , 127.0.0.1,::1", []string{"10.1.0.0/16", "127.0.0.1/32", "::1/128"}, ""},
		{"", nil, ""},
		{"10.0.0.0/33", nil, `range "10.0.0.0/33"`},
		{"example.test", nil, `range "example.test"`},
	} {
		got, err := ParsePrefixes(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParsePrefixes(%q): err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		var s []string
		for _, p := range got {
			s = append(s, p.String())
		}
		if err != nil || !slices.Equal(s, tc.want) {
			t.Errorf("ParsePrefixes(%q) = %v, %v; want %v", tc.in, s, err, tc.want)
		}
	}
}

func TestNetworkConfig_ValidateProxy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		listen, advertise string
		ok                bool
	}{
		{"", "", true},
		{"10.0.0.5", "", true},
		{"0.0.0.0", "crawler.internal", true},
		{"::", "", false},
		{"0.0.0.0", "", false},
		{"127.0.0.1:8080", "", false},
		{"10.0.0.5", "crawler.internal:3128", false},
	} {
		c := NetworkConfig{ProxyListen: tc.listen, ProxyAdvertise: tc.advertise, Blocked: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}
		if err := c.Validate(); (err == nil) != tc.ok {
			t.Errorf("listen %q advertise %q: %v, want ok=%v", tc.listen, tc.advertise, err, tc.ok)
		}
	}
}
