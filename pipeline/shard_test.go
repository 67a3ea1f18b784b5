package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"actionspace/dataset/parts"
)

func TestParseShard(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			v, ok := vars[k]
			return v, ok
		}
	}
	tests := []struct {
		name    string
		spec    string
		env     map[string]string
		want    Shard
		wantErr string // a substring; "" for no error
	}{
		{name: "empty is no sharding", spec: "", want: Shard{}},
		{name: "first", spec: "0/3", want: Shard{Index: 0, Count: 3}},
		{name: "last", spec: "2/3", want: Shard{Index: 2, Count: 3}},
		{name: "one of one", spec: "0/1", want: Shard{Index: 0, Count: 1}},
		{name: "spaces", spec: " 1/2 ", want: Shard{Index: 1, Count: 2}},
		{name: "index too large", spec: "3/3", wantErr: "not an integer in [0, 3)"},
		{name: "negative index", spec: "-1/3", wantErr: "not an integer in [0, 3)"},
		{name: "zero count", spec: "0/0", wantErr: "not a positive integer"},
		{name: "no slash", spec: "3", wantErr: "want I/N or auto/N"},
		{name: "words", spec: "a/b", wantErr: "not a positive integer"},
		{name: "kubernetes", spec: "auto/4", env: map[string]string{"JOB_COMPLETION_INDEX": "3"}, want: Shard{Index: 3, Count: 4}},
		{name: "slurm", spec: "auto/4", env: map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, want: Shard{Index: 1, Count: 4}},
		{name: "kubernetes first", spec: "auto/4", env: map[string]string{"JOB_COMPLETION_INDEX": "2", "SLURM_ARRAY_TASK_ID": "1"}, want: Shard{Index: 2, Count: 4}},
		{name: "empty variable skipped", spec: "auto/4", env: map[string]string{"JOB_COMPLETION_INDEX": "", "SLURM_ARRAY_TASK_ID": "0"}, want: Shard{Index: 0, Count: 4}},
		{name: "auto unset", spec: "auto/4", env: map[string]string{}, wantErr: "neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set"},
		{name: "auto out of range", spec: "auto/4", env: map[string]string{"SLURM_ARRAY_TASK_ID": "4"}, wantErr: `SLURM_ARRAY_TASK_ID="4", want an integer in [0, 4)`},
		{name: "auto not a number", spec: "auto/4", env: map[string]string{"JOB_COMPLETION_INDEX": "x"}, wantErr: `JOB_COMPLETION_INDEX="x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseShard(tt.spec, env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseShard(%q) = %v, %v; want an error containing %q", tt.spec, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseShard(%q): %v", tt.spec, err)
			}
			if got != tt.want {
				t.Errorf("ParseShard(%q) = %+v, want %+v", tt.spec, got, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestShard_Validate(t *testing.T) {
	tests := []struct {
		shard Shard
		ok    bool
	}{
		{Shard{}, true},
		{Shard{Index: 0, Count: 1}, true},
		{Shard{Index: 4, Count: 5}, true},
		{Shard{Index: 5, Count: 5}, false},
		{Shard{Index: -1, Count: 5}, false},
		{Shard{Index: 1}, false},
		{Shard{Count: -1}, false},
	}
	for _, tt := range tests {
		if err := tt.shard.Validate(); (err == nil) != tt.ok {
			t.Errorf("%+v.Validate() = %v, want ok %v", tt.shard, err, tt.ok)
		}
	}
}

func TestShard_PartitionAndString(t *testing.T) {
	tests := []struct {
		shard           Shard
		partition, text string
	}{
		{Shard{}, "", ""},
		{Shard{Index: 0, Count: 2}, "shard=0000", "0/2"},
		{Shard{Index: 3, Count: 16}, "shard=0003", "3/16"},
		{Shard{Index: 12345, Count: 20000}, "shard=12345", "12345/20000"},
	}
	for _, tt := range tests {
		if got := tt.shard.Partition(); got != tt.partition {
			t.Errorf("%+v.Partition() = %q, want %q", tt.shard, got, tt.partition)
		}
		if got := tt.shard.String(); got != tt.text {
			t.Errorf("%+v.String() = %q, want %q", tt.shard, got, tt.text)
		}
		if tt.partition != "" {
			if err := (parts.Config{Partition: tt.partition}).Validate(); err != nil {
				t.Errorf("partition %q: %v", tt.partition, err)
			}
		}
	}
}

// TestShard_Contains pins the hash: a change would move URLs between the
// shards of datasets already written (and break their resumes).
func TestShard_Contains(t *testing.T) {
	tests := []struct {
		url   string
		count int
		want  int // the shard holding url
	}{
		// PageID("https://example.com/") = 0f115db062b7c0dd.
		{"https://example.com/", 2, int(0x0f115db062b7c0dd % 2)},
		{"https://example.com/", 3, int(0x0f115db062b7c0dd % 3)},
		{"https://example.com/", 7, int(0x0f115db062b7c0dd % 7)},
	}
	if got := PageID("https://example.com/"); got != "0f115db062b7c0dd" {
		t.Fatalf("PageID changed: %s", got)
	}
	for _, tt := range tests {
		id := PageID(tt.url)
		for i := range tt.count {
			s := Shard{Index: i, Count: tt.count}
			if got := s.Contains(id); got != (i == tt.want) {
				t.Errorf("%v.Contains(%s) = %v, want %v", s, tt.url, got, i == tt.want)
			}
		}
	}
	if !(Shard{}).Contains("anything") || !(Shard{Count: 1}).Contains("anything") {
		t.Error("no sharding must keep every URL")
	}
}

// TestShard_FilterCoversOnce: the shards of a list the project has never
// seen cover it exactly once, and roughly evenly.
func TestShard_FilterCoversOnce(t *testing.T) {
	var urls []string
	for i := range 3000 {
		urls = append(urls, fmt.Sprintf("https://unseen-%d.example.org/path/%d?q=%x", i%97, i, i*7919))
	}
	list := strings.Join(urls, "\n") + "\nnot a url\njavascript:alert(1)\n"
	targets, err := ReadTargets(strings.NewReader(list), DefaultSchemes())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			seen := map[string]int{}
			for i := range n {
				s, err := ParseShard(fmt.Sprintf("%d/%d", i, n), nil)
				if err != nil {
					t.Fatal(err)
				}
				got := s.Filter(targets)
				if n > 1 {
					if lo, hi := len(targets)/n*8/10, len(targets)/n*12/10; len(got) < lo || len(got) > hi {
						t.Errorf("shard %v holds %d of %d targets, want %d..%d", s, len(got), len(targets), lo, hi)
					}
				}
				for j, tg := range got {
					seen[tg.URL]++
					if j > 0 && got[j-1].Line >= tg.Line {
						t.Errorf("shard %v: targets out of list order at %d", s, j)
					}
				}
			}
			if len(seen) != len(targets) {
				t.Errorf("shards hold %d distinct URLs, want %d", len(seen), len(targets))
			}
			for _, tg := range targets {
				if seen[tg.URL] != 1 {
					t.Errorf("%q is in %d shards, want 1", tg.URL, seen[tg.URL])
				}
			}
		})
	}
}

// TestShard_FilterThree is the check, spelled out: shards 0/3, 1/3
// and 2/3 of a list cover it exactly once.
func TestShard_FilterThree(t *testing.T) {
	targets := TargetsFromURLs([]string{
		"https://a.test/", "https://b.test/x", "http://c.test/?y=1", "https://d.test/z#f",
		"https://e.test/1", "https://e.test/2", "https://e.test/3", "https://e.test/4",
	})
	count := map[string]int{}
	total := 0
	for i := range 3 {
		got := Shard{Index: i, Count: 3}.Filter(targets)
		total += len(got)
		for _, tg := range got {
			count[tg.PageID]++
		}
	}
	if total != len(targets) {
		t.Errorf("the three shards hold %d targets, want %d", total, len(targets))
	}
	for _, tg := range targets {
		if count[tg.PageID] != 1 {
			t.Errorf("%s in %d shards, want 1", tg.URL, count[tg.PageID])
		}
	}
}
