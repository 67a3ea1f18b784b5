package bounded

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCall(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name      string
		limit     time.Duration
		cancel    bool          // cancel ctx before the call
		takes     time.Duration // how long f runs
		err       error
		wantOK    bool
		wantV     int
		wantLater bool // late must see f's result
	}{
		{"returns in time", time.Second, false, 0, nil, true, 7, false},
		{"error in time", time.Second, false, 0, errBoom, true, 7, false},
		{"no limit", 0, false, 10 * time.Millisecond, nil, true, 7, false},
		{"limit passes", 20 * time.Millisecond, false, 200 * time.Millisecond, nil, false, 0, true},
		{"ctx done", 0, true, 200 * time.Millisecond, nil, false, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancel {
				cancel()
			} else {
				defer cancel()
			}
			lateGot := make(chan int, 1)
			v, err, ok := Call(ctx, tt.limit, func() (int, error) {
				time.Sleep(tt.takes)
				return 7, tt.err
			}, func(v int, err error) { lateGot <- v })
			if ok != tt.wantOK || v != tt.wantV {
				t.Fatalf("Call = %d, %v, ok %v; want %d, ok %v", v, err, ok, tt.wantV, tt.wantOK)
			}
			if ok && !errors.Is(err, tt.err) {
				t.Errorf("err = %v, want %v", err, tt.err)
			}
			select {
			case got := <-lateGot:
				if !tt.wantLater {
					t.Errorf("late called with %d after a call that returned in time", got)
				} else if got != 7 {
					t.Errorf("late got %d, want f's 7", got)
				}
			case <-time.After(time.Second):
				if tt.wantLater {
					t.Error("late was never called with the abandoned call's result")
				}
			}
		})
	}
}

func TestClose(t *testing.T) {
	if !Close(time.Second, func() error { return nil }) {
		t.Error("Close of a quick close = false, want true")
	}
	block := make(chan struct{})
	defer close(block)
	start := time.Now()
	if Close(20*time.Millisecond, func() error { <-block; return nil }) {
		t.Error("Close of a close that never returns = true, want false")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close waited %v, want about its 20ms limit", d)
	}
}
