package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"actionspace/dataset/store"
	"actionspace/dataset/store/storetest"
	"actionspace/internal/s3test"
)

// s3srv is the S3-compatible server of this package's tests, started by the
// first test that needs it.
var s3srv s3test.Shared

func TestMain(m *testing.M) {
	Register()
	s3srv.Main(m)
}

// mustOpen opens loc with the smallest part S3 takes, so that the suite's
// big objects are multipart uploads of three parts.
func mustOpen(t *testing.T, loc string) store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), loc, store.Config{PartSize: store.MinPartSize})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestS3_Conformance runs the store conformance suite on a prefix of a
// bucket of a real S3-compatible server.
func TestS3_Conformance(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) store.Store {
		return mustOpen(t, srv.URL(srv.Bucket, fmt.Sprintf("t%d/data", n.Add(1))))
	})
}

// TestS3_AbortLeavesNoUpload: an aborted multipart upload is invisible,
// and RemoveTemp removes its parts.
func TestS3_AbortLeavesNoUpload(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	ctx := context.Background()
	s := mustOpen(t, srv.URL(srv.Bucket, "abort")).(*Bucket)
	w, err := s.Create(ctx, "dir/aborted")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(storetest.RandomBytes(storetest.BigObject, 1)); err != nil {
		t.Fatal(err)
	}
	// Killed: the upload is neither completed nor aborted. The writer
	// starts its upload in the background; a crawl that resumes finds the
	// dead one's upload in place, so wait for it to be listed.
	list := func() []types.MultipartUpload {
		t.Helper()
		out, err := s.s3.client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{
			Bucket: aws.String(s.s3.bucket), Prefix: aws.String(s.s3.prefix),
		})
		if err != nil {
			t.Fatal(err)
		}
		return out.Uploads
	}
	// A part still on its way when RemoveTemp aborts would bring the
	// upload back on the server; a dead crawl sends none. So wait for the
	// full parts the write made; the last, short one waits for Close.
	full := storetest.BigObject / store.MinPartSize
	parts := func(up types.MultipartUpload) int {
		t.Helper()
		out, err := s.s3.client.ListParts(ctx, &s3.ListPartsInput{
			Bucket: aws.String(s.s3.bucket), Key: up.Key, UploadId: up.UploadId,
		})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Parts)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if ups := list(); len(ups) == 1 && parts(ups[0]) >= full {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the writer's multipart upload never listed its %d full parts", full)
		}
	}
	if _, err := s.RemoveTemp(ctx, "dir/"); err != nil {
		t.Fatal(err)
	}
	if n := len(list()); n != 0 {
		t.Errorf("%d incomplete uploads left after RemoveTemp", n)
	}
	w.Abort()
}

// TestS3_RangedReads: a small read fetches a read-ahead block, a large
// one exactly what it asks, never the whole object.
func TestS3_RangedReads(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	ctx := context.Background()
	s := mustOpen(t, srv.URL(srv.Bucket, "ranged"))
	body := storetest.RandomBytes(storetest.BigObject, 2)
	if err := store.Put(ctx, s, "obj", body); err != nil {
		t.Fatal(err)
	}
	r, err := s.OpenReader(ctx, "obj")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rr := r.(interface{ Unwrap() io.ReaderAt }).Unwrap().(*rangeReader)
	p := make([]byte, 10)
	for _, off := range []int64{0, 100, 1000} {
		if _, err := r.ReadAt(p, off); err != nil {
			t.Fatal(err)
		}
	}
	if got := rr.requests.Load(); got != 1 {
		t.Errorf("three small reads in one block made %d requests, want 1", got)
	}
	if got, want := rr.fetched.Load(), int64(store.DefaultReadAhead); got != want {
		t.Errorf("fetched %d bytes, want one block of %d", got, want)
	}
}

// TestOpen_S3FromEnvironment: the endpoint and region may come from the
// usual AWS variables instead of URL parameters.
func TestOpen_S3FromEnvironment(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	t.Setenv("AWS_ENDPOINT_URL", srv.Endpoint)
	t.Setenv("AWS_REGION", s3test.Region)
	ctx := context.Background()
	for _, loc := range []string{
		"s3://" + srv.Bucket + "/env?use_path_style=true",
		"s3://" + srv.Bucket + "/env", // an IP endpoint is addressed path style anyway
	} {
		s := mustOpen(t, loc)
		if err := store.Put(ctx, s, "k", []byte("v")); err != nil && !errors.Is(err, fs.ErrExist) {
			t.Errorf("%s: Put: %v", loc, err)
			continue
		}
		objs, err := s.List(ctx, "")
		if err != nil || len(objs) != 1 {
			t.Errorf("%s: List = %+v, %v", loc, objs, err)
		}
	}
}

// TestOpen_Locations: bucket URLs open without calling the service, and
// every malformed one is refused without quoting a credential.
func TestOpen_Locations(t *testing.T) {
	secret := "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY"
	tests := []struct {
		loc     string
		wantErr string // "" for success
	}{
		{"s3://bucket/prefix?endpoint=http://127.0.0.1:9&use_path_style=true&region=us-east-1", ""},
		{"s3://bucket", ""},
		{"s3:///prefix", "without a bucket"},
		{"s3://AKIAEXAMPLE:" + secret + "@bucket/p", "credentials in the URL are refused"},
		{"s3://bucket/p?secret_key=" + secret, `unknown URL parameter "secret_key"`},
		{"s3://bucket/p?endpoint=http://AKIAEXAMPLE:" + secret + "@127.0.0.1:9", "without credentials"},
		{"s3://bucket/p?use_path_style=maybe", "want true or false"},
		{"s3://bucket/../p", "invalid prefix"},
		{"gs://bucket/p?access_id=" + secret, "takes no URL parameters"},
	}
	for _, tt := range tests {
		s, err := store.Open(context.Background(), tt.loc, store.Config{})
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("Open(%q) = %v", tt.loc, err)
				continue
			}
			if _, ok := s.(*Bucket); !ok || strings.Contains(s.String(), "?") {
				t.Errorf("Open(%q) = %T %q, want a *Bucket without parameters", tt.loc, s, s.String())
			}
			s.Close()
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Open(%q) = %v, want an error with %q", tt.loc, err, tt.wantErr)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "AKIAEXAMPLE") {
			t.Errorf("Open(%q): the error quotes a credential: %v", tt.loc, err)
		}
	}
}
