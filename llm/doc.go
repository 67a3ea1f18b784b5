// Package llm is the HTTP client of deep mode: a [render.ChatClient] for
// any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
// llama.cpp's server…), built on the openai-go SDK.
//
// The model: the deep renderer (package render) owns the conversation. It
// builds a [render.ChatRequest] — the messages with a JSON schema for
// structured output, and a tagged-text variant of the same messages for a
// server without it — and reads a [render.ChatResponse]. This package only
// moves one such request over HTTP and says what that cost. One
// [Client.Complete] call is one logical completion, made of one or more
// HTTP attempts:
//
//   - every attempt waits for a slot of one concurrency limit
//     (Config.Concurrency) for all goroutines using the Client, and runs
//     under its own timeout (Config.Timeout);
//   - 429, 408, 409, 5xx, transport errors and attempt timeouts are retried
//     up to Config.MaxRetries times, after the server's Retry-After (or
//     Retry-After-Ms) or an exponential backoff with jitter, both capped at
//     Config.MaxRetryWait; no slot is held while waiting;
//   - a 400 or 422 to a request with a schema is answered by sending the
//     request's tagged-text variant (FallbackMessages) once, without
//     response_format; once that works, the Client sends no schema for the
//     rest of its life;
//   - the response says how many attempts were made and how long the HTTP
//     exchanges took, on success and on failure ([Error]), so that the
//     renderer's accounting matches the server's log.
//
// The API key comes from the caller (the commands read it from the
// environment; this package reads no environment variable). It is sent as
// a bearer token, never logged, and removed from every error message;
// errors do not keep the SDK's error, which holds the request headers.
//
// render imports no HTTP SDK: it depends on the interface, this package on
// render. `go list -deps ./render` lists no openai-go.
package llm
