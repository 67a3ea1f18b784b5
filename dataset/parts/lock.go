package parts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"

	"actionspace/dataset/store"
)

// The lock protocol. A lock NAME is a chain of generation objects
//
//	NAME/00000000000000000001.json, NAME/00000000000000000002.json, …
//
// each holding a [LockInfo] (owner, host, pid, expiry, released). The
// highest generation present is the lock's state; lower ones are history,
// pruned by whoever writes a higher one. Every change of state — acquire,
// renew, take over a stale lock, release — is one step: create generation
// head+1 with the same create-if-absent as the data (If-None-Match: * on
// S3, DoesNotExist on GCS, link(2) on a directory), then list again and
// check that it is the head.
//
// The rule against two winners: a generation number is created at most once
// while it exists, so of all the processes that saw head N (a stale or
// released lock, or their own) and try N+1, exactly one succeeds; the
// others get fs.ErrExist and lose. Because pruning deletes old numbers, a
// process that saw an old head much later may re-create a pruned number
// below the head; the check after the create catches that (a higher
// generation exists), and that process deletes its stray object and loses.
// Only the conditional create is needed, which every backend honours; no
// conditional overwrite or delete is.
//
// A lock is stale when the head's Expires has passed by the clock of the
// process that looks, so clocks must agree to well within the TTL. A holder
// renews every TTL/3 or so; a holder whose Renew fails with [ErrLockLost]
// (or that cannot renew before Expires) must stop writing. A holder paused
// past its expiry can still publish a part before it notices, but parts
// are created, never overwritten, so the worst case is pages crawled twice,
// never a lost or torn file.

// DefaultLockTTL is how long a lock lasts without renewal.
const DefaultLockTTL = 2 * time.Minute

// maxLockTries bounds the rounds of AcquireLock against other takers.
const maxLockTries = 8

// genDigits is the width of a generation number in its key, so that keys
// sort as numbers do.
const genDigits = 20

// LockInfo is the content of one generation of a lock.
type LockInfo struct {
	// Owner names the holder, such as a run and shard.
	Owner string `json:"owner"`
	// Host and PID are where the holder runs.
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// Boot is the boot ID of the holder's machine and Start when its
	// process started (clock ticks since boot), where the system tells
	// them: a taker on the same machine whose holder is gone takes the
	// lock at once instead of waiting for it to expire.
	Boot  string `json:"boot,omitempty"`
	Start string `json:"start,omitempty"`
	// Generation is the number of this state in the lock's chain.
	Generation int64 `json:"generation"`
	// Acquired is when the holder took the lock; Renewed when it last
	// renewed it.
	Acquired time.Time `json:"acquired"`
	Renewed  time.Time `json:"renewed"`
	// Expires is when the lock goes stale unless renewed.
	Expires time.Time `json:"expires"`
	// Released says the holder let go: anyone may take the lock.
	Released bool `json:"released,omitempty"`
}

// LockOptions says who takes a lock and for how long.
type LockOptions struct {
	// Owner names the holder in the lock object and in HeldError; it is
	// required.
	Owner string
	// TTL is how long the lock lasts without a renewal. 0 means
	// DefaultLockTTL.
	TTL time.Duration

	// now is the clock of the lock protocol; nil means time.Now (tests
	// set it).
	now func() time.Time
}

// HeldError is AcquireLock's refusal: another holder has the lock and it has
// not expired.
type HeldError struct {
	Name   string
	Holder LockInfo
}

func (e *HeldError) Error() string {
	h := e.Holder
	if h.Expires.IsZero() {
		return fmt.Sprintf("lock %s is held by %s on %s (pid %d) for as long as it runs", e.Name, h.Owner, h.Host, h.PID)
	}
	return fmt.Sprintf("lock %s is held by %s on %s (pid %d) until %s", e.Name, h.Owner, h.Host, h.PID, h.Expires.UTC().Format(time.RFC3339))
}

// ErrLockLost is returned by Renew and Release when another process took
// the lock (after it went stale): the caller must stop writing.
var ErrLockLost = errors.New("lock lost to another holder")

// Lock is a lock this process holds. Its methods are safe for concurrent
// use.
type Lock struct {
	s    locks
	name string
	ttl  time.Duration

	mu   sync.Mutex
	info LockInfo
	lost bool
}

// locks takes and reads the locks of a store by a clock.
type locks struct {
	st  store.Store
	now func() time.Time
}

// where names lock name for messages.
func (s locks) where(name string) string { return s.st.String() + name }

