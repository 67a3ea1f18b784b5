package s3test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The S3-compatible server the tests run: the Versity S3 gateway
// (versitygw) over its POSIX backend, built from source through the Go
// module proxy, at this version. It is one process that keeps objects as
// files in a directory, starts in well under a second, and publishes a
// conditional write (If-None-Match: * on PutObject, CompleteMultipartUpload
// and CopyObject) under a per-key lock, so that create-if-absent is
// honoured as on S3. A cold build takes about a minute; see Build.
const (
	Module  = "github.com/versity/versitygw"
	Version = "v1.8.0"
	// Package is the main package inside Module.
	Package = "./cmd/versitygw"
	// binName is the binary's name in the cache.
	binName = "versitygw"
)

// BinaryEnv, when set, is the path of a versitygw binary to use instead of
// the one in the cache.
const BinaryEnv = "ACTIONSPACE_S3_SERVER"

// CachePath returns where Build puts the binary: inside the Go module cache
// (which CI keeps between runs), in a folder of its own named after the
// version, so that a new version is a new build and `go clean -modcache`
// removes it with the rest.
func CachePath(ctx context.Context) (string, error) {
	modcache, err := goEnv(ctx, "GOMODCACHE")
	if err != nil {
		return "", err
	}
	return filepath.Join(modcache, "cache", "actionspace", binName+"-"+Version, binName), nil
}

// Find returns the server binary: BinaryEnv if set, else the cached build.
// It does not build; an error says how to.
func Find(ctx context.Context) (string, error) {
	if p := os.Getenv(BinaryEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s: %w", BinaryEnv, err)
		}
		return p, nil
	}
	p, err := CachePath(ctx)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("no %s build at %s (run make setup-test): %w", binName, p, err)
	}
	return p, nil
}

// Build returns the cached server binary, building it first when it is
// missing: it downloads the module source through the module proxy and
// compiles Package inside it, as its own main module, so that its go.mod
// decides the dependencies (exactly as `go install module@version` would)
// and ours does not gain them. Progress goes to log. A cold build takes
// about a minute on two idle cores; a cached one returns at once.
func Build(ctx context.Context, log io.Writer) (string, error) {
	if p, err := Find(ctx); err == nil {
		return p, nil
	}
	dst, err := CachePath(ctx)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(log, "s3test: building %s %s into %s\n", Module, Version, dst)
	start := time.Now()

	// Outside any module, so that no go.mod or go.work of ours applies.
	neutral, err := os.MkdirTemp("", "s3test-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(neutral)
	var info struct{ Dir, Error string }
	out, errOut, err := goCmd(ctx, neutral, nil, "mod", "download", "-json", Module+"@"+Version)
	if jerr := json.Unmarshal(out, &info); jerr != nil || info.Error != "" || err != nil {
		return "", fmt.Errorf("download %s@%s: %v %s", Module, Version, err, firstNonEmpty(info.Error, tail(errOut, 2000)))
	}

	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	tmp := dst + ".tmp"
	_, errOut, err = goCmd(ctx, info.Dir, log, "build", "-trimpath", "-buildvcs=false", "-o", tmp, Package)
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("build %s@%s: %w\n%s", Module, Version, err, tail(errOut, 4000))
	}
	if err := os.Rename(tmp, dst); err != nil {
		return "", err
	}
	fmt.Fprintf(log, "s3test: built %s in %s\n", binName, time.Since(start).Round(time.Second))
	return dst, nil
}

// goCmd runs the go command in dir with any workspace switched off and
// returns its stdout and stderr; stderr goes to log as well.
func goCmd(ctx context.Context, dir string, log io.Writer, args ...string) (stdout, stderr []byte, err error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errOut
	if log != nil {
		cmd.Stderr = io.MultiWriter(&errOut, log)
	}
	err = cmd.Run()
	return out.Bytes(), errOut.Bytes(), err
}

// goEnv returns one variable of `go env`.
func goEnv(ctx context.Context, name string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go env %s: %w: %s", name, err, ee.Stderr)
		}
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("go env %s is empty", name)
	}
	return v, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// tail returns the last n bytes of b.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
