package main

import (
	"actionspace/internal/cli"
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRun_ScaleOutFlags: bad --shard and --browser-endpoint values stop the
// program at once with a usage error naming the flag.
func TestRun_ScaleOutFlags(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // in the error
	}{
		{"index out of range", []string{"--shard", "4/4", "--run-id", "r"}, nil, "--shard"},
		{"not a shard", []string{"--shard", "half", "--run-id", "r"}, nil, "--shard"},
		{"no run id", []string{"--shard", "0/4"}, nil, "--run-id"},
		{"auto without a scheduler", []string{"--shard", "auto/4", "--run-id", "r"}, nil, "JOB_COMPLETION_INDEX"},
		{"auto out of range", []string{"--shard", "auto/4", "--run-id", "r"}, map[string]string{"JOB_COMPLETION_INDEX": "7"}, "JOB_COMPLETION_INDEX=\"7\""},
		{"http endpoint", []string{"--browser-endpoint", "http://127.0.0.1:3000/"}, nil, "browser endpoint"},
		{"second endpoint bad", []string{"--browser-endpoint", "ws://127.0.0.1:3000/", "--browser-endpoint", "127.0.0.1:3001"}, nil, "browser endpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			err := command{}.run(context.Background(), tc.args, strings.NewReader(""), &stdout, &stderr)
			var ue cli.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want a usage error", err)
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line mentioning %q", err, tc.want)
			}
		})
	}
}
