package main

import (
	"flag"
	"io"
	"net/netip"
	"slices"
	"testing"
)

// TestNetworkOptions parses the policy flags: range lists add up over
// repeated flags, and a bad range is a usage error.
func TestNetworkOptions(t *testing.T) {
	t.Parallel()
	var o networkOptions
	nc := &o.nc
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.AddFlags(fs)
	err := fs.Parse([]string{"--net-blocked", "127.0.0.2/32,10.9.0.0/16", "--net-blocked", "127.0.0.4",
		"--net-public", "127.0.0.1/32", "--egress-listen", "0.0.0.0", "--egress-advertise", "crawler.internal"})
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32"), netip.MustParsePrefix("10.9.0.0/16"), netip.MustParsePrefix("127.0.0.4/32")}
	if !slices.Equal(nc.Blocked, want) || len(nc.Public) != 1 || nc.ProxyListen != "0.0.0.0" || nc.ProxyAdvertise != "crawler.internal" {
		t.Errorf("parsed %+v", nc)
	}
	if err := nc.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	fs = flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--net-public", "10.0.0.0/99"}); err == nil {
		t.Error("a bad range parsed")
	}
}
