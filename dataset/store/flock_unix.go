//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// TryLock implements Locker with flock(2) on the file of key: the lock is
// the kernel's, held while the file stays open, so the death of its
// holder (even by SIGKILL) releases it at once. note is written into the
// file for whoever finds the lock held. Within one process, two TryLocks
// of one key exclude each other as two processes do.
func (s *Dir) TryLock(key string, note []byte) (func() error, error) {
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("lock in %s: %w", s.dir, err)
	}
	p := s.localPath(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, s.fail("lock", key, err)
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, s.fail("lock", key, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			held, _ := os.ReadFile(p)
			return nil, &LockedError{Key: key, Note: held}
		}
		return nil, s.fail("lock", key, err)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt(note, 0)
	}
	if err != nil {
		f.Close()
		return nil, s.fail("lock", key, err)
	}
	return func() error {
		// Closing the file releases the lock; the file stays, so that a
		// taker never locks a file another is about to remove.
		if err := f.Close(); err != nil {
			return s.fail("unlock", key, err)
		}
		return nil
	}, nil
}
