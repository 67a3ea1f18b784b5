package metrics

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

func mustCounter(tb testing.TB, encs ...Encoding) *Counter {
	tb.Helper()
	c, err := NewCounter(encs...)
	if err != nil {
		tb.Fatalf("NewCounter(%v): %v", encs, err)
	}
	return c
}

// The pinned counts come from tiktoken itself where it documents them
// ("tiktoken is great!" is [83 1609 5963 374 2294 0] in cl100k_base and
// [83 8251 2488 382 2212 0] in o200k_base; "hello world" is [15339 1917] in
// cl100k_base), from reasoning (the empty string has no tokens; one space and
// one run of newlines are single tokens), and from this library, cross-checked
// against the splits it reports.
func TestCounter_Count(t *testing.T) {
	c := mustCounter(t)
	tests := []struct {
		name   string
		text   string
		cl100k int64
		o200k  int64
	}{
		{"empty", "", 0, 0},
		{"hello world", "hello world", 2, 2},
		{"tiktoken readme", "tiktoken is great!", 6, 6},
		{"punctuation", "Hello, world!", 4, 4},
		{"pangram", "The quick brown fox jumps over the lazy dog.", 10, 10},
		{"one space", " ", 1, 1},
		{"blank line", "\n\n", 1, 1},
		{"html", `<button id="B1">Sign in</button>`, 11, 11},
		{"action line", `[B1] button "Sign in"`, 8, 8},
		// cl100k_base splits 語 into two byte tokens; o200k_base has 日本.
		{"cjk", "日本語", 4, 2},
		// Special-token text is ordinary text: < | endo ft ext | > in
		// cl100k_base, < | end of text | > in o200k_base.
		{"endoftext", "<|endoftext|>", 7, 7},
		{"endoftext inside", "a<|endoftext|>b", 9, 9},
		// < | f im _prefix | > and < | fim _prefix | >.
		{"fim prefix", "<|fim_prefix|>", 7, 6},
		// A truncated UTF-8 sequence counts as one U+FFFD.
		{"invalid utf8", "\xe8\xaa", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, w := range []struct {
				enc  Encoding
				want int64
			}{{CL100K, tt.cl100k}, {O200K, tt.o200k}} {
				got, err := c.Count(w.enc, tt.text)
				if err != nil {
					t.Fatalf("Count(%s, %q): %v", w.enc, tt.text, err)
				}
				if got != w.want {
					t.Errorf("Count(%s, %q) = %d, want %d", w.enc, tt.text, got, w.want)
				}
			}
		})
	}
}

// Counts add up across the pre-tokenizer's boundaries: "hello world\n" splits
// as "hello", " world", "\n" every time, so 1000 copies cost 1000 times one.
// This checks the counting path on a larger input against itself.
func TestCounter_Count_large(t *testing.T) {
	c := mustCounter(t)
	line := "hello world\n"
	for _, enc := range Encodings() {
		one, err := c.Count(enc, line)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Count(enc, strings.Repeat(line, 1000))
		if err != nil {
			t.Fatal(err)
		}
		if want := 1000 * one; got != want {
			t.Errorf("%s: Count(1000 lines) = %d, want %d", enc, got, want)
		}
	}
}

func TestCounter_Count_notLoaded(t *testing.T) {
	c := mustCounter(t, CL100K)
	if _, err := c.Count(O200K, "x"); err == nil {
		t.Fatal("Count with an encoding not loaded: got nil error")
	}
	if got, want := fmt.Sprint(c.Encodings()), fmt.Sprint([]Encoding{CL100K}); got != want {
		t.Errorf("Encodings() = %s, want %s", got, want)
	}
}

func TestNewCounter(t *testing.T) {
	tests := []struct {
		name    string
		encs    []Encoding
		want    []Encoding
		wantErr bool
	}{
		{"none means all", nil, []Encoding{CL100K, O200K}, false},
		{"one", []Encoding{O200K}, []Encoding{O200K}, false},
		{"duplicate", []Encoding{O200K, CL100K, O200K}, []Encoding{CL100K, O200K}, false},
		{"unknown", []Encoding{"p50k_base"}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewCounter(tt.encs...)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NewCounter(%v): got nil error", tt.encs)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewCounter(%v): %v", tt.encs, err)
			}
			if got, want := fmt.Sprint(c.Encodings()), fmt.Sprint(tt.want); got != want {
				t.Errorf("Encodings() = %s, want %s", got, want)
			}
		})
	}
}

