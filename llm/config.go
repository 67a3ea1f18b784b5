package llm

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults for [Config].
const (
	DefaultTimeout      = 180 * time.Second
	DefaultMaxRetries   = 3
	DefaultConcurrency  = 4
	DefaultMaxRetryWait = 30 * time.Second
)

// Config configures a [Client].
type Config struct {
	// BaseURL is the API root of an OpenAI-compatible server, e.g.
	// "http://127.0.0.1:11434/v1"; requests go to BaseURL/chat/completions.
	// Required.
	BaseURL string
	// Model is the default model, used when a request names none.
	Model string
	// APIKey is sent as a bearer token when not empty. The caller reads it
	// (the CLI from ACTIONSPACE_LLM_API_KEY, or OPENAI_API_KEY for
	// OpenAI's own API only); the client never logs it, removes it from
	// every error it returns, and never sends it over plain http to a
	// host that is not loopback: Validate refuses such a BaseURL, and the
	// SDK follows no redirect away from BaseURL's origin.
	APIKey string
	// Timeout bounds each HTTP attempt; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRetries is the number of retries after a failed attempt (429,
	// 408, 409, 5xx, transport errors, attempt timeouts); 0 means
	// DefaultMaxRetries, a negative value means none.
	MaxRetries int
	// MaxRetryWait caps the wait before a retry, whether it comes from the
	// server's Retry-After or from the exponential backoff; 0 means
	// DefaultMaxRetryWait.
	MaxRetryWait time.Duration
	// Concurrency is the number of HTTP requests in flight at once, across
	// all goroutines sharing the client; 0 means DefaultConcurrency.
	Concurrency int
	// HTTPClient sends the requests; nil means a new http.Client.
	HTTPClient *http.Client
	// Logger receives retry and fallback notices; nil means slog.Default().
	Logger *slog.Logger
}

// DefaultConfig returns a configuration with every default filled in;
// the caller sets BaseURL, Model and APIKey.
func DefaultConfig() Config {
	return Config{
		Timeout:      DefaultTimeout,
		MaxRetries:   DefaultMaxRetries,
		MaxRetryWait: DefaultMaxRetryWait,
		Concurrency:  DefaultConcurrency,
	}
}

// Validate reports an unusable configuration, naming the field.
func (c Config) Validate() error {
	if c.BaseURL == "" {
		return errors.New("llm config: BaseURL is empty")
	}
	if !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		return fmt.Errorf("llm config: BaseURL %q: want an http:// or https:// URL", redactURL(c.BaseURL))
	}
	if c.APIKey != "" && !KeySafe(c.BaseURL) {
		return fmt.Errorf("llm config: BaseURL %q: an API key is never sent over plain http to a host that is not loopback; use https", redactURL(c.BaseURL))
	}
	if c.Timeout < 0 {
		return fmt.Errorf("llm config: Timeout %v is negative", c.Timeout)
	}
	if c.MaxRetryWait < 0 {
		return fmt.Errorf("llm config: MaxRetryWait %v is negative", c.MaxRetryWait)
	}
	if c.Concurrency < 0 {
		return fmt.Errorf("llm config: Concurrency %d is negative", c.Concurrency)
	}
	return nil
}

// KeySafe reports whether an API key may be sent to rawURL: over https,
// or over plain http to a loopback host (localhost, 127.0.0.0/8, ::1),
// where nothing crosses a network. Names other than localhost are not
// resolved: a name that points to loopback does not count.
func KeySafe(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return true
	case "http":
		host := strings.ToLower(u.Hostname())
		if host == "localhost" {
			return true
		}
		ip := net.ParseIP(host)
		return ip != nil && ip.IsLoopback()
	}
	return false
}
