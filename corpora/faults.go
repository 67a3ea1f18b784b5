package corpora

import (
	"bufio"
	"fmt"
	"html"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// FaultPrefix is the path under which [Handler] serves the fault pages.
const FaultPrefix = "/faults/"

// Bounds of the fault pages, so that a fault cannot outlive a test by much
// or make the server build gigabytes.
const (
	// DripFor is how long /faults/drip keeps sending its body, one byte at
	// a time.
	DripFor = 10 * time.Minute
	// DripEvery is the pause between two bytes of /faults/drip.
	DripEvery = 500 * time.Millisecond
	// HugeDOMNodes is the number of elements /faults/huge-dom holds: half
	// again the capture's default node cap (--max-nodes, 200,000), so
	// the capture is cut. A million took twice the time to load and
	// tested no more.
	HugeDOMNodes = 300_000
	// DeepNesting is the depth of the element chain /faults/deep-nesting
	// builds.
	DeepNesting = 10_000
	// RetryAfterSeconds is the Retry-After of /faults/status/503.
	RetryAfterSeconds = 1
)

// faultPaths lists the fault pages in a stable order. Each is a page a crawl
// of the real web meets; what a crawler should make of each is documented on
// [FaultPaths].
var faultPaths = []string{
	"/faults/never",
	"/faults/drip",
	"/faults/status/404",
	"/faults/status/500",
	"/faults/status/503",
	"/faults/redirect-loop",
	"/faults/meta-refresh-loop",
	"/faults/dialogs",
	"/faults/popups",
	"/faults/download",
	"/faults/pdf",
	"/faults/image",
	"/faults/invalid-utf8",
	"/faults/wrong-charset",
	"/faults/huge-dom",
	"/faults/deep-nesting",
	"/faults/busy-loop",
	"/faults/crash",
	"/faults/navigate-away",
	"/faults/frame-bust",
}

// FaultPaths returns the paths of the fault pages, each starting with
// [FaultPrefix]. They are not part of [DefaultPaths]: they exist to prove
// that a crawl survives the web's failures, each within its timeout.
//
//   - never: the server accepts the request and never answers.
//   - drip: a 200 whose body arrives one byte every [DripEvery] for
//     [DripFor]; the load event never comes in time.
//   - status/404, status/500, status/503: error statuses with an HTML body;
//     the 503 carries Retry-After: [RetryAfterSeconds].
//   - redirect-loop: a 302 to itself with a growing query, forever.
//   - meta-refresh-loop: an HTML page whose <meta http-equiv=refresh>
//     reloads it at once, forever.
//   - dialogs: alert, confirm and prompt while loading, and a beforeunload
//     handler; the page writes what the dialogs returned into its title.
//   - popups: opens windows with window.open, one of them to /faults/never.
//   - download: Content-Disposition: attachment.
//   - pdf: a PDF document (application/pdf).
//   - image: a PNG image.
//   - invalid-utf8: an HTML page declared UTF-8 with invalid byte sequences.
//   - wrong-charset: UTF-8 bytes declared as ISO-8859-1.
//   - huge-dom: [HugeDOMNodes] elements, streamed by the server.
//   - deep-nesting: a chain of [DeepNesting] nested elements built by script
//     (the HTML parser stops nesting at 512), a button at the bottom.
//   - busy-loop: a script that spins forever after the load event.
//   - crash: a script that exhausts the renderer's memory after load, which
//     crashes the renderer.
//   - navigate-away: a page that sends itself to /faults/landing 100 ms
//     after its load event, while a crawler settles and captures.
//   - frame-bust: a cross-origin frame (127.0.0.1 and localhost swapped)
//     that tries to navigate the top window to /faults/landing.
//
// /faults/landing, the destination of navigate-away and frame-bust, is a
// plain page that is not itself a fault.
func FaultPaths() []string { return append([]string(nil), faultPaths...) }

// FaultURLs returns base joined with each of [FaultPaths].
func FaultURLs(base string) []string {
	return joinURLs(base, faultPaths)
}

// mountFaults adds the fault pages to mux.
func mountFaults(mux *http.ServeMux) {
	mux.HandleFunc("GET /faults/never", faultNever)
	mux.HandleFunc("GET /faults/drip", faultDrip)
	mux.HandleFunc("GET /faults/status/{code}", faultStatus)
	mux.HandleFunc("GET /faults/redirect-loop", faultRedirectLoop)
	mux.HandleFunc("GET /faults/meta-refresh-loop", faultMetaRefresh)
	mux.HandleFunc("GET /faults/dialogs", faultPage("Dialogs", `<h1>Dialogs</h1>
<p id="result">waiting</p>
<script>
alert('Welcome!');
const ok = confirm('Continue?');
const name = prompt('Your name?', 'Ada');
document.title = 'Dialogs answered: ' + ok + ' ' + name;
document.getElementById('result').textContent = document.title;
window.addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'Leave?'; });
</script>
<button type="button" onclick="alert('again')">Alert again</button>`))
	mux.HandleFunc("GET /faults/popups", faultPage("Popups", `<h1>Popups</h1>
<a href="/faults/landing" target="_blank">Open in a new window</a>
<script>
window.open('/faults/landing', '_blank');
window.open('/faults/never', 'stuck', 'width=300,height=200');
window.addEventListener('load', () => {
  for (let i = 0; i < 5; i++) window.open('/faults/landing?popup=' + i, '_blank');
});
</script>`))
	mux.HandleFunc("GET /faults/download", faultDownload)
	mux.HandleFunc("GET /faults/pdf", faultPDF)
	mux.HandleFunc("GET /faults/image", faultImage)
	mux.HandleFunc("GET /faults/invalid-utf8", faultInvalidUTF8)
	mux.HandleFunc("GET /faults/wrong-charset", faultWrongCharset)
	mux.HandleFunc("GET /faults/huge-dom", faultHugeDOM)
	mux.HandleFunc("GET /faults/deep-nesting", faultPage("Deep nesting", fmt.Sprintf(`<h1>Deep nesting</h1>
<script>
let el = document.body;
for (let i = 0; i < %d; i++) {
  const d = document.createElement('div');
  d.className = 'level';
  el.appendChild(d);
  el = d;
}
const b = document.createElement('button');
b.type = 'button';
b.textContent = 'At the bottom';
el.appendChild(b);
</script>`, DeepNesting)))
	mux.HandleFunc("GET /faults/busy-loop", faultPage("Busy loop", `<h1>Busy loop</h1>
<button type="button">Never answers</button>
<script>
window.addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0));
</script>`))
	mux.HandleFunc("GET /faults/crash", faultPage("Crash", `<h1>Crash</h1>
<script>
// Fill the renderer's heap until it dies of it: 64 MiB arrays of
// doubles, kept alive.
window.addEventListener('load', () => setTimeout(() => {
  const keep = [];
  for (;;) keep.push(new Array(1 << 23).fill(1.5));
}, 0));
</script>`))
	mux.HandleFunc("GET /faults/navigate-away", faultPage("Navigate away", `<h1>Leaving soon</h1>
<script>
window.addEventListener('load', () => setTimeout(() => { location.href = '/faults/landing?from=navigate-away'; }, 100));
</script>`))
	mux.HandleFunc("GET /faults/frame-bust", faultFrameBust)
	mux.HandleFunc("GET /faults/frame-bust/frame", faultPage("Frame buster", `<p>framed</p>
<script>
try { window.top.location.href = new URLSearchParams(location.search).get('to'); } catch (e) { document.body.append(String(e)); }
</script>`))
	mux.HandleFunc("GET /faults/landing", faultPage("Landing", `<h1>Landing</h1>
<p>A plain page other faults send the browser to.</p>
<a href="/">Home</a> <button type="button">Stay</button>`))
}

// faultPage returns a handler for a small HTML page.
func faultPage(title, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title></head>\n<body>\n%s\n</body></html>\n",
			html.EscapeString(title), body)
	}
}

