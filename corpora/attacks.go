package corpora

import (
	"bufio"
	"fmt"
	"html"
	"net/http"
	"strconv"
	"strings"
)

// AttackPrefix is the path under which [Handler] serves the attack pages.
const AttackPrefix = "/attacks/"

// Sizes of the attack pages: each is made to exceed one bound of the
// capture or the dataset, and is generated as it is served (nothing large
// is stored).
const (
	// AttackDepth is the depth of the element chain of deep-controls, and
	// AttackButtons the buttons at its bottom.
	AttackDepth   = 2000
	AttackButtons = 5000
	// AttackFrames is the number of cross-origin frames of frames, each a
	// document of AttackFrameNodes elements.
	AttackFrames     = 50
	AttackFrameNodes = 10000
	// AttackTitleBytes is the length of the title of title.
	AttackTitleBytes = 5 << 20
	// AttackAttributes is the number of attributes of the button of
	// attributes, and AttackNameBytes the length of the longest attribute
	// name there.
	AttackAttributes = 100_000
	AttackNameBytes  = 10_000
	// AttackHTMLBytes is the least size of the HTML of html.
	AttackHTMLBytes = 20 << 20
	// AttackOptions is the number of options of the select of options.
	AttackOptions = 100_000
	// AttackAttrBytes is the length of the attribute value that
	// long-attribute repeats on AttackAttrCopies elements.
	AttackAttrBytes  = 1 << 20
	AttackAttrCopies = 100
	// AttackShadowNodes is the number of nodes (elements and their texts)
	// in the closed shadow root of closed-shadow.
	AttackShadowNodes = 300_000
)

// attackPaths lists the attack pages in a stable order.
var attackPaths = []string{
	"/attacks/deep-controls",
	"/attacks/frames",
	"/attacks/title",
	"/attacks/attributes",
	"/attacks/html",
	"/attacks/options",
}

// AttackPaths returns the paths of the attack pages, each starting with
// [AttackPrefix]. Like [FaultPaths] they are not part of [DefaultPaths]:
// each is made to exceed one bound of a crawl, which must cap what the
// page controls and say what it cut.
//
//   - deep-controls: a chain of [AttackDepth] nested divs built by script,
//     with [AttackButtons] buttons at the bottom; full XPaths of those
//     buttons would be quadratic in the depth.
//   - frames: [AttackFrames] iframes of the server's other origin (see
//     [Server.AltURL]), each a document of [AttackFrameNodes] elements, a
//     tenth of them buttons: together more than a capture's node budget.
//   - title: a title of [AttackTitleBytes] bytes.
//   - attributes: a button with [AttackAttributes] attributes: first one
//     with a value of [AttackNameBytes] bytes and one with a name as long,
//     its aria-label last.
//   - html: at least [AttackHTMLBytes] bytes of HTML: paragraphs of 3,750
//     characters (multi-byte ones among them) with a button every 100
//     paragraphs.
//   - options: a select of [AttackOptions] options, and a multiple select
//     of 1,000 options, all selected.
//
// /attacks/frames/frame is the document each frame shows (not a page of
// its own). /attacks/frames?rows=N makes each frame N rows of 100
// elements instead (1 ≤ N ≤ 100), and frames=N makes the page N frames
// (1 ≤ N ≤ [AttackFrames]), for tests of lowered budgets.
func AttackPaths() []string { return append([]string(nil), attackPaths...) }

// browserAttackPaths lists the attack pages on the browser adapter's own
// size checks, in a stable order.
var browserAttackPaths = []string{
	"/attacks/long-attribute",
	"/attacks/closed-shadow",
}

// BrowserAttackPaths returns the paths of the attack pages made to pass
// the browser adapter's size checks rather than the capture's caps:
//
//   - long-attribute: a page of about [AttackAttrBytes] bytes whose one
//     element with an attribute value of that length a script copies to
//     [AttackAttrCopies] elements: its HTML serializes to about 100 MB.
//   - closed-shadow: a small document whose one host holds a closed
//     shadow root of [AttackShadowNodes] nodes, which scripts of the page
//     (and the capture) cannot see but Chromium's accessibility tree
//     must walk.
func BrowserAttackPaths() []string { return append([]string(nil), browserAttackPaths...) }

// AttackURLs returns base joined with each of [AttackPaths].
func AttackURLs(base string) []string {
	return joinURLs(base, attackPaths)
}

