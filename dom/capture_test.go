package dom

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestScript_KnownRoles keeps the roles capture.js recognises in step with
// the Go role tables: a role attribute's first known token must be the same
// token on both sides, or an element's signals and its ID letter disagree.
func TestScript_KnownRoles(t *testing.T) {
	var list func(name string) []string
	list = func(name string) []string {
		m := regexp.MustCompile(`(?s)const ` + name + ` = new Set\(\[(.*?)\]\);`).FindStringSubmatch(Script())
		if m == nil {
			t.Fatalf("capture.js has no %s set", name)
		}
		var out []string
		for _, q := range regexp.MustCompile(`"([a-z]+)"`).FindAllStringSubmatch(m[1], -1) {
			out = append(out, q[1])
		}
		if strings.Contains(m[1], "...ROLES") {
			out = append(out, list("ROLES")...)
		}
		slices.Sort(out)
		return out
	}
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
