package pipeline

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// resumeKeys are the settings of Config.record that shape the rows: a
// resume with other values would mix two kinds of rows in one dataset.
// "formats" is compared too, for the records that carry it.
var resumeKeys = []string{"modes", "formats", "viewport_expansions", "text", "encodings", "llm_model",
	"viewport_width", "viewport_height", "capture_script_sha256", "capture_script_options",
	"max_ax_nodes", "max_aisnapshot_bytes"}

// checkResumable reports the first row-shaping setting in which the new
// run's config record differs from the dataset's.
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
	for _, k := range resumeKeys {
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
