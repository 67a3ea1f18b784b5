package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dom"
)

// trickyHTML holds what the HTML serialization algorithm treats apart:
// a doctype with identifiers, escapes in text and attribute values, raw
// text elements, void elements, a template, comments, SVG and MathML
// with case and namespaced attributes, and text that a script changed.
const trickyHTML = `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd">
<html lang="en"><head><meta charset="utf-8"><title>A &amp; B &lt;tricky&gt;</title>
<style>p > b { color: red } /* <not a tag> & */</style>
<script>var s = "<b>&amp;</b>";</script></head>
<body><!-- a comment with <b> & things -->
<p title='say "hi" &amp; <bye> &nbsp;x' data-x="a&#10;b">1 &lt; 2 &amp;&amp; 3 &gt; 2&nbsp;&nbsp;é 東京 😀</p>
<br><img alt="x" src="data:,"><input value="v&quot;1"><hr/>
<template id="t"><li class="c">templated &amp; <i>item</i></li></template>
<textarea>raw? <b>no</b> &amp;</textarea><noscript><b>noscript</b> & </noscript>
<svg viewBox="0 0 10 10" xmlns:xlink="http://www.w3.org/1999/xlink"><foreignObject width="5" height="5"><p>in svg</p></foreignObject>
<use xlink:href="#a"/><linearGradient gradientUnits="userSpaceOnUse"/></svg>
<math><mi mathvariant="bold">x</mi></math>
<div id="late"></div>
<script>document.getElementById('late').textContent = 'late <text> & ' + '\u00a0';
document.getElementById('late').setAttribute('data-y', '<"&>');</script>
</body></html>`

// contentOf is Playwright's page.Content of the loaded page: what the
// crawl read before the page serialized its own HTML.
func contentOf(t *testing.T, l *loaded) string {
	t.Helper()
	html, err := l.page.Content()
	if err != nil {
		t.Fatal(err)
	}
	return html
}

// TestReadHTML_SameAsContent: below the cap the page's own serialization
// is page.Content's, byte for byte; with a small cap (the walk of the
// serialization algorithm around the cut) it is a prefix of it that does
// not stop inside a tag.
func TestReadHTML_SameAsContent(t *testing.T) {
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tricky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(trickyHTML))
	}))
	defer tricky.Close()
	urls := append(corpora.DefaultURLs(srv.URL)[:4], tricky.URL)
	for _, u := range urls {
		l := b.load(t, u)
		want := contentOf(t, l)
		got, err := readHTML(context.Background(), l.cdp, l.world, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if got.Truncated || got.HTML != want {
			t.Errorf("%s: %d bytes (truncated %v), page.Content %d bytes; first difference at %d:\n got %q\nwant %q",
				u, len(got.HTML), got.Truncated, len(want), diffAt(got.HTML, want), around(got.HTML, diffAt(got.HTML, want)), around(want, diffAt(got.HTML, want)))
		}
		// Caps that cut in the head, in the body and near the end walk
		// the algorithm down to the cut.
		units := len([]rune(want)) // at least the page's code units less its pairs
		for _, cap := range []int{40, units / 3, units - 30} {
			got, err := readHTML(context.Background(), l.cdp, l.world, cap)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Truncated || !strings.HasPrefix(want, got.HTML) {
				k := diffAt(got.HTML, want)
				t.Errorf("%s cap %d: truncated %v, %d bytes; not a prefix of page.Content at %d:\n got %q\nwant %q", u, cap, got.Truncated, len(got.HTML), k, around(got.HTML, k), around(want, k))
				continue
			}
			if open, close := strings.LastIndexByte(got.HTML, '<'), strings.LastIndexByte(got.HTML, '>'); open > close && !inText(got.HTML[open:]) {
				t.Errorf("%s cap %d: ends inside a tag: %q", u, cap, got.HTML[open:])
			}
		}
	}
}

