package dom

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSecrets_Scrub(t *testing.T) {
	s := NewSecrets([][2]string{
		{SecretPassword, "hunter2"},
		{SecretPassword, "pw1"},              // too short: left to the structural rules
		{SecretHidden, "en"},                 // too short
		{SecretHidden, "tok-12345"},          // long enough
		{SecretHidden, "tok-12345-extended"}, // holds the one above: replaced whole
		{SecretPassword, `a"b&c<d`},          // written escaped in JSON and HTML
	})
	tests := []struct {
		name, in, want string
		n              int
	}{
		{"plain", "you typed hunter2 twice: hunter2", "you typed [redacted] twice: [redacted]", 2},
		{"short ones stay", "pw1 en", "pw1 en", 0},
		{"longest first", "id=tok-12345-extended&x=tok-12345", "id=[redacted]&x=[redacted]", 2},
		{"json escaped", `{"t":"a\"b&c<d"}`, `{"t":"[redacted]"}`, 1},
		{"html attribute", `<p title="a&quot;b&amp;c<d">`, `<p title="[redacted]">`, 1},
		{"html attribute, newer", `<p title="a&quot;b&amp;c&lt;d">`, `<p title="[redacted]">`, 1},
		{"html text", `<p>a"b&amp;c&lt;d</p>`, `<p>[redacted]</p>`, 1},
		{"nothing", "nothing here", "nothing here", 0},
	}
	for _, tt := range tests {
		got, n := s.Scrub(tt.in)
		if got != tt.want || n != tt.n {
			t.Errorf("%s: Scrub(%q) = %q, %d; want %q, %d", tt.name, tt.in, got, n, tt.want, tt.n)
		}
	}
	var none *Secrets
	if got, n := none.Scrub("hunter2"); got != "hunter2" || n != 0 || !none.Empty() {
		t.Errorf("nil Secrets: %q, %d", got, n)
	}
}

// TestSecrets_ScrubJSON: values go from the strings of a capture record,
// keys stay, the record still decodes, and every other byte is kept.
func TestSecrets_ScrubJSON(t *testing.T) {
	s := NewSecrets([][2]string{{SecretPassword, "version"}, {SecretHidden, "csrf-9f8e7d6c"}, {SecretPassword, "q\"uote"}})
	in := `{"version":1,"page":{"url":"http://h/?t=csrf-9f8e7d6c","title":"version 2"},"nodes":[{"k":3,"t":"say q\"uote <b>"},{"k":1,"a":[["data-x","csrf-9f8e7d6c"]]}]}`
	got, n := s.ScrubJSON([]byte(in))
	want := `{"version":1,"page":{"url":"http://h/?t=[redacted]","title":"[redacted] 2"},"nodes":[{"k":3,"t":"say [redacted] <b>"},{"k":1,"a":[["data-x","[redacted]"]]}]}`
	if string(got) != want || n != 4 {
		t.Errorf("ScrubJSON:\n got %s, %d\nwant %s, 4", got, n, want)
	}
	if !json.Valid(got) {
		t.Errorf("ScrubJSON made invalid JSON: %s", got)
	}
	clean := `{"version":1,"nodes":[{"t":"nothing"}]}`
	if got, n := s.ScrubJSON([]byte(clean)); string(got) != clean || n != 0 {
		t.Errorf("ScrubJSON changed a record without secrets: %s, %d", got, n)
	}
}

// TestSecrets_RedactHTML: the value attributes go by structure, whatever
// their length, the other occurrences by the scrub.
func TestSecrets_RedactHTML(t *testing.T) {
	s := NewSecrets([][2]string{{SecretPassword, "abc"}, {SecretHidden, "token-777777"}})
	in := `<input type=password value="abc"><input type=hidden value="token-777777"><p>abc token-777777</p>`
	got, n := s.RedactHTML(in)
	want := `<input type=password><input type=hidden><p>abc [redacted]</p>`
	if got != want || n != 3 {
		t.Errorf("RedactHTML = %q, %d; want %q, 3", got, n, want)
	}
	if strings.Contains(got, "token-777777") {
		t.Error("the token is left")
	}
}
