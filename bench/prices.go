package bench

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"actionspace/metrics"
)

//go:embed prices.json
var defaultPrices []byte

// Prices is a price table: what a model charges per token. The bench turns
// each cell's token sums into an estimated cost per model (see Cost). It is
// read from JSON:
//
//	{"as_of": "2025-06", "note": "...", "models": [
//	  {"model": "gpt-4o", "encoding": "o200k_base", "input_per_1m": 2.5, "output_per_1m": 10}
//	]}
type Prices struct {
	// Note says where the prices come from.
	Note string `json:"note,omitempty"`
	// AsOf is when the prices were taken, free text such as "2025-06".
	AsOf string `json:"as_of,omitempty"`
	// Models lists one price per model.
	Models []Price `json:"models"`
}

// Price is one model's price.
type Price struct {
	// Model is the model's name, e.g. "gpt-4o".
	Model string `json:"model"`
	// Encoding is the tokenizer the model uses; its token counts price it.
	Encoding metrics.Encoding `json:"encoding"`
	// InputPer1M is US dollars per million input (prompt) tokens.
	InputPer1M float64 `json:"input_per_1m"`
	// OutputPer1M is US dollars per million output (completion) tokens.
	OutputPer1M float64 `json:"output_per_1m"`
}

// DefaultPrices returns the embedded default price table, bench/prices.json.
func DefaultPrices() Prices {
	p, err := ParsePrices(defaultPrices)
	if err != nil {
		// The embedded file is checked by the package's tests.
		return Prices{}
	}
	return p
}

// ParsePrices decodes and validates a JSON price table.
func ParsePrices(data []byte) (Prices, error) {
	var p Prices
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Prices{}, fmt.Errorf("decode price table: %w", err)
	}
	if err := p.Validate(); err != nil {
		return Prices{}, err
	}
	return p, nil
}

// LoadPrices reads a JSON price table from a file.
func LoadPrices(path string) (Prices, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Prices{}, fmt.Errorf("read price table: %w", err)
	}
	p, err := ParsePrices(data)
	if err != nil {
		return Prices{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Validate reports the first invalid entry, naming it.
func (p Prices) Validate() error {
	var seen []string
	for i, m := range p.Models {
		switch {
		case m.Model == "":
			return fmt.Errorf("prices: models[%d]: empty model name", i)
		case !m.Encoding.Valid():
			return fmt.Errorf("prices: model %s: unknown encoding %q", m.Model, m.Encoding)
		case m.InputPer1M < 0 || m.OutputPer1M < 0:
			return fmt.Errorf("prices: model %s: negative price", m.Model)
		case slices.Contains(seen, m.Model):
			return fmt.Errorf("prices: model %s listed twice", m.Model)
		}
		seen = append(seen, m.Model)
	}
	return nil
}

// Cost is a cell's estimated cost for one model of the price table: the
// cost of one agent step per page (the model reads the perception text
// once) plus, in deep mode, the cost of the LLM calls that tagged the
// page. Completion tokens are priced only where the API reported them,
// never estimated; a dry run has none, and Partial says so.
type Cost struct {
	// Model names the priced model.
	Model string `json:"model" parquet:"model"`
	// Encoding is the model's tokenizer.
	Encoding string `json:"encoding" parquet:"encoding"`
	// InputTokens is the sum over pages of the perception tokens in the
	// model's encoding, plus the deep-mode prompt tokens (as the API
	// reported them, else as counted locally).
	InputTokens int64 `json:"input_tokens" parquet:"input_tokens"`
	// OutputTokens is the sum of API-reported completion tokens; 0 in
	// fast mode and for dry runs.
	OutputTokens int64 `json:"output_tokens" parquet:"output_tokens"`
	// USD is the estimated cost of all the cell's pages, in US dollars.
	USD float64 `json:"usd" parquet:"usd"`
	// USDPer1KPages is USD scaled to a thousand pages.
	USDPer1KPages float64 `json:"usd_per_1k_pages" parquet:"usd_per_1k_pages"`
	// Partial is true when some deep-mode figures were missing, so USD
	// falls short: a dry run has no completion tokens and no description
	// for the agent to read, only the prompt.
	Partial bool `json:"partial" parquet:"partial"`
}

// cost prices token sums with one model.
func (m Price) cost(pages, input, output int64, partial bool) Cost {
	usd := (float64(input)*m.InputPer1M + float64(output)*m.OutputPer1M) / 1e6
	c := Cost{Model: m.Model, Encoding: string(m.Encoding), InputTokens: input, OutputTokens: output, USD: usd, Partial: partial}
	if pages > 0 {
		c.USDPer1KPages = usd / float64(pages) * 1000
	}
	return c
}
