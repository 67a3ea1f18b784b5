package pipeline

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestRedactEndpoint(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ws://127.0.0.1:3000/", "ws://127.0.0.1:3000"},
		{"ws://browsers:3000/9f8e-secret-path?token=abc#frag", "ws://browsers:3000"},
		{"wss://user:pw@browsers.example.org/pw", "wss://browsers.example.org"},
		{"ws://[::1]:3000/x", "ws://[::1]:3000"},
		{"ws://host:bad port/secret", "ws://…"},
		{"::bad/secret", "…"},
		{"no scheme/secret", "…"},
	}
	for _, tt := range tests {
		if got := RedactEndpoint(tt.in); got != tt.want {
			t.Errorf("RedactEndpoint(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	msg := "WebSocket error: ws://u:p@h:1/tok-path-123?q=tok-query-456 403"
	got := RedactErrorText(msg, "ws://u:p@h:1/tok-path-123?q=tok-query-456")
	for _, s := range []string{"tok-path-123", "tok-query-456", "u:p@"} {
		if strings.Contains(got, s) {
			t.Errorf("RedactErrorText left %q: %q", s, got)
		}
	}
}

func TestRedactUserInfo(t *testing.T) {
	tests := []struct {
		in, want string
		has      bool
	}{
		{"https://user:pw@example.test/path", "https://redacted@example.test/path", true},
		{"http://token@example.test", "http://redacted@example.test", true},
		{"http://a@b:pw@example.test/x?y=@z", "http://redacted@example.test/x?y=@z", true}, // the last @ of the authority
		{"HTTP:user:pw@example.test/", "HTTP:redacted@example.test/", true},                // browsers read it as http://
		{"http:\\\\user:pw@example.test/", "http:\\\\redacted@example.test/", true},
		{"https://user:pw@exa mple.test:bad/", "https://redacted@exa mple.test:bad/", true}, // not a URL Go parses
		{"https://example.test/a@b", "https://example.test/a@b", false},
		{"https://example.test/?mail=a@b", "https://example.test/?mail=a@b", false},
		{"https://example.test#a@b", "https://example.test#a@b", false},
		{"mailto:someone@example.test", "mailto:someone@example.test", false},
		{"ftp://u:p@example.test/f", "ftp://redacted@example.test/f", true},
	}
	for _, tt := range tests {
		if got, has := RedactUserInfo(tt.in), HasUserInfo(tt.in); got != tt.want || has != tt.has {
			t.Errorf("RedactUserInfo(%q) = %q, %v; want %q, %v", tt.in, got, has, tt.want, tt.has)
		}
	}
}

// TestReadTargets_UserInfo: a URL with user information becomes an
// invalid_url target whose URL, page ID and error hold no credential; a
// logger given the targets as the crawl logs them sees none either.
func TestReadTargets_UserInfo(t *testing.T) {
	secrets := []string{"alice", "hunter2-pw", "tok-9c8b7a", "bob:s3cr3t"}
	list := strings.Join([]string{
		"https://alice:hunter2-pw@example.test/account",
		"http://tok-9c8b7a@example.test/",
		"https://example.test/account",             // the same page without: crawled
		"http://bob:s3cr3t@exa mple.test:x/",       // not even a URL Go parses
		"https://alice:other@example.test/account", // another credential: the same redacted URL, kept once
	}, "\n")
	got, err := ReadTargets(strings.NewReader(list), DefaultSchemes())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line    int
		url     string
		refused bool
	}{
		{1, "https://redacted@example.test/account", true},
		{2, "http://redacted@example.test/", true},
		{3, "https://example.test/account", false},
		{4, "http://redacted@exa mple.test:x/", true},
	}
	if len(got) != len(want) {
		t.Fatalf("%d targets, want %d: %+v", len(got), len(want), got)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	for i, w := range want {
		g := got[i]
		if g.Line != w.line || g.URL != w.url || (g.Err != nil) != w.refused || g.PageID != PageID(w.url) {
			t.Errorf("target %d = %+v, want line %d, URL %q, refused %v", i, g, w.line, w.url, w.refused)
		}
		if w.refused && (g.Err.Kind != KindInvalidURL || !strings.Contains(g.Err.Error(), "user information")) {
			t.Errorf("target %d: error %v, want invalid_url naming user information", i, g.Err)
		}
		log.Warn("URL list: line refused", "line", g.Line, "url", g.URL, "err", g.Err)
	}
	text := fmt.Sprintf("%+v", got) + logs.String()
	for _, s := range secrets {
		if strings.Contains(text, s) {
			t.Errorf("%q is in the targets or the logs: %s", s, text)
		}
	}
}

// TestProcessor_FinalURLWithoutUserInfo: a load whose final URL gained
// user information (a redirect) gives a row without it, failed or not.
func TestProcessor_FinalURLWithoutUserInfo(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RunID = "final-url"
	cfg.Logger = testLogger(t)
	p, err := newProcessor(cfg, "test")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://example.test/start"
	tgt := Target{PageID: PageID(u), URL: u}
	load := &Load{FinalURL: "http://alice:hunter2-pw@example.test/landing", HTTPStatus: 500}
	res := p.failed(tgt, load, &PageError{Kind: KindHTTP, URL: u, Err: &StatusError{Code: 500}}, 1, time.Now())
	if got, want := res.Page.FinalURL, "http://redacted@example.test/landing"; got != want {
		t.Errorf("final_url %q, want %q", got, want)
	}
	if s := fmt.Sprintf("%+v", res.Page); strings.Contains(s, "hunter2-pw") || strings.Contains(s, "alice") {
		t.Errorf("the row holds the credentials: %s", s)
	}
}
