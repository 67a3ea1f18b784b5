package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// cacheVersion is part of every cache key: bump it when the meaning of a
// stored reply changes, and old entries stop matching.
const cacheVersion = 1

// Cache is an on-disk memo of chat replies, so that re-running a crawl or
// a benchmark makes no HTTP call and renders byte-identical deep results.
//
// An entry is keyed by [CacheKey]: the SHA-256 of the model and the exact
// request (messages of both variants, schema, temperature, seed, token
// cap). It stores what a reply is needed for and nothing more: the reply
// text, the usage the server reported, which variant was sent, the finish
// reason and the model the server named. The renderer parses the stored
// text again on a hit, so a parser change applies to cached replies too.
//
// Entries live in DIR/ab/cd/<key>.json (two-level fan-out on the key's
// first four hex digits), each written to a temporary file, synced and
// renamed into place, so that readers never see half an entry. Writers of
// the same key race harmlessly: both write the same reply, the last
// rename wins. A Cache is safe for concurrent use by goroutines and
// processes.
type Cache struct {
	dir string
}

// CachedReply is one stored reply.
type CachedReply struct {
	// Key is the entry's key, checked on read.
	Key string `json:"key"`
	// Model is the model the request asked for.
	Model string `json:"model"`
	// Content is the reply text, exactly as received.
	Content string `json:"content"`
	// Usage is the usage the server reported; nil when it reported none.
	Usage *Usage `json:"usage"`
	// Structured reports whether the reply answered the request's
	// structured variant (see [ChatRequest.Sent]).
	Structured bool `json:"structured"`
	// FinishReason and ServerModel are what the server said.
	FinishReason string `json:"finish_reason,omitempty"`
	ServerModel  string `json:"server_model,omitempty"`
}

// OpenCache opens (creating it if needed) a cache rooted at dir.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("open llm cache: empty directory name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("open llm cache %s: %w", dir, err)
	}
	return &Cache{dir: dir}, nil
}

// Dir returns the cache's root directory.
func (c *Cache) Dir() string { return c.dir }

// CacheKey returns the hex SHA-256 of the cache format version and the
// request's JSON encoding (model, messages, schema, fallback messages,
// temperature, seed, max tokens). Equal requests give equal keys.
func CacheKey(req ChatRequest) string {
	data, err := json.Marshal(struct {
		Version int         `json:"v"`
		Request ChatRequest `json:"request"`
	}{cacheVersion, req})
	if err != nil {
		// ChatRequest holds only strings, numbers and raw JSON; a schema
		// that is not valid JSON is the one way to get here.
		data = fmt.Appendf(nil, "%d\x00%#v", cacheVersion, req)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// path returns the file of a key, or an error for a malformed key.
func (c *Cache) path(key string) (string, error) {
	if len(key) != 64 {
		return "", fmt.Errorf("llm cache key %q: want 64 hex digits", key)
	}
	if _, err := hex.DecodeString(key); err != nil {
		return "", fmt.Errorf("llm cache key %q: want 64 hex digits", key)
	}
	return filepath.Join(c.dir, key[:2], key[2:4], key+".json"), nil
}

// Get returns the reply stored under key. ok is false when there is none;
// an unreadable or inconsistent entry is an error (the caller may treat it
// as a miss and overwrite it).
func (c *Cache) Get(key string) (r CachedReply, ok bool, err error) {
	p, err := c.path(key)
	if err != nil {
		return r, false, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("read llm cache entry %s: %w", p, err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return CachedReply{}, false, fmt.Errorf("decode llm cache entry %s: %w", p, err)
	}
	if r.Key != key {
		return CachedReply{}, false, fmt.Errorf("llm cache entry %s holds key %q", p, r.Key)
	}
	return r, true, nil
}

// Put stores r under key (r.Key is set to key), atomically.
func (c *Cache) Put(key string, r CachedReply) (err error) {
	p, err := c.path(key)
	if err != nil {
		return err
	}
	r.Key = key
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode llm cache entry %s: %w", key, err)
	}
	data = append(data, '\n')
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write llm cache entry %s: %w", p, err)
	}
	f, err := os.CreateTemp(dir, key+".*.tmp")
	if err != nil {
		return fmt.Errorf("write llm cache entry %s: %w", p, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write llm cache entry %s: %w", p, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync llm cache entry %s: %w", p, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close llm cache entry %s: %w", p, err)
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("write llm cache entry %s: %w", p, err)
	}
	if err = os.Rename(tmp, p); err != nil {
		return fmt.Errorf("rename llm cache entry %s: %w", p, err)
	}
	return nil
}