// faultNever holds the request until the client or the server goes away.
func faultNever(w http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
}

// faultDrip sends headers and the start of a page, then one byte every
// DripEvery for DripFor.
func faultDrip(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	rc := http.NewResponseController(w)
	fmt.Fprint(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Drip</title></head>\n<body><h1>Drip</h1><p>")
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(DripEvery)
	defer tick.Stop()
	end := time.After(DripFor)
	for {
		select {
		case <-r.Context().Done():
			return
		case <-end:
			fmt.Fprint(w, "</p></body></html>\n")
			return
		case <-tick.C:
			if _, err := w.Write([]byte(".")); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
		}
	}
}

// faultStatus answers /faults/status/{code} with that status and a page.
func faultStatus(w http.ResponseWriter, r *http.Request) {
	code, err := strconv.Atoi(r.PathValue("code"))
	if err != nil || code < 400 || code > 599 {
		notFound(w, r)
		return
	}
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%d %s</title></head>\n<body><h1>%d %s</h1><a href=\"/\">Home</a></body></html>\n",
		code, http.StatusText(code), code, http.StatusText(code))
}

// faultRedirectLoop redirects to itself with n+1, forever.
func faultRedirectLoop(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, "/faults/redirect-loop?n="+strconv.Itoa(n+1), http.StatusFound)
}