// AcquireLock takes the lock name (a key, such as "_locks/shard=0003"): it
// succeeds when the lock is free, released or stale, and returns a
// *HeldError while another holder's lease runs.
func AcquireLock(ctx context.Context, st store.Store, name string, opts LockOptions) (*Lock, error) {
	s := locks{st: st, now: opts.now}
	if s.now == nil {
		s.now = time.Now
	}
	if err := store.CheckKey(name); err != nil {
		return nil, fmt.Errorf("acquire lock in %s: %w", st, err)
	}
	if opts.Owner == "" {
		return nil, fmt.Errorf("acquire lock %s: LockOptions.Owner is empty", s.where(name))
	}
	if opts.TTL < 0 {
		return nil, fmt.Errorf("acquire lock %s: invalid LockOptions.TTL %v", s.where(name), opts.TTL)
	}
	if opts.TTL == 0 {
		opts.TTL = DefaultLockTTL
	}
	me := self()
	for range maxLockTries {
		head, ok, err := s.lockHead(ctx, name)
		if err != nil {
			return nil, err
		}
		var gen int64
		if ok {
			if errors.Is(head.err, fs.ErrNotExist) {
				continue // pruned while we looked: look again
			}
			if head.err != nil {
				return nil, head.err
			}
			if !head.info.Released && s.now().Before(head.info.Expires) && !me.gone(head.info) {
				return nil, &HeldError{Name: name, Holder: head.info}
			}
			gen = head.info.Generation
		}
		now := s.now()
		info := LockInfo{
			Owner: opts.Owner, Host: me.host, PID: me.pid, Boot: me.boot, Start: me.start,
			Generation: gen + 1, Acquired: now, Renewed: now, Expires: now.Add(opts.TTL),
		}
		written, err := s.advanceLock(ctx, name, info)
		if errors.Is(err, ErrLockLost) {
			continue // another taker won this generation
		}
		if err != nil {
			return nil, err
		}
		l := &Lock{s: s, name: name, ttl: opts.TTL, info: info}
		if err := checkSkew(now, s.now(), written, opts.TTL); err != nil {
			_ = l.Release(ctx)
			return nil, fmt.Errorf("acquire lock %s: %w", s.where(name), err)
		}
		return l, nil
	}
	return nil, fmt.Errorf("acquire lock %s: still contended after %d tries", s.where(name), maxLockTries)
}

// ReadLock returns the current state of the lock name, and false when it
// was never taken.
func ReadLock(ctx context.Context, st store.Store, name string) (LockInfo, bool, error) {
	s := locks{st: st, now: time.Now}
	if err := store.CheckKey(name); err != nil {
		return LockInfo{}, false, fmt.Errorf("read lock in %s: %w", st, err)
	}
	for range maxLockTries {
		head, ok, err := s.lockHead(ctx, name)
		if err != nil || !ok {
			return LockInfo{}, false, err
		}
		if !errors.Is(head.err, fs.ErrNotExist) {
			return head.info, true, head.err
		}
	}
	return LockInfo{}, false, fmt.Errorf("read lock %s: still changing after %d tries", s.where(name), maxLockTries)
}

// Info returns the state this process last wrote.
func (l *Lock) Info() LockInfo {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.info
}

// Renew extends the lock by its TTL from now. It returns an error matching
// ErrLockLost when another process took the lock.
func (l *Lock) Renew(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost {
		return fmt.Errorf("renew lock %s: %w", l.s.where(l.name), ErrLockLost)
	}
	next := l.info
	next.Generation++
	next.Renewed = l.s.now()
	next.Expires = next.Renewed.Add(l.ttl)
	if _, err := l.s.advanceLock(ctx, l.name, next); err != nil {
		l.lost = errors.Is(err, ErrLockLost)
		return err
	}
	l.info = next
	return nil
}

// Release lets the lock go, so that the next AcquireLock succeeds at once.
// It returns an error matching ErrLockLost when another process had taken
// the lock.
func (l *Lock) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost {
		return fmt.Errorf("release lock %s: %w", l.s.where(l.name), ErrLockLost)
	}
	next := l.info
	next.Generation++
	next.Renewed = l.s.now()
	next.Expires = next.Renewed
	next.Released = true
	if _, err := l.s.advanceLock(ctx, l.name, next); err != nil {
		l.lost = errors.Is(err, ErrLockLost)
		return err
	}
	l.info = next
	l.lost = true // released: no more renewals
	return nil
}

// lockGen is a lock's head: its generation's content, or why it could not
// be read.
type lockGen struct {
	gen  int64
	info LockInfo
	err  error
}

