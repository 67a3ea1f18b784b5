package cli

import (
	"flag"
	"fmt"
	"strings"

	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/render"
	"actionspace/space"
)

// Matrix is what both commands render per page: the modes, viewport
// expansions, text policies, encodings and token budgets. Register binds
// it to the same flags in both (--mode, --viewport-expansion, --text,
// --encodings, --token-budget), with its values as the defaults; Parse
// reads them back after the flags are parsed.
type Matrix struct {
	Modes      []string
	Expansions []int
	Texts      []dom.TextPolicy
	Encodings  []metrics.Encoding
	// Budgets are the token budgets each page's fast action space is
	// fitted into (render.FitBudget), counted in the first of Encodings;
	// empty for none.
	Budgets []int64

	modes, expansions, texts, encodings, budgets string
}

// Register binds the matrix flags on fs. stderr hears that --modes, the
// old name of --mode, is deprecated when it is used.
func (m *Matrix) Register(fs *flag.FlagSet, stderr interface{ Write([]byte) (int, error) }) {
	m.modes = strings.Join(m.Modes, ",")
	m.expansions = FormatInts(m.Expansions)
	texts := make([]string, len(m.Texts))
	for i, t := range m.Texts {
		texts[i] = string(t)
	}
	m.texts = strings.Join(texts, ",")
	m.encodings = FormatEncodings(m.Encodings)
	fs.StringVar(&m.modes, "mode", m.modes, "renderings per page and expansion (`LIST` of fast, deep); deep without --llm-base-url is a dry run: the prompt is built and counted, no call")
	fs.Func("modes", "deprecated: use --mode", func(v string) error {
		fmt.Fprintf(stderr, "%s: --modes is deprecated; use --mode (the same LIST)\n", fs.Name())
		m.modes = v
		return nil
	})
	fs.StringVar(&m.expansions, "viewport-expansion", m.expansions, "viewport expansions in CSS pixels (`LIST`; -1 = the whole page)")
	fs.StringVar(&m.texts, "text", m.texts, "context text (`LIST` of viewport: inside the window, all: every text, none)")
	fs.StringVar(&m.encodings, "encodings", m.encodings, "tokenizers to count with (`LIST` of cl100k_base, o200k_base; the first leads reports)")
	m.budgets = FormatInt64s(m.Budgets)
	fs.StringVar(&m.budgets, "token-budget", m.budgets, "token budgets (`LIST`, e.g. 1000,2000,4000,8000; empty = none): per page and text policy, the fast action space that fits in N tokens of the first of --encodings, perception wrapper included")
}

// Parse reads the flags Register bound; its errors are usage errors
// naming the flag.
func (m *Matrix) Parse() error {
	var err error
	if m.Modes, err = space.ParseModes(m.modes); err != nil {
		return Usagef("--mode: %v", err)
	}
	if m.Expansions, err = ParseInts(m.expansions); err != nil {
		return Usagef("--viewport-expansion: %v", err)
	}
	m.Texts = nil
	for _, t := range SplitList(m.texts) {
		p, err := dom.ParseTextPolicy(t)
		if err != nil {
			return Usagef("--text: %v", err)
		}
		m.Texts = append(m.Texts, p)
	}
	if len(m.Texts) == 0 {
		return Usagef("--text: empty list")
	}
	if m.Encodings, err = metrics.ParseEncodings(m.encodings); err != nil {
		return Usagef("--encodings: %v", err)
	}
	if m.Budgets, err = ParseInt64s(m.budgets); err != nil {
		return Usagef("--token-budget: %v", err)
	}
	if err := render.ValidateBudgets(m.Budgets); err != nil {
		return Usagef("--token-budget: %v", err)
	}
	return nil
}

// String describes the matrix for a progress line.
func (m *Matrix) String() string {
	s := fmt.Sprintf("modes %s, expansions %s, text %s", m.modes, m.expansions, m.texts)
	if m.budgets != "" {
		s += ", token budgets " + m.budgets
	}
	return s
}