func TestParseEncodings(t *testing.T) {
	tests := []struct {
		list    string
		want    []Encoding
		wantErr string // substring of the error; "" for no error
	}{
		{"cl100k_base", []Encoding{CL100K}, ""},
		{"cl100k_base,o200k_base", []Encoding{CL100K, O200K}, ""},
		{" o200k_base , cl100k_base ", []Encoding{O200K, CL100K}, ""},
		{"o200k_base,o200k_base", []Encoding{O200K}, ""},
		{"cl100k_base,gpt2", nil, `"gpt2"`},
		{"", nil, "empty name"},
		{"cl100k_base,", nil, "empty name"},
	}
	for _, tt := range tests {
		t.Run(tt.list, func(t *testing.T) {
			got, err := ParseEncodings(tt.list)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseEncodings(%q) error = %v, want one containing %s", tt.list, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseEncodings(%q): %v", tt.list, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("ParseEncodings(%q) = %v, want %v", tt.list, got, tt.want)
			}
		})
	}
}

// Many goroutines share one Counter; run with -race.
func TestCounter_Count_concurrent(t *testing.T) {
	c := mustCounter(t)
	texts := []string{"hello world", "<|endoftext|>", testHTML(2000), "日本語"}
	want := make(map[Encoding][]int64)
	for _, enc := range Encodings() {
		for _, s := range texts {
			n, err := c.Count(enc, s)
			if err != nil {
				t.Fatal(err)
			}
			want[enc] = append(want[enc], n)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for i := range 20 {
				enc := Encodings()[(g+i)%2]
				k := (g + i) % len(texts)
				got, err := c.Count(enc, texts[k])
				if err != nil {
					errs <- err
					return
				}
				if got != want[enc][k] {
					errs <- fmt.Errorf("goroutine %d: Count(%s, text %d) = %d, want %d", g, enc, k, got, want[enc][k])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestRatio(t *testing.T) {
	tests := []struct {
		html, space int64
		want        float64
		wantOK      bool
	}{
		{1000, 25, 40, true},
		{10, 4, 2.5, true},
		{0, 5, 0, true},
		{1000, 0, 0, false},
		{1000, -1, 0, false},
		{-1, 5, 0, false},
	}
	for _, tt := range tests {
		got, ok := Ratio(tt.html, tt.space)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Ratio(%d, %d) = %v, %v; want %v, %v", tt.html, tt.space, got, ok, tt.want, tt.wantOK)
		}
	}
}

// testHTML returns a realistic page of about n bytes: a header, a form and a
// grid of product cards with varied text and attributes.
func testHTML(n int) string {
	colors := []string{"red", "ochre", "teal", "midnight blue", "sand", "graphite", "olive"}
	things := []string{"mug", "linen shirt", "desk lamp", "notebook", "backpack", "teapot", "wool scarf", "chair"}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Shop — all products</title>` +
		`<link rel="stylesheet" href="/static/site.css"><script src="/static/app.js" defer></script></head><body>` +
		`<header class="site-header"><nav aria-label="Main"><a href="/">Home</a> <a href="/products">Products</a> ` +
		`<a href="/account" class="nav-link">Account</a></nav><form action="/search" role="search">` +
		`<input type="search" name="q" placeholder="Search products…" aria-label="Search"><button type="submit">Search</button></form></header>` +
		"\n<main id=\"grid\" class=\"grid grid-cols-4 gap-6\">\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `  <article class="card" data-sku="SKU-%05d" data-price="%d.%02d">`+"\n"+
			`    <img src="/img/p%d.webp" alt="Product %d, a %s %s" width="320" height="240" loading="lazy">`+"\n"+
			`    <h2 class="card-title"><a href="/p/%d">%s %s no. %d</a></h2>`+"\n"+
			`    <p class="price">€%d,%02d</p><p class="desc">Hand-made in small batches; ships in %d–%d days. Rated %d.%d/5 by %d customers.</p>`+"\n"+
			`    <button class="btn btn-primary" onclick="addToCart(%d)" aria-label="Add product %d to cart">Add to cart</button>`+"\n"+
			"  </article>\n",
			i, 10+i%90, i%100, i, i, colors[i%len(colors)], things[i%len(things)],
			i, colors[(i+3)%len(colors)], things[(i+5)%len(things)], i,
			10+i%90, i%100, 1+i%3, 4+i%5, 3+i%3, i%10, 7+i*13%500, i, i)
	}
	b.WriteString("</main><footer><p>&copy; 2026 Example Shop &lt;|endoftext|&gt; <|endoftext|></p></footer></body></html>\n")
	return b.String()
}

// benchTexts are the texts of BenchmarkCount: the stored pages' action
// spaces (every golden render of the actionspace format) and their HTML,
// one after the other, and runs of white space (" \n" pairs, the shape on
// which the tokenizer's regular expression took quadratic time).
func benchTexts(b *testing.B) []struct{ name, text string } {
	b.Helper()
	var spaces, html strings.Builder
	for _, glob := range []string{"../render/testdata/*/fast_E*.txt", "../render/testdata/*/page.html.gz"} {
		paths, err := filepath.Glob(glob)
		if err != nil || len(paths) == 0 {
			b.Fatalf("%s: %v %v", glob, paths, err)
		}
		for _, p := range paths {
			data, err := readMaybeGzip(p)
			if err != nil {
				b.Fatal(err)
			}
			if strings.HasSuffix(p, ".gz") {
				html.Write(data)
			} else {
				spaces.Write(data)
			}
		}
	}
	run := func(n int) string { return "<p>" + strings.Repeat(" \n", n/2) + "</p>" }
	return []struct{ name, text string }{
		{"actionspace", spaces.String()},
		{"html", html.String()},
		{"whitespace-64KiB", run(64 << 10)},
		{"whitespace-1MiB", run(1 << 20)},
	}
}

// BenchmarkCount compares the Counter ("exact") with the path it replaced,
// github.com/tiktoken-go/tokenizer's own Count ("library"), whose
// pre-splitting differs from tiktoken's and takes time quadratic in the
// length of some white-space runs: on 1 MiB of them it would run for about
// 25 minutes, so it is skipped there.
func BenchmarkCount(b *testing.B) {
	c := mustCounter(b)
	for _, tt := range benchTexts(b) {
		for _, enc := range Encodings() {
			codec, err := tokenizer.Get(tokenizer.Encoding(enc))
			if err != nil {
				b.Fatal(err)
			}
			codec.SetErrorMode(tokenizer.ErrorModeReplace)
			for _, impl := range []struct {
				name  string
				count func(string) (int64, error)
			}{
				{"exact", func(s string) (int64, error) { return c.Count(enc, s) }},
				{"library", func(s string) (int64, error) { n, err := codec.Count(s); return int64(n), err }},
			} {
				b.Run(fmt.Sprintf("%s/%s/%s", tt.name, enc, impl.name), func(b *testing.B) {
					if impl.name == "library" && tt.name == "whitespace-1MiB" {
						b.Skip("quadratic: about 25 minutes")
					}
					b.SetBytes(int64(len(tt.text)))
					var n int64
					cpu := cpuTime(b)
					for b.Loop() {
						var err error
						if n, err = impl.count(tt.text); err != nil {
							b.Fatal(err)
						}
					}
					// The machine may be shared: CPU time is the figure
					// to compare.
					perOp := float64(cpuTime(b)-cpu) / float64(b.N)
					b.ReportMetric(float64(n), "tokens/op")
					b.ReportMetric(perOp, "cpu-ns/op")
					b.ReportMetric(float64(len(tt.text))/perOp*1e3, "cpu-MB/s")
				})
			}
		}
	}
}

// BenchmarkCounter_Count_PageSizes counts the tokens of whole pages of 1,
// 5 and 20 MB of HTML: the time a crawl spends on a page's HTML token
// count grows with the HTML it keeps, which is why it counts the capped
// HTML only (dom.CutHTML).
func BenchmarkCounter_Count_PageSizes(b *testing.B) {
	c := mustCounter(b)
	for _, mb := range []int{1, 5, 20} {
		html := testHTML(mb << 20)
		for _, enc := range Encodings() {
			b.Run(fmt.Sprintf("%dMB/%s", mb, enc), func(b *testing.B) {
				b.SetBytes(int64(len(html)))
				var n int64
				for b.Loop() {
					var err error
					if n, err = c.Count(enc, html); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n), "tokens/op")
			})
		}
	}
}