// mountAttacks adds the attack pages to mux; altOrigin is the origin the
// frames of /attacks/frames come from ("" for the page's own).
func mountAttacks(mux *http.ServeMux, altOrigin string) {
	mux.HandleFunc("GET /attacks/deep-controls", faultPage("Deep controls", fmt.Sprintf(`<h1>Deep controls</h1>
<script>
let el = document.body;
for (let i = 0; i < %d; i++) {
  const d = document.createElement('div');
  el.appendChild(d);
  el = d;
}
for (let i = 1; i <= %d; i++) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = 'Button ' + i;
  el.appendChild(b);
}
</script>`, AttackDepth, AttackButtons)))
	mux.HandleFunc("GET /attacks/frames", func(w http.ResponseWriter, r *http.Request) {
		rows := ""
		if n, ok := frameRows(r); ok {
			rows = "&rows=" + strconv.Itoa(n)
		}
		frames := frameCount(r)
		var b strings.Builder
		b.WriteString("<h1>Cross-origin frames</h1>\n<div style=\"display:grid;grid-template-columns:repeat(5,240px);gap:4px\">\n")
		for i := 1; i <= frames; i++ {
			fmt.Fprintf(&b, "<iframe title=\"Frame %d\" src=\"%s\" style=\"width:236px;height:120px;border:1px solid #555\"></iframe>\n",
				i, html.EscapeString(altOrigin+"/attacks/frames/frame?n="+strconv.Itoa(i)+rows))
		}
		b.WriteString("</div>\n<button type=\"button\">After the frames</button>")
		faultPage("Cross-origin frames", b.String())(w, r)
	})
	mux.HandleFunc("GET /attacks/frames/frame", attackFrame)
	mux.HandleFunc("GET /attacks/title", attackTitle)
	mux.HandleFunc("GET /attacks/attributes", attackAttributes)
	mux.HandleFunc("GET /attacks/html", attackHTML)
	mux.HandleFunc("GET /attacks/options", attackOptions)
	mux.HandleFunc("GET /attacks/long-attribute", attackLongAttribute)
	mux.HandleFunc("GET /attacks/closed-shadow", faultPage("Closed shadow root", fmt.Sprintf(`<h1>Closed shadow root</h1>
<div id="host"></div>
<button type="button">Outside</button>
<script>
const root = document.getElementById('host').attachShadow({mode: 'closed'});
root.innerHTML = '<b>x</b>'.repeat(%d);
</script>`, AttackShadowNodes/2)))
}

// attackLongAttribute is a page with one attribute value of
// AttackAttrBytes bytes, which its script copies to AttackAttrCopies
// elements.
func attackLongAttribute(w http.ResponseWriter, r *http.Request) {
	bw := startAttackPage(w, "One long attribute")
	bw.WriteString("<h1>One long attribute</h1>\n<div id=\"long\" data-long=\"")
	bw.WriteString(strings.Repeat("a", AttackAttrBytes))
	fmt.Fprintf(bw, `"></div>
<button type="button">After</button>
<script>
const long = document.getElementById('long');
for (let i = 1; i < %d; i++) document.body.appendChild(long.cloneNode(false));
</script>
</body></html>
`, AttackAttrCopies)
	bw.Flush()
}

// startAttackPage writes the headers and the start of an attack page, with
// title (escaped) as its title, and returns the buffered writer the rest
// of the page goes to; the caller flushes it.
func startAttackPage(w http.ResponseWriter, title string) *bufio.Writer {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
	bw.WriteString(html.EscapeString(title))
	bw.WriteString("</title></head>\n<body>\n")
	return bw
}

// frameRows is the rows=N query parameter of the frames page and its
// frames, which sets a frame's size to N rows of 100 elements instead of
// AttackFrameNodes elements: a test of how frames spend a lowered node
// budget needs no full-size page. It reports false when r has none or an
// invalid one.
func frameRows(r *http.Request) (int, bool) {
	return queryCount(r, "rows", AttackFrameNodes/100)
}

// frameCount is the frames=N query parameter of the frames page, the
// number of frames it shows: AttackFrames when r has none or an invalid
// one.
func frameCount(r *http.Request) int {
	if n, ok := queryCount(r, "frames", AttackFrames); ok {
		return n
	}
	return AttackFrames
}

