// Package metrics measures what an action space costs: exact tiktoken token
// counts, the compression ratio against raw HTML, and small statistics for
// benchmark summaries.
//
// # Tokens
//
// A [Counter] counts tokens with the byte-pair encodings OpenAI models use,
// [CL100K] (GPT-4, GPT-3.5) and [O200K] (GPT-4o, GPT-4.1, o-series). Counts
// and token IDs equal tiktoken's encode_ordinary for the same text: the
// comparison test checks tens of thousands of texts (the corpus, every
// stored page in every format, and adversarial texts) against tiktoken
// itself. The vocabularies come from github.com/tiktoken-go/tokenizer,
// which compiles them into the binary: nothing is downloaded at run time.
// The pre-splitting of tiktoken, the regular expression that cuts a text
// into the pieces tokens never cross, is this package's own: a pass over
// the text that gives exactly the expressions' pieces in time linear in
// the text's length (split.go), where the library's expressions differ
// from tiktoken's on white space before a newline and take time quadratic
// in the length of some white-space runs. Byte-pair merging follows
// tiktoken (lowest rank first, leftmost on a tie), with a heap for long
// pieces, so that a megabyte of white space counts in well under a second.
// Two rules follow from measuring page content rather than prompts:
//
//   - Special-token text such as "<|endoftext|>" is ordinary text. A page may
//     contain it; it is split into ordinary tokens (seven in both encodings),
//     never rejected and never counted as one special token.
//   - Invalid UTF-8 is counted as if each maximal invalid sequence were
//     U+FFFD, as tiktoken sees bytes decoded with errors="replace".
//
// Loading an encoding builds its vocabulary map (about 0.1 s of CPU time
// and 12 MB), once per process: Counters share it. A Counter is safe for
// concurrent use. docs/tokens.md has the measured speed.
//
// # Statistics
//
// [Mean], [Median] and [Percentile] summarise timings and counts. They never
// modify their input, ignore NaN values, and return NaN for an empty input.
package metrics
