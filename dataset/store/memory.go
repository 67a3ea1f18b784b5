package store

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"
)

// Memory is a Store in memory, for tests and for tools that build a
// dataset to read it back at once. It keeps the promises of every Store:
// an object appears whole on Close, Create never replaces one, Rename
// refuses a taken key. Its objects are gone when it is.
type Memory struct {
	name string

	mu   sync.Mutex
	objs map[string]memObject
}

var _ Store = (*Memory)(nil)

// memObject is one object of a Memory store.
type memObject struct {
	data []byte
	mod  time.Time
}

// NewMemory returns an empty Memory store named name in messages.
func NewMemory(name string) *Memory {
	return &Memory{name: "mem://" + name + "/", objs: make(map[string]memObject)}
}

// String returns mem://name/.
func (m *Memory) String() string { return m.name }

// Close does nothing: the objects stay readable.
func (m *Memory) Close() error { return nil }

func (m *Memory) fail(op, key string, err error) error {
	return fmt.Errorf("%s %s%s: %w", op, m.name, key, err)
}

// List implements Store.
func (m *Memory) List(ctx context.Context, prefix string) ([]Object, error) {
	if err := CheckPrefix(prefix); err != nil {
		return nil, fmt.Errorf("list %s: %w", m.name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, m.fail("list", prefix, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var objs []Object
	for k, o := range m.objs {
		if strings.HasPrefix(k, prefix) {
			objs = append(objs, Object{Key: k, Size: int64(len(o.data)), ModTime: o.mod})
		}
	}
	SortObjects(objs)
	return objs, nil
}

// OpenReader implements Store. The Reader reads the object as it was when
// opened.
func (m *Memory) OpenReader(ctx context.Context, key string) (Reader, error) {
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("open %s: %w", m.name, err)
	}
	m.mu.Lock()
	o, ok := m.objs[key]
	m.mu.Unlock()
	if !ok {
		return nil, m.fail("open", key, fs.ErrNotExist)
	}
	return NewReader(key, int64(len(o.data)), bytes.NewReader(o.data), nil), nil
}

// Create implements Store.
func (m *Memory) Create(ctx context.Context, key string) (Writer, error) {
	return m.create(ctx, key, false)
}

// Replace implements Store.
func (m *Memory) Replace(ctx context.Context, key string) (Writer, error) {
	return m.create(ctx, key, true)
}

func (m *Memory) create(ctx context.Context, key string, replace bool) (Writer, error) {
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("create in %s: %w", m.name, err)
	}
	return NewWriter(key, &memSink{ctx: ctx, m: m, key: key, replace: replace}, m.fail), nil
}

// memSink buffers an object until Commit.
type memSink struct {
	ctx     context.Context
	m       *Memory
	key     string
	replace bool
	buf     bytes.Buffer
}

func (s *memSink) Write(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		return 0, err
	}
	return s.buf.Write(p)
}

func (s *memSink) Commit() error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	if _, ok := s.m.objs[s.key]; ok && !s.replace {
		return fmt.Errorf("%w (another writer published it first)", fs.ErrExist)
	}
	s.m.objs[s.key] = memObject{data: bytes.Clone(s.buf.Bytes()), mod: time.Now()}
	return nil
}

func (s *memSink) Abort() error {
	s.buf = bytes.Buffer{}
	return nil
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, key string) error {
	if err := CheckKey(key); err != nil {
		return fmt.Errorf("delete in %s: %w", m.name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objs[key]; !ok {
		return m.fail("delete", key, fs.ErrNotExist)
	}
	delete(m.objs, key)
	return nil
}

// Exists implements Store.
func (m *Memory) Exists(ctx context.Context, key string) (bool, error) {
	if err := CheckKey(key); err != nil {
		return false, fmt.Errorf("look up in %s: %w", m.name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.objs[key]
	return ok, nil
}

// Rename implements Store, atomically.
func (m *Memory) Rename(ctx context.Context, from, to string) error {
	for _, k := range []string{from, to} {
		if err := CheckKey(k); err != nil {
			return fmt.Errorf("rename in %s: %w", m.name, err)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objs[from]
	switch _, taken := m.objs[to]; {
	case !ok:
		return m.fail("rename "+from+" to", to, fs.ErrNotExist)
	case taken:
		return m.fail("rename "+from+" to", to, fmt.Errorf("%w (the target exists)", fs.ErrExist))
	}
	m.objs[to] = o
	delete(m.objs, from)
	return nil
}

// RemoveTemp implements Store: an unfinished object of memory leaves
// nothing behind.
func (m *Memory) RemoveTemp(ctx context.Context, prefix string) (int, error) {
	if err := CheckPrefix(prefix); err != nil {
		return 0, fmt.Errorf("remove leftovers in %s: %w", m.name, err)
	}
	return 0, nil
}
