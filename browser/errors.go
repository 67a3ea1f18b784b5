package browser

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mxschmitt/playwright-go"

	"actionspace/pipeline"
)

// errPageBroken marks a page that must not load another URL: its renderer
// crashed, it was closed, or a load had to be abandoned.
var errPageBroken = errors.New("page is no longer usable")

// kindOf classifies an error from Playwright or a context; fallback is the
// kind of the stage that failed when the error itself says nothing more.
// Playwright tells some failures only in its message text.
func kindOf(err error, fallback pipeline.ErrorKind) pipeline.ErrorKind {
	msg := err.Error()
	switch {
	case errors.Is(err, context.Canceled):
		return pipeline.KindCanceled
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, playwright.ErrTimeout):
		return pipeline.KindTimeout
	case errors.Is(err, playwright.ErrTargetClosed), errors.Is(err, errPageBroken),
		strings.Contains(msg, "crashed"), strings.Contains(msg, "has been closed"),
		strings.Contains(msg, "Target closed"), strings.Contains(msg, "browser has disconnected"),
		// The driver's connection (or a remote browser server's) went
		// away under a call: the browser is lost, not the page's capture.
		strings.Contains(msg, "Connection closed"):
		return pipeline.KindBrowser
	case strings.Contains(msg, "Download is starting"):
		return pipeline.KindContentType
	case strings.Contains(msg, "net::ERR_"):
		return pipeline.KindNavigate
	}
	return fallback
}

// pageError wraps err, from stage ("navigate", "settle", …), as a PageError
// for url. The kind comes from err when it tells (see kindOf), else
// fallback. Playwright's multi-line messages (with their call logs) are cut
// to the first line, keeping the chain.
func pageError(url, stage string, fallback pipeline.ErrorKind, err error) *pipeline.PageError {
	var pe *pipeline.PageError
	if errors.As(err, &pe) {
		return pe
	}
	return &pipeline.PageError{Kind: kindOf(err, fallback), URL: url, Err: fmt.Errorf("%s: %w", stage, shortError{err})}
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

// worldGone reports whether err says the isolated world's document went
// away (the page navigated).
func worldGone(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}
