package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// Chat message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// JSONSchema asks the server for structured output: it is sent as
// response_format {"type": "json_schema", "json_schema": {...}}.
type JSONSchema struct {
	// Name names the schema (letters, digits, '_' and '-').
	Name string `json:"name"`
	// Strict asks the server to enforce the schema exactly.
	Strict bool `json:"strict"`
	// Schema is the JSON Schema document.
	Schema json.RawMessage `json:"schema"`
}

// ChatRequest is one chat-completion request as the deep renderer builds it.
// It is also the cache key: every field that changes what the server is
// asked is here, and nothing else is.
type ChatRequest struct {
	// Model is the model name sent to the server; empty means the client's
	// default model.
	Model string `json:"model"`
	// Messages is the conversation sent with Schema.
	Messages []Message `json:"messages"`
	// Schema, when set, asks for structured output (response_format).
	Schema *JSONSchema `json:"schema,omitempty"`
	// FallbackMessages is the conversation sent instead of Messages, with
	// no response_format, to a server that rejects Schema. Nil means
	// Messages is sent either way.
	FallbackMessages []Message `json:"fallback_messages,omitempty"`
	// Temperature is the sampling temperature (deep mode uses 0).
	Temperature float64 `json:"temperature"`
	// Seed is sent when set, for servers that sample reproducibly.
	Seed *int64 `json:"seed,omitempty"`
	// MaxTokens caps the completion (sent as max_tokens) when positive.
	MaxTokens int `json:"max_tokens,omitempty"`
}

// Sent returns the messages a request sends: Messages when structured
// output was requested (or there is no fallback), FallbackMessages
// otherwise.
func (r ChatRequest) Sent(structured bool) []Message {
	if structured || r.FallbackMessages == nil {
		return r.Messages
	}
	return r.FallbackMessages
}

// Usage is the token usage a server reported for one completion.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// ChatResponse is the reply to a ChatRequest.
type ChatResponse struct {
	// Content is the text of the first choice ("" when the server sent
	// no choice).
	Content string
	// Usage is what the server reported; nil when it reported nothing.
	Usage *Usage
	// Structured reports whether the request that produced Content
	// carried the schema (Messages) rather than the fallback
	// (FallbackMessages).
	Structured bool
	// FinishReason is the server's finish_reason ("stop", "length", …).
	FinishReason string
	// Model is the model the server says answered.
	Model string
	// Attempts is the number of HTTP requests made, retries and the
	// structured-output fallback included. Zero means the client does not
	// say (the renderer then counts one).
	Attempts int
	// Elapsed is the time spent in HTTP exchanges, without waits for a
	// concurrency slot or between retries. Zero means the client does not
	// say (the renderer then uses the wall time of the call).
	Elapsed time.Duration
}

// ChatClient sends one chat-completion request, retrying transport
// failures itself. It must be safe for concurrent use. The deep renderer
// owns this interface; [OpenAIClient] is the real implementation.
type ChatClient interface {
	Complete(ctx context.Context, req ChatRequest) (ChatResponse, error)
}

// Defaults for [LLMConfig].
const (
	DefaultLLMTimeout     = 180 * time.Second
	DefaultLLMMaxRetries  = 3
	DefaultLLMConcurrency = 4
	DefaultMaxRetryWait   = 30 * time.Second
)

// LLMConfig configures an [OpenAIClient].
type LLMConfig struct {
	// BaseURL is the API root of an OpenAI-compatible server, e.g.
	// "http://127.0.0.1:11434/v1"; requests go to BaseURL/chat/completions.
	// Required.
	BaseURL string
	// Model is the default model, used when a request names none.
	Model string
	// APIKey is sent as a bearer token when not empty. The caller reads it
	// (the CLI from ACTIONSPACE_LLM_API_KEY, then OPENAI_API_KEY); the
	// client never logs it and removes it from every error it returns.
	APIKey string
	// Timeout bounds each HTTP attempt; 0 means DefaultLLMTimeout.
	Timeout time.Duration
	// MaxRetries is the number of retries after a failed attempt (429,
	// 408, 409, 5xx, transport errors, attempt timeouts); 0 means
	// DefaultLLMMaxRetries, a negative value means none.
	MaxRetries int
	// MaxRetryWait caps the wait before a retry, whether it comes from the
	// server's Retry-After or from the exponential backoff; 0 means
	// DefaultMaxRetryWait.
	MaxRetryWait time.Duration
	// Concurrency is the number of HTTP requests in flight at once, across
	// all goroutines sharing the client; 0 means DefaultLLMConcurrency.
	Concurrency int
	// HTTPClient sends the requests; nil means a new http.Client.
	HTTPClient *http.Client
	// Logger receives retry and fallback notices; nil means slog.Default().
	Logger *slog.Logger
}

