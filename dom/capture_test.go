package dom

import (
	"regexp"
	"slices"
	"testing"
)

// TestScript_KnownRoles keeps the roles capture.js recognises in step with
// the Go role tables: a role attribute's first known token must be the same
// token on both sides, or an element's signals and its ID letter disagree.
func TestScript_KnownRoles(t *testing.T) {
	list := func(name string) []string { return scriptSet(t, name) }
	var goRoles []string
	for r := range roleLetter {
		goRoles = append(goRoles, r)
	}
	for r := range knownRoles {
		goRoles = append(goRoles, r)
	}
	slices.Sort(goRoles)
	if got := list("KNOWN"); !slices.Equal(got, goRoles) {
		t.Errorf("capture.js KNOWN = %v\nGo roles = %v", got, goRoles)
	}
	// The interactive roles are the lettered ones but images, plus
	// gridcell (interactive when focusable, checked in the script).
	var interactive []string
	for r, l := range roleLetter {
		if l != LetterImage {
			interactive = append(interactive, r)
		}
	}
	slices.Sort(interactive)
	if got := list("ROLES"); !slices.Equal(got, interactive) {
		t.Errorf("capture.js ROLES = %v\nGo interactive roles = %v", got, interactive)
	}
}

func TestNode_Role_FirstKnownToken(t *testing.T) {
	tests := []struct {
		role, want string
	}{
		{"switch button", "switch"},
		{"foo link", "link"},
		{"listitem button", "listitem"},
		{"  Button  ", "button"},
		{"foo bar", ""},
	}
	for _, tt := range tests {
		n := Node{Kind: ElementNode, Tag: "div", Attrs: [][2]string{{"role", tt.role}}}
		if got := n.Role(); got != tt.want {
			t.Errorf("role=%q: Role() = %q, want %q", tt.role, got, tt.want)
		}
	}
}

// scriptSet returns the sorted strings of the Set named name in
// capture.js (with the members of a set it spreads into it).
func scriptSet(tb testing.TB, name string) []string {
	tb.Helper()
	m := regexp.MustCompile(`(?s)const ` + name + ` = new Set\(\[(.*?)\]\);`).FindStringSubmatch(Script())
	if m == nil {
		tb.Fatalf("capture.js has no %s set", name)
	}
	var out []string
	for _, q := range regexp.MustCompile(`"([a-z-]+)"`).FindAllStringSubmatch(m[1], -1) {
		out = append(out, q[1])
	}
	if spread := regexp.MustCompile(`\.\.\.([A-Z]+)`).FindStringSubmatch(m[1]); spread != nil {
		out = append(out, scriptSet(tb, spread[1])...)
	}
	slices.Sort(out)
	return out
}

// TestScript_KeptAttributes keeps the attributes capture.js records past
// MaxAttrs in step with KeptAttributes, and checks that they hold the
// attributes this package reads.
func TestScript_KeptAttributes(t *testing.T) {
	want := slices.Sorted(slices.Values(KeptAttributes()))
	if got := scriptSet(t, "KEEP"); !slices.Equal(got, want) {
		t.Errorf("capture.js KEEP = %v\nKeptAttributes() = %v", got, want)
	}
	for _, name := range []string{"role", "href", "multiple", "size", "type", "list", "alt", "id"} {
		if !slices.Contains(want, name) {
			t.Errorf("KeptAttributes() lacks %q, which dom reads", name)
		}
	}
}
