package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"actionspace/dom"
	"actionspace/metrics"
	"actionspace/space"
)

// Matrix binds a space.Matrix to the flags both commands read it from
// (--formats, --mode, --viewport-expansion, --text, --ids, --encodings,
// --token-budget): flag binding only; what the values mean and which are
// valid is space.Matrix's.
type Matrix struct {
	m                                                          *space.Matrix
	formats, modes, expansions, texts, encodings, budgets, ids string
	strategies                                                 strategyFlags
}

// BindMatrix binds the matrix flags on fs to m, with m's values as the
// defaults; Parse writes them back into m once the flags are parsed.
// formats is the start of --formats' usage (what the command does with
// them) and note its end (what a format's record means to it). stderr
// hears that --modes, the old name of --mode, is deprecated when it is
// used.
func BindMatrix(fs *flag.FlagSet, m *space.Matrix, formats, note string, stderr io.Writer) *Matrix {
	b := &Matrix{m: m, formats: strings.Join(m.Formats, ","), modes: strings.Join(m.Modes, ","),
		expansions: FormatInts(m.Expansions), encodings: FormatEncodings(m.Encodings), budgets: FormatInt64s(m.Budgets)}
	texts := make([]string, len(m.Texts))
	for i, t := range m.Texts {
		texts[i] = string(t)
	}
	b.texts = strings.Join(texts, ",")
	ids := make([]string, len(m.IDs))
	for i, p := range m.IDs {
		ids[i] = string(p)
	}
	b.ids = strings.Join(ids, ",")
	fs.StringVar(&b.formats, "formats", b.formats, formats+" (`LIST` of "+strings.Join(space.Formats(), ", ")+"); "+note)
	fs.StringVar(&b.modes, "mode", b.modes, "renderings per page and expansion (`LIST` of fast, deep); deep without --llm-base-url is a dry run: the prompt is built and counted, no call")
	fs.Func("modes", "deprecated: use --mode", func(v string) error {
		fmt.Fprintf(stderr, "%s: --modes is deprecated; use --mode (the same LIST)\n", fs.Name())
		b.modes = v
		return nil
	})
	fs.StringVar(&b.expansions, "viewport-expansion", b.expansions, "viewport expansions in CSS pixels (`LIST`; -1 = the whole page)")
	fs.StringVar(&b.texts, "text", b.texts, "context text (`LIST` of viewport: inside the window, all: every text, salient: only salient text inside the window, none)")
	fs.StringVar(&b.ids, "ids", b.ids, "actionspace ID policies (`LIST` of positional: counters in document order over the window, recomputed at every step; stable: an element keeps its ID for the life of its document, across steps and windows); empty = positional")
	fs.StringVar(&b.encodings, "encodings", b.encodings, "tokenizers to count with (`LIST` of cl100k_base, o200k_base; the first leads reports)")
	b.strategies.bind(fs, m)
	fs.StringVar(&b.budgets, "token-budget", b.budgets, "token budgets (`LIST`, e.g. 1000,2000,4000,8000; empty = none): per page and text policy, the fast action space that fits in N tokens of the first of --encodings, perception wrapper included")
	return b
}

// Parse reads the flags BindMatrix bound into its matrix and validates it
// (space.Matrix.Validate); its errors are usage errors naming the flag.
func (b *Matrix) Parse() error {
	var m space.Matrix
	var err error
	if m.Formats, err = space.ParseFormats(b.formats); err != nil {
		return Usagef("--formats: %v", err)
	}
	if m.Modes, err = space.ParseModes(b.modes); err != nil {
		return Usagef("--mode: %v", err)
	}
	if m.Expansions, err = ParseInts(b.expansions); err != nil {
		return Usagef("--viewport-expansion: %v", err)
	}
	for _, t := range SplitList(b.texts) {
		p, err := dom.ParseTextPolicy(t)
		if err != nil {
			return Usagef("--text: %v", err)
		}
		m.Texts = append(m.Texts, p)
	}
	for _, p := range SplitList(b.ids) {
		policy, err := dom.ParseIDPolicy(p)
		if err != nil {
			return Usagef("--ids: %v", err)
		}
		m.IDs = append(m.IDs, policy)
	}
	if m.Encodings, err = metrics.ParseEncodings(b.encodings); err != nil {
		return Usagef("--encodings: %v", err)
	}
	if m.Budgets, err = ParseInt64s(b.budgets); err != nil {
		return Usagef("--token-budget: %v", err)
	}
	if err := b.strategies.parse(&m); err != nil {
		return err
	}
	m.Cuts = b.m.Cuts
	if err := m.Validate(); err != nil {
		return Usagef("--%v", err)
	}
	*b.m = m
	return nil
}

// String describes the matrix for a progress line.
func (b *Matrix) String() string {
	s := fmt.Sprintf("modes %s, expansions %s, text %s", b.modes, b.expansions, b.texts)
	if b.budgets != "" {
		s += ", token budgets " + b.budgets
	}
	return s
}
