// Package egress is the one way out to the network for everything a
// crawled page does: a small forward proxy inside the crawl process that
// the browser is told to use for every request of a page's browser
// context (navigations, subresources, frames at any depth, redirects,
// WebSockets, beacons, service-worker fetches, prefetches).
//
// A [Session] is one listener with a policy class: the class of the URL
// its page was listed under (see pipeline.NetworkConfig), fixed once the
// session has carried a request ([Session.Reclass]). For every request it
// resolves the host name itself, classes every address the name resolved
// to (the most restricted one winning), and either refuses or dials
// exactly one of the addresses it checked, so that a DNS answer that
// changes between the check and the connection (DNS rebinding) gains
// nothing. Plain HTTP is forwarded; HTTPS and WebSockets come as CONNECT
// tunnels, which are checked the same way and then spliced byte for byte
// (nothing is decrypted).
//
// A refused plain-HTTP request gets an empty 204 answer marked with
// [RefusedHeader]: a frame navigation that ends there is not committed
// (the frame keeps its empty initial document), a fetch sees an empty
// body. A refused tunnel gets 403, which Chromium turns into its own error
// page (net::ERR_TUNNEL_CONNECTION_FAILED). In neither case does any byte
// of the refused address reach the browser. Each refusal is counted
// ([Session.Refused]) and remembered by target ([Session.Why]), so that
// the browser adapter can tell a refused main-frame navigation from a
// refused subresource.
package egress
