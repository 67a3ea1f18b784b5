// Package llmflags holds the deep-mode command-line flags that crawl and
// bench share, and builds the deep renderer from them: one place for the
// flag names, their defaults and where the API key comes from.
package llmflags

import (
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"actionspace/internal/cli"
	"actionspace/llm"
	"actionspace/metrics"
	"actionspace/render"
	"actionspace/space"
)

// The environment variables the LLM API key is read from. The key is the
// only thing the commands read from the environment; it is never logged
// nor written to a dataset.
const (
	// KeyEnv is the key for the server at --llm-base-url, whatever it is.
	KeyEnv = "ACTIONSPACE_LLM_API_KEY"
	// OpenAIKeyEnv is OpenAI's key: sent only to OpenAI's own API
	// (OpenAIHost over https), never to another --llm-base-url, so that a
	// key set for other tools does not reach a server it was not meant for.
	OpenAIKeyEnv = "OPENAI_API_KEY"
	// OpenAIHost is OpenAI's API host.
	OpenAIHost = "api.openai.com"
)

// APIKey returns the key to send to baseURL and the variable it came
// from: KeyEnv when set; else OpenAIKeyEnv when baseURL is OpenAI's API
// (https://api.openai.com, default port); else none. withheld is set when
// OpenAIKeyEnv is set but not sent.
func APIKey(baseURL string, getenv func(string) string) (key, from string, withheld bool) {
	if k := getenv(KeyEnv); k != "" {
		return k, KeyEnv, false
	}
	k := getenv(OpenAIKeyEnv)
	if k == "" {
		return "", "", false
	}
	if u, err := url.Parse(baseURL); err == nil && strings.EqualFold(u.Scheme, "https") &&
		strings.EqualFold(u.Hostname(), OpenAIHost) && (u.Port() == "" || u.Port() == "443") && u.User == nil {
		return k, OpenAIKeyEnv, false
	}
	return "", "", true
}

// Options are the deep-mode settings as flags give them.
type Options struct {
	BaseURL     string
	Model       string
	CacheDir    string
	Timeout     time.Duration
	Concurrency int
	MaxTokens   int
	Category    bool
}

// AddFlags binds the deep-mode flags on fs to o.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.BaseURL, "llm-base-url", "", "OpenAI-compatible API root for deep mode (`URL`, e.g. http://127.0.0.1:11434/v1); without it deep mode is a dry run that only builds and counts the prompt")
	fs.StringVar(&o.Model, "llm-model", "", "model `NAME` for deep mode (required with --llm-base-url)")
	fs.StringVar(&o.CacheDir, "llm-cache", "", "on-disk cache `DIR` of LLM replies, keyed by model and exact request; a rerun makes no calls")
	fs.DurationVar(&o.Timeout, "llm-timeout", llm.DefaultTimeout, "time limit per LLM HTTP attempt (`DURATION`)")
	fs.IntVar(&o.Concurrency, "llm-concurrency", llm.DefaultConcurrency, "LLM calls in flight at once, across all workers (`N`)")
	fs.IntVar(&o.MaxTokens, "llm-max-tokens", 0, "cap each completion at `N` tokens (0 = no cap)")
	fs.BoolVar(&o.Category, "deep-category", false, "add one LLM call per page that classifies it (login, search results, …)")
}

// Deep builds the deep renderer. getenv reads the API key (os.Getenv in the
// commands). Errors name the flag at fault.
func (o *Options) Deep(getenv func(string) string, log *slog.Logger) (*render.Deep, error) {
	counter, err := metrics.NewCounter(render.LocalEncoding)
	if err != nil {
		return nil, err
	}
	d := &render.Deep{Counter: counter, Logger: log, ClassifyPage: o.Category, MaxTokens: o.MaxTokens}
	if o.BaseURL == "" {
		if o.Model != "" || o.CacheDir != "" {
			return nil, fmt.Errorf("--llm-model and --llm-cache need --llm-base-url")
		}
		return d, d.Validate()
	}
	if o.Model == "" {
		return nil, fmt.Errorf("--llm-model: required with --llm-base-url")
	}
	cfg := llm.DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.Logger = o.BaseURL, o.Model, log
	cfg.Timeout, cfg.Concurrency = o.Timeout, o.Concurrency
	key, from, withheld := APIKey(o.BaseURL, getenv)
	if withheld && log != nil {
		log.Warn("the LLM API key in "+OpenAIKeyEnv+" is sent only to "+OpenAIHost+"; set "+KeyEnv+" for the server at --llm-base-url", "llm_host", hostOf(o.BaseURL))
	}
	cfg.APIKey = key
	if err := cfg.Validate(); err != nil {
		if from != "" {
			return nil, fmt.Errorf("--llm-base-url: %w (the key is from %s)", err, from)
		}
		return nil, fmt.Errorf("--llm-base-url: %w", err)
	}
	if d.Client, err = llm.NewClient(cfg); err != nil {
		return nil, fmt.Errorf("--llm-base-url: %w", err)
	}
	d.Model = o.Model
	if o.CacheDir != "" {
		if d.Cache, err = render.OpenCache(o.CacheDir); err != nil {
			return nil, fmt.Errorf("--llm-cache: %w", err)
		}
	}
	return d, d.Validate()
}

// Renderer returns the deep-mode renderer for a run of modes: nil when
// modes do not hold deep mode (and then the LLM flags must not be set),
// else space.Deep around Deep. Its errors are usage errors naming the
// flag at fault.
func (o *Options) Renderer(modes []string, getenv func(string) string, log *slog.Logger) (space.Renderer, error) {
	if !slices.Contains(modes, space.ModeDeep) {
		if o.BaseURL != "" {
			return nil, cli.Usagef("--llm-base-url needs --mode with deep")
		}
		return nil, nil
	}
	d, err := o.Deep(getenv, log)
	if err != nil {
		return nil, cli.UsageError{Err: err}
	}
	return space.Deep{Renderer: d}, nil
}

// hostOf is the host of a URL, for logs ("" when it has none).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
