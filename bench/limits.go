package bench

import (
	"encoding/json"
	"fmt"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/pipeline"
)

// recordLimits are the largest decompressed records (the capture, the AI
// snapshot, the accessibility tree) that the crawl that wrote a dataset
// could have stored, by the caps its configuration records. A dataset is
// untrusted input: a record that decompresses to more was not written by
// such a crawl, and is refused before it costs more than its bound.
type recordLimits struct {
	capture, snapshot, axtree int64
}

// Bounds of the parts of a capture record that the caps do not count: the
// JSON of one node but its strings (its keys, its boxes' numbers of up to
// 24 characters each, its flags), the framing of one attribute and of one
// option ([],"" and commas), and of one frame's page header but its URL and
// title. They are generous upper bounds of what dom's capture script
// writes, not estimates.
const (
	nodeJSONBytes   = 640
	attrJSONBytes   = 8
	optionJSONBytes = 32
	frameJSONBytes  = 64 << 10
	// keptAttrs bounds the attributes the capture script records past
	// ScriptOptions.MaxAttrs (the ones the renderer and the locators read).
	keptAttrs = 32
	// jsonCharBytes is the most bytes one UTF-16 code unit of a string
	// takes in JSON: \u00XX.
	jsonCharBytes = 6
	// snapshotJSONBytes bounds an AI snapshot record but its text.
	snapshotJSONBytes = 4 << 10
)

// crawlCaps are the caps a crawl records in its configuration metadata
// (see pipeline's record) that bound its records.
type crawlCaps struct {
	Script             *dom.ScriptOptions `json:"capture_script_options"`
	MaxFrames          *int               `json:"max_frames"`
	MaxAISnapshotBytes *int               `json:"max_aisnapshot_bytes"`
}

// limitsOf returns the record limits of a dataset whose crawl recorded
// config (Metadata.Config); caps it did not record take this build's
// defaults. A limit never exceeds dataset.MaxCaptureBytes.
func limitsOf(config string) (recordLimits, error) {
	caps := crawlCaps{}
	if config != "" {
		if err := json.Unmarshal([]byte(config), &caps); err != nil {
			return recordLimits{}, fmt.Errorf("crawl dataset: its config metadata does not parse: %w", err)
		}
	}
	opts := dom.DefaultScriptOptions()
	if caps.Script != nil {
		opts = withScriptDefaults(*caps.Script)
	}
	frames := int64(pipeline.DefaultMaxFrames)
	if caps.MaxFrames != nil {
		frames = int64(max(*caps.MaxFrames, 0))
	}
	snapshot := int64(pipeline.DefaultMaxAISnapshotBytes)
	if caps.MaxAISnapshotBytes != nil {
		snapshot = int64(max(*caps.MaxAISnapshotBytes, 0))
	}
	// The frames of a page share the node and character budgets of its
	// main document; each adds its page header.
	perNode := int64(nodeJSONBytes) + attrJSONBytes*int64(opts.MaxAttrs+keptAttrs) + optionJSONBytes*int64(opts.OptionCap)
	capture := jsonCharBytes*int64(opts.MaxChars) + int64(opts.MaxNodes)*perNode +
		(frames+1)*(frameJSONBytes+jsonCharBytes*int64(opts.URLCap+opts.TitleCap))
	return recordLimits{
		capture:  min(capture, dataset.MaxCaptureBytes),
		snapshot: min(jsonCharBytes*snapshot+snapshotJSONBytes, dataset.MaxCaptureBytes),
		// The accessibility tree's names are the page's own, cut by no
		// cap of the crawl's: only the absolute bound holds.
		axtree: dataset.MaxCaptureBytes,
	}, nil
}

// withScriptDefaults resolves the zero fields of o as the capture script
// does (a zero cap means its default).
func withScriptDefaults(o dom.ScriptOptions) dom.ScriptOptions {
	d := dom.DefaultScriptOptions()
	pick := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pick(&o.MaxNodes, d.MaxNodes)
	pick(&o.MaxChars, d.MaxChars)
	pick(&o.AttrCap, d.AttrCap)
	pick(&o.MaxAttrs, d.MaxAttrs)
	pick(&o.NameCap, d.NameCap)
	pick(&o.TextCap, d.TextCap)
	pick(&o.OptionCap, d.OptionCap)
	pick(&o.TitleCap, d.TitleCap)
	pick(&o.URLCap, d.URLCap)
	return o
}
