// Package s3test starts a real S3-compatible server (the Versity S3
// gateway over a directory, built from source by Build) on loopback for
// tests: a free port, a temporary data directory, static credentials made
// up for the run, a fresh bucket.
//
// Tests call [Start]. It skips under -short or when the server was never
// built (`make setup-test` builds it), and fails instead when
// ACTIONSPACE_REQUIRE_S3=1 (as `make test` sets it), so that CI cannot go
// green by skipping.
package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// RequireEnv is the variable that turns a missing server from a skip into a
// failure.
const RequireEnv = "ACTIONSPACE_REQUIRE_S3"

// Region is the region the server's clients sign for.
const Region = "us-east-1"

// StartTimeout bounds how long Launch waits for the server to take writes
// (it takes well under a second on an idle machine; the bound is for a
// loaded one).
const StartTimeout = 90 * time.Second

// Server is a running S3-compatible server on 127.0.0.1.
type Server struct {
	// Endpoint is the S3 endpoint, http://127.0.0.1:PORT.
	Endpoint string
	// Bucket is the bucket Start created for the test.
	Bucket string
	// AccessKey and SecretKey are the only credentials the server accepts.
	AccessKey, SecretKey string

	p *process // shared by the copies Shared hands out
}

// process is the running server.
type process struct {
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	log    *os.File
	client *s3.Client

	mu      sync.Mutex
	buckets int
}

// Require skips the calling test under -short, or when the server binary is
// missing; with ACTIONSPACE_REQUIRE_S3=1 a missing binary fails the test.
// It returns the binary.
func Require(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("S3 server test skipped under -short")
	}
	bin, err := Find(context.Background())
	if err == nil {
		return bin
	}
	if os.Getenv(RequireEnv) == "1" {
		tb.Fatalf("%s=1 but %v", RequireEnv, err)
	}
	tb.Skip(err)
	return ""
}

// Start starts a server for the calling test, with a fresh bucket, and
// stops it when the test ends (see Require for when it skips).
func Start(tb testing.TB) *Server {
	tb.Helper()
	bin := Require(tb)
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	s, err := Launch(ctx, bin, tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	s.Bucket = s.NewBucket(tb)
	return s
}

// Shared is a server started on first use and shared by the tests of one
// package, so that a package runs one server process however many of its
// tests use one. Each Start hands out a fresh bucket, so tests that share
// the server share no objects. Declare one in the test package and close it
// in TestMain:
//
//	var s3srv s3test.Shared
//
//	func TestMain(m *testing.M) { s3srv.Main(m) }
type Shared struct {
	once sync.Once
	srv  *Server
	dir  string
	err  error
}

// Start returns the shared server, launching it on the first call (see
// Require for when it skips), with Bucket set to a new bucket for the
// calling test.
func (sh *Shared) Start(tb testing.TB) *Server {
	tb.Helper()
	bin := Require(tb)
	sh.once.Do(func() {
		sh.dir, sh.err = os.MkdirTemp("", "s3test-")
		if sh.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		defer cancel()
		sh.srv, sh.err = Launch(ctx, bin, sh.dir)
	})
	if sh.err != nil {
		tb.Fatal(sh.err)
	}
	s := *sh.srv // a copy with its own Bucket; the process is shared
	s.Bucket = sh.srv.NewBucket(tb)
	return &s
}

// Main runs the package's tests and then closes the shared server: a test
// package's TestMain is
//
//	func TestMain(m *testing.M) { s3srv.Main(m) }
func (sh *Shared) Main(m *testing.M) {
	code := m.Run()
	sh.Close()
	os.Exit(code)
}

// Close stops the shared server, if it was started, and removes its data.
func (sh *Shared) Close() error {
	var err error
	if sh.srv != nil {
		err = sh.srv.Close()
	}
	if sh.dir != "" {
		os.RemoveAll(sh.dir)
	}
	return err
}

// Launch starts the server binary bin with its data in dir, and returns
// once it has stored and deleted an object. Close stops it.
func Launch(ctx context.Context, bin, dir string) (*Server, error) {
	var lastErr error
	// A port picked free may be taken before the server binds it: try
	// again.
	for range 3 {
		s, err := launch(ctx, bin, dir)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func launch(ctx context.Context, bin, dir string) (*Server, error) {
	run, err := os.MkdirTemp(dir, "s3-")
	if err != nil {
		return nil, err
	}
	s := &Server{AccessKey: "AK" + randomHex(9), SecretKey: "SK" + randomHex(18), p: &process{dir: run}}
	data, meta := filepath.Join(run, "data"), filepath.Join(run, "meta")
	for _, d := range []string{data, meta} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	s.Endpoint = "http://" + addr
	// The object metadata (ETags among them, which the conditional writes
	// compare) goes to a sidecar directory rather than extended attributes,
	// so that any filesystem will do for the temporary directory.
	args := []string{
		"--port", addr, "--region", Region, "--quiet",
		"posix", "--sidecar", meta, data,
	}
	s.p.log, err = os.Create(filepath.Join(run, logName))
	if err != nil {
		return nil, err
	}
	s.p.cmd = exec.Command(bin, args...)
	s.p.cmd.Dir = run
	s.p.cmd.Stdout, s.p.cmd.Stderr = s.p.log, s.p.log
	// The credentials go by environment, not on the command line, which
	// any process may read. The server needs none of our environment's AWS
	// or gateway settings.
	s.p.cmd.Env = []string{
		"HOME=" + run, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + run,
		"ROOT_ACCESS_KEY_ID=" + s.AccessKey, "ROOT_SECRET_ACCESS_KEY=" + s.SecretKey,
	}
	if err := s.p.cmd.Start(); err != nil {
		s.p.log.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s.p.exited = make(chan struct{})
	go func() {
		s.p.cmd.Wait()
		close(s.p.exited)
	}()
	s.p.client = s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       Region,
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
	})
	if err := s.waitReady(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("S3 server on %s: %w\n%s", s.Endpoint, err, s.logTail(3000))
	}
	return s, nil
}

// logName is the server's log file in its run directory.
const logName = "server.log"

// waitReady waits until the S3 port answers, then until a bucket can be
// made and an object stored in it.
func (s *Server) waitReady(ctx context.Context) error {
	u, _ := url.Parse(s.Endpoint)
	var err error
	for {
		select {
		case <-s.p.exited:
			return errors.New("the server exited during startup")
		default:
		}
		var c net.Conn
		if c, err = net.DialTimeout("tcp", u.Host, time.Second); err == nil {
			c.Close()
			break
		}
		if werr := sleep(ctx, 20*time.Millisecond); werr != nil {
			return fmt.Errorf("S3 port never answered: %w", err)
		}
	}
	const probe = "actionspace-probe"
	for {
		select {
		case <-s.p.exited:
			return errors.New("the server exited during startup")
		default:
		}
		err = s.probe(ctx, probe)
		if err == nil {
			return nil
		}
		if werr := sleep(ctx, 50*time.Millisecond); werr != nil {
			return fmt.Errorf("S3 server never took a write: %w", err)
		}
	}
}

// probe creates the probe bucket, stores an object, deletes both.
func (s *Server) probe(ctx context.Context, bucket string) error {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.createBucket(rctx, bucket); err != nil {
		return err
	}
	key := aws.String("probe")
	if _, err := s.p.client.PutObject(rctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: key, Body: strings.NewReader("ok")}); err != nil {
		return err
	}
	if _, err := s.p.client.DeleteObject(rctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: key}); err != nil {
		return err
	}
	return nil
}

