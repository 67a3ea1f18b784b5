package render

import (
	"context"
	"encoding/json"
	"time"
)

// This file is the contract between the deep renderer and an LLM client:
// the request it builds (which is also its cache key, so the JSON names of
// ChatRequest must not change), the reply it reads, and the interface.

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

// ChatResponse is the reply to a ChatRequest. When Complete fails, only
// Attempts and Elapsed are meaningful (see [ChatClient]).
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
// failures itself. It must be safe for concurrent use.
//
// A call that fails after making requests returns, with its error, a
// ChatResponse whose Attempts (> 0) and Elapsed (which may be zero) say
// what it cost; the renderer counts exactly that. With Attempts 0 the
// renderer counts one call and the wall time, as for a success that does
// not say.
//
// The deep renderer owns this interface and the value types above; the
// HTTP client for OpenAI-compatible servers that implements it is
// [actionspace/llm.Client], in its own package so that render links no
// HTTP SDK.
type ChatClient interface {
	Complete(ctx context.Context, req ChatRequest) (ChatResponse, error)
}
