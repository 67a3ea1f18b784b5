package browser

import (
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"
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

// boundTries is how many times fastestWithin tries a timed step at most.
const boundTries = 3

// fastestWithin runs try, which does a step and returns how long it took,
// until one run takes at most bound or boundTries have run, and returns
// the fastest time (a bound of 0 runs it once). A step that does more
// work than it should is over the bound every time; a loaded machine's
// stall of one run is not.
func fastestWithin(bound time.Duration, try func() time.Duration) time.Duration {
	fastest := try()
	for n := 1; bound > 0 && fastest > bound && n < boundTries; n++ {
		fastest = min(fastest, try())
	}
	return fastest
}
