package docblock

import "testing"

func TestReplaceAndGet(t *testing.T) {
	t.Parallel()
	doc := "intro\n<!-- figures:begin -->\nold\n<!-- figures:end -->\nrest\n"
	got, err := Replace(doc, "figures", "| a | 1 |\n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "intro\n<!-- figures:begin -->\n| a | 1 |\n<!-- figures:end -->\nrest\n"; got != want {
		t.Errorf("Replace = %q, want %q", got, want)
	}
	if text, ok := Get(got, "figures"); !ok || text != "| a | 1 |\n" {
		t.Errorf("Get = %q, %v; want the table", text, ok)
	}
	if _, err := Replace(doc, "other", "x"); err == nil {
		t.Error("Replace of a block the doc lacks: no error")
	}
	if _, ok := Get("no block", "figures"); ok {
		t.Error("Get of a block the doc lacks: ok")
	}
}
