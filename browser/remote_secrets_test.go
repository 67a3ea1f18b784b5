package browser

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mxschmitt/playwright-go"

	"actionspace/pipeline"
)

// TestRemote_EndpointTokensStayOut connects, through the real Playwright
// driver, to a run-server whose endpoint path is its secret, to a server
// that refuses the WebSocket upgrade and to a closed port, each URL
// carrying a token in its path (and the failing ones in their query and
// user information): no token is in the logs (debug level, the connection
// made and the failures), nor in the error of a Remote that finds no
// endpoint up; the endpoints are named by scheme, host and port.
func TestRemote_EndpointTokensStayOut(t *testing.T) {
	tools := requireRunServer(t)
	const pathToken, queryToken, userToken = "path-TOKEN-5a1f0c", "query-TOKEN-7b2e9d", "user-TOKEN-3c8d4e"
	srv := startRunServer(t, tools, "--path", "/"+pathToken)
	if !strings.Contains(srv.endpoint, pathToken) {
		t.Fatalf("run-server endpoint %q lacks its path", srv.endpoint)
	}
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "go away", http.StatusForbidden)
	}))
	defer refusing.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := ln.Addr().String()
	ln.Close()
	bad := []string{
		"ws://" + userToken + ":pw@" + strings.TrimPrefix(refusing.URL, "http://") + "/" + pathToken + "?token=" + queryToken,
		"ws://" + closedAddr + "/" + pathToken + "?token=" + queryToken,
	}
	tokens := []string{pathToken, queryToken, userToken}

	var logs bytes.Buffer
	cfg := DefaultConfig()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	pw, err := playwright.Run(&playwright.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Stop()
	connect := func(ctx context.Context, endpoint string, lost func(error)) (pipeline.Browser, error) {
		return connectEndpoint(ctx, pw, cfg, endpoint, lost)
	}
	ctx := context.Background()

	// One endpoint up, two down and retried in the background.
	cfg.Endpoints = append([]string{srv.endpoint}, bad...)
	r, err := newRemote(ctx, cfg, connect, nil, 20*time.Second)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if up := r.Up(); len(up) != 1 || up[0] != srv.endpoint {
		t.Errorf("up %q, want the run-server only", up)
	}
	time.Sleep(2500 * time.Millisecond) // a reconnection attempt of each
	if err := r.Close(); err != nil {
		t.Errorf("close: %v", err)
	}

	// None up: the error names why each is down.
	cfg.Endpoints = bad
	_, err = newRemote(ctx, cfg, connect, nil, 2*time.Second)
	if err == nil {
		t.Fatal("no endpoint up, but no error")
	}
	// The configuration's own check names a bad endpoint too.
	cfg.Endpoints = []string{"http://" + strings.TrimPrefix(refusing.URL, "http://") + "/" + pathToken}
	verr := cfg.Validate()
	if verr == nil {
		t.Fatal("an http:// endpoint passed Validate")
	}

	for name, text := range map[string]string{"logs": logs.String(), "error": err.Error(), "validation error": verr.Error()} {
		for _, tok := range tokens {
			if strings.Contains(text, tok) {
				t.Errorf("%q is in the %s:\n%s", tok, name, text)
			}
		}
	}
	for _, want := range []string{"connected to a browser endpoint", "not reachable", "still unreachable", "ws://" + closedAddr} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the logs lack %q:\n%s", want, logs.String())
		}
	}
	if !strings.Contains(err.Error(), "ws://"+closedAddr) {
		t.Errorf("the error does not name the endpoint by host and port: %v", err)
	}
	t.Logf("%d bytes of logs; error: %v", logs.Len(), err)
}
