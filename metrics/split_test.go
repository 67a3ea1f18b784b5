package metrics

import (
	"math/rand/v2"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// split returns the pieces of text by next.
func split(text string, next func(string, int) int) []string {
	var pieces []string
	for i := 0; i < len(text); {
		end := next(text, i)
		pieces = append(pieces, text[i:end])
		i = end
	}
	return pieces
}

// The pieces each expression gives, as tiktoken's expressions split them
// (checked with the JavaScript port's expressions in node, but for ſ, which
// JavaScript does not fold to s); each case names the rule it is about.
// TestCounter_Reference checks far more texts against tiktoken itself;
// these show the rules at work.
func TestSplit_Pieces(t *testing.T) {
	tests := []struct {
		name          string
		text          string
		cl100k, o200k []string
	}{
		{"white space before a newline is one piece with it (\\s*[\\r\\n]+)", "Test\n    \n</body>",
			[]string{"Test", "\n    \n", "</", "body", ">"}, []string{"Test", "\n    \n", "</", "body", ">"}},
		{"a run leaves its last space to the word after it (\\s+(?!\\S))", "Hello  world\n\n  x",
			[]string{"Hello", " ", " world", "\n\n", " ", " x"}, []string{"Hello", " ", " world", "\n\n", " ", " x"}},
		{"white space at the end is one piece", "  \n  ",
			[]string{"  \n", "  "}, []string{"  \n", "  "}},
		{"contractions: pieces of their own in cl100k_base, suffixes in o200k_base", "don't DON'T",
			[]string{"don", "'t", " DON", "'T"}, []string{"don't", " DON'T"}},
		{"no-break space is white space", "a\u00a0 b",
			[]string{"a", "\u00a0", " b"}, []string{"a", "\u00a0", " b"}},
		{"symbols take the newlines after them", "<p>\r\n\tx</p>",
			[]string{"<p", ">\r\n", "\tx", "</", "p", ">"}, []string{"<p", ">\r\n", "\tx", "</", "p", ">"}},
		{"o200k_base's letter classes: title case, modifiers, marks", "HELLOworld ǅungla ʰʰA x\u0301y",
			[]string{"HELLOworld", " ǅungla", " ʰʰA", " x", "\u0301y"}, []string{"HELLOworld", " ǅungla", " ʰʰ", "A", " x\u0301y"}},
		{"numbers in threes", "12345",
			[]string{"123", "45"}, []string{"123", "45"}},
		{"o200k_base: a slash after the newlines", "!\n/x",
			[]string{"!\n", "/x"}, []string{"!\n/", "x"}},
		{"case folding: 'ſ is 's", "it'ſ",
			[]string{"it", "'ſ"}, []string{"it'ſ"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := split(tt.text, nextCL100K); !slices.Equal(got, tt.cl100k) {
				t.Errorf("cl100k_base: %q, want %q", got, tt.cl100k)
			}
			if got := split(tt.text, nextO200K); !slices.Equal(got, tt.o200k) {
				t.Errorf("o200k_base: %q, want %q", got, tt.o200k)
			}
		})
	}
}

// TestCount_Linear times counting runs of the shapes that took the
// tokenizer's regular expression quadratic time, at 64 KiB and at 512
// KiB, in CPU time (the machine may be shared), best of three: eight
// times the text must take well under 64 times as long, which a quadratic
// count would. The 50 ms of slack cover a garbage collection counted in
// the process's CPU time, which made a 4 ms count read 108 ms at 512 KiB
// on a loaded machine.
func TestCount_Linear(t *testing.T) {
	if testing.Short() {
		// A timing in one goroutine: under the race detector (the -short
		// pass of make test) it costs a minute and checks nothing more.
		t.Skip("times the tokenizer on 512 KiB runs; the full pass runs it")
	}
	c := mustCounter(t)
	shapes := []struct{ name, unit string }{
		{"spaces", " "},
		{"newlines", "\n"},
		{"space-newline", " \n"},
		{"crlf-tab", "\r\n\t"},
		{"letters", "a"},
		{"marks", "\u0301B"},
	}
	best := func(enc Encoding, text string) time.Duration {
		var d time.Duration
		for k := range 3 {
			start := cpuTime(t)
			if _, err := c.Count(enc, text); err != nil {
				t.Fatal(err)
			}
			if e := cpuTime(t) - start; k == 0 || e < d {
				d = e
			}
		}
		return d
	}
	for _, s := range shapes {
		for _, enc := range Encodings() {
			small := "x" + strings.Repeat(s.unit, (64<<10)/len(s.unit)) + "y"
			large := "x" + strings.Repeat(s.unit, (512<<10)/len(s.unit)) + "y"
			ds, dl := best(enc, small), best(enc, large)
			t.Logf("%s %s: 64 KiB in %v, 512 KiB in %v of CPU time", s.name, enc, ds, dl)
			if dl > 20*ds+50*time.Millisecond {
				t.Errorf("%s %s: 64 KiB in %v, 512 KiB in %v: not linear", s.name, enc, ds, dl)
			}
		}
	}
}

// cpuTime returns the CPU time the process has used.
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestMerge_HeapEqualsScan checks the heap merge, used for long pieces,
// against the scan, tiktoken's own way, on pieces of every length up to
// 1 KiB made of bytes that make many tokens.
func TestMerge_HeapEqualsScan(t *testing.T) {
	c := mustCounter(t)
	units := []string{" ", "  ", "\n", "a", "e", "th", "in", "=", "\"", "ab", "日", "😀", "\xe6", "-", "0", "00"}
	rng := rand.New(rand.NewPCG(7, 11))
	for _, enc := range Encodings() {
		ranks := &c.codecs[enc].ranks
		var heap, scan merger
		for k := range 400 {
			var b strings.Builder
			n := 2 + k*k%1024
			u := units[rng.IntN(len(units))]
			for b.Len() < n {
				if rng.IntN(4) == 0 {
					u = units[rng.IntN(len(units))]
				}
				b.WriteString(u)
			}
			piece := b.String()
			h := slices.Clone(heap.mergeHeap(ranks, piece))
			s := scan.mergeScan(ranks, piece)
			if !slices.Equal(h, s) {
				t.Fatalf("%s: %d-byte piece %.40q: heap %d tokens, scan %d", enc, len(piece), piece, len(h)-1, len(s)-1)
			}
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"Test\n    \n</body>", "don't", "ǅʰA\u0301", " \n \n", "1234", "it'ſ"} {
		f.Add(s)
	}
	c := mustCounter(f)
	f.Fuzz(func(t *testing.T, s string) {
		s = replaceInvalid(s)
		for _, enc := range Encodings() {
			e := c.codecs[enc]
			pieces := split(s, e.next)
			if strings.Join(pieces, "") != s || slices.Contains(pieces, "") {
				t.Fatalf("%s: pieces %q of %q", enc, pieces, s)
			}
			var m merger
			for _, p := range pieces {
				if len(p) < 2 {
					continue
				}
				if h, sc := slices.Clone(m.mergeHeap(&e.ranks, p)), m.mergeScan(&e.ranks, p); !slices.Equal(h, sc) {
					t.Fatalf("%s: piece %q: heap %v, scan %v", enc, p, h, sc)
				}
			}
		}
	})
}
