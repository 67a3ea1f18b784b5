package llmflags

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"actionspace/render"
)

// chatServer answers chat completions and records the Authorization
// header of every request.
type chatServer struct {
	mu    sync.Mutex
	auths []string
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.auths = append(s.auths, r.Header.Get("Authorization"))
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// call builds the deep renderer from baseURL and vars and makes one call.
func call(t *testing.T, baseURL string, vars map[string]string, log *slog.Logger) error {
	t.Helper()
	o := &Options{BaseURL: baseURL, Model: "m", Timeout: 0, Concurrency: 1}
	d, err := o.Deep(env(vars), log)
	if err != nil {
		return err
	}
	_, err = d.Client.Complete(context.Background(), render.ChatRequest{Messages: []render.Message{{Role: "user", Content: "hi"}}})
	return err
}

// TestDeep_KeyGoesWhereItIsMeant: OPENAI_API_KEY is not sent to another
// server (and a warning says so, without the key); ACTIONSPACE_LLM_API_KEY
// is, and wins over OPENAI_API_KEY.
func TestDeep_KeyGoesWhereItIsMeant(t *testing.T) {
	const openai, own = "sk-openai-TEST-1a2b3c", "sk-own-TEST-4d5e6f"
	tests := []struct {
		name     string
		vars     map[string]string
		wantAuth string
		warned   bool
	}{
		{"OpenAI key only", map[string]string{OpenAIKeyEnv: openai}, "", true},
		{"own key", map[string]string{KeyEnv: own}, "Bearer " + own, false},
		{"both", map[string]string{KeyEnv: own, OpenAIKeyEnv: openai}, "Bearer " + own, false},
		{"none", map[string]string{}, "", false},
	}
	for _, tt := range tests {
		srv := &chatServer{}
		ts := httptest.NewServer(srv)
		var logs bytes.Buffer
		err := call(t, ts.URL+"/v1", tt.vars, slog.New(slog.NewTextHandler(&logs, nil)))
		ts.Close()
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if len(srv.auths) != 1 || srv.auths[0] != tt.wantAuth {
			t.Errorf("%s: Authorization %q, want %q", tt.name, srv.auths, tt.wantAuth)
		}
		if warned := strings.Contains(logs.String(), OpenAIKeyEnv+" is sent only to"); warned != tt.warned {
			t.Errorf("%s: warned %v, want %v: %s", tt.name, warned, tt.warned, &logs)
		}
		if strings.Contains(logs.String(), openai) || strings.Contains(logs.String(), own) {
			t.Errorf("%s: a key is in the logs", tt.name)
		}
	}
}

func TestAPIKey(t *testing.T) {
	vars := map[string]string{OpenAIKeyEnv: "sk-o"}
	tests := []struct {
		base, want string
	}{
		{"https://api.openai.com/v1", "sk-o"},
		{"https://API.OpenAI.com:443/v1", "sk-o"},
		{"http://api.openai.com/v1", ""},
		{"https://api.openai.com:8443/v1", ""},
		{"https://api.openai.com.evil.test/v1", ""},
		{"https://user@api.openai.com/v1", ""},
		{"http://127.0.0.1:11434/v1", ""},
	}
	for _, tt := range tests {
		if got, _, _ := APIKey(tt.base, env(vars)); got != tt.want {
			t.Errorf("APIKey(%q) = %q, want %q", tt.base, got, tt.want)
		}
	}
}

// TestDeep_NoKeyOverPlainHTTP: a key and a plain-http base URL on a host
// that is not loopback stop the start, naming the flag; loopback and
// https are fine; no key, no rule.
func TestDeep_NoKeyOverPlainHTTP(t *testing.T) {
	own := map[string]string{KeyEnv: "sk-own"}
	tests := []struct {
		base string
		vars map[string]string
		ok   bool
	}{
		{"http://llm.internal.test:8000/v1", own, false},
		{"http://10.0.0.7:8000/v1", own, false},
		{"http://[::1]:8000/v1", own, true},
		{"http://localhost:8000/v1", own, true},
		{"http://127.0.0.2:8000/v1", own, true},
		{"https://llm.internal.test/v1", own, true},
		{"http://llm.internal.test:8000/v1", nil, true},
	}
	for _, tt := range tests {
		o := &Options{BaseURL: tt.base, Model: "m"}
		_, err := o.Deep(env(tt.vars), nil)
		if (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok %v", tt.base, err, tt.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), "--llm-base-url") || strings.Contains(err.Error(), "sk-own")) {
			t.Errorf("%s: error %q should name --llm-base-url and not the key", tt.base, err)
		}
	}
}
