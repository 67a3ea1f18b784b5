package dom

import (
	"strings"
	"testing"
	"time"

	"actionspace/corpora"
)

// TestScript_HiddenValuesStayInThePage captures corpus pages whose forms
// carry hidden inputs (a CSRF token, a SKU) in real Chromium: the inputs
// are in the record, their values are not, as attributes or as live
// values.
func TestScript_HiddenValuesStayInThePage(t *testing.T) {
	c := startChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tt := range []struct{ path, name, secret string }{
		{"/widgets.html", "csrf", "b7f3c1d2e9"},
		{"/product.html", "sku", ""}, // its value is in the page's text too
	} {
		c.load(t, srv.URL+tt.path, 30*time.Second)
		record, capt := c.capture(t, c.world(t), DefaultScriptOptions())
		if tt.secret != "" && strings.Contains(string(record), tt.secret) {
			t.Errorf("%s: the capture holds the hidden value %q", tt.path, tt.secret)
		}
		found := false
		for _, n := range capt.Nodes {
			if name, _ := n.Attr("name"); n.Tag == "input" && name == tt.name {
				found = true
				if typ, _ := n.Attr("type"); typ != "hidden" {
					t.Errorf("%s: input %s has type %q, want hidden", tt.path, tt.name, typ)
				}
				if v, ok := n.Attr("value"); ok || n.Value != "" {
					t.Errorf("%s: hidden input %s has value %q (live %q) in the capture", tt.path, tt.name, v, n.Value)
				}
			}
		}
		if !found {
			t.Errorf("%s: hidden input %s not in the capture", tt.path, tt.name)
		}
	}
}
