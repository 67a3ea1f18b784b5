package corpora

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMutationTruth_everyPage: every mutation page has a truth that
// parses and checks, names only truth attributes its page (or the page
// it navigates to) carries, and every mutation file of the site is a
// listed page, a page one of them navigates to, or a step fault page.
func TestMutationTruth_everyPage(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	attr := regexp.MustCompile(TruthAttr + `="([^"]+)"|dataset\.truth = "([^"]+)"`)
	names := func(path string) []string {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
		var b strings.Builder
		buf := make([]byte, 1<<16)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		var out []string
		for _, m := range attr.FindAllStringSubmatch(b.String(), -1) {
			out = append(out, m[1]+m[2])
		}
		return out
	}
	listed := map[string]bool{StepBrokenPath: true, StepBusyPath: true, "/mutation/crossdoc-next.html": true}
	for _, p := range MutationPaths() {
		listed[p] = true
		truth, err := MutationTruthFor(p)
		if err != nil {
			t.Fatal(err)
		}
		have := names(p)
		if strings.Contains(p, "crossdoc") {
			have = append(have, names("/mutation/crossdoc-next.html")...)
		}
		for _, st := range truth.States {
			for _, n := range st.Present {
				// Generated names (story-N, rN) come from a prefix in a script.
				base := strings.TrimRight(n, "0123456789")
				if !slices.Contains(have, n) && !slices.ContainsFunc(have, func(h string) bool { return strings.HasPrefix(h, base) }) {
					t.Errorf("%s step %d: %q is in no %s of the page", p, st.Step, n, TruthAttr)
				}
			}
		}
	}
	err := fs.WalkDir(files, "site/mutation", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".html") && !listed[strings.TrimPrefix(p, "site")] {
			t.Errorf("%s is no mutation page, target or step fault page", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MutationTruthFor("/login.html"); err == nil {
		t.Error("a truth for /login.html, which is no mutation page")
	}
}
