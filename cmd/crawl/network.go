package main

import (
	"flag"

	"actionspace/pipeline"
)

// registerNetwork binds the flags of the network policy (see
// docs/network.md) onto nc. The range lists add up over repeated flags.
func registerNetwork(fs *flag.FlagSet, nc *pipeline.NetworkConfig) {
	fs.BoolVar(&nc.AllowPrivate, "allow-private", false, "let pages reach link-local and metadata addresses, and public pages private ones (refused by default)")
	fs.Func("net-blocked", "refuse the address ranges in `LIST` (CIDRs or addresses, comma-separated) to every page, as metadata addresses are", func(s string) error {
		p, err := pipeline.ParsePrefixes(s)
		nc.Blocked = append(nc.Blocked, p...)
		return err
	})
	fs.Func("net-public", "treat the address ranges in `LIST` (CIDRs or addresses) as public, though private or link-local otherwise; --net-blocked wins", func(s string) error {
		p, err := pipeline.ParsePrefixes(s)
		nc.Public = append(nc.Public, p...)
		return err
	})
	fs.StringVar(&nc.ProxyListen, "egress-listen", "", "the egress proxy every page goes through listens on `HOST`, a free port per browser context (default 127.0.0.1); remote browser servers must reach it")
	fs.StringVar(&nc.ProxyAdvertise, "egress-advertise", "", "browsers reach the egress proxy at `HOST` (default: the --egress-listen host); needed when it listens on every interface (0.0.0.0)")
}
