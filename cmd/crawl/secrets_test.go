package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"actionspace/dataset"
	"actionspace/space"
)

// Secrets of the sign-in page. Those a script sets are built from parts
// in the page's source, so that only the live page holds them whole.
const (
	pwSource   = "SRC-pw-4f1c9e"      // a password input's value attribute
	pwTyped    = "TYP-pw-2d7e1a"      // typed (inserted through the editor, as keystrokes are)
	pwScripted = "SCR-pw-9b3f0c"      // set by a script
	pwShort    = "ÞЖ§"                // a value attribute too short for the scrub: only structure removes it
	hiddenTok  = "HID-tok-8a2b7c6d5e" // a hidden input's value
)

// signInPage holds every way a password reaches a page, a hidden token,
// and a line that shows the typed password and the token, as a "show
// password" widget or a debug line would: the scrub's case.
const signInPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in</title><link rel="icon" href="data:,"></head>
<body>
<form action="/login" method="post">
  <p><label for="user">User</label> <input id="user" name="user" value="ada"></p>
  <p><label for="src">Password</label> <input id="src" type="password" name="src" value="` + pwSource + `"></p>
  <p><label for="typed">New password</label> <input id="typed" type="password" name="typed"></p>
  <p><label for="scripted">Repeat password</label> <input id="scripted" type="password" name="scripted"></p>
  <p><label for="pin">PIN</label> <input id="pin" type="password" name="pin" value="` + pwShort + `"></p>
  <input type="hidden" name="csrf" value="` + hiddenTok + `">
  <button type="submit">Sign in</button>
</form>
<p id="echo"></p>
<script>
  const s = (...parts) => parts.join("-");
  addEventListener("load", () => {
    const typed = document.getElementById("typed");
    typed.focus();
    document.execCommand("insertText", false, s("TYP", "pw", "2d7e1a"));
    document.getElementById("scripted").value = s("SCR", "pw", "9b3f0c");
    document.getElementById("echo").textContent = "You typed " + typed.value + "; token " + document.querySelector("[name=csrf]").value;
  });
</script>
</body></html>
`

// TestCrawl_PageSecretsStayOut crawls, in real Chromium, a sign-in page
// whose password inputs hold values set in the source, typed and set by
// a script, with a hidden token and a line that repeats two of them,
// into every format of --formats, with the accessibility tree and the AI
// snapshot, and checks that no value is anywhere it could leak: not in
// any byte of any output file, not in the Parquet metadata, not in any
// column of any row read back (the blobs decompressed), not in the
// crawl's debug logs. It also checks that the page was what it meant to
// be: the line that repeats the typed password and the token shows both
// scrubbed, every format holds the form, the records were stored.
func TestCrawl_PageSecretsStayOut(t *testing.T) {
	requireBrowser(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, signInPage)
	}))
	defer srv.Close()
	list := filepath.Join(t.TempDir(), "urls.txt")
	if err := os.WriteFile(list, []byte(srv.URL+"/signin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	formats := strings.Join(space.Formats(), ",")
	p, code := runCrawl(t, nil, 3*time.Minute, "--out", out, "--log-level", "debug", "--workers", "1",
		"--viewport-expansion", "0,-1", "--encodings", "cl100k_base", "--formats", formats,
		"--settle-quiet", "100ms", "--settle-max", "1s", "--timeout", "30s", list)
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", code, &p.stderr)
	}
	secrets := []string{pwSource, pwTyped, pwScripted, pwShort, hiddenTok}
	for name, text := range map[string]string{"stdout": p.stdout.String(), "stderr": p.stderr.String()} {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%q is in the crawl's %s", s, name)
			}
		}
	}
	if !strings.Contains(p.stderr.String(), "level=DEBUG") {
		t.Errorf("no debug logs to check: %q", p.stderr.String())
	}
	files, rows := scanForSecrets(t, out, true, secrets...)

	// What the rows hold: the page was crawled, every format rendered it
	// with its form, the records were stored, Chromium's masks are gone.
	seen := map[string]bool{}
	blobs, htmls := 0, 0
	for _, r := range rows {
		if f, _ := r["format"].(string); f != "" {
			text, _ := r["action_space"].(string)
			// (the html format's text is the page's stored HTML, not in
			// the row)
			if strings.Contains(text, "Repeat password") || f == space.FormatHTML {
				seen[f] = true
			}
			if f == space.FormatActionSpace && !strings.Contains(text, "You typed [redacted]; token [redacted]") {
				t.Errorf("the actionspace text lacks the scrubbed line: %q", text)
			}
			if strings.Contains(text, "•••") {
				t.Errorf("format %s shows a password's mask: %q", f, text)
			}
		}
		if r["status"] != nil && r["status"] != dataset.StatusOK {
			t.Errorf("page row %v, want ok", r["status"])
		}
		if h, _ := r["html"].(string); h != "" {
			htmls++
			if !strings.Contains(h, `<label for="scripted">Repeat password</label>`) {
				t.Errorf("the stored HTML lacks the form: %q", h)
			}
		}
		for _, col := range []string{"capture", "axtree", "aisnapshot"} {
			s, _ := r[col].(string)
			if s == "" {
				continue
			}
			raw, err := dataset.DecompressCapture([]byte(s))
			if err != nil {
				t.Errorf("blob %s: %v", col, err)
				continue
			}
			blobs++
			if strings.Contains(string(raw), "•••") {
				t.Errorf("blob %s holds a password's mask", col)
			}
			if col == "aisnapshot" && !strings.Contains(string(raw), `textbox \"Repeat password\"`) {
				t.Errorf("the AI snapshot lacks the password textbox: %s", raw)
			}
		}
	}
	for _, f := range space.Formats() {
		if !seen[f] {
			t.Errorf("format %s: no row shows the form", f)
		}
	}
	if blobs != 3 || htmls != 1 {
		t.Errorf("%d blobs (capture, axtree, aisnapshot) and %d HTML read, want 3 and 1", blobs, htmls)
	}
	t.Logf("scanned %d output files, %d rows, %d blobs and the HTML, and %d bytes of logs for %d secrets", files, len(rows), blobs, p.stderr.Len(), len(secrets))
}