// lockKey is the key of generation gen of lock name.
func lockKey(name string, gen int64) string {
	return fmt.Sprintf("%s/%0*d.json", name, genDigits, gen)
}

// lockObject is one generation object of a lock.
type lockObject struct {
	gen int64
	mod time.Time // by the store's clock
}

// lockObjects lists the generations of lock name, in increasing order.
func (s locks) lockObjects(ctx context.Context, name string) ([]lockObject, error) {
	objs, err := s.st.List(ctx, name+"/")
	if err != nil {
		return nil, err
	}
	var gens []lockObject
	for _, o := range objs {
		base, ok := strings.CutPrefix(o.Key, name+"/")
		digits, isGen := strings.CutSuffix(base, ".json")
		if !ok || !isGen || len(digits) != genDigits {
			continue
		}
		g, err := strconv.ParseInt(digits, 10, 64)
		if err == nil && g > 0 {
			gens = append(gens, lockObject{gen: g, mod: o.ModTime})
		}
	}
	return gens, nil
}

// lockHead reads the highest generation of lock name; false when there is
// none. A head pruned between the list and the read has an error matching
// fs.ErrNotExist.
func (s locks) lockHead(ctx context.Context, name string) (lockGen, bool, error) {
	gens, err := s.lockObjects(ctx, name)
	if err != nil || len(gens) == 0 {
		return lockGen{}, false, err
	}
	head := lockGen{gen: gens[len(gens)-1].gen}
	b, err := store.ReadAll(ctx, s.st, lockKey(name, head.gen))
	if err != nil {
		head.err = err
		return head, true, nil
	}
	if err := json.Unmarshal(b, &head.info); err != nil || head.info.Generation != head.gen {
		head.err = fmt.Errorf("lock %s: generation %d is not a lock object", s.where(name), head.gen)
	}
	return head, true, nil
}

// advanceLock writes info as the next generation of lock name: it creates
// the object if absent, checks that no higher generation exists, and prunes
// the lower ones. It returns an error matching ErrLockLost when another
// process made that generation (or a higher one) first.
func (s locks) advanceLock(ctx context.Context, name string, info LockInfo) (time.Time, error) {
	b, err := json.Marshal(info)
	if err != nil {
		return time.Time{}, fmt.Errorf("lock %s: %w", s.where(name), err)
	}
	key := lockKey(name, info.Generation)
	if err := store.Put(ctx, s.st, key, b); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return time.Time{}, fmt.Errorf("lock %s generation %d: %w", s.where(name), info.Generation, ErrLockLost)
		}
		return time.Time{}, err
	}
	gens, err := s.lockObjects(ctx, name)
	if err != nil {
		return time.Time{}, err
	}
	if len(gens) == 0 {
		return time.Time{}, fmt.Errorf("lock %s generation %d vanished: %w", s.where(name), info.Generation, ErrLockLost)
	}
	top := gens[len(gens)-1]
	if top.gen != info.Generation {
		// We re-created a pruned number below the head: not ours.
		if err := s.st.Delete(ctx, key); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return time.Time{}, err
		}
		return time.Time{}, fmt.Errorf("lock %s generation %d is behind %d: %w", s.where(name), info.Generation, top.gen, ErrLockLost)
	}
	for _, g := range gens[:len(gens)-1] {
		// Best effort: a failed prune leaves history, never a wrong head.
		_ = s.st.Delete(ctx, lockKey(name, g.gen))
	}
	return top.mod, nil
}

// storeTimeResolution is how coarse a store's modification times may be:
// S3 gives them to the second.
const storeTimeResolution = time.Second

// checkSkew compares this process's clock with the store's: written is
// the store's modification time of an object this process wrote between
// its times before and after. A lease's expiry is judged by the clocks of
// the processes that look at it, so they must agree with the store's to
// well within the TTL: more than TTL/6 apart (beyond the store's time
// resolution) is refused.
func checkSkew(before, after, written time.Time, ttl time.Duration) error {
	limit := ttl/6 + storeTimeResolution
	switch {
	case written.IsZero():
		return nil // the store keeps no times
	case written.Before(before.Add(-limit)):
		return fmt.Errorf("this machine's clock is %v ahead of the store's, more than a sixth of the lock TTL (%v) allows: fix the clock", before.Sub(written).Round(time.Second), ttl)
	case written.After(after.Add(limit)):
		return fmt.Errorf("this machine's clock is %v behind the store's, more than a sixth of the lock TTL (%v) allows: fix the clock", written.Sub(after).Round(time.Second), ttl)
	}
	return nil
}
