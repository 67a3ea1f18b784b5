package corpora

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// files holds the site and the default crawl list. It is read-only.
//
//go:embed site urls.txt
var files embed.FS

const (
	// DefaultTableRows is the row count of /gen/table when the request gives none.
	DefaultTableRows = 1000
	// MaxTableRows is the largest row count /gen/table accepts; larger values
	// get 400 Bad Request, so a typo cannot make the server build gigabytes.
	MaxTableRows = 50000
)

// Handler returns an http.Handler that serves the bundled site and the
// generated pages. It answers GET and HEAD: "/" is the home page, any other
// path is a file of the site (404 Not Found when there is none), and
// /gen/table?rows=N is a generated table (see [DefaultTableRows] and
// [MaxTableRows]). Paths under [FaultPrefix] are the fault pages (see
// [FaultPaths]), paths under [AttackPrefix] the attack pages (see
// [AttackPaths]). Every response has a Content-Type with a charset where the
// type is text. The handler is safe for concurrent use and shares no state
// with other handlers.
func Handler() http.Handler { return newHandler("", "") }

// newHandler is [Handler] with the origins the fidelity pages frame as
// cross-origin and cross-site documents ("" for their own origin).
func newHandler(altOrigin, altSite string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /gen/table", serveTable)
	mountFaults(mux)
	mountAttacks(mux, altOrigin)
	mux.HandleFunc("GET "+FidelityPrefix, serveFidelity(altOrigin, altSite))
	mux.HandleFunc("GET /", serveSite)
	return mux
}

// contentType gives the Content-Type of a site file from its extension, so
// that responses do not depend on the machine's MIME tables.
func contentType(name string) string {
	switch ext := path.Ext(name); ext {
	case ".html":
		return "text/html; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml; charset=utf-8"
	case ".txt":
		return "text/plain; charset=utf-8"
	case ".json":
		return "application/json; charset=utf-8"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "application/octet-stream"
	}
}

// serveSite serves one file of the embedded site.
func serveSite(w http.ResponseWriter, r *http.Request) { serveFile(w, r, files, "site/") }

// serveFile serves the file of fsys that the request's path names, below
// prefix: index.html for a folder, a 404 page for anything else that is
// not a file (no listings), the Content-Type from the extension.
func serveFile(w http.ResponseWriter, r *http.Request, fsys fs.FS, prefix string) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" || strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	if !fs.ValidPath(name) {
		notFound(w, r)
		return
	}
	data, err := fs.ReadFile(fsys, prefix+name)
	if err != nil {
		// Missing files and directories alike: the site has no listings.
		notFound(w, r)
		return
	}
	w.Header().Set("Content-Type", contentType(name))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}

// notFound writes a real 404 with a small HTML page.
func notFound(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	if r.Method == http.MethodHead {
		return
	}
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Page not found</title></head>\n"+
		"<body><h1>Page not found</h1><p>Nothing lives at <code>%s</code>. <a href=\"/\">Go to the home page</a>.</p></body></html>\n",
		html.EscapeString(r.URL.Path))
}

