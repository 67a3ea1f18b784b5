package parts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/dataset/store"
)

// lockGens lists the generation numbers of lock name in s.
func lockGens(t *testing.T, s store.Store, name string) []int64 {
	t.Helper()
	objs, err := (locks{st: s}).lockObjects(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	var gens []int64
	for _, o := range objs {
		gens = append(gens, o.gen)
	}
	return gens
}

// waitUntil sleeps until t, for lock expiry.
func waitUntil(t time.Time) { time.Sleep(time.Until(t) + 10*time.Millisecond) }

func TestLock_AcquireContendRelease(t *testing.T) {
	backends(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		ctx := context.Background()
		s := open(t)
		const name = "_locks/shard=0003"
		if _, ok, err := ReadLock(ctx, s, name); ok || err != nil {
			t.Fatalf("ReadLock of a new lock = %v, %v; want none", ok, err)
		}
		a, err := AcquireLock(ctx, s, name, LockOptions{Owner: "run-a", TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Info(); got.Owner != "run-a" || got.PID == 0 || got.Host == "" || got.Generation != 1 {
			t.Errorf("Info = %+v", got)
		}

		_, err = AcquireLock(ctx, s, name, LockOptions{Owner: "run-b"})
		var held *HeldError
		if !errors.As(err, &held) || held.Holder.Owner != "run-a" {
			t.Fatalf("second AcquireLock = %v, want HeldError by run-a", err)
		}

		before := a.Info().Expires
		time.Sleep(5 * time.Millisecond)
		if err := a.Renew(ctx); err != nil {
			t.Fatal(err)
		}
		if got := a.Info(); !got.Expires.After(before) || got.Generation != 2 {
			t.Errorf("after Renew: %+v, want a later expiry than %v, generation 2", got, before)
		}
		info, ok, err := ReadLock(ctx, s, name)
		if err != nil || !ok || info.Generation != 2 || info.Owner != "run-a" {
			t.Errorf("ReadLock = %+v, %v, %v", info, ok, err)
		}

		if err := a.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Renew(ctx); !errors.Is(err, ErrLockLost) {
			t.Errorf("Renew after Release = %v, want ErrLockLost", err)
		}
		b, err := AcquireLock(ctx, s, name, LockOptions{Owner: "run-b"})
		if err != nil {
			t.Fatalf("AcquireLock after Release: %v", err)
		}
		if got := b.Info().Generation; got != 4 {
			t.Errorf("generation after acquire, renew, release, acquire = %d, want 4", got)
		}
		// Older generations are pruned: the head alone remains.
		if gens := lockGens(t, s, name); !slices.Equal(gens, []int64{4}) {
			t.Errorf("generations = %v; want [4]", gens)
		}
	})
}

func TestLock_StaleTakeover(t *testing.T) {
	backends(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		ctx := context.Background()
		s := open(t)
		const name = "_locks/p"
		a, err := AcquireLock(ctx, s, name, LockOptions{Owner: "killed", TTL: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		waitUntil(a.Info().Expires)

		// Takers of one stale lock race: exactly one wins.
		const takers = 6
		var wg sync.WaitGroup
		locks := make([]*Lock, takers)
		errs := make([]error, takers)
		for i := range takers {
			wg.Go(func() {
				locks[i], errs[i] = AcquireLock(ctx, s, name, LockOptions{Owner: fmt.Sprintf("taker-%d", i), TTL: time.Minute})
			})
		}
		wg.Wait()
		var winner *Lock
		for i, err := range errs {
			var held *HeldError
			switch {
			case err == nil:
				if winner != nil {
					t.Errorf("two takers won: %s and %s", winner.Info().Owner, locks[i].Info().Owner)
				}
				winner = locks[i]
			case !errors.As(err, &held):
				t.Errorf("taker %d: %v, want HeldError", i, err)
			}
		}
		if winner == nil {
			t.Fatalf("no taker won: %v", errs)
		}
		if got := winner.Info().Generation; got != 2 {
			t.Errorf("winner's generation = %d, want 2", got)
		}

		// The stale holder wakes up: it has lost the lock.
		if err := a.Renew(ctx); !errors.Is(err, ErrLockLost) {
			t.Errorf("stale holder's Renew = %v, want ErrLockLost", err)
		}
		info, _, err := ReadLock(ctx, s, name)
		if err != nil || info.Owner != winner.Info().Owner {
			t.Errorf("ReadLock after the stale Renew = %+v, %v; want the winner", info, err)
		}
	})
}

// TestLock_PausedHolderPastPrunedGenerations: a holder paused long enough
// for the new holder to renew twice (pruning the numbers it would write
// next) must still find out that it lost the lock, although its create of
// the next number succeeds.
func TestLock_PausedHolderPastPrunedGenerations(t *testing.T) {
	backends(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		ctx := context.Background()
		s := open(t)
		const name = "_locks/q"
		a, err := AcquireLock(ctx, s, name, LockOptions{Owner: "paused", TTL: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		waitUntil(a.Info().Expires)
		b, err := AcquireLock(ctx, s, name, LockOptions{Owner: "new", TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := b.Renew(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if gens := lockGens(t, s, name); !slices.Equal(gens, []int64{4}) {
			t.Fatalf("generations = %v, want [4]", gens)
		}
		if err := a.Renew(ctx); !errors.Is(err, ErrLockLost) {
			t.Errorf("paused holder's Renew = %v, want ErrLockLost", err)
		}
		if gens := lockGens(t, s, name); !slices.Equal(gens, []int64{4}) {
			t.Errorf("generations after the paused Renew = %v, want [4] (its stray object removed)", gens)
		}
		if err := b.Renew(ctx); err != nil {
			t.Errorf("holder's Renew after the paused one's: %v", err)
		}
	})
}

func TestLock_Options(t *testing.T) {
	s := store.NewMemory(t.Name())
	tests := []struct {
		name string
		opts LockOptions
		want string
	}{
		{"_locks/a", LockOptions{}, "Owner is empty"},
		{"_locks/a", LockOptions{Owner: "x", TTL: -time.Second}, "invalid LockOptions.TTL"},
		{"../a", LockOptions{Owner: "x"}, "invalid key"},
	}
	for _, tt := range tests {
		_, err := AcquireLock(context.Background(), s, tt.name, tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("AcquireLock(%q, %+v) = %v, want %q", tt.name, tt.opts, err, tt.want)
		}
	}
}
