package metrics

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// countBoth counts text with Count and CountContext in every encoding and
// fails on any difference.
func countBoth(t *testing.T, c *Counter, name, text string) {
	t.Helper()
	for _, enc := range c.Encodings() {
		want, err := c.Count(enc, text)
		if err != nil {
			t.Fatalf("%s: Count(%s): %v", name, enc, err)
		}
		got, err := c.CountContext(context.Background(), enc, text)
		if err != nil {
			t.Fatalf("%s: CountContext(%s): %v", name, enc, err)
		}
		if got != want {
			t.Errorf("%s (%d bytes): CountContext(%s) = %d, Count = %d", name, len(text), enc, got, want)
		}
	}
}

// TestCountContext_SameAsCount compares the chunked count with the
// tokenizer's own on the corpus pages (repeated past the chunk size) and on
// random texts made of the characters the split rule is about: letters of
// both cases, digits, marks, apostrophes, white space of every kind,
// punctuation, CJK, invalid bytes.
func TestCountContext_SameAsCount(t *testing.T) {
	c := mustCounter(t)
	pages, err := filepath.Glob(filepath.Join("..", "corpora", "site", "*.html"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("corpus pages: %v %v", pages, err)
	}
	for _, p := range pages {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		countBoth(t, c, filepath.Base(p), strings.Repeat(string(data), 1+3*chunkBytes/len(data)))
	}
	alphabet := []string{"a", "Z", "é", "ß", "7", "٣", "\u0301", "'", "’", " ", "  ", "\n", "\r\n", "\t", "\u00a0", "\u3000",
		"<", ">", "/", "\"", "=", ".", ",", "!", "東", "京", "日本", "\xff", "\xe8\xaa", "'s", "'LL", "Hello", "wORLD", "123456", "😀"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var b strings.Builder
		n := 1 + rng.IntN(3*chunkBytes/4)
		if i%10 == 0 {
			n = 3 * chunkBytes // several chunks
		}
		for b.Len() < n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		countBoth(t, c, "random", b.String())
	}
}

// FuzzCountContext checks that the chunked count equals the tokenizer's.
func FuzzCountContext(f *testing.F) {
	c := mustCounter(f)
	for _, s := range []string{"Hello world", "a\n<b", "x's", "東京。<p>", "12345 678", "a\u0301b", "it's <a href=\"x\">"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, repeat int) {
		repeat = 1 + (repeat&0xff)%64
		text := strings.Repeat(s, 1+chunkBytes/max(1, len(s))/64*repeat)
		if len(text) > 4*chunkBytes {
			text = text[:4*chunkBytes]
		}
		for _, enc := range c.Encodings() {
			want, err := c.Count(enc, text)
			if err != nil {
				t.Skip(err)
			}
			got, err := c.CountContext(context.Background(), enc, text)
			if errors.Is(err, ErrUnsplittable) {
				continue
			}
			if err != nil || got != want {
				t.Fatalf("%s: CountContext = %d, %v; Count = %d", enc, got, err, want)
			}
		}
	})
}

// TestCountContext_Bounded shows the two bounds on a text the tokenizer
// takes quadratic time on: a stretch longer than MaxStretch is refused at
// once, and stretches below it, one after the other, are stopped by the
// context's deadline within about one stretch's time.
func TestCountContext_Bounded(t *testing.T) {
	c := mustCounter(t)
	slow := strings.Repeat(" \n", MaxStretch/2+1) // no split point: one stretch
	start := time.Now()
	_, err := c.CountContext(context.Background(), CL100K, "<p>"+slow+"</p>")
	if !errors.Is(err, ErrUnsplittable) {
		t.Fatalf("err = %v, want ErrUnsplittable", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing took %v", d)
	}

	// 64 stretches of 16 KiB, each about 0.1-0.4 s: 10-20 s in all.
	stretch := strings.Repeat(" \n", 8<<10)
	text := strings.Repeat("a"+stretch+"a.", 64)
	const limit = 500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start = time.Now()
	_, err = c.CountContext(ctx, CL100K, text)
	took := time.Since(start)
	t.Logf("stopped after %v (limit %v): %v", took, limit, err)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	one := time.Now()
	if _, err := c.Count(CL100K, "a"+stretch+"a."); err != nil {
		t.Fatal(err)
	}
	perStretch := time.Since(one)
	if took > limit+3*perStretch+200*time.Millisecond {
		t.Errorf("stopped after %v: the limit %v plus one stretch (%v) is the most it may take", took, limit, perStretch)
	}
}
