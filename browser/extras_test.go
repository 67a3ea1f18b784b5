package browser

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTakeExtra: a record that does not come within its share of the
// load's time gets one more try within the load's limit; one that fails
// otherwise does not, and a second late try is reported late.
func TestTakeExtra(t *testing.T) {
	errBroken := errors.New("broken")
	tests := []struct {
		name      string
		last      bool
		slowTries int   // tries that outlast their limit (hanging on)
		fail      error // what every other try returns
		wantTries int32
		wantErr   bool
		wantLate  bool
	}{
		{"first try in time", false, 0, nil, 1, false, false},
		{"late once, then in time", false, 1, nil, 2, false, false},
		{"late once, last record", true, 1, nil, 2, false, false},
		{"late twice", false, 2, nil, 2, true, true},
		{"fails at once: no retry", false, 0, errBroken, 1, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			// A slow try hangs until the test ends, ignoring its context,
			// as a stuck browser call does. (One that answered soon after
			// its limit could be taken in time by a caller scheduled late
			// on a loaded machine, and the test would measure the
			// scheduler.)
			stuck := make(chan struct{})
			defer close(stuck)
			var tries atomic.Int32
			_, err, late := takeExtra(ctx, "record", tt.last, func(tctx context.Context, limit time.Duration) (int, error) {
				if int(tries.Add(1)) <= tt.slowTries {
					<-stuck
					return 0, nil
				}
				return 1, tt.fail
			})
			if got := tries.Load(); got != tt.wantTries || (err != nil) != tt.wantErr || late != tt.wantLate {
				t.Errorf("%d tries, error %v, late %v; want %d tries, error %v, late %v", got, err, late, tt.wantTries, tt.wantErr, tt.wantLate)
			}
			if ctx.Err() != nil {
				t.Errorf("the tries outlasted the load's limit")
			}
		})
	}
}

// TestAtOnce: the extras' takers run at the same time: two that each
// wait take about as long as one, and both have run when atOnce returns.
func TestAtOnce(t *testing.T) {
	t.Parallel()
	const wait = 300 * time.Millisecond
	var ran atomic.Int32
	take := func() {
		time.Sleep(wait)
		ran.Add(1)
	}
	start := time.Now()
	atOnce(take, take)
	if elapsed := time.Since(start); elapsed >= 2*wait {
		t.Errorf("two takers of %v took %v together, want less than %v: at once", wait, elapsed, 2*wait)
	}
	if ran.Load() != 2 {
		t.Errorf("%d takers ran, want 2", ran.Load())
	}
}

// TestRawRecord: a raw record returns what it took, and is given up when
// the load's context ends, as the crawl's records are.
func TestRawRecord(t *testing.T) {
	t.Parallel()
	var took time.Duration
	failed := errors.New("no tree")
	if err := rawRecord(context.Background(), "tree", &took, func() (any, error) { return nil, failed }); !errors.Is(err, failed) {
		t.Errorf("rawRecord = %v, want the call's error", err)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	never := make(chan struct{})
	defer close(never)
	err := rawRecord(ctx, "AI snapshot", &took, func() (any, error) { <-never; return nil, nil })
	if waited := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "AI snapshot") || waited < 20*time.Millisecond || waited > 5*time.Second || took <= 0 || took > waited {
		t.Errorf("a call that never answers: %v after %v (timed %v); want the deadline, named, after about 20ms", err, waited, took)
	}
}
