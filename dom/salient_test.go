package dom

import (
	"reflect"
	"strings"
	"testing"
)

func TestSalient_Rules(t *testing.T) {
	t.Parallel()
	b := newBuilder()
	body := b.el(0, "body", 0, nil)
	h := b.el(body, "h2", 10, nil)
	b.text(h, " Your   cart ", 10)
	rh := b.el(body, "div", 40, nil, "role", "heading")
	b.text(rh, "Summary", 40)
	alert := b.el(body, "div", 70, nil, "role", "alert")
	strong := b.el(alert, "strong", 70, nil)
	b.text(strong, "Error:", 70)
	b.text(alert, "card declined", 70)
	inner := b.el(alert, "span", 75, nil, "aria-live", "polite") // part of the alert
	b.text(inner, "retry", 75)
	status := b.el(body, "p", 100, nil, "role", "status")
	b.text(status, "3 items", 100)
	live := b.el(body, "div", 130, nil, "aria-live", "assertive")
	b.text(live, "Saved", 130)
	off := b.el(body, "div", 160, nil, "aria-live", "off")
	b.text(off, "not live", 160)
	empty := b.el(body, "div", 190, nil, "role", "alert") // no text: no item
	_ = empty
	in := b.el(body, "input", 220, tag, "aria-invalid", "true", "aria-describedby", "hint err", "aria-errormessage", "err")
	_ = in
	valid := b.el(body, "input", 250, tag, "aria-invalid", "false", "aria-describedby", "other")
	_ = valid
	hint := b.el(body, "p", 280, nil, "id", "hint")
	b.text(hint, "Use 16 digits", 280)
	errEl := b.el(body, "p", 310, nil, "id", "err")
	b.text(errEl, "Card number is invalid", 310)
	other := b.el(body, "p", 340, nil, "id", "other")
	b.text(other, "not an error", 340)
	prices := b.el(body, "p", 370, nil)
	b.text(prices, "Total $1,234.56 or 99,00 € or USD 5 (was US$12) and 1984 items", 370)
	hidden := b.text(prices, "$7", 400)
	b.c.Nodes[hidden].Visible = false
	tr := b.tree(t)

	got := Salient(tr)
	if got.Capped {
		t.Errorf("capped on a small page")
	}
	var have []string
	for _, it := range got.Items {
		have = append(have, string(it.Kind)+"="+it.Text+"|"+strings.Join(it.Parts, "/"))
	}
	want := []string{
		"heading=Your cart|Your cart",
		"heading=Summary|Summary",
		"alert=Error: card declined retry|Error:/card declined/retry",
		"status=3 items|3 items",
		"live=Saved|Saved",
		"error=Use 16 digits|Use 16 digits",
		"error=Card number is invalid|Card number is invalid",
		"price=$1,234.56|$1,234.56",
		"price=99,00 €|99,00 €",
		"price=USD 5|USD 5",
		"price=US$12|US$12",
	}
	if !reflect.DeepEqual(have, want) {
		t.Errorf("items:\n got %q\nwant %q", have, want)
	}
}

func TestSalientText_In(t *testing.T) {
	t.Parallel()
	it := SalientText{Parts: []string{"Error:", "card declined"}}
	for _, c := range []struct {
		text string
		want bool
	}{
		{"_[:]Error: card declined", true},
		{"[7] alert ''\n\t[8] StaticText 'Error:'\n\t[9] StaticText 'card declined'", true},
		{"Error: card\ndeclined", true},
		{"error: card declined", false},
		{"Error: card", false},
	} {
		if got := it.In(CollapseSpace(c.text)); got != c.want {
			t.Errorf("In(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if (SalientText{}).In("anything") {
		t.Error("an item without parts is found")
	}
}

func TestSalient_Caps(t *testing.T) {
	t.Parallel()
	b := newBuilder()
	body := b.el(0, "body", 0, nil)
	h := b.el(body, "h1", 10, nil)
	b.text(h, strings.Repeat("word ", 100), 10)
	b.text(h, "tail", 10)
	for i := 0; i < MaxSalient+5; i++ {
		b.text(body, "$1", 40)
	}
	got := Salient(b.tree(t))
	if !got.Capped || len(got.Items) != MaxSalient {
		t.Fatalf("capped %v with %d items, want capped with %d", got.Capped, len(got.Items), MaxSalient)
	}
	if n := len([]rune(got.Items[0].Text)); n > MaxSalientChars {
		t.Errorf("heading text of %d characters, more than %d", n, MaxSalientChars)
	}
	if strings.Contains(got.Items[0].Text, "tail") {
		t.Errorf("the heading kept text past the cap")
	}
}
