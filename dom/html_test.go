package dom

import (
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"actionspace/corpora"
)

func TestCutHTML(t *testing.T) {
	tests := []struct {
		src  string
		max  int
		want string
		cut  bool
	}{
		{"<p>abc</p>", 100, "<p>abc</p>", false},
		{"<p>abc</p>", 10, "<p>abc</p>", false},
		{"<p>abc</p>", 4, "<p>a", true},
		{"<p>abc</p>", 0, "", true},
		{"<p>abc</p>", -1, "<p>abc</p>", false},
		{"aé", 2, "a", true},  // é is 2 bytes: not split
		{"a東京", 3, "a", true}, // 東 is 3 bytes
		{"a東京", 4, "a東", true},
		{"a東京", 6, "a東", true},
		{"a😀b", 4, "a", true}, // 4-byte character
		{"a😀b", 5, "a😀", true},
		{"\x80\x80\x80\x80\x80", 4, "\x80", true}, // invalid UTF-8: at most 3 bytes back
	}
	for _, tt := range tests {
		got, cut := CutHTML(tt.src, tt.max)
		if got != tt.want || cut != tt.cut {
			t.Errorf("CutHTML(%q, %d) = %q, %v; want %q, %v", tt.src, tt.max, got, cut, tt.want, tt.cut)
		}
		if tt.max >= 0 && len(got) > tt.max {
			t.Errorf("CutHTML(%q, %d) has %d bytes", tt.src, tt.max, len(got))
		}
		if utf8.ValidString(tt.src) && !utf8.ValidString(got) {
			t.Errorf("CutHTML(%q, %d) = %q splits a character", tt.src, tt.max, got)
		}
	}
}

func TestRedactSecrets(t *testing.T) {
	tests := []struct {
		name, src, want string
		removed         int
	}{
		{"double quotes", `<input type="password" value="hunter2">`, `<input type="password">`, 1},
		{"upper case", `<INPUT TYPE="PassWord" VALUE='x'>`, `<INPUT TYPE="PassWord">`, 1},
		{"value first", `<input value=x type=password name=p>`, `<input type=password name=p>`, 1},
		{"spaces around =", "<input type = password\n\tvalue = \"a b\" id=p>", `<input type = password id=p>`, 1},
		{"no space between", `<input type="password"value="x"name="p">`, `<input type="password"name="p">`, 1},
		{"self-closing", `<input type=password value=x />`, `<input type=password />`, 1},
		{"slashes", `<input/type="password"/value="x"/>`, `<input/type="password"//>`, 1}, // the slash before stays
		{"> in value", `<input type=password value="a>b" name=p>`, `<input type=password name=p>`, 1},
		{"empty value", `<input type=password value>`, `<input type=password>`, 1},
		{"two values", `<input type=password value=a value='b'>`, `<input type=password>`, 2},
		{"character reference", `<input type="pass&#119;ord" value="x">`, `<input type="pass&#119;ord">`, 1},
		{"first type wins", `<input type="text" type="password" value="keep">`, `<input type="text" type="password" value="keep">`, 0},
		{"not a keyword", `<input type="password " value="keep">`, `<input type="password " value="keep">`, 0},
		{"unquoted slash", `<input type=password/value=keep>`, `<input type=password/value=keep>`, 0},
		{"text input", `<input type="text" value="keep">`, `<input type="text" value="keep">`, 0},
		{"data-value", `<input type=password data-value=keep value=x>`, `<input type=password data-value=keep>`, 1},
		{"hidden", `<input type="hidden" name="csrf" value="tok-1">`, `<input type="hidden" name="csrf">`, 1},
		{"hidden upper case", `<INPUT TYPE=HIDDEN VALUE=tok-2>`, `<INPUT TYPE=HIDDEN>`, 1},
		{"text keeps its value", `<input type="text" value="keep">`, `<input type="text" value="keep">`, 0},
		{"other tag", `<option value=keep type=password>`, `<option value=keep type=password>`, 0},
		{"script", `<script>s = "<input type=password value=keep>"</script>`, `<script>s = "<input type=password value=keep>"</script>`, 0},
		{"comment", `<!-- <input type=password value=keep> -->`, `<!-- <input type=password value=keep> -->`, 0},
		{"textarea", `<textarea><input type=password value=keep></textarea>`, `<textarea><input type=password value=keep></textarea>`, 0},
		{"document", "<!DOCTYPE html><p>Grüße 東京</p>\n<form><input type=password value=\"s1\"><input name=u value=\"ok\"><input type='PASSWORD' value='s2'></form><p>end</p>",
			"<!DOCTYPE html><p>Grüße 東京</p>\n<form><input type=password><input name=u value=\"ok\"><input type='PASSWORD'></form><p>end</p>", 2},
	}
	for _, tt := range tests {
		got, n := RedactSecrets(tt.src)
		if got != tt.want || n != tt.removed {
			t.Errorf("%s: RedactSecrets(%q) = %q, %d; want %q, %d", tt.name, tt.src, got, n, tt.want, tt.removed)
		}
	}
}

// TestRedactSecrets_KeepsOtherPages: pages without password or hidden
// values come back byte for byte (the tokenizer's raw tokens cover every byte).
func TestRedactSecrets_KeepsOtherPages(t *testing.T) {
	site := os.DirFS("../corpora/site")
	err := fs.WalkDir(site, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		data, err := fs.ReadFile(site, p)
		if err != nil {
			return err
		}
		got, n := RedactSecrets(string(data))
		if secret, ok := map[string]string{
			"fidelity/forms.html":   ` value="hunter2-in-source"`,
			"fidelity/clean.html":   ` value="pin-in-source"`,
			"fidelity/hostile.html": ` value="pin-in-source"`,
			"fidelity/rules.html":   ` value="token-123"`,
			"product.html":          ` value="NW-1091"`,
			"search.html":           ` value="tent"`,
			"widgets.html":          ` value="b7f3c1d2e9"`,
		}[p]; ok {
			want := strings.Replace(string(data), `type="hidden" name="q"`+secret, `type="hidden" name="q"`, 1)
			if want == string(data) {
				want = strings.Replace(string(data), secret, "", 1)
			}
			if n != 1 || got != want {
				t.Errorf("%s: %d removed; want exactly %q taken out", p, n, secret)
			}
			return nil
		}
		if n != 0 || got != string(data) {
			t.Errorf("%s: %d removed, or bytes changed", p, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRedactSecrets_ChromiumSerialization serializes the forms page in
// real Chromium after its script has typed passwords and written one into
// a value attribute, as the html column takes it: the redacted HTML holds
// no password, and only the password values are gone.
func TestRedactSecrets_ChromiumSerialization(t *testing.T) {
	c := startChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c.load(t, srv.URL+"/fidelity/forms.html", 30*time.Second)
	src, err := c.page.Content()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(src, "attr-secret-77") || !strings.Contains(src, "hunter2-in-source") {
		t.Fatal("the page did not put its passwords into value attributes")
	}
	got, n := RedactSecrets(src)
	if n != 2 {
		t.Errorf("%d values removed, want 2", n)
	}
	for _, secret := range []string{"attr-secret-77", "hunter2-in-source", "typed-over-source-9", "typed-secret-42"} {
		if strings.Contains(got, secret) {
			t.Errorf("redacted HTML holds %q", secret)
		}
	}
	if d := len(src) - len(got); d != len(` value="attr-secret-77"`)+len(` value="hunter2-in-source"`) {
		t.Errorf("redaction removed %d bytes, want just the two value attributes", d)
	}
}
