package corpora

import (
	"bytes"
	"io/fs"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"
)

// FidelityPrefix is the path under which [Handler] serves the fidelity
// pages: one page (or a pair of twins) per perception behaviour that the
// tests check line by line. They are not in the default crawl list.
const FidelityPrefix = "/fidelity/"

// Placeholders in the fidelity pages, replaced when they are served: the
// second origin of a [Server] (same site, another port) and a cross-site
// origin of it. Served by a bare [Handler], both become "", which turns
// the frames that use them into same-origin frames.
const (
	altOriginMark = "__ALT_ORIGIN__"
	altSiteMark   = "__ALT_SITE__"
)

// fidelityPaths lists the fidelity pages in a stable order. Documents they
// frame (under fidelity/frame/) are not pages of their own.
var fidelityPaths = []string{
	"/fidelity/viewport.html",
	"/fidelity/quirks.html",
	"/fidelity/quirks-doctype.html",
	"/fidelity/frames.html",
	"/fidelity/occlusion.html",
	"/fidelity/overlay.html",
	"/fidelity/modal.html",
	"/fidelity/modal-aria.html",
	"/fidelity/rules.html",
	"/fidelity/forms.html",
	"/fidelity/hostile.html",
	"/fidelity/clean.html",
	"/fidelity/locators.html",
}

// FidelityPaths returns the paths of the fidelity pages, each starting with
// "/":
//
//   - viewport.html: controls and text on screen and 150, 800 and 3000
//     pixels below it (and, with ?scroll=Y, scrolled to Y);
//   - quirks.html and quirks-doctype.html: the same page without and with a
//     DOCTYPE, which must give the same geometry;
//   - frames.html: nested open shadow roots with slots, a same-origin
//     iframe, a cross-origin iframe from [Server.AltURL] and a cross-site
//     one from [Server.AltSiteURL];
//   - occlusion.html: a sticky header over a link and a cookie banner over
//     links; overlay.html: a full-screen overlay over a button;
//   - modal.html and modal-aria.html: a <dialog> opened with showModal(),
//     and an aria-modal dialog;
//   - rules.html: the interactivity rules;
//   - forms.html: password fields and form state set by script;
//   - hostile.html and clean.html: twins with the same DOM, the first one
//     overriding built-ins before it loads;
//   - locators.html: what makes locators hard: ids carried twice, with
//     spaces or quotes, SVG and foreignObject, tag names no XPath name
//     test holds, slots that reorder a host's children, ids reused across
//     a shadow root and a frame, and a chain deeper than a locator's
//     budget.
func FidelityPaths() []string { return slices.Clone(fidelityPaths) }

// FidelityURLs returns base joined with each of [FidelityPaths].
func FidelityURLs(base string) []string {
	return joinURLs(base, fidelityPaths)
}

// serveFidelity serves the files under site/fidelity/, with the
// placeholders of HTML files replaced by altOrigin and altSite.
func serveFidelity(altOrigin, altSite string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if !strings.HasSuffix(name, ".html") || !fs.ValidPath(name) {
			serveSite(w, r)
			return
		}
		data, err := fs.ReadFile(files, "site/"+name)
		if err != nil {
			notFound(w, r)
			return
		}
		data = bytes.ReplaceAll(data, []byte(altOriginMark), []byte(altOrigin))
		data = bytes.ReplaceAll(data, []byte(altSiteMark), []byte(altSite))
		w.Header().Set("Content-Type", contentType(name))
		w.Header().Set("X-Content-Type-Options", "nosniff")
		http.ServeContent(w, r, path.Base(name), time.Time{}, bytes.NewReader(data))
	}
}
