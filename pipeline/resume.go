package pipeline

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// resumeMayChange are the settings of Config.record that a resume may
// change: they say how fast and in what pieces the rows are made, not what
// they hold. Every other setting recorded shapes the rows, and a resume
// with another value would mix two kinds of rows in one dataset. (The lock
// settings and the log level are not recorded at all.) The partition
// differs between the shards of one dataset, whose first part a resume
// compares with; the shard count does not. The input's label may change
// too: a resume may read the same list from another path or stdin.
var resumeMayChange = []string{"input", "workers", "in_flight", "timeout_seconds", "step_timeout_seconds", "part_pages", "part_interval_seconds",
	"partition", "browser_endpoints"}

// checkResumable reports the first setting, in the record's order, in
// which the new run's config record differs from the dataset's, but those
// of resumeMayChange.
func checkResumable(datasetConfig, runConfig string) error {
	if datasetConfig == "" {
		return nil
	}
	var old, cur map[string]any
	if err := json.Unmarshal([]byte(datasetConfig), &old); err != nil {
		return fmt.Errorf("resume: the dataset's config metadata does not parse: %w", err)
	}
	if err := json.Unmarshal([]byte(runConfig), &cur); err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	keys := append(recordKeys(runConfig), recordKeys(datasetConfig)...)
	for _, k := range keys {
		if slices.Contains(resumeMayChange, k) {
			continue
		}
		if !reflect.DeepEqual(old[k], cur[k]) {
			return fmt.Errorf("resume: %s is %v in the dataset but %v now; resume with the same settings or crawl into a new location", k, jsonText(old[k]), jsonText(cur[k]))
		}
	}
	return nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// recordKeys returns the keys of a config record in their order, which
// puts a setting before the settings that depend on it (modes before
// llm_model, screenshots before screenshot_format); nil when it does not
// parse.
func recordKeys(record string) []string {
	dec := json.NewDecoder(strings.NewReader(record))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
		keys = append(keys, k)
	}
	return keys
}
