package pipeline

import (
	"net/url"
	"regexp"
	"strings"
)

// RedactEndpoint returns what may be shown of a browser endpoint URL:
// its scheme, host and port (ws://HOST:PORT), never its user
// information, path, query or fragment, any of which may carry the
// server's token (a Playwright server's secret path). It is what logs,
// errors and the dataset's metadata say of an endpoint. A string that is
// not a URL with a host becomes its scheme and "…".
func RedactEndpoint(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		scheme, _, ok := strings.Cut(raw, "://")
		if !ok || strings.ContainsAny(scheme, "/?#@") {
			return "…"
		}
		return scheme + "://…"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// RedactErrorText returns msg with every occurrence of raw, and of its
// parts that may carry a secret (user information, path, query,
// fragment), replaced by what RedactEndpoint keeps: for messages written
// by code that names the endpoint as it was given (Playwright's errors).
func RedactErrorText(msg, raw string) string {
	if raw == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, raw, RedactEndpoint(raw))
	u, err := url.Parse(raw)
	if err != nil {
		return msg
	}
	for _, part := range []string{u.User.String(), u.EscapedPath(), u.Path, u.RawQuery, u.Fragment} {
		// A bare "/" or a short part would blank unrelated text; a
		// path or token worth hiding is longer.
		if len(strings.Trim(part, "/")) >= 4 {
			msg = strings.ReplaceAll(msg, part, "…")
		}
	}
	return msg
}

// RedactedUser stands for the user information of a URL in what is
// stored and logged of it: "https://redacted@host/path".
const RedactedUser = "redacted"

// userInfo matches a URL's scheme and authority up to its last "@": the
// authority ends at the first "/", "?", "#" or "\\" (which browsers
// read as "/"). Browsers read "http:user:pw@host" as "http://user:pw@host"
// (the slashes of the special schemes are optional); other schemes have
// an authority only after "//" (so "mailto:a@b" has none).
var userInfo = regexp.MustCompile(`^((?i:https?|wss?|ftp):[/\\]*|[A-Za-z][A-Za-z0-9+.-]*://)([^/?#\\]*)@`)

// HasUserInfo reports whether raw, read as browsers read URLs, carries
// user information (user:password@ before the host), whether or not the
// rest of it parses.
func HasUserInfo(raw string) bool { return userInfo.MatchString(raw) }

// RedactUserInfo returns raw with its user information replaced by
// RedactedUser, and raw itself when it has none.
func RedactUserInfo(raw string) string {
	if !HasUserInfo(raw) {
		return raw
	}
	return userInfo.ReplaceAllString(raw, "${1}"+RedactedUser+"@")
}
