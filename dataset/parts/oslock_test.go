package parts

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"actionspace/dataset/store"
)

// holdLockEnv makes the test binary a lock holder: it takes the lock of the
// dataset directory the variable names, says "locked", and sleeps until it
// is killed.
const holdLockEnv = "PARTS_TEST_HOLD_LOCK"

// holdLock is the lock holder's main.
func holdLock(dir string) {
	st, err := store.OpenDir(dir)
	if err == nil {
		_, err = OpenOutput(context.Background(), st, "the killed crawl", Config{}, quiet())
	}
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
	os.Exit(2)
}

// TestOutput_KilledHolderReleasesDirLock: on a directory, a writer killed
// with SIGKILL leaves no lock behind: the next OpenOutput (a --resume
// right after the kill) takes the partition at once, where a lease would
// block it for its TTL.
func TestOutput_KilledHolderReleasesDirLock(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdLockEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("holder: %q, %v", line, err)
	}
	st, err := store.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenOutput(context.Background(), st, "second", Config{}, quiet())
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.Owner != "the killed crawl" || held.Holder.PID != cmd.Process.Pid {
		t.Fatalf("OpenOutput while the holder runs = %v, want HeldError naming it (pid %d)", err, cmd.Process.Pid)
	}
	if !strings.Contains(err.Error(), "for as long as it runs") {
		t.Errorf("refusal %q does not say the lock lasts as long as its holder", err)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no clean-up
		t.Fatal(err)
	}
	cmd.Wait()
	start := time.Now()
	o, err := OpenOutput(context.Background(), st, "resume", Config{}, quiet())
	if err != nil {
		t.Fatalf("OpenOutput right after the holder was killed: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("OpenOutput took %v after the kill, want at once", took)
	}
	if err := o.Check(); err != nil {
		t.Errorf("Check under the OS lock: %v", err)
	}
	if err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Released: the next writer takes it too.
	o, err = OpenOutput(context.Background(), st, "third", Config{}, quiet())
	if err != nil {
		t.Fatalf("OpenOutput after Close: %v", err)
	}
	o.Close(context.Background())
}

// TestAcquireLock_HolderGoneOnThisMachine: a lease whose holder ran on this
// machine and is gone is taken over at once; one whose holder runs, or
// ran on another machine, holds until it expires.
func TestAcquireLock_HolderGoneOnThisMachine(t *testing.T) {
	me := self()
	if me.boot == "" || me.start == "" {
		t.Skip("this system does not tell boot IDs and process start times")
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := time.Now()
	tests := []struct {
		name   string
		holder LockInfo
		taken  bool
	}{
		{"dead pid here", LockInfo{Host: me.host, Boot: me.boot, PID: dead.Process.Pid, Start: "1"}, true},
		{"pid reused here", LockInfo{Host: me.host, Boot: me.boot, PID: me.pid, Start: me.start + "0"}, true},
		{"alive here", LockInfo{Host: me.host, Boot: me.boot, PID: me.pid, Start: me.start}, false},
		{"another machine", LockInfo{Host: me.host + "-other", Boot: "b", PID: dead.Process.Pid, Start: "1"}, false},
		{"here before a reboot", LockInfo{Host: me.host, Boot: me.boot + "x", PID: dead.Process.Pid, Start: "1"}, false},
		{"no start time", LockInfo{Host: me.host, Boot: me.boot, PID: dead.Process.Pid}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory(t.Name())
			h := tt.holder
			h.Owner, h.Generation, h.Acquired, h.Renewed, h.Expires = "holder", 1, now, now, now.Add(time.Hour)
			if _, err := (locks{st: st}).advanceLock(ctx, "_locks/p", h); err != nil {
				t.Fatal(err)
			}
			_, err := AcquireLock(ctx, st, "_locks/p", LockOptions{Owner: "taker"})
			var held *HeldError
			if tt.taken && err != nil {
				t.Errorf("AcquireLock = %v, want the lock taken over at once", err)
			}
			if !tt.taken && !errors.As(err, &held) {
				t.Errorf("AcquireLock = %v, want HeldError", err)
			}
		})
	}
}

// TestAcquireLock_ClockSkew: a taker whose clock is off from the store's
// by more than TTL/6 is refused, and leaves the lock free.
func TestAcquireLock_ClockSkew(t *testing.T) {
	ctx := context.Background()
	for _, skew := range []time.Duration{time.Hour, -time.Hour, 30 * time.Second} {
		st := store.NewMemory(t.Name())
		opts := LockOptions{Owner: "skewed", TTL: time.Minute, now: func() time.Time { return time.Now().Add(skew) }}
		_, err := AcquireLock(ctx, st, "_locks/p", opts)
		if err == nil || !strings.Contains(err.Error(), "clock") {
			t.Errorf("skew %v: AcquireLock = %v, want a refusal naming the clock", skew, err)
		}
		if _, err := AcquireLock(ctx, st, "_locks/p", LockOptions{Owner: "right", TTL: time.Minute}); err != nil {
			t.Errorf("skew %v: the next taker with a right clock: %v, want the lock free", skew, err)
		}
	}
	st := store.NewMemory(t.Name())
	opts := LockOptions{Owner: "close enough", TTL: time.Minute, now: func() time.Time { return time.Now().Add(5 * time.Second) }}
	if _, err := AcquireLock(ctx, st, "_locks/p", opts); err != nil {
		t.Errorf("skew 5s under a 1m TTL: %v, want the lock taken", err)
	}
}

// overwriting is a store that ignores create-if-absent, as some
// S3-compatible servers ignore If-None-Match.
type overwriting struct{ *store.Memory }

func (o overwriting) Create(ctx context.Context, key string) (store.Writer, error) {
	return o.Memory.Replace(ctx, key)
}

// TestOpenOutput_StoreIgnoringCreateIfAbsent: such a store is refused when
// the dataset is opened, with an error that says why.
func TestOpenOutput_StoreIgnoringCreateIfAbsent(t *testing.T) {
	ctx := context.Background()
	st := overwriting{store.NewMemory(t.Name())}
	_, err := OpenOutput(ctx, st, "crawl", Config{}, quiet())
	if err == nil || !strings.Contains(err.Error(), "If-None-Match") {
		t.Fatalf("OpenOutput on a store that overwrites = %v, want the create-if-absent refusal", err)
	}
	objs, _ := st.List(ctx, "")
	if len(objs) != 0 {
		t.Errorf("the probe left %v", objs)
	}
	if err := ProbeCreateIfAbsent(ctx, store.NewMemory("honest")); err != nil {
		t.Errorf("probe of a store that keeps its promise: %v", err)
	}
}
