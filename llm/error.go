package llm

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"

	"actionspace/render"
)

// Error is a chat-completion call that failed after its retries; the
// response returned with it carries the same Attempts and Elapsed. Its
// message never holds the API key.
type Error struct {
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

// Error says how many attempts were made, the last HTTP status and the
// server's message, e.g. "chat completion failed after 4 attempts: HTTP
// 502 Bad Gateway: upstream down".
func (e *Error) Error() string {
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
func (e *Error) Unwrap() error { return e.cause }

// message returns the server's error message (or the transport error),
// without the API key, capped.
func (c *Client) message(at attemptResult) string {
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
func (c *Client) redact(s string) string {
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
func (c *Client) fail(resp render.ChatResponse, status int, msg string, cause error) error {
	if msg == "" && cause != nil {
		msg = c.redact(cause.Error())
	}
	return &Error{StatusCode: status, Message: msg, Attempts: resp.Attempts, Elapsed: resp.Elapsed, cause: cause}
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