// DefaultLLMConfig returns a configuration with every default filled in;
// the caller sets BaseURL, Model and APIKey.
func DefaultLLMConfig() LLMConfig {
	return LLMConfig{
		Timeout:      DefaultLLMTimeout,
		MaxRetries:   DefaultLLMMaxRetries,
		MaxRetryWait: DefaultMaxRetryWait,
		Concurrency:  DefaultLLMConcurrency,
	}
}

// Validate reports an unusable configuration, naming the field.
func (c LLMConfig) Validate() error {
	if c.BaseURL == "" {
		return errors.New("llm config: BaseURL is empty")
	}
	if !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		return fmt.Errorf("llm config: BaseURL %q: want an http:// or https:// URL", c.BaseURL)
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

// LLMError is a chat-completion call that failed after its retries. Its
// message never holds the API key.
type LLMError struct {
	// StatusCode is the HTTP status of the last attempt; 0 when no
	// response came back (transport error, timeout).
	StatusCode int
	// Message is the server's error message or the transport error, with
	// the API key removed and capped at 300 characters.
	Message string
	// Attempts is the number of HTTP requests made.
	Attempts int
	// Elapsed is the time spent in HTTP exchanges.
	Elapsed time.Duration
	// cause is a transport or context error; API errors are not kept
	// because they hold the request and its Authorization header.
	cause error
}

func (e *LLMError) Error() string {
	var b strings.Builder
	b.WriteString("chat completion failed after ")
	b.WriteString(strconv.Itoa(e.Attempts))
	if e.Attempts == 1 {
		b.WriteString(" attempt")
	} else {
		b.WriteString(" attempts")
	}
	if e.StatusCode != 0 {
		b.WriteString(": HTTP ")
		b.WriteString(strconv.Itoa(e.StatusCode))
		if t := http.StatusText(e.StatusCode); t != "" {
			b.WriteString(" " + t)
		}
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns the transport or context error behind the failure, if any.
func (e *LLMError) Unwrap() error { return e.cause }

// OpenAIClient is a [ChatClient] for OpenAI-compatible chat-completions
// endpoints (OpenAI, vLLM, Ollama, llama.cpp's server…), built on the
// openai-go SDK. The SDK does the HTTP and JSON; this type adds the retry
// policy, the shared concurrency limit and the structured-output fallback.
// It is safe for concurrent use.
type OpenAIClient struct {
	cfg LLMConfig
	svc openai.ChatCompletionService
	log *slog.Logger
	// sem holds one token per request in flight.
	sem chan struct{}
	// noSchema is set once a server rejected response_format and accepted
	// the same request without it; later requests go without it.
	noSchema atomic.Bool
	// backoff is the first retry wait without Retry-After (doubled per
	// retry); tests shorten it.
	backoff time.Duration
}

var _ ChatClient = (*OpenAIClient)(nil)

// NewOpenAIClient returns a client for cfg, with defaults filled in for
// zero fields. It reads no environment variable.
func NewOpenAIClient(cfg LLMConfig) (*OpenAIClient, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultLLMTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultLLMMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.MaxRetryWait == 0 {
		cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultLLMConcurrency
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithHTTPClient(hc),
		// Retries are ours: the SDK gives up on an attempt timeout and on
		// long Retry-After values, and would hold the concurrency slot
		// while waiting.
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &OpenAIClient{
		cfg:     cfg,
		svc:     openai.NewChatCompletionService(opts...),
		log:     log,
		sem:     make(chan struct{}, cfg.Concurrency),
		backoff: 500 * time.Millisecond,
	}, nil
}

// Complete sends req and returns the first choice. It retries 429, 408,
// 409, 5xx, transport errors and attempt timeouts up to MaxRetries times
// with exponential backoff, honouring Retry-After (capped at
// MaxRetryWait). When a request with a schema gets 400 or 422, it is sent
// once more without response_format (FallbackMessages); if that succeeds,
// the client sends no schema for the rest of its life.
func (c *OpenAIClient) Complete(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return ChatResponse{}, errors.New("chat completion: no model given")
	}
	structured := req.Schema != nil && !c.noSchema.Load()
	fellBack := false
	resp := ChatResponse{Structured: structured}
	retries := 0
	for {
		params, err := chatParams(model, req, structured)
		if err != nil {
			return resp, err
		}
		at := c.attempt(ctx, params)
		resp.Attempts++
		resp.Elapsed += at.elapsed
		if at.err == nil {
			if fellBack && !c.noSchema.Swap(true) {
				c.log.Info("llm server rejected response_format; using the tagged-text fallback from now on",
					"base_url", redactURL(c.cfg.BaseURL), "model", model)
			}
			res := at.res
			if len(res.Choices) > 0 {
				resp.Content = res.Choices[0].Message.Content
				resp.FinishReason = string(res.Choices[0].FinishReason)
			}
			resp.Model = res.Model
			if res.JSON.Usage.Valid() {
				resp.Usage = &Usage{PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens}
			}
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, c.fail(resp, 0, "", ctx.Err())
		}
		if structured && !fellBack && (at.status == http.StatusBadRequest || at.status == http.StatusUnprocessableEntity) {
			c.log.Debug("llm server refused the request with response_format; retrying without it",
				"status", at.status, "message", c.message(at))
			structured, fellBack = false, true
			resp.Structured = false
			continue
		}
		if !retryable(at.status, at.err) || retries >= c.cfg.MaxRetries {
			return resp, c.fail(resp, at.status, c.message(at), transportCause(at))
		}
		wait := c.retryWait(retries, at.header, time.Now())
		retries++
		c.log.Debug("llm call failed; retrying", "status", at.status, "retry", retries, "wait", wait, "message", c.message(at))
		if err := sleep(ctx, wait); err != nil {
			return resp, c.fail(resp, 0, "", err)
		}
	}
}

// attemptResult is what one HTTP attempt left behind.
type attemptResult struct {
	res *openai.ChatCompletion
	// status is the HTTP status, 0 when no response came back.
	status int
	header http.Header
	// body is the start of an error response's body.
	body    []byte
	elapsed time.Duration
	err     error
}

// attempt makes one HTTP request inside a concurrency slot and an attempt
// timeout.
func (c *OpenAIClient) attempt(ctx context.Context, params openai.ChatCompletionNewParams) attemptResult {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return attemptResult{err: ctx.Err()}
	}
	defer func() { <-c.sem }()
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var at attemptResult
	// The SDK turns error bodies it cannot decode into decode errors;
	// the status, headers and body are read here, below it.
	capture := func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(r)
		if res != nil {
			at.status, at.header = res.StatusCode, res.Header
			if res.StatusCode >= 400 && res.Body != nil {
				data, rerr := io.ReadAll(io.LimitReader(res.Body, 64<<10))
				res.Body.Close()
				at.body = data
				res.Body = io.NopCloser(bytes.NewReader(data))
				if rerr != nil {
					return res, rerr
				}
			}
		}
		return res, err
	}
	start := time.Now()
	res, err := c.svc.New(actx, params, option.WithMiddleware(capture))
	at.elapsed = time.Since(start)
	at.res, at.err = res, err
	if at.err == nil && at.status >= 400 {
		at.err = fmt.Errorf("HTTP %d", at.status)
	}
	if at.err == nil && res == nil {
		at.err = errors.New("empty response")
	}
	return at
}

// retryWait returns how long to wait before retry number n+1: the
// server's Retry-After (or Retry-After-Ms) when it sent one, else 2^n
// times the backoff with jitter; both capped at MaxRetryWait.
func (c *OpenAIClient) retryWait(n int, h http.Header, now time.Time) time.Duration {
	if d, ok := retryAfter(h, now); ok {
		return min(d, c.cfg.MaxRetryWait)
	}
	d := c.backoff << min(n, 16)
	if d <= 0 || d > c.cfg.MaxRetryWait {
		d = c.cfg.MaxRetryWait
	}
	if half := int64(d / 2); half > 0 {
		d = time.Duration(half + rand.Int64N(half+1))
	}
	return d
}

// retryAfter returns the wait a response asked for.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f < 1e12 {
			return time.Duration(f * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f < 1e9 {
		return time.Duration(f * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// message returns the server's error message (or the transport error),
// without the API key, capped.
func (c *OpenAIClient) message(at attemptResult) string {
	text := ""
	if len(at.body) > 0 {
		text = serverMessage(at.body)
	}
	if text == "" && at.err != nil && at.status == 0 {
		text = at.err.Error()
	}
	return c.redact(text)
}

// serverMessage extracts the message of an error body in the usual shapes:
// {"error": {"message": …}}, {"error": "…"}, {"message": …}, or plain text.
func serverMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		case v.Detail != nil:
			d, _ := json.Marshal(v.Detail)
			return string(d)
		}
	}
	return string(body)
}

// redact removes the API key from s, collapses whitespace and caps it.
func (c *OpenAIClient) redact(s string) string {
	if c.cfg.APIKey != "" {
		s = strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
	}
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 300 {
		s = string([]rune(s)[:300]) + "..."
	}
	return s
}

// fail builds the error returned to the caller.
func (c *OpenAIClient) fail(resp ChatResponse, status int, msg string, cause error) error {
	if msg == "" && cause != nil {
		msg = c.redact(cause.Error())
	}
	return &LLMError{StatusCode: status, Message: msg, Attempts: resp.Attempts, Elapsed: resp.Elapsed, cause: cause}
}

// transportCause returns the error to keep for Unwrap: transport and
// timeout errors, never API errors (they hold the request headers).
func transportCause(at attemptResult) error {
	if at.status != 0 || at.err == nil {
		return nil
	}
	var apiErr *openai.Error
	if errors.As(at.err, &apiErr) {
		return nil
	}
	return at.err
}

// retryable reports whether a failed attempt is worth repeating.
func retryable(status int, err error) bool {
	switch {
	case status == http.StatusTooManyRequests, status == http.StatusRequestTimeout,
		status == http.StatusConflict, status >= 500:
		return true
	case status != 0:
		return false
	}
	// No response: a transport error or the attempt's own timeout.
	return err != nil
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// chatParams converts a request into the SDK's parameters.
func chatParams(model string, req ChatRequest, structured bool) (openai.ChatCompletionNewParams, error) {
	msgs := req.Sent(structured)
	p := openai.ChatCompletionNewParams{
		Model:       model,
		Messages:    make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs)),
		Temperature: openai.Float(req.Temperature),
	}
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case RoleUser:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case RoleAssistant:
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		default:
			return p, fmt.Errorf("chat completion: message %d has unknown role %q", i, m.Role)
		}
	}
	if req.Seed != nil {
		p.Seed = openai.Int(*req.Seed)
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	if structured {
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   req.Schema.Name,
					Strict: openai.Bool(req.Schema.Strict),
					Schema: req.Schema.Schema,
				},
			},
		}
	}
	return p, nil
}

// redactURL drops any user info from a URL for logging.
func redactURL(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		if at := strings.Index(s[i+3:], "@"); at >= 0 {
			if slash := strings.Index(s[i+3:], "/"); slash < 0 || at < slash {
				return s[:i+3] + "[redacted]@" + s[i+3+at+1:]
			}
		}
	}
	return s
}
