package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestCache_PutGet(t *testing.T) {
	c, err := OpenCache(filepath.Join(t.TempDir(), "llm"))
	if err != nil {
		t.Fatal(err)
	}
	key := CacheKey(simpleRequest())
	if _, ok, err := c.Get(key); ok || err != nil {
		t.Fatalf("empty cache: ok %v err %v", ok, err)
	}
	want := CachedReply{Model: "m", Content: "reply\nwith \"quotes\"", Usage: &Usage{PromptTokens: 3, CompletionTokens: 4}, Structured: true, FinishReason: "stop"}
	if err := c.Put(key, want); err != nil {
		t.Fatal(err)
	}
	got, ok, err := c.Get(key)
	if err != nil || !ok {
		t.Fatalf("Get: ok %v err %v", ok, err)
	}
	want.Key = key
	if got.Key != want.Key || got.Content != want.Content || *got.Usage != *want.Usage || got.Structured != want.Structured || got.FinishReason != want.FinishReason {
		t.Errorf("got %+v, want %+v", got, want)
	}
	path := filepath.Join(c.Dir(), key[:2], key[2:4], key+".json")
	if _, err := os.Stat(path); err != nil {
		t.Errorf("entry not at %s: %v", path, err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(c.Dir(), "*", "*", "*.tmp")); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}

	// Usage the server did not report stays nil.
	key2 := CacheKey(ChatRequest{Model: "other"})
	if err := c.Put(key2, CachedReply{Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := c.Get(key2); got.Usage != nil {
		t.Errorf("usage = %+v, want nil", got.Usage)
	}
}

func TestCache_BadEntries(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"", "../../etc/passwd", strings.Repeat("g", 64)} {
		if _, _, err := c.Get(key); err == nil {
			t.Errorf("Get(%q) accepted a malformed key", key)
		}
		if err := c.Put(key, CachedReply{}); err == nil {
			t.Errorf("Put(%q) accepted a malformed key", key)
		}
	}
	key := CacheKey(simpleRequest())
	path := filepath.Join(c.Dir(), key[:2], key[2:4], key+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"{not json", `{"key":"` + strings.Repeat("0", 64) + `","content":"x"}`} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := c.Get(key); ok || err == nil {
			t.Errorf("entry %q: ok %v err %v, want an error", body, ok, err)
		}
	}
	if _, err := OpenCache(""); err == nil {
		t.Error("OpenCache(\"\") succeeded")
	}
}

func TestCache_Concurrent(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			// Half the writers share one key, the others have their own.
			key := CacheKey(ChatRequest{Model: fmt.Sprint(i % 2 * i)})
			if err := c.Put(key, CachedReply{Content: "same"}); err != nil {
				t.Error(err)
			}
			if r, ok, err := c.Get(key); err != nil || !ok || r.Content != "same" {
				t.Errorf("Get after Put: %+v %v %v", r, ok, err)
			}
		})
	}
	wg.Wait()
}

// simpleRequest is a small request with a system and a user message.
func simpleRequest() ChatRequest {
	seed := int64(DeepSeed)
	return ChatRequest{Messages: []Message{{RoleSystem, "sys"}, {RoleUser, "hi"}}, Seed: &seed}
}

func TestCacheKey(t *testing.T) {
	base := func() ChatRequest {
		r := simpleRequest()
		r.Model = "m"
		r.Schema = &tagSchema
		r.FallbackMessages = []Message{{RoleUser, "f"}}
		return r
	}
	k := CacheKey(base())
	if k != CacheKey(base()) || len(k) != 64 {
		t.Fatalf("key not stable: %s", k)
	}
	changes := map[string]func(*ChatRequest){
		"model":     func(r *ChatRequest) { r.Model = "n" },
		"message":   func(r *ChatRequest) { r.Messages[1].Content = "hi!" },
		"role":      func(r *ChatRequest) { r.Messages[0].Role = RoleUser },
		"schema":    func(r *ChatRequest) { r.Schema = nil },
		"fallback":  func(r *ChatRequest) { r.FallbackMessages = nil },
		"temp":      func(r *ChatRequest) { r.Temperature = 0.5 },
		"seed":      func(r *ChatRequest) { s := int64(2); r.Seed = &s },
		"maxTokens": func(r *ChatRequest) { r.MaxTokens = 100 },
	}
	for name, change := range changes {
		r := base()
		change(&r)
		if CacheKey(r) == k {
			t.Errorf("changing %s keeps the key", name)
		}
	}
	// Keys of stored caches stay valid: this one was computed before the
	// LLM client left this package, and must not change.
	if want := "9a9733badca33808c077819896e3b0fa31277e9413285cca8eb7ce589625dbd9"; k != want {
		t.Errorf("CacheKey = %s, want %s (the JSON of ChatRequest changed; bump cacheVersion if that was meant)", k, want)
	}
	// The key is the request's JSON: the schema is part of it verbatim.
	data, _ := json.Marshal(base())
	if !strings.Contains(string(data), `"schema":{"name":"action_tags"`) {
		t.Errorf("request JSON: %s", data)
	}
}
