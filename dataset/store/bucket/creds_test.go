package bucket

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"actionspace/dataset/store"
)

// TestStore_ErrorsCarryNoCredentials provokes every kind of failure against
// the real server, with right and wrong credentials, and scans each error
// message for them.
func TestStore_ErrorsCarryNoCredentials(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	ctx := context.Background()
	wrongSecret := "WS" + strings.Repeat("x", 30)
	wrongKey := "WK" + strings.Repeat("y", 18)
	secrets := []string{srv.AccessKey, srv.SecretKey, wrongSecret, wrongKey}

	var errs []error
	record := func(what string, err error) {
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		errs = append(errs, err)
	}
	s := mustOpen(t, srv.URL(srv.Bucket, "creds"))
	if err := store.Put(ctx, s, "k", []byte("x")); err != nil {
		t.Fatal(err)
	}
	record("create existing", store.Put(ctx, s, "k", []byte("y")))
	_, err := s.OpenReader(ctx, "missing")
	record("open missing", err)
	record("delete missing", s.Delete(ctx, "missing"))
	_, err = mustOpen(t, srv.URL("no-such-bucket", "p")).List(ctx, "")
	record("list a missing bucket", err)

	t.Setenv("AWS_SECRET_ACCESS_KEY", wrongSecret)
	bad := mustOpen(t, srv.URL(srv.Bucket, "creds"))
	_, err = bad.List(ctx, "")
	record("list with a wrong secret", err)
	record("create with a wrong secret", store.Put(ctx, bad, "k2", []byte("x")))
	_, err = bad.OpenReader(ctx, "k")
	record("open with a wrong secret", err)

	t.Setenv("AWS_ACCESS_KEY_ID", wrongKey)
	bad = mustOpen(t, srv.URL(srv.Bucket, "creds"))
	_, err = bad.List(ctx, "")
	record("list with an unknown key", err)
	record("delete with an unknown key", bad.Delete(ctx, "k"))

	_, err = store.Open(ctx, "s3://"+srv.AccessKey+":"+srv.SecretKey+"@"+srv.Bucket+"/p", store.Config{})
	record("credentials in the URL", err)

	for _, err := range errs {
		msg := err.Error()
		for _, secret := range secrets {
			if strings.Contains(msg, secret) {
				t.Errorf("error quotes a credential: %s", msg)
			}
		}
		// Nothing reachable through the chain either.
		for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
			for _, secret := range secrets {
				if strings.Contains(e.Error(), secret) {
					t.Errorf("wrapped error quotes a credential: %s", e.Error())
				}
			}
		}
	}
	t.Logf("%d errors scanned, e.g. %v", len(errs), errs[len(errs)-3])
}

// TestMask is the unit test of masking: a server that quotes a credential
// in its error must not get it through.
func TestMask(t *testing.T) {
	ctx := context.Background()
	const id, secret, token = "AKIDEXAMPLE", "SECRETEXAMPLEKEY", "SESSIONTOKEN"
	rec := &credRecorder{inner: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: token}, nil
	})}
	if _, err := rec.Retrieve(ctx); err != nil {
		t.Fatal(err)
	}
	x := &s3Extras{creds: rec}
	tests := []struct {
		err  error
		kind error
	}{
		{fmt.Errorf("create k: %w", fmt.Errorf("%w: key %s signed with %s", fs.ErrExist, id, secret)), fs.ErrExist},
		{fmt.Errorf("open k: %w: token %s", fs.ErrNotExist, token), fs.ErrNotExist},
		{fmt.Errorf("list: denied for %s", id), nil},
	}
	for _, tt := range tests {
		got := x.mask(tt.err)
		for _, v := range []string{id, secret, token} {
			if strings.Contains(got.Error(), v) {
				t.Errorf("mask(%q) = %q still has %s", tt.err, got, v)
			}
			for e := errors.Unwrap(got); e != nil; e = errors.Unwrap(e) {
				if strings.Contains(e.Error(), v) {
					t.Errorf("mask(%q): the chain still has %s", tt.err, v)
				}
			}
		}
		if !strings.Contains(got.Error(), Redacted) {
			t.Errorf("mask(%q) = %q, want %s in it", tt.err, got, Redacted)
		}
		if tt.kind != nil && !errors.Is(got, tt.kind) {
			t.Errorf("mask(%q) lost errors.Is %v", tt.err, tt.kind)
		}
	}
	plain := errors.New("nothing secret")
	if got := x.mask(plain); got != plain {
		t.Errorf("mask changed an error without credentials: %v", got)
	}
}
