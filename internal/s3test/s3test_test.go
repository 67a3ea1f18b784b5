package s3test

import (
	"context"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestStart checks what the helper promises: loopback only, the bucket
// exists, only the made-up credentials get in, and Close stops the server.
func TestStart(t *testing.T) {
	start := time.Now()
	srv := Start(t)
	t.Logf("SeaweedFS took writes after %v", time.Since(start).Round(time.Millisecond))
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
