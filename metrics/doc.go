// Package metrics measures what an action space costs: exact tiktoken token
// counts, the compression ratio against raw HTML, and small statistics for
// benchmark summaries.
//
// # Tokens
//
// A [Counter] counts tokens with the byte-pair encodings OpenAI models use,
// [CL100K] (GPT-4, GPT-3.5) and [O200K] (GPT-4o, GPT-4.1, o-series), through
// github.com/tiktoken-go/tokenizer, whose vocabularies are compiled into the
// binary: nothing is downloaded at run time. Counts equal Python tiktoken's
// encode_ordinary for the same text. Two rules follow from measuring page
// content rather than prompts:
//
//   - Special-token text such as "<|endoftext|>" is ordinary text. A page may
//     contain it; it is split into ordinary tokens (seven in both encodings),
//     never rejected and never counted as one special token.
//   - Invalid UTF-8 is counted as if each maximal invalid sequence were
//     U+FFFD, as tiktoken sees bytes decoded with errors="replace".
//
// Loading an encoding builds its vocabulary map, once per process (about
// 10-20 ms); build one Counter per run and share it: it is safe for
// concurrent use. Counting runs at a few MB of HTML per second per core
// (4-8 MB/s measured on the development machine).
//
// # Statistics
//
// [Mean], [Median] and [Percentile] summarise timings and counts. They never
// modify their input, ignore NaN values, and return NaN for an empty input.
package metrics
