package parts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"actionspace/dataset/store"
)

// Output is one writer's partition of a dataset in a store, locked for
// that writer: [OpenOutput] takes the partition's lock, a goroutine renews
// it every third of its TTL, and every part the writer publishes is
// published only while the lease holds (see [Output.Check]). A second
// crawl of the same partition is refused while the lock is held, and a
// lock whose holder died goes stale after its TTL and is taken over.
//
// The lock is a chain of objects under DIR/_locks/<partition>/ (see
// store.Store.AcquireLock), made with the same create-if-absent step as
// the parts: it works alike on a directory and in a bucket.
type Output struct {
	st        store.Store
	cfg       Config
	partition string
	ttl       time.Duration
	log       *slog.Logger
	lock      *Lock

	stop, stopped chan struct{}
	lostCh        chan struct{}

	// fault, when set (by tests), is called before every change the
	// output makes to the store, named by op; an error stops the change
	// there, as a kill would.
	fault func(op string) error

	mu         sync.Mutex
	validUntil time.Time // the lease as last renewed
	lost       error     // why the lease is gone; nil while held
	closed     bool
}

// lockName is the lock of partition.
func lockName(partition string) string {
	if partition == "" {
		return LocksDir + "/_unpartitioned"
	}
	return LocksDir + "/" + partition
}

// lockRetry is how often OpenOutput looks again at a lock held by another
// writer while cfg.LockWait lasts.
const lockRetry = time.Second

// OpenOutput takes the lock of partition cfg.Partition of the dataset in
// st for owner (a run and shard, named in the lock and in a refusal). When
// another writer holds it, OpenOutput waits up to cfg.LockWait for it to
// be released or to go stale, then fails with an error that names the
// holder (a *HeldError in its chain). Close releases the lock.
func OpenOutput(ctx context.Context, st store.Store, owner string, cfg Config, log *slog.Logger) (*Output, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	ttl := cfg.LockTTL
	if ttl == 0 {
		ttl = DefaultLockTTL
	}
	name := lockName(cfg.Partition)
	deadline := time.Now().Add(cfg.LockWait)
	var lock *Lock
	for {
		var err error
		lock, err = AcquireLock(ctx, st, name, LockOptions{Owner: owner, TTL: ttl})
		var held *HeldError
		if err == nil {
			break
		}
		if !errors.As(err, &held) || !time.Now().Before(deadline) {
			return nil, fmt.Errorf("lock the output partition: %w", err)
		}
		log.Info("waiting for the partition lock", "lock", name, "holder", held.Holder.Owner, "host", held.Holder.Host, "pid", held.Holder.PID, "expires", held.Holder.Expires)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock the output partition: %w", context.Cause(ctx))
		case <-time.After(min(lockRetry, time.Until(deadline)+time.Millisecond)):
		}
	}
	// A holder killed while it wrote a renewal leaves a temporary file
	// beside the lock; now that the lock is ours, and before our own
	// renewals start, nobody else writes there.
	if n, err := st.RemoveTemp(ctx, name+"/"); err != nil {
		log.Warn("temporary files of the partition lock not removed", "lock", name, "err", err)
	} else if n > 0 {
		log.Info("removed temporary files of a killed lock holder", "lock", name, "files", n)
	}
	o := &Output{
		st: st, cfg: cfg, partition: cfg.Partition, ttl: ttl, log: log, lock: lock,
		stop: make(chan struct{}), stopped: make(chan struct{}), lostCh: make(chan struct{}),
		validUntil: lock.Info().Expires,
	}
	go o.renew()
	return o, nil
}

// Store returns the store of the dataset.
func (o *Output) Store() store.Store { return o.st }

// Partition returns the partition the output writes, "" for none.
func (o *Output) Partition() string { return o.partition }

// renew extends the lease every TTL/3 until Close. A renewal that fails
// for another reason than ErrLockLost is tried again at the next tick;
// the lease is lost when it runs out before one succeeds.
func (o *Output) renew() {
	defer close(o.stopped)
	t := time.NewTicker(o.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-o.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), o.ttl/3)
		err := o.lock.Renew(ctx)
		cancel()
		o.mu.Lock()
		switch {
		case err == nil:
			o.validUntil = o.lock.Info().Expires
		case errors.Is(err, ErrLockLost):
			o.loseLocked(err)
		case !time.Now().Before(o.validUntil):
			o.loseLocked(fmt.Errorf("the lease ran out before a renewal succeeded: %w: %w", ErrLockLost, err))
		default:
			o.log.Warn("partition lock renewal failed; trying again", "error", err)
		}
		lost := o.lost != nil
		o.mu.Unlock()
		if lost {
			return
		}
	}
}

// loseLocked records that the lease is gone; o.mu is held.
func (o *Output) loseLocked(err error) {
	if o.lost == nil {
		o.lost = err
		close(o.lostCh)
		o.log.Error("partition lock lost: stopping", "error", err)
	}
}

// Lost is closed when the lock is lost to another writer (or ran out
// before a renewal): the writer must stop; Check then returns why.
func (o *Output) Lost() <-chan struct{} { return o.lostCh }

// Check returns nil while the lease holds with a margin (a sixth of the
// TTL) left, and an error matching ErrLockLost otherwise: a part is
// published only after Check, so that a writer that lost its lock (or
// stalled past its lease) does not publish into a partition that another
// writer has taken over.
func (o *Output) Check() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.lost != nil {
		return fmt.Errorf("output partition: %w", o.lost)
	}
	if o.closed {
		return errors.New("output partition: closed")
	}
	if time.Until(o.validUntil) < o.ttl/6 {
		o.loseLocked(fmt.Errorf("the lease expires at %s, too soon to publish: %w", o.validUntil.UTC().Format(time.RFC3339), ErrLockLost))
		return fmt.Errorf("output partition: %w", o.lost)
	}
	return nil
}

// step calls the fault seam before a change to the store.
func (o *Output) step(op, key string) error {
	if o.fault == nil {
		return nil
	}
	return o.fault(op + " " + key)
}

// Close stops the renewals and releases the lock, so that the next writer
// of the partition need not wait for it to go stale.
func (o *Output) Close(ctx context.Context) error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.closed = true
	o.mu.Unlock()
	close(o.stop)
	<-o.stopped
	o.mu.Lock()
	lost := o.lost
	o.mu.Unlock()
	if lost != nil {
		return nil // nothing to release
	}
	if err := o.lock.Release(ctx); err != nil {
		return fmt.Errorf("release the output partition: %w", err)
	}
	return nil
}