func (s *Server) createBucket(ctx context.Context, bucket string) error {
	_, err := s.p.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
	if err != nil && !strings.Contains(err.Error(), "BucketAlreadyOwnedByYou") && !strings.Contains(err.Error(), "BucketAlreadyExists") {
		return err
	}
	return nil
}

// NewBucket creates and returns another empty bucket.
func (s *Server) NewBucket(tb testing.TB) string {
	tb.Helper()
	s.p.mu.Lock()
	s.p.buckets++
	name := fmt.Sprintf("test-%d-%s", s.p.buckets, randomHex(3))
	s.p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.createBucket(ctx, name); err != nil {
		tb.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}

// URL returns the location of prefix in bucket, in the form the store
// opens: s3://bucket/prefix?endpoint=…&use_path_style=true&region=….
func (s *Server) URL(bucket, prefix string) string {
	q := url.Values{"endpoint": {s.Endpoint}, "use_path_style": {"true"}, "region": {Region}}
	return "s3://" + bucket + "/" + strings.TrimPrefix(prefix, "/") + "?" + q.Encode()
}

// Env returns the credentials as environment variables, for a child
// process.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey}
}

// SetEnv puts the credentials in the test's environment (and takes them out
// when it ends), where the AWS SDK's default chain finds them. It also
// points the SDK's shared files at nothing, so that a developer's own
// profile cannot change what the test does.
func (s *Server) SetEnv(tb testing.TB) {
	tb.Helper()
	tb.Setenv("AWS_ACCESS_KEY_ID", s.AccessKey)
	tb.Setenv("AWS_SECRET_ACCESS_KEY", s.SecretKey)
	tb.Setenv("AWS_SESSION_TOKEN", "")
	tb.Setenv("AWS_PROFILE", "")
	none := filepath.Join(s.p.dir, "no-such-file")
	tb.Setenv("AWS_CONFIG_FILE", none)
	tb.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	tb.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// Client returns an S3 client with the server's credentials, for checks
// that go around the code under test.
func (s *Server) Client() *s3.Client { return s.p.client }

// Close stops the server. Its data goes with the test's temporary
// directory.
func (s *Server) Close() error {
	if s.p.cmd == nil || s.p.cmd.Process == nil {
		return nil
	}
	select {
	case <-s.p.exited:
	default:
		s.p.cmd.Process.Kill()
		<-s.p.exited
	}
	s.p.log.Close()
	return nil
}

// logTail returns the end of the server's log.
func (s *Server) logTail(n int) string {
	b, err := os.ReadFile(filepath.Join(s.p.dir, logName))
	if err != nil {
		return err.Error()
	}
	return tail(bytes.TrimSpace(b), n)
}

// freePort returns a port free on 127.0.0.1 at the time of the call.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
