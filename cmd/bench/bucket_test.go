package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"actionspace/bench"
	"actionspace/dataset/store"
	"actionspace/dataset/store/bucket"
	"actionspace/internal/s3test"
)

// s3srv is the S3-compatible server of this package's tests, started by the
// first test that needs it.
var s3srv s3test.Shared

func TestMain(m *testing.M) {
	bucket.Register()
	s3srv.Main(m)
}

// TestRun_Bucket re-renders a dataset stored in a bucket, reading its
// parts by ranged requests, writes the results into the bucket, and gets
// the same cells as the same dataset in a directory. No credential of the
// server is in any object or output.
func TestRun_Bucket(t *testing.T) {
	srv := s3srv.Start(t)
	srv.SetEnv(t)
	ctx := context.Background()
	data := srv.URL(srv.Bucket, "runs/stored")
	writeStoredCaptures(t, data)
	local := captureDataset(t)

	flags := []string{"--viewport-expansion", "0,-1", "--text", "viewport", "--mode", "fast", "--repeat", "1", "--workers", "2", "--token-budget", ""}
	// actionspace, browser-use, playwright-ai and axtree at two
	// expansions, html once: the accessibility trees and AI snapshots read
	// from the bucket too.
	const cells = 4*2 + 1
	out := srv.URL(srv.Bucket, "bench/run-1")
	code, stdout, stderr := runBench(t, append(append([]string{}, flags...), "--out", out, data)...)
	if code != 0 {
		t.Fatalf("bench on the bucket: exit %d\n%s\n%s", code, stdout, stderr)
	}
	localOut := t.TempDir()
	if code, stdout, stderr := runBench(t, append(append([]string{}, flags...), "--out", localOut, local)...); code != 0 {
		t.Fatalf("bench on the directory: exit %d\n%s\n%s", code, stdout, stderr)
	}

	st, err := store.Open(ctx, out, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, f := range []string{bench.CellsFile, bench.SummaryFile, bench.ReportFile, bench.TokensChartFile} {
		if ok, err := st.Exists(ctx, f); !ok || err != nil {
			t.Errorf("%s in the bucket: %v, %v; want it written", f, ok, err)
		}
	}
	raw, err := store.ReadAll(ctx, st, bench.SummaryJSONFile)
	if err != nil {
		t.Fatal(err)
	}
	var got bench.Summary
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want, err := bench.ReadSummary(filepath.Join(localOut, bench.SummaryJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if got.Input.Rendered == 0 || got.Input.Rendered != want.Input.Rendered || got.Input.Files != 3 {
		t.Errorf("input: %+v in the bucket, %+v in the directory; want the same pages from 3 parts", got.Input, want.Input)
	}
	if strings.Contains(got.Input.Path, "endpoint=") || !strings.HasPrefix(got.Input.Path, "s3://") {
		t.Errorf("input path %q: want the bucket location without its parameters", got.Input.Path)
	}
	if len(got.Cells) != cells || len(got.Cells) != len(want.Cells) {
		t.Fatalf("%d cells from the bucket, %d from the directory; want %d each", len(got.Cells), len(want.Cells), cells)
	}
	for i := range got.Cells {
		g, w := got.Cells[i], want.Cells[i]
		if g.Cell != w.Cell || g.Pages != w.Pages || g.NoRecordPages != 0 || ptrString(g.RecallMean) != ptrString(w.RecallMean) || fmt.Sprint(*g.TokensCL100KSum) != fmt.Sprint(*w.TokensCL100KSum) || fmt.Sprint(*g.TokensO200KSum) != fmt.Sprint(*w.TokensO200KSum) {
			t.Errorf("cell %s: %d pages, %v cl100k tokens from the bucket; %d, %v from the directory", g.Cell, g.Pages, *g.TokensCL100KSum, w.Pages, *w.TokensCL100KSum)
		}
	}

	// A second run into the same prefix replaces the results.
	if code, stdout, stderr := runBench(t, append(append([]string{}, flags...), "--out", out, data)...); code != 0 {
		t.Fatalf("bench again into the same prefix: exit %d\n%s\n%s", code, stdout, stderr)
	}

	objs, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	all, err := store.Open(ctx, srv.URL(srv.Bucket, ""), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	every, err := all.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range every {
		b, err := store.ReadAll(ctx, all, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{srv.AccessKey, srv.SecretKey} {
			if strings.Contains(string(b), secret) {
				t.Errorf("a credential is in %s", o.Key)
			}
		}
	}
	for _, secret := range []string{srv.AccessKey, srv.SecretKey} {
		if strings.Contains(stdout+stderr, secret) {
			t.Error("a credential is in the output")
		}
	}
	t.Logf("bench read %d pages from %d parts in the bucket and wrote %d objects; %d objects scanned for credentials", got.Input.Rendered, got.Input.Files, len(objs), len(every))
}
