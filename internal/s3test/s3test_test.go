package s3test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// TestStart checks what the helper promises: loopback only, the bucket
// exists, only the made-up credentials get in, and Close stops the server.
func TestStart(t *testing.T) {
	start := time.Now()
	srv := Start(t)
	t.Logf("the server took writes after %v", time.Since(start).Round(time.Millisecond))
	ctx := context.Background()

	u, err := url.Parse(srv.Endpoint)
	if err != nil || u.Hostname() != "127.0.0.1" {
		t.Fatalf("Endpoint %q: want http://127.0.0.1:PORT", srv.Endpoint)
	}
	if !strings.HasPrefix(srv.URL(srv.Bucket, "p"), "s3://"+srv.Bucket+"/p?") {
		t.Errorf("URL = %q", srv.URL(srv.Bucket, "p"))
	}

	client := func(key, secret string) *s3.Client {
		return s3.New(s3.Options{
			BaseEndpoint: aws.String(srv.Endpoint), Region: Region, UsePathStyle: true,
			Credentials: credentials.NewStaticCredentialsProvider(key, secret, ""),
		})
	}
	list := func(c *s3.Client) error {
		_, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(srv.Bucket)})
		return err
	}
	if err := list(client(srv.AccessKey, srv.SecretKey)); err != nil {
		t.Errorf("list with the server's credentials: %v", err)
	}
	if err := list(client(srv.AccessKey, srv.SecretKey+"x")); err == nil {
		t.Error("list with a wrong secret: no error")
	}
	if err := list(client("AKNOBODY", srv.SecretKey)); err == nil {
		t.Error("list with an unknown access key: no error")
	}
	anon := s3.New(s3.Options{BaseEndpoint: aws.String(srv.Endpoint), Region: Region, UsePathStyle: true, Credentials: aws.AnonymousCredentials{}})
	if err := list(anon); err == nil {
		t.Error("anonymous list: no error")
	}

	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		c.Close()
		t.Error("the S3 port still answers after Close")
	}
}

// TestCreateIfAbsent checks the one property of the server the store
// depends on beyond plain S3: a write with If-None-Match: * is refused with
// 412 Precondition Failed when the key exists, and leaves the object as it
// was, whether the write is a PutObject or a multipart upload's completion
// (the two ways the store publishes an object); and of writers racing on
// one new key, exactly one wins. (A CopyObject's If-None-Match is not
// checked: the server ignores it, and the store's Rename does not rely on
// it.)
func TestCreateIfAbsent(t *testing.T) {
	srv := Start(t)
	ctx := context.Background()
	c := srv.Client()
	bucket := aws.String(srv.Bucket)
	get := func(key string) string {
		t.Helper()
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: bucket, Key: aws.String(key)})
		if err != nil {
			t.Fatalf("get %s: %v", key, err)
		}
		defer out.Body.Close()
		b, err := io.ReadAll(out.Body)
		if err != nil {
			t.Fatalf("read %s: %v", key, err)
		}
		return string(b)
	}
	put := func(key, body string) error {
		_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String(key), Body: strings.NewReader(body), IfNoneMatch: aws.String("*")})
		return err
	}
	multipart := func(key, body string) error {
		up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: bucket, Key: aws.String(key)})
		if err != nil {
			t.Fatalf("create upload %s: %v", key, err)
		}
		part, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: bucket, Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: aws.Int32(1), Body: strings.NewReader(body)})
		if err != nil {
			t.Fatalf("upload part %s: %v", key, err)
		}
		_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: bucket, Key: aws.String(key), UploadId: up.UploadId,
			IfNoneMatch:     aws.String("*"),
			MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{{ETag: part.ETag, PartNumber: aws.Int32(1)}}}})
		if err != nil {
			c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: bucket, Key: aws.String(key), UploadId: up.UploadId})
		}
		return err
	}
	for _, tt := range []struct {
		name  string
		write func(key, body string) error
	}{{"PutObject", put}, {"CompleteMultipartUpload", multipart}} {
		t.Run(tt.name, func(t *testing.T) {
			key := "key-" + tt.name
			if err := tt.write(key, "first"); err != nil {
				t.Fatalf("first write of a new key: %v", err)
			}
			err := tt.write(key, "second")
			if status := httpStatus(err); status != http.StatusPreconditionFailed {
				t.Fatalf("second write of the key: status %d (%v), want 412", status, err)
			}
			if got := get(key); got != "first" {
				t.Errorf("after the refused write the object holds %q, want %q", got, "first")
			}
		})
	}

	t.Run("race", func(t *testing.T) {
		const writers = 8
		errs := make(chan error, writers)
		var wg sync.WaitGroup
		for i := range writers {
			wg.Go(func() { errs <- put("raced", strconv.Itoa(i)) })
		}
		wg.Wait()
		close(errs)
		won := 0
		for err := range errs {
			switch status := httpStatus(err); {
			case err == nil:
				won++
			case status != http.StatusPreconditionFailed:
				t.Errorf("a losing writer got status %d (%v), want 412", status, err)
			}
		}
		if won != 1 {
			t.Errorf("%d of %d racing writers created the key, want exactly 1", won, writers)
		}
	})
}

// httpStatus returns the HTTP status of an S3 call's error, 0 if it has
// none.
func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}
