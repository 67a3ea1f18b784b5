package dom

import (
	"strings"
	"testing"
)

func TestParseFilter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want, err string
	}{
		{"", "all", ""},
		{"all", "all", ""},
		{"links", "links", ""},
		{"inputs+links+buttons", "links+buttons+inputs", ""},
		{"buttons links", "links+buttons", ""},
		{"links+links", "", "twice"},
		{"forms", "", "unknown element kind"},
		{"+", "", "names no kind"},
	}
	for _, tc := range tests {
		got, err := ParseFilter(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseFilter(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("ParseFilter(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestFilter_Keeps(t *testing.T) {
	t.Parallel()
	f := Filter("links+inputs")
	for role, want := range map[string]bool{"link": true, "textbox": true, "combobox": true, "button": false, "checkbox": false, "": false, "option": false} {
		if got := f.Keeps(role); got != want {
			t.Errorf("%s keeps %q = %v, want %v", f, role, got, want)
		}
	}
	for _, all := range []Filter{"", FilterAll} {
		if !all.Keeps("button") || !all.Keeps("") {
			t.Errorf("filter %q drops a kind", all)
		}
	}
}

func TestStrategy_Key(t *testing.T) {
	t.Parallel()
	for _, s := range []Strategy{{}, {Group: 3}, {Layout: LayoutCoarse}, {Only: "links+buttons"}, {Group: 12, Layout: LayoutCoarse, Only: "inputs"}} {
		key := s.Key()
		got, err := ParseStrategyKey(key)
		if err != nil || got != s {
			t.Errorf("ParseStrategyKey(%q) = %+v, %v; want %+v", key, got, err, s)
		}
	}
	if k := (Strategy{Layout: LayoutNone, Only: FilterAll}).Key(); k != "" {
		t.Errorf("the defaults' key is %q, want empty", k)
	}
	for _, bad := range []string{"g1", "g-2", "wide", "coarse,forms"} {
		if _, err := ParseStrategyKey(bad); err == nil {
			t.Errorf("ParseStrategyKey(%q) accepted", bad)
		}
	}
	for _, bad := range []Strategy{{Group: 1}, {Group: -1}, {Layout: "fine"}, {Only: "buttons+links"}} {
		if err := (Options{Strategy: bad}).Validate(); err == nil {
			t.Errorf("Options{%+v}.Validate() accepted", bad)
		}
	}
}

// filterPage is a link, a button and a text input, each in its own block.
func filterPage() *Tree {
	c := &Capture{Version: CaptureVersion, Page: PageInfo{ViewportWidth: 800, ViewportHeight: 600, DocWidth: 800, DocHeight: 600}}
	c.Nodes = []Node{
		{Kind: ElementNode, Parent: -1, Tag: "html", Block: 1, Visible: true, Rect: Rect{0, 0, 800, 600}},
		{Kind: ElementNode, Parent: 0, Tag: "a", Attrs: [][2]string{{"href", "/x"}}, Signals: []string{"tag"}, Visible: true, Rect: Rect{0, 0, 100, 20}},
		{Kind: TextNode, Parent: 1, Text: "Go", Visible: true, Rect: Rect{0, 0, 20, 20}},
		{Kind: ElementNode, Parent: 0, Tag: "button", Signals: []string{"tag"}, Visible: true, Rect: Rect{0, 40, 100, 20}},
		{Kind: TextNode, Parent: 3, Text: "Buy", Visible: true, Rect: Rect{0, 40, 30, 20}},
		{Kind: ElementNode, Parent: 0, Tag: "input", Signals: []string{"tag"}, Visible: true, Rect: Rect{0, 80, 100, 20}},
	}
	return NewTree(c)
}

// TestSelect_Only checks that an element filter gives IDs to the kept
// kinds only, that a dropped element's text becomes context text, and
// that Why names the filter.
func TestSelect_Only(t *testing.T) {
	t.Parallel()
	tree := filterPage()
	v := tree.Select(Options{Strategy: Strategy{Only: "links+inputs"}})
	var got []string
	for _, it := range v.Items {
		got = append(got, it.ID+":"+it.Text)
	}
	if want := "L1:Go :Buy I1:"; strings.Join(got, " ") != want {
		t.Errorf("items %q, want %q", strings.Join(got, " "), want)
	}
	if why := v.Why()[3]; why != Filtered {
		t.Errorf("the button's exclusion is %q, want %q", why, Filtered)
	}
	if n := len(tree.Select(Options{}).Items); n != 3 {
		t.Errorf("without a filter: %d items, want 3", n)
	}
}