// queryCount is r's query parameter name as a count from 1 to most; it
// reports false when r has none or one out of that range.
func queryCount(r *http.Request, name string, most int) (int, bool) {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil || n < 1 || n > most {
		return 0, false
	}
	return n, true
}

// attackFrame is one frame of /attacks/frames: AttackFrameNodes elements
// (or the rows its rows parameter asks for) in rows of 100, the first of
// each ten rows' elements buttons. The document ends with its last
// element (no white space after it), so that a capture of exactly its
// nodes is not cut.
func attackFrame(w http.ResponseWriter, r *http.Request) {
	n := r.URL.Query().Get("n")
	rows, ok := frameRows(r)
	if !ok {
		rows = AttackFrameNodes / 100
	}
	bw := startAttackPage(w, "Frame "+n)
	fmt.Fprintf(bw, "<p>Frame %s</p>", html.EscapeString(n))
	for row := 0; row < rows; row++ {
		bw.WriteString("<div>")
		for k := 0; k < 99; k++ {
			if k%10 == 0 {
				fmt.Fprintf(bw, "<button type=\"button\">F%s.%d.%d</button>", html.EscapeString(n), row, k)
			} else {
				bw.WriteString("<i></i>")
			}
		}
		bw.WriteString("</div>")
	}
	bw.WriteString("</body></html>")
	bw.Flush()
}

// attackTitle is a page whose title holds AttackTitleBytes bytes.
func attackTitle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
	const word = "Title words repeat. "
	for n := 0; n < AttackTitleBytes; n += len(word) {
		if _, err := bw.WriteString(word); err != nil {
			return
		}
	}
	bw.WriteString("</title></head>\n<body><h1>A 5 MB title</h1><button type=\"button\">Read it</button></body></html>\n")
	bw.Flush()
}

// attackAttributes is a button with AttackAttributes attributes: a long
// value and a long name first, aria-label last.
func attackAttributes(w http.ResponseWriter, r *http.Request) {
	bw := startAttackPage(w, "Many attributes")
	bw.WriteString("<h1>Many attributes</h1>\n<button type=\"button\"")
	fmt.Fprintf(bw, " data-long-value=\"%s\"", strings.Repeat("v", AttackNameBytes))
	fmt.Fprintf(bw, " data-%s=\"long name\"", strings.Repeat("n", AttackNameBytes-len("data-")))
	for i := 0; i < AttackAttributes-4; i++ { // and type, the long value, the long name, aria-label
		fmt.Fprintf(bw, " data-a%d=\"%d\"", i, i)
	}
	bw.WriteString(" aria-label=\"Many attributes\">Press</button>\n</body></html>\n")
	bw.Flush()
}

// attackParagraph is 3,750 characters of text (more than a capture keeps
// of a text node), some of them multi-byte.
var attackParagraph = strings.Repeat("Text of the page, é 東京. ", 150)

// attackHTML is a page of at least AttackHTMLBytes bytes.
func attackHTML(w http.ResponseWriter, r *http.Request) {
	bw := startAttackPage(w, "20 MB of HTML")
	bw.WriteString("<h1>20 MB of HTML</h1>\n")
	written := 0
	for k := 0; written < AttackHTMLBytes; k++ {
		if k%100 == 0 {
			fmt.Fprintf(bw, "<button type=\"button\">Section %d</button>\n", k/100)
		}
		n, err := fmt.Fprintf(bw, "<p>%s</p>\n", attackParagraph)
		if err != nil {
			return
		}
		written += n
	}
	bw.WriteString("</body></html>\n")
	bw.Flush()
}

// attackOptions is a select of AttackOptions options and a multiple select
// with 1,000 options selected.
func attackOptions(w http.ResponseWriter, r *http.Request) {
	bw := startAttackPage(w, "Many options")
	bw.WriteString("<h1>Many options</h1>\n<select name=\"big\" aria-label=\"Big\">\n")
	for i := 0; i < AttackOptions; i++ {
		fmt.Fprintf(bw, "<option>Option %d</option>", i)
	}
	bw.WriteString("\n</select>\n<select name=\"many\" multiple aria-label=\"Many selected\">\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(bw, "<option selected>Picked %d</option>", i)
	}
	bw.WriteString("\n</select>\n</body></html>\n")
	bw.Flush()
}
