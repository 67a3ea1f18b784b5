package dom

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"actionspace/corpora"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// salientLabels are the salient items of corpora/site/oracles/salient.html,
// labeled by hand from the page (its data-salient attributes and the
// prices in its table), in document order: kind and text.
var salientLabels = [][2]string{
	{"heading", "Checkout"},
	{"status", "2 items in cart"},
	{"heading", "Order summary"},
	{"price", "$89.00"},
	{"price", "$40.99"},
	{"price", "4,50 €"},
	{"price", "USD 10.40"},
	{"price", "$144.89"},
	{"alert", "Payment failed: card declined (retry below)"},
	{"heading", "Card details"},
	{"error", "Enter the 16 digits on the front"},
	{"error", "Your card number is incomplete."},
	{"live", "Draft saved at 10:42"},
}

// TestSalient_Page: on the hand-labeled page, captured by real Chromium,
// the rules find exactly the labeled items: headings (h1, h2, a
// role=heading), the status, alert and live regions (the live span inside
// the alert is part of it; aria-live=off and a hidden alert are none),
// the error messages of the invalid control only (not the hint of a valid
// one), and the prices (not the order number, quantities, the time, nor
// a price split over elements). The whole result is pinned by a golden
// file (-update rewrites it).
func TestSalient_Page(t *testing.T) {
	c := startChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c.load(t, srv.URL+"/oracles/salient.html", time.Minute)
	_, capt := c.capture(t, c.world(t), DefaultScriptOptions())
	got := Salient(NewTree(capt))
	var have [][2]string
	for _, it := range got.Items {
		have = append(have, [2]string{string(it.Kind), it.Text})
	}
	if len(have) != len(salientLabels) {
		t.Errorf("found %d items, want %d:\n got %q\nwant %q", len(have), len(salientLabels), have, salientLabels)
	} else {
		for i := range have {
			if have[i] != salientLabels[i] {
				t.Errorf("item %d: %q, want %q", i, have[i], salientLabels[i])
			}
		}
	}
	type goldenItem struct {
		Kind  SalientKind `json:"kind"`
		Text  string      `json:"text"`
		Parts []string    `json:"parts"`
	}
	items := make([]goldenItem, len(got.Items))
	for i, it := range got.Items {
		items[i] = goldenItem{it.Kind, it.Text, it.Parts}
	}
	data, err := json.MarshalIndent(items, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	golden := filepath.Join("testdata", "salient.golden.json")
	if *update {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != string(data) {
		t.Errorf("%s differs (run with -update to rewrite):\n%s", golden, strings.TrimSpace(string(data)))
	}
}
