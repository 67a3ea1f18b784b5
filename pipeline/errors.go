package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mxschmitt/playwright-go"
)

// ErrorKind classifies why a page failed. It is the error_kind column of the
// pages table, so its values are stable strings.
type ErrorKind string

// The kinds of page failure.
const (
	// KindTimeout: the attempt ran out of time (its context deadline or a
	// browser-side timeout derived from it).
	KindTimeout ErrorKind = "timeout"
	// KindNavigate: the browser could not fetch the page: DNS failure,
	// connection refused or reset, TLS error (Chromium's net::ERR_*).
	KindNavigate ErrorKind = "navigate"
	// KindHTTP: the main response had status >= 400. The page's row keeps
	// the status.
	KindHTTP ErrorKind = "http"
	// KindContentType: the main response was not HTML (JSON, an image, a
	// download).
	KindContentType ErrorKind = "content_type"
	// KindCapture: the page loaded but settling, the capture script or
	// reading its content failed; also the kind of errors nothing else
	// classifies.
	KindCapture ErrorKind = "capture"
	// KindBrowser: the page's renderer crashed, or the page, its context or
	// the browser closed under it. The page must not be used again.
	KindBrowser ErrorKind = "browser"
	// KindInvalidURL: the URL cannot be crawled as written.
	KindInvalidURL ErrorKind = "invalid_url"
	// KindCanceled: the run was canceled while the page was in progress.
	KindCanceled ErrorKind = "canceled"
)

// PageError is the one error type of a failed page: what kind of failure,
// for which URL, and the underlying cause.
type PageError struct {
	Kind ErrorKind
	URL  string
	Err  error
}

// Error reads like "navigate http://example.test/: net::ERR_NAME_NOT_RESOLVED".
func (e *PageError) Error() string {
	if e.URL == "" {
		return fmt.Sprintf("%s: %v", e.Kind, e.Err)
	}
	return fmt.Sprintf("%s %s: %v", e.Kind, e.URL, e.Err)
}

// Unwrap returns the cause, so errors.Is sees context.DeadlineExceeded and
// the like through a PageError.
func (e *PageError) Unwrap() error { return e.Err }

// Transient reports whether another attempt at the same URL may succeed:
// timeouts, network errors, browser crashes and 5xx responses are
// transient; 4xx responses, non-HTML content, capture failures, invalid
// URLs and cancellation are not.
func (e *PageError) Transient() bool {
	switch e.Kind {
	case KindTimeout, KindNavigate, KindBrowser:
		return true
	case KindHTTP:
		var se *statusError
		return errors.As(e.Err, &se) && se.code >= 500
	}
	return false
}

// ErrorKindOf returns the kind of err: the Kind of a PageError in its chain,
// or the kind its cause suggests (context errors, Playwright timeouts and
// closed targets, Chromium net::ERR_* codes), KindCapture when nothing
// does, and "" for a nil err.
func ErrorKindOf(err error) ErrorKind {
	if err == nil {
		return ""
	}
	var pe *PageError
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return kindOf(err, KindCapture)
}

// statusError is the cause of a KindHTTP error.
type statusError struct {
	code int
	text string
}

func (e *statusError) Error() string {
	if e.text == "" {
		return fmt.Sprintf("HTTP %d", e.code)
	}
	return fmt.Sprintf("HTTP %d %s", e.code, e.text)
}

// kindOf classifies an error from Playwright or a context; fallback is the
// kind of the stage that failed when the error itself says nothing more.
func kindOf(err error, fallback ErrorKind) ErrorKind {
	msg := err.Error()
	switch {
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, playwright.ErrTimeout):
		return KindTimeout
	case errors.Is(err, playwright.ErrTargetClosed), errors.Is(err, errPageBroken),
		strings.Contains(msg, "crashed"), strings.Contains(msg, "has been closed"),
		strings.Contains(msg, "Target closed"), strings.Contains(msg, "browser has disconnected"):
		return KindBrowser
	case strings.Contains(msg, "Download is starting"):
		return KindContentType
	case strings.Contains(msg, "net::ERR_"):
		return KindNavigate
	}
	return fallback
}

// pageError wraps err, from stage ("navigate", "settle", …), as a PageError
// for url. The kind comes from err when it tells (see kindOf), else
// fallback. Playwright's multi-line messages (with their call logs) are cut
// to the first line, keeping the chain.
func pageError(url, stage string, fallback ErrorKind, err error) *PageError {
	var pe *PageError
	if errors.As(err, &pe) {
		return pe
	}
	return &PageError{Kind: kindOf(err, fallback), URL: url, Err: fmt.Errorf("%s: %w", stage, shortError{err})}
}

// shortError shows only the first line of a Playwright error, without the
// "playwright: " prefix, and unwraps to the whole error.
type shortError struct{ err error }

func (e shortError) Error() string {
	msg := e.err.Error()
	msg, _, _ = strings.Cut(msg, "\n")
	for _, p := range []string{"playwright: ", "timeout: ", "target closed: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return strings.TrimSpace(msg)
}

func (e shortError) Unwrap() error { return e.err }
