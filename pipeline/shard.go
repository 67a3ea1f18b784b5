package pipeline

import (
	"fmt"
	"strconv"
	"strings"
)

// Environment variables that carry a task's index under common schedulers,
// read (through the caller's lookup function) by [ParseShard] for
// "auto/N", in this order.
const (
	// EnvJobCompletionIndex is set by a Kubernetes Indexed Job: 0..N-1.
	EnvJobCompletionIndex = "JOB_COMPLETION_INDEX"
	// EnvSlurmArrayTaskID is set by a Slurm job array (sbatch --array=0-N-1).
	EnvSlurmArrayTaskID = "SLURM_ARRAY_TASK_ID"
)

// Shard selects a deterministic slice of a URL list, so that N processes
// (a Kubernetes Indexed Job, a Slurm array, a CI matrix) can each crawl one
// slice without a coordinator: a URL belongs to shard i of N when the first
// 8 bytes of its page ID (see [PageID]), as a big-endian integer, are i
// modulo N. The shards 0..N-1 of a list cover it exactly once, and a URL
// stays in its shard whatever else the list holds. The zero Shard (Count
// 0) is no sharding: it keeps every URL.
type Shard struct {
	// Index is the shard's number, 0 <= Index < Count.
	Index int
	// Count is the number of shards; 0 means no sharding.
	Count int
}

// ParseShard parses a --shard value: "I/N" for shard I of N (0 <= I < N),
// or "auto/N", which takes I from the first of JOB_COMPLETION_INDEX and
// SLURM_ARRAY_TASK_ID that lookup finds set (pass os.LookupEnv). An empty
// spec is the zero Shard. lookup may be nil when spec is not "auto".
func ParseShard(spec string, lookup func(string) (string, bool)) (Shard, error) {
	if spec == "" {
		return Shard{}, nil
	}
	index, count, ok := strings.Cut(strings.TrimSpace(spec), "/")
	if !ok {
		return Shard{}, fmt.Errorf("%q: want I/N or auto/N, e.g. 0/4", spec)
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return Shard{}, fmt.Errorf("%q: the shard count %q is not a positive integer", spec, count)
	}
	from := ""
	if index == "auto" {
		for _, name := range [...]string{EnvJobCompletionIndex, EnvSlurmArrayTaskID} {
			if lookup == nil {
				break
			}
			if v, set := lookup(name); set && strings.TrimSpace(v) != "" {
				index, from = strings.TrimSpace(v), name
				break
			}
		}
		if from == "" {
			return Shard{}, fmt.Errorf("%q: neither %s nor %s is set", spec, EnvJobCompletionIndex, EnvSlurmArrayTaskID)
		}
	}
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 || i >= n {
		if from != "" {
			return Shard{}, fmt.Errorf("%q: %s=%q, want an integer in [0, %d)", spec, from, index, n)
		}
		return Shard{}, fmt.Errorf("%q: the shard index %q is not an integer in [0, %d)", spec, index, n)
	}
	return Shard{Index: i, Count: n}, nil
}

// String returns the shard as I/N, or "" for no sharding.
func (s Shard) String() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Validate reports an index out of range or a negative count.
func (s Shard) Validate() error {
	switch {
	case s.Count < 0:
		return fmt.Errorf("shard: count %d, want >= 0", s.Count)
	case s.Count == 0 && s.Index != 0:
		return fmt.Errorf("shard: index %d without a count", s.Index)
	case s.Count > 0 && (s.Index < 0 || s.Index >= s.Count):
		return fmt.Errorf("shard: index %d, want 0 <= index < %d", s.Index, s.Count)
	}
	return nil
}

// Partition is the folder name the shard's part files go into inside
// pages/ and spaces/ (see [parts.Config].Partition): "shard=0003", in the
// key=value form that DuckDB, pyarrow and Spark read as a column. It is ""
// for no sharding.
func (s Shard) Partition() string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("shard=%04d", s.Index)
}

// Contains reports whether the URL with page ID pageID is in the shard.
func (s Shard) Contains(pageID string) bool {
	if s.Count <= 1 {
		return true
	}
	return int(pageHash(pageID)%uint64(s.Count)) == s.Index
}

// Filter returns the targets in the shard, in their order. The zero Shard
// returns targets itself.
func (s Shard) Filter(targets []Target) []Target {
	if s.Count <= 1 {
		return targets
	}
	var out []Target
	for _, t := range targets {
		id := t.PageID
		if id == "" {
			id = PageID(t.URL)
		}
		if s.Contains(id) {
			out = append(out, t)
		}
	}
	return out
}

// pageHash is the page ID as an integer: its 16 hex digits are the first 8
// bytes of the URL's SHA-256. An ID that is not hex (a hand-made Target)
// is hashed the same way as a URL, so that it still lands in one shard.
func pageHash(pageID string) uint64 {
	if len(pageID) == 16 {
		if h, err := strconv.ParseUint(pageID, 16, 64); err == nil {
			return h
		}
	}
	h, _ := strconv.ParseUint(PageID(pageID), 16, 64)
	return h
}
