package llm

import (
	"bytes"
	"context"
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

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"actionspace/render"
)

// Client is a [render.ChatClient] for OpenAI-compatible chat-completions
// endpoints (OpenAI, vLLM, Ollama, llama.cpp's server…), built on the
// openai-go SDK. The SDK does the HTTP and JSON; this type adds the retry
// policy, the shared concurrency limit and the structured-output fallback.
// It is safe for concurrent use.
type Client struct {
	cfg Config
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

var _ render.ChatClient = (*Client)(nil)

// NewClient returns a client for cfg, with defaults filled in for
// zero fields. It reads no environment variable.
func NewClient(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = DefaultMaxRetries
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.MaxRetryWait == 0 {
		cfg.MaxRetryWait = DefaultMaxRetryWait
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
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
	return &Client{
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
//
// A call that fails after its attempts returns an [*Error], and a response
// whose Attempts and Elapsed say what the call cost, as
// [render.ChatClient] asks; a request it cannot build (no model, a message
// with an unknown role) fails with a plain error and a zero response.
func (c *Client) Complete(ctx context.Context, req render.ChatRequest) (render.ChatResponse, error) {
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return render.ChatResponse{}, errors.New("chat completion: no model given")
	}
	structured := req.Schema != nil && !c.noSchema.Load()
	fellBack := false
	resp := render.ChatResponse{Structured: structured}
	retries := 0
	for {
		params, err := chatParams(model, req, structured)
		if err != nil {
			return render.ChatResponse{}, err
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
				resp.Usage = &render.Usage{PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens}
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
func (c *Client) attempt(ctx context.Context, params openai.ChatCompletionNewParams) attemptResult {
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
func (c *Client) retryWait(n int, h http.Header, now time.Time) time.Duration {
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
func chatParams(model string, req render.ChatRequest, structured bool) (openai.ChatCompletionNewParams, error) {
	msgs := req.Sent(structured)
	p := openai.ChatCompletionNewParams{
		Model:       model,
		Messages:    make([]openai.ChatCompletionMessageParamUnion, 0, len(msgs)),
		Temperature: openai.Float(req.Temperature),
	}
	for i, m := range msgs {
		switch m.Role {
		case render.RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case render.RoleUser:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case render.RoleAssistant:
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
