package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dataset/parts"
	"actionspace/metrics"
	"actionspace/pipeline"
	"actionspace/pipelinetest"
)

// TestCrawl_TokenBudgets crawls three corpus pages, replayed
// (pipelinetest), with --token-budget, headline encoding o200k_base, and reads the spaces
// table back with arrow-go: per page, one row per budget beside the
// unbudgeted rows; each budget row's perception text recounts exactly to
// its o200k_base tokens, never above the budget, its viewport_expansion is
// the window it reached, and the budget above every page is the
// unbudgeted E=-1 text byte for byte.
func TestCrawl_TokenBudgets(t *testing.T) {
	t.Parallel()
	replay := pipelinetest.New(t, pipelinetest.Options{})
	urls := corpora.DefaultURLs(replaySite)[:3]
	list := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	budgets := []int64{300, 1000, 1000000}
	var stdout, stderr bytes.Buffer
	err := command{open: replay.Opener()}.run(context.Background(), []string{"--workers", "2", "--viewport-expansion", "0,-1", "--encodings", "o200k_base,cl100k_base", "--formats", "actionspace",
		"--token-budget", "300,1000,1000000", "--out", out, list}, strings.NewReader(""), &stdout, &stderr)
	if err != nil {
		t.Fatalf("crawl: %v\n%s", err, stderr.String())
	}
	files, err := parts.Files(out, dataset.SpacesDir)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, f := range files {
		rs, _ := arrowColumns(t, f, "url", "viewport_expansion", "token_budget", "budget_expansion", "budget_stage",
			"dropped_ids", "perception_text", "perception_tokens_o200k", "perception_tokens_cl100k")
		rows = append(rows, rs...)
	}
	if got, want := len(rows), len(urls)*(2+len(budgets)); got != want {
		t.Fatalf("%d spaces rows, want %d (pages) x (2 expansions + %d budgets)", got, len(urls), len(budgets))
	}
	counter, err := metrics.NewCounter()
	if err != nil {
		t.Fatal(err)
	}
	whole := map[string]string{}
	for _, r := range rows {
		if r["token_budget"] == nil && r["viewport_expansion"] == int64(-1) {
			whole[r["url"].(string)] = r["perception_text"].(string)
		}
	}
	perPage := map[string]int{}
	for _, r := range rows {
		budget, ok := r["token_budget"].(int64)
		if !ok {
			if r["budget_stage"] != "" || r["budget_expansion"] != nil {
				t.Errorf("%s: budget columns on an unbudgeted row: %v", r["url"], r)
			}
			continue
		}
		u := r["url"].(string)
		perPage[u]++
		text := r["perception_text"].(string)
		n, err := counter.Count(metrics.O200K, text)
		if err != nil {
			t.Fatal(err)
		}
		if r["perception_tokens_o200k"] != n || n > budget {
			t.Errorf("%s budget %d: perception_tokens_o200k %v, recount %d", u, budget, r["perception_tokens_o200k"], n)
		}
		if r["budget_expansion"] != r["viewport_expansion"] {
			t.Errorf("%s budget %d: budget_expansion %v, viewport_expansion %v", u, budget, r["budget_expansion"], r["viewport_expansion"])
		}
		if budget == budgets[len(budgets)-1] && (text != whole[u] || r["budget_stage"] != "whole-page" || r["budget_expansion"] != int64(-1)) {
			t.Errorf("%s budget %d: stage %v E=%v, want the unbudgeted E=-1 text", u, budget, r["budget_stage"], r["budget_expansion"])
		}
	}
	for _, u := range urls {
		if perPage[u] != len(budgets) {
			t.Errorf("%s: %d budget rows, want %d", u, perPage[u], len(budgets))
		}
	}
}

// TestCrawl_Floor: with --floor the crawl first loads the list the bare
// way, says so on stderr, and its summary line gives its time as a ratio
// to the floor's; without it the line has no ratio.
func TestCrawl_Floor(t *testing.T) {
	t.Parallel()
	// A fresh replayed browser each time, as a launch gives: the floor
	// closes its own.
	open := func(context.Context) (pipeline.Browser, error) {
		return pipelinetest.New(t, pipelinetest.Options{}), nil
	}
	urls := corpora.DefaultURLs(replaySite)[:2]
	list := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ratio := regexp.MustCompile(`pages/min, (\d+\.\d\d) × the floor's [0-9.]+m?s\)`)
	for _, floor := range []bool{true, false} {
		args := []string{"--workers", "2", "--formats", "actionspace", "--out", t.TempDir(), list}
		if floor {
			args = append([]string{"--floor"}, args...)
		}
		var stdout, stderr bytes.Buffer
		if err := (command{open: open}).run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); err != nil {
			t.Fatalf("--floor %v: %v\n%s", floor, err, stderr.String())
		}
		m := ratio.FindStringSubmatch(stdout.String())
		said := strings.Contains(stderr.String(), "crawl: the floor: 2 ok, 0 failed in ")
		if floor && (m == nil || !said) {
			t.Errorf("--floor: summary %q, stderr %q; want the ratio to the floor and the floor's counts", stdout.String(), stderr.String())
		}
		if !floor && (m != nil || said) {
			t.Errorf("no --floor: summary %q; want no floor", stdout.String())
		}
	}
}