// faultMetaRefresh is a page that reloads itself at once through a meta
// refresh, with n+1, forever.
func faultMetaRefresh(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"+
		"<meta http-equiv=\"refresh\" content=\"0;url=/faults/meta-refresh-loop?n=%d\"><title>Refresh %d</title></head>\n"+
		"<body><h1>Refresh %d</h1><a href=\"/\">Home</a></body></html>\n", n+1, n, n)
}

// faultDownload is a file the browser is told to save, not show.
func faultDownload(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="report.bin"`)
	w.Write(make([]byte, 4096))
}

// minimalPDF is a valid one-page PDF saying "Fault corpus".
const minimalPDF = `%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >> endobj
4 0 obj << /Length 44 >> stream
BT /F1 12 Tf 20 50 Td (Fault corpus) Tj ET
endstream endobj
5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj
trailer << /Root 1 0 R >>
%%EOF
`

func faultPDF(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/pdf")
	w.Write([]byte(minimalPDF))
}

// onePixelPNG is a 1x1 transparent PNG.
var onePixelPNG = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}

func faultImage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/png")
	w.Write(onePixelPNG)
}

// faultInvalidUTF8 declares UTF-8 and sends invalid sequences: a lone
// continuation byte, a truncated sequence, an overlong encoding and a byte
// that never appears in UTF-8.
func faultInvalidUTF8(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	body := "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Invalid \x80 UTF-8</title></head>\n" +
		"<body><h1>Broken \xe2\x82 bytes</h1><p>Overlong \xc0\xaf and \xff here.</p>" +
		"<button type=\"button\" aria-label=\"Bad \xfe label\">Press \xed\xa0\x80</button></body></html>\n"
	w.Write([]byte(body))
}

// faultWrongCharset sends UTF-8 text declared as ISO-8859-1, so every
// non-ASCII character turns into two or three Latin-1 ones.
func faultWrongCharset(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
	fmt.Fprint(w, "<!DOCTYPE html>\n<html lang=\"de\"><head><title>Grüße aus Zürich – 東京</title></head>\n"+
		"<body><h1>Größe wählen</h1><label>Straße <input name=\"street\"></label><button type=\"button\">Bestätigen ✓</button></body></html>\n")
}

// faultHugeDOM streams a page of HugeDOMNodes elements: rows of 1,000
// empty <i> elements, a button first.
func faultHugeDOM(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Huge DOM: %d elements</title></head>\n<body>\n<button type=\"button\">First</button>\n", HugeDOMNodes)
	row := "<div>" + strings.Repeat("<i></i>", 999) + "</div>\n"
	for i := 0; i < HugeDOMNodes/1000; i++ {
		if _, err := bw.WriteString(row); err != nil {
			return // the client went away
		}
	}
	bw.WriteString("</body></html>\n")
	bw.Flush()
}

// faultFrameBust frames a page of the other loopback origin (127.0.0.1 and
// localhost swapped, same port) that tries to navigate the top window.
func faultFrameBust(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		host, port = r.Host, ""
	}
	switch host {
	case "127.0.0.1":
		host = "localhost"
	case "localhost":
		host = "127.0.0.1"
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	}
	self := "http://" + r.Host
	frame := "http://" + host + "/faults/frame-bust/frame?to=" + self + "/faults/landing%3Ffrom%3Dframe-bust"
	faultPage("Frame bust", fmt.Sprintf(`<h1>Framed content</h1>
<iframe src="%s" width="400" height="100" title="Other origin"></iframe>
<button type="button">Stay here</button>`, html.EscapeString(frame)))(w, r)
}
