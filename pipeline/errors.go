package pipeline

import (
	"context"
	"errors"
	"fmt"

	"actionspace/dataset"
	"actionspace/dataset/parts"
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
	// KindBlocked: the network policy refused the page's URL, or where
	// its navigation led (a redirect to a link-local, metadata or, from a
	// public page, private address; see NetworkConfig).
	KindBlocked ErrorKind = "blocked"
	// KindCanceled: the run was canceled while the page was in progress.
	// It never reaches the dataset: a page the run stopped gets no row, so
	// that a resume crawls it (see Run).
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
// URLs, blocked addresses and cancellation are not.
func (e *PageError) Transient() bool {
	code := 0
	var se *StatusError
	if errors.As(e.Err, &se) {
		code = se.Code
	}
	return transient(e.Kind, code)
}

// transient is the one rule of what failures another attempt may cure:
// kind, and for KindHTTP the status code.
func transient(kind ErrorKind, status int) bool {
	switch kind {
	case KindTimeout, KindNavigate, KindBrowser:
		return true
	case KindHTTP:
		return status >= 500
	}
	return false
}

// TransientRow reports whether a stored pages row failed transiently, by
// the rule of PageError.Transient applied to its error_kind and
// http_status: the rows a resume crawls again.
func TransientRow(p parts.PageOutcome) bool {
	status := 0
	if p.HTTPStatus != nil {
		status = int(*p.HTTPStatus)
	}
	return p.Status == dataset.StatusError && transient(ErrorKind(p.ErrorKind), status)
}

// ErrorKindOf returns the kind of err: the Kind of a PageError in its
// chain, KindCanceled or KindTimeout for a context's error, KindCapture
// when nothing tells, and "" for a nil err. (The browser adapter
// classifies the browser's own errors into PageErrors.)
func ErrorKindOf(err error) ErrorKind {
	var pe *PageError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &pe):
		return pe.Kind
	case errors.Is(err, context.Canceled):
		return KindCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	}
	return KindCapture
}

// StatusError is the cause of a KindHTTP error: the main response's status.
type StatusError struct {
	Code int
	Text string
}

func (e *StatusError) Error() string {
	if e.Text == "" {
		return fmt.Sprintf("HTTP %d", e.Code)
	}
	return fmt.Sprintf("HTTP %d %s", e.Code, e.Text)
}