// serveTable writes /gen/table?rows=N: an inventory-style page with one table
// row per item, each with a text cell, a number input and a button. Output is
// streamed, so even MaxTableRows rows take little memory.
func serveTable(w http.ResponseWriter, r *http.Request) {
	rows := DefaultTableRows
	if v := r.URL.Query().Get("rows"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > MaxTableRows {
			http.Error(w, fmt.Sprintf("rows must be an integer from 0 to %d, got %q", MaxTableRows, v), http.StatusBadRequest)
			return
		}
		rows = n
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Method == http.MethodHead {
		return
	}

	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Stock count: %d rows · Northwind Store Ops</title>
<link rel="icon" href="data:,">
<style>
body { font: 14px system-ui, sans-serif; margin: 0; color: #1d2327; }
header { padding: 12px 20px; border-bottom: 1px solid #dde3e7; }
table { border-collapse: collapse; width: 100%%; }
th, td { padding: 4px 12px; border-bottom: 1px solid #edf0f2; text-align: left; }
th { background: #fafbfc; font-size: 12px; text-transform: uppercase; color: #5f6b73; }
input { width: 80px; padding: 3px 6px; }
</style>
</head>
<body>
<header><h1 style="font-size:18px;margin:0">Stock count</h1><p style="margin:4px 0 0;color:#5f6b73">%d rows · Pioneer Square back room</p></header>
<table id="stock">
<thead><tr><th>Item</th><th>Counted</th><th>Action</th></tr></thead>
<tbody>
`, rows, rows)
	// The things listed in the text cells, in rotation.
	items := [...]string{
		"Trail runner socks", "Camp mug, enamel", "Headlamp batteries (AAA)", "Tent stakes, aluminum",
		"Rain shell, size M", "Water filter cartridge", "Paracord, 15 m", "Dry bag, 10 L",
		"Fuel canister, 230 g", "First-aid refill kit", "Map case, waterproof", "Trekking pole tips",
	}
	var buf []byte
	for i := 1; i <= rows; i++ {
		item := items[(i-1)%len(items)]
		n := strconv.Itoa(i)
		buf = buf[:0]
		buf = append(buf, `<tr data-row="`...)
		buf = append(buf, n...)
		buf = append(buf, `"><td>SKU-`...)
		buf = append(buf, n...)
		buf = append(buf, ` · `...)
		buf = append(buf, item...)
		buf = append(buf, `</td><td><input type="number" name="count-`...)
		buf = append(buf, n...)
		buf = append(buf, `" value="`...)
		buf = strconv.AppendInt(buf, int64(i*7%23), 10)
		buf = append(buf, `" aria-label="Counted for SKU-`...)
		buf = append(buf, n...)
		buf = append(buf, `"></td><td><button type="button" data-row="`...)
		buf = append(buf, n...)
		buf = append(buf, "\">Save</button></td></tr>\n"...)
		if _, err := bw.Write(buf); err != nil {
			return // the client went away; nothing more to do
		}
	}
	bw.WriteString("</tbody>\n</table>\n</body>\n</html>\n")
	bw.Flush() // an error here means the client went away
}

// Server is the corpus served on a loopback port. Create it with [Start] and
// stop it with [Server.Close].
type Server struct {
	// URL is the base URL of the server, with no trailing slash, for
	// example "http://127.0.0.1:41234". Join it with a path from
	// [DefaultPaths], or pass it to [DefaultURLs].
	URL string
	// AltURL is a second origin of the same server: the same handler on
	// another port of 127.0.0.1, so same site but cross-origin. The
	// fidelity pages frame documents from it.
	AltURL string
	// AltSiteURL reaches the AltURL port as "localhost": a different site
	// from URL, which Chromium renders in a process of its own.
	AltSiteURL string

	srv       *http.Server
	served    chan error // receives the results of Serve once they return
	closeOnce sync.Once
	closeErr  error
}

// Start listens on two free ports of 127.0.0.1 (URL and AltURL) and serves
// [Handler] on both in goroutines until [Server.Close] is called. Only the
// local machine can reach it.
func Start() (*Server, error) {
	return start(func(s *Server) http.Handler { return newHandler(s.AltURL, s.AltSiteURL) })
}

// ServeDir serves the files below dir — saved pages of real sites, for
// instance — the way Start serves the bundled site (a Content-Type per
// extension, 404 pages, no listings), on 127.0.0.1 until [Server.Close].
func ServeDir(dir string) (*Server, error) {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("serve %s: not a directory (%v)", dir, err)
	}
	fsys := os.DirFS(dir)
	return start(func(*Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
				return
			}
			serveFile(w, r, fsys, "")
		})
	})
}

// start listens on two free ports of 127.0.0.1 and serves the handler
// that handler makes for the server on both.
func start(handler func(*Server) http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	alt, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen on 127.0.0.1: %w", err)
	}
	altPort := alt.Addr().(*net.TCPAddr).Port
	s := &Server{
		URL:        "http://" + ln.Addr().String(),
		AltURL:     "http://" + alt.Addr().String(),
		AltSiteURL: "http://localhost:" + strconv.Itoa(altPort),
		served:     make(chan error, 2),
	}
	s.srv = &http.Server{
		Handler:           handler(s),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
	}
	go func() { s.served <- s.srv.Serve(ln) }()
	go func() { s.served <- s.srv.Serve(alt) }()
	return s, nil
}

// Close stops the server at once, closing its listeners and open
// connections, and waits for the serving goroutines to end. Calling it
// again returns the first result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		err := s.srv.Close()
		for range 2 {
			if serveErr := <-s.served; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
				err = serveErr
			}
		}
		if err != nil {
			s.closeErr = fmt.Errorf("close corpus server %s: %w", s.URL, err)
		}
	})
	return s.closeErr
}

// DefaultPaths returns the default crawl list: the paths of urls.txt, in
// file order, each starting with "/". Blank lines and lines starting with
// "#" are skipped. The generated /gen/ pages are not in it.
func DefaultPaths() []string {
	data, err := files.ReadFile("urls.txt")
	if err != nil {
		return nil // cannot happen: urls.txt is embedded at build time
	}
	return parsePaths(string(data))
}

// DefaultURLs returns base joined with each of [DefaultPaths], for example
// DefaultURLs(srv.URL) for a server from [Start]. A trailing slash on base is
// ignored.
func DefaultURLs(base string) []string {
	return joinURLs(base, DefaultPaths())
}

// joinURLs joins base, without its trailing slashes, with each path.
func joinURLs(base string, paths []string) []string {
	base = strings.TrimRight(base, "/")
	urls := make([]string, len(paths))
	for i, p := range paths {
		urls[i] = base + p
	}
	return urls
}

// parsePaths reads a path list: one path per line, surrounding space
// trimmed, blank lines and "#" comment lines skipped. A path without a
// leading slash gets one.
func parsePaths(text string) []string {
	var paths []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "/") {
			line = "/" + line
		}
		paths = append(paths, line)
	}
	return paths
}
