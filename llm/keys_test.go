package llm

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"actionspace/render"
)

func TestKeySafe(t *testing.T) {
	tests := []struct {
		url  string
		safe bool
	}{
		{"https://llm.example.test/v1", true},
		{"http://127.0.0.1:11434/v1", true},
		{"http://127.9.9.9/v1", true},
		{"http://[::1]:8000/v1", true},
		{"http://LOCALHOST:8000/v1", true},
		{"http://localhost.example.test/v1", false},
		{"http://10.0.0.1/v1", false},
		{"http://llm.example.test/v1", false},
		{"ftp://127.0.0.1/", false},
		{"::bad", false},
	}
	for _, tt := range tests {
		if got := KeySafe(tt.url); got != tt.safe {
			t.Errorf("KeySafe(%q) = %v, want %v", tt.url, got, tt.safe)
		}
	}
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.APIKey = "http://llm.example.test/v1", "sk-x"
	if err := cfg.Validate(); err == nil || strings.Contains(err.Error(), "sk-x") {
		t.Errorf("Validate with a key over plain http: %v, want an error without the key", err)
	}
	cfg.APIKey = ""
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate without a key: %v", err)
	}
}

// downgrader is a transport for one https host that redirects every
// request to the same host over plain http, where Go's client would
// forward the Authorization header (same host); it records the requests
// that reach it.
type downgrader struct {
	mu   sync.Mutex
	seen []string // scheme and Authorization of each request
}

func (d *downgrader) RoundTrip(r *http.Request) (*http.Response, error) {
	d.mu.Lock()
	d.seen = append(d.seen, r.URL.Scheme+" "+r.Header.Get("Authorization"))
	d.mu.Unlock()
	h := http.Header{}
	h.Set("Location", "http://"+r.URL.Host+r.URL.Path)
	return &http.Response{StatusCode: http.StatusFound, Header: h, Body: http.NoBody, Request: r}, nil
}

// TestClient_RedirectKeepsTheKey: a server that redirects to plain http
// on the same host (where Go's client would forward the key) does not get
// the request there: the SDK refuses a redirect away from the base URL's
// origin (a guard this test keeps watch on, should the SDK change).
func TestClient_RedirectKeepsTheKey(t *testing.T) {
	tr := &downgrader{}
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.APIKey = "https://llm.corp.test/v1", "m", "sk-own"
	cfg.HTTPClient, cfg.MaxRetries = &http.Client{Transport: tr}, -1
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), render.ChatRequest{Messages: []render.Message{{Role: "user", Content: "hi"}}})
	if err == nil {
		t.Error("the call succeeded through a redirect to plain http")
	}
	for _, s := range tr.seen {
		if strings.HasPrefix(s, "http ") {
			t.Errorf("a request went over plain http: %q", s)
		}
	}
	if len(tr.seen) != 1 {
		t.Errorf("%d requests, want 1 (the redirect not followed): %q", len(tr.seen), tr.seen)
	}
}
