// Package bounded waits for calls that may never return.
//
// A browser that stopped answering can leave any call into it blocked for
// good: launching, connecting, opening or closing a page, loading a URL.
// The crawl must not wait with it. [Call] runs such a call on a goroutine
// of its own, waits a bounded time, and, when it gives up, still collects
// the call's result later so that whatever the call made too late (a page,
// a browser, a connection) can be closed instead of leaking.
package bounded

import (
	"context"
	"time"
)

// Call runs f on a goroutine of its own and returns its results once it
// returns, unless ctx is done first or, when limit > 0, limit passes
// first. Then Call stops waiting and returns ok false with zero results;
// f goes on, and late, if not nil, is called with f's results when f
// returns (on f's goroutine), so that what f made too late can be closed.
// Call never cancels f: pass f a context of its own for that.
func Call[T any](ctx context.Context, limit time.Duration, f func() (T, error), late func(T, error)) (v T, err error, ok bool) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	var expired <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		expired = t.C
	}
	select {
	case r := <-done:
		return r.v, r.err, true
	case <-ctx.Done():
	case <-expired:
	}
	if late != nil {
		go func() {
			r := <-done
			late(r.v, r.err)
		}()
	}
	return v, nil, false
}

// Close calls close and waits for it at most limit; it reports whether
// close returned in time. A dead browser's pages and connections may
// never answer a close: this is how to let go of them.
func Close(limit time.Duration, close func() error) bool {
	_, _, ok := Call(context.Background(), limit, func() (struct{}, error) { return struct{}{}, close() }, nil)
	return ok
}
