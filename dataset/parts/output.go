package parts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"time"

	"actionspace/dataset/store"
)

// Output is one writer's partition of a dataset in a store, locked for
// that writer by [OpenOutput]. A second crawl of the same partition is
// refused while the lock is held. Every part the writer publishes is
// published only while the lock holds (see [Output.Check]).
//
// On a directory the lock is the kernel's (flock on
// DIR/_locks/<partition>.lock), held for the writer's life: a writer
// killed in any way releases it at once, so a resume right after a kill
// proceeds. Elsewhere (a bucket, memory) it is a lease: a chain of objects
// under DIR/_locks/<partition>/ (see [AcquireLock]) made with the same
// create-if-absent step as the parts, renewed every third of its TTL; a
// lease whose holder died goes stale after its TTL and is taken over
// (at once by a taker on the holder's machine that sees it is gone).
type Output struct {
	st        store.Store
	cfg       Config
	partition string
	ttl       time.Duration
	log       *slog.Logger
	lock      *Lock        // the lease; nil under an OS lock
	unlock    func() error // releases the OS lock; nil under a lease

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

// osLockExt ends the key of a partition's OS lock file.
const osLockExt = ".lock"

// lockRetry is how often OpenOutput looks again at a lock held by another
// writer while cfg.LockWait lasts.
const lockRetry = time.Second

// OpenOutput takes the lock of partition cfg.Partition of the dataset in
// st for owner (a run and shard, named in the lock and in a refusal). When
// another writer holds it, OpenOutput waits up to cfg.LockWait for it to
// be released or to go stale, then fails with an error that names the
// holder (a *HeldError in its chain). Close releases the lock.
//
// First it checks that st refuses to create an object that exists (see
// ProbeCreateIfAbsent): a store that ignores the condition would let two
// writers both win a lock or a part's key.
func OpenOutput(ctx context.Context, st store.Store, owner string, cfg Config, log *slog.Logger) (*Output, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.Default()
	}
	if err := ProbeCreateIfAbsent(ctx, st); err != nil {
		return nil, err
	}
	ttl := cfg.LockTTL
	if ttl == 0 {
		ttl = DefaultLockTTL
	}
	o := &Output{
		st: st, cfg: cfg, partition: cfg.Partition, ttl: ttl, log: log,
		stop: make(chan struct{}), stopped: make(chan struct{}), lostCh: make(chan struct{}),
	}
	name := lockName(cfg.Partition)
	deadline := time.Now().Add(cfg.LockWait)
	for {
		err := o.tryLock(ctx, owner, name)
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
	if o.unlock != nil {
		close(o.stopped)
		return o, nil
	}
	// A holder killed while it wrote a renewal leaves a leftover (an
	// incomplete upload) beside the lock; now that the lock is ours, and
	// before our own renewals start, nobody else writes there.
	if n, err := st.RemoveTemp(ctx, name+"/"); err != nil {
		log.Warn("leftovers of the partition lock not removed", "lock", name, "err", err)
	} else if n > 0 {
		log.Info("removed leftovers of a killed lock holder", "lock", name, "files", n)
	}
	o.validUntil = o.lock.Info().Expires
	go o.renew()
	return o, nil
}

// tryLock takes the partition's lock once: the OS lock where the store
// has one, else the lease.
func (o *Output) tryLock(ctx context.Context, owner, name string) error {
	locker, ok := o.st.(store.Locker)
	if !ok {
		lock, err := AcquireLock(ctx, o.st, name, LockOptions{Owner: owner, TTL: o.ttl})
		o.lock = lock
		return err
	}
	me := self()
	info := LockInfo{Owner: owner, Host: me.host, PID: me.pid, Boot: me.boot, Start: me.start, Acquired: time.Now()}
	note, err := json.Marshal(info)
	if err != nil {
		return err
	}
	unlock, err := locker.TryLock(name+osLockExt, note)
	var locked *store.LockedError
	if errors.As(err, &locked) {
		held := &HeldError{Name: name}
		_ = json.Unmarshal(locked.Note, &held.Holder) // a note read half-written names nobody
		return held
	}
	o.unlock = unlock
	return err
}

// ProbeCreateIfAbsent checks that st keeps its promise that Create never
// replaces an object: it creates a probe object twice and expects the
// second to be refused. Some S3-compatible servers ignore the
// If-None-Match precondition; on those two writers could both take a lock
// or publish the same part, so such a store is refused here, when a
// dataset is opened for writing, rather than found out by a lost part.
func ProbeCreateIfAbsent(ctx context.Context, st store.Store) error {
	key := fmt.Sprintf("%s/_probe-%d-%d", LocksDir, os.Getpid(), time.Now().UnixNano())
	if err := store.Put(ctx, st, key, []byte("first")); err != nil {
		return fmt.Errorf("probe the store %s: %w", st, err)
	}
	defer st.Delete(context.WithoutCancel(ctx), key)
	err := store.Put(ctx, st, key, []byte("second"))
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil
	case err == nil:
		return fmt.Errorf("the store %s replaced an object that a create-if-absent upload should have left alone: it ignores the If-None-Match: * precondition (or its equivalent), so two writers could both win a lock or a part; use a store that honours it", st)
	default:
		return fmt.Errorf("probe the store %s: %w", st, err)
	}
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
	if o.unlock == nil && time.Until(o.validUntil) < o.ttl/6 {
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
	if o.unlock != nil {
		if err := o.unlock(); err != nil {
			return fmt.Errorf("release the output partition: %w", err)
		}
		return nil
	}
	if err := o.lock.Release(ctx); err != nil {
		return fmt.Errorf("release the output partition: %w", err)
	}
	return nil
}