// inText reports whether tail, what follows the last "<" of a cut
// serialization, can be text or a comment rather than a tag cut short
// (a "<" of text is escaped, but not in raw text elements or comments).
func inText(tail string) bool {
	return strings.HasPrefix(tail, "<!--") || !strings.ContainsAny(tail[1:2], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/!?")
}

func diffAt(a, b string) int {
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	return k
}

func around(s string, k int) string {
	return s[max(0, k-60):min(len(s), k+60)]
}

// TestReadHTML_LongAttribute: a page whose HTML serializes to 100 MB (one
// attribute of 1 MiB on 100 elements) is cut in the page: no more than
// the cap crosses to Go, quickly (page.Content took 47 s on a loaded
// machine).
func TestReadHTML_LongAttribute(t *testing.T) {
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	l := b.load(t, srv.URL+"/attacks/long-attribute")
	const maxUnits = 4 << 20
	var got pageHTML
	took := fastestWithin(5*time.Second, func() time.Duration {
		return readHTMLTimed(t, l, maxUnits, &got)
	})
	t.Logf("%d bytes of HTML in %v", len(got.HTML), took)
	if !got.Truncated || len(got.HTML) > maxUnits || len(got.HTML) < corpora.AttackAttrBytes {
		t.Errorf("%d bytes, truncated %v; want a cut between %d and %d bytes", len(got.HTML), got.Truncated, corpora.AttackAttrBytes, maxUnits)
	}
	if n := strings.Count(got.HTML, `data-long="`); n != maxUnits/corpora.AttackAttrBytes-1 && n != maxUnits/corpora.AttackAttrBytes {
		t.Errorf("%d copies of the attribute, want the %d that fit", n, maxUnits/corpora.AttackAttrBytes)
	}
	if took > 5*time.Second {
		t.Errorf("took %v at the fastest of %d reads, want the cap's worth of work (seconds at most)", took, boundTries)
	}
}

// readHTMLTimed reads l's HTML, cut at maxUnits, into got and returns
// how long the read took.
func readHTMLTimed(t *testing.T, l *loaded, maxUnits int, got *pageHTML) time.Duration {
	t.Helper()
	start := time.Now()
	h, err := readHTML(context.Background(), l.cdp, l.world, maxUnits)
	if err != nil {
		t.Fatal(err)
	}
	*got = h
	return time.Since(start)
}

// TestReadHTML_CutKeepsSecretsOut: wherever the cap falls, the page's
// serialization never ends inside a password input's tag, so that the
// redaction that follows (dom.RedactSecrets, which reads whole tags) takes
// its value out: no prefix of the value is stored.
func TestReadHTML_CutKeepsSecretsOut(t *testing.T) {
	const secret = "hunter2-SECRET"
	b := newTestBrowser(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!DOCTYPE html><html><head><title>Login</title></head><body><form><input name="user">` +
			`<input type="password" name="pw" value="` + secret + `"><button>Sign in</button></form></body></html>`))
	}))
	defer srv.Close()
	l := b.load(t, srv.URL)
	whole := contentOf(t, l)
	at := strings.Index(whole, `<input type="password"`)
	if at < 0 {
		t.Fatalf("no password input in %q", whole)
	}
	for cap := at - 2; cap < at+80; cap += 5 {
		got, err := readHTML(context.Background(), l.cdp, l.world, cap)
		if err != nil {
			t.Fatal(err)
		}
		redacted, _ := dom.RedactSecrets(got.HTML)
		if strings.Contains(redacted, secret[:4]) {
			t.Fatalf("cap %d: a prefix of the password in %q", cap, redacted[at-10:])
		}
	}
}

// TestReadHTML_ManyAttributes: an element of 100,000 attributes is
// serialized by the browser, not attribute by attribute (reading each
// Attr costs the square of their number: minutes), and as page.Content
// serializes it.
func TestReadHTML_ManyAttributes(t *testing.T) {
	b := newTestBrowser(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	l := b.load(t, srv.URL+"/attacks/attributes")
	want := contentOf(t, l)
	for _, cap := range []int{1 << 30, len(want) / 2} {
		var got pageHTML
		took := fastestWithin(10*time.Second, func() time.Duration {
			return readHTMLTimed(t, l, cap, &got)
		})
		t.Logf("cap %d: %d bytes in %v", cap, len(got.HTML), took)
		if !strings.HasPrefix(want, got.HTML) || (cap > len(want)) == got.Truncated {
			t.Errorf("cap %d: %d bytes, truncated %v; want page.Content's %d bytes or a prefix", cap, len(got.HTML), got.Truncated, len(want))
		}
		if took > 10*time.Second {
			t.Errorf("cap %d: took %v at the fastest of %d reads", cap, took, boundTries)
		}
	}
}
