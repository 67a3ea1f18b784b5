package corpora

import (
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestFidelityPaths_ListsEveryPage keeps FidelityPaths and the site in
// step: every page under fidelity/ (but the framed documents under
// fidelity/frame/) is listed, and every listed page is served.
func TestFidelityPaths_ListsEveryPage(t *testing.T) {
	var pages []string
	err := fs.WalkDir(files, "site/fidelity", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p == "site/fidelity/frame" {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".html") {
			pages = append(pages, strings.TrimPrefix(p, "site"))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk site/fidelity: %v", err)
	}
	got := slices.Sorted(slices.Values(FidelityPaths()))
	slices.Sort(pages)
	if !slices.Equal(got, pages) {
		t.Errorf("FidelityPaths() = %v\nwant the fidelity pages %v", got, pages)
	}
	for _, p := range FidelityPaths() {
		if slices.Contains(DefaultPaths(), p) {
			t.Errorf("%s is in the default crawl list", p)
		}
		res, body := get(t, p)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s: status %d, Content-Type %q", p, res.StatusCode, res.Header.Get("Content-Type"))
		}
		if strings.Contains(body, altOriginMark) || strings.Contains(body, altSiteMark) {
			t.Errorf("%s: placeholder left in the page", p)
		}
	}
}

// TestFidelityURLs joins the base like DefaultURLs.
func TestFidelityURLs(t *testing.T) {
	got := FidelityURLs("http://127.0.0.1:8080/")
	if len(got) != len(FidelityPaths()) || got[0] != "http://127.0.0.1:8080"+FidelityPaths()[0] {
		t.Errorf("FidelityURLs = %v", got)
	}
}

// TestHandler_FidelityFrames: a bare Handler has no second origin and frames
// its own; the quirks page really has no DOCTYPE and its twin does.
func TestHandler_FidelityFrames(t *testing.T) {
	_, body := get(t, "/fidelity/frames.html")
	for _, want := range []string{`src="/fidelity/frame/cross.html"`, `src="/fidelity/frame/site.html"`, `src="frame/same.html"`} {
		if !strings.Contains(body, want) {
			t.Errorf("frames.html lacks %s", want)
		}
	}
	if _, body := get(t, "/fidelity/quirks.html"); strings.Contains(strings.ToLower(body), "<!doctype") {
		t.Errorf("quirks.html has a DOCTYPE")
	}
	if _, body := get(t, "/fidelity/quirks-doctype.html"); !strings.HasPrefix(body, "<!DOCTYPE html>") {
		t.Errorf("quirks-doctype.html has no DOCTYPE")
	}
	for _, p := range []string{"/fidelity/frame/same.html", "/fidelity/frame/cross.html", "/fidelity/frame/site.html", "/fidelity/frame/leaf.html"} {
		if res, _ := get(t, p); res.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d", p, res.StatusCode)
		}
	}
	if res, _ := get(t, "/fidelity/nothing.html"); res.StatusCode != http.StatusNotFound {
		t.Errorf("/fidelity/nothing.html: status %d, want 404", res.StatusCode)
	}
}

// TestStart_AltOrigins: a started server serves the same handler on a second
// port, reachable as 127.0.0.1 (cross-origin) and as localhost (cross-site),
// and frames.html frames both.
func TestStart_AltOrigins(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer s.Close()
	main, _ := url.Parse(s.URL)
	alt, err := url.Parse(s.AltURL)
	if err != nil || alt.Hostname() != "127.0.0.1" || alt.Port() == "" || alt.Port() == main.Port() {
		t.Fatalf("AltURL = %q, want 127.0.0.1 on another port than %q", s.AltURL, s.URL)
	}
	if want := "http://localhost:" + alt.Port(); s.AltSiteURL != want {
		t.Errorf("AltSiteURL = %q, want %q", s.AltSiteURL, want)
	}
	res, err := http.Get(s.URL + "/fidelity/frames.html")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`src="` + s.AltURL + `/fidelity/frame/cross.html"`, `src="` + s.AltSiteURL + `/fidelity/frame/site.html"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("frames.html lacks %s", want)
		}
	}
	res, err = http.Get(s.AltURL + "/fidelity/frame/cross.html")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET %s/fidelity/frame/cross.html: status %d", s.AltURL, res.StatusCode)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if res, err := http.Get(s.AltURL + "/"); err == nil {
		res.Body.Close()
		t.Errorf("GET on the second origin after Close succeeded")
	}
}
