// Package soaktest gates the tests that take minutes: soaks (a crawl of
// thousands of URLs to show that memory stays flat) and timing runs (the
// capture of the largest generated pages, repeated). They run only when
// ACTIONSPACE_SOAK=1, which `make soak` sets; `make test` leaves them out,
// and each says so in its skip message, so that a skipped soak is never
// mistaken for a passed one.
//
// A soak test's name contains "Soak" (TestSoak_…), so that `make soak`
// selects them all with -run Soak.
package soaktest

import (
	"os"
	"testing"
)

// Env is the variable that lets the soak tests run.
const Env = "ACTIONSPACE_SOAK"

// Enabled reports whether the soak tests are to run.
func Enabled() bool { return os.Getenv(Env) == "1" }

// Require skips the calling test unless ACTIONSPACE_SOAK=1, saying what it
// would have measured (what) and how to run it.
func Require(tb testing.TB, what string) {
	tb.Helper()
	if !Enabled() {
		tb.Skipf("soak test skipped (%s): it takes minutes; run make soak, or set %s=1", what, Env)
	}
}
