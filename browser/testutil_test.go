package browser

import (
	"fmt"
	"log/slog"
	"os"
	"testing"
)

// testLogger logs warnings and errors to stderr, which go test shows only
// for a failing package or with -v. (Not t.Log: abandoned pages may log
// after their test has ended.)
func testLogger(testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// ptrString shows a nullable value.
func ptrString[T any](p *T) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}
