package dom

import (
	"net/url"
	"testing"
)

// identityPage is a list of buttons an agent's steps then change.
const identityPage = `<!doctype html><html><body>
<ul id="list"><li><button id="a">A</button></li><li><button id="b">B</button></li><li><button id="c">C</button></li></ul>
<button id="d">D</button><a href="#x">Link</a>
</body></html>`

// mutateIdentityPage changes the page as a step might, from the page's
// own world: a button inserted before A, B removed, C renamed, D replaced
// by a look-alike, and the list reordered.
const mutateIdentityPage = `() => {
  const list = document.getElementById("list");
  const li = document.createElement("li");
  li.innerHTML = '<button id="n">N</button>';
  list.prepend(li);
  document.getElementById("b").parentElement.remove();
  document.getElementById("c").textContent = "C renamed";
  const d = document.getElementById("d");
  const look = d.cloneNode(true);
  d.replaceWith(look);
  list.append(list.firstElementChild); // N moves to the end
}`

// keysByText returns the keys of the capture's buttons and links by their
// id attribute (text for the link), with the capture's document.
func keysByText(c *Capture) map[string]int {
	out := map[string]int{}
	for _, n := range c.Nodes {
		if id, ok := n.Attr("id"); ok && (n.Tag == "button") {
			out[id] = n.Key
		}
		if n.Tag == "a" {
			out["link"] = n.Key
		}
	}
	return out
}

// TestScript_KeysSurviveCaptures captures a page, changes it from the
// page's own scripts, and captures it again in real Chromium: the
// elements that stayed keep their keys (the capture script's world lives
// as long as the document), new and look-alike elements get new ones, the
// document token is the same; a new document gets a new token. Stable IDs
// then keep every surviving element's ID, where positional IDs re-point.
func TestScript_KeysSurviveCaptures(t *testing.T) {
	c := startChromium(t)
	if _, err := c.page.Goto("data:text/html," + url.PathEscape(identityPage)); err != nil {
		t.Fatal(err)
	}
	_, first := c.capture(t, c.world(t), DefaultScriptOptions())
	if _, err := c.page.Evaluate(mutateIdentityPage); err != nil {
		t.Fatal(err)
	}
	_, second := c.capture(t, c.world(t), DefaultScriptOptions())

	if first.Page.Doc == "" || first.Page.Doc != second.Page.Doc {
		t.Fatalf("document tokens %q then %q, want one non-empty token", first.Page.Doc, second.Page.Doc)
	}
	k0, k1 := keysByText(first), keysByText(second)
	for _, id := range []string{"a", "c", "link"} {
		if k0[id] == 0 || k0[id] != k1[id] {
			t.Errorf("%s: key %d then %d, want one key", id, k0[id], k1[id])
		}
	}
	seen := map[int]string{}
	for id, k := range k0 {
		seen[k] = id
	}
	for _, id := range []string{"n", "d"} { // new, and the look-alike
		if k1[id] == 0 || seen[k1[id]] != "" {
			t.Errorf("%s: key %d, want a key no element of the first capture had (%v)", id, k1[id], k0)
		}
	}

	// The IDs: stable keeps A, C, the link; positional renumbers.
	t0, t1 := NewTree(first), NewTree(second)
	if err := t1.Follow(t0); err != nil {
		t.Fatal(err)
	}
	byID := func(v *View) map[string]string {
		out := map[string]string{}
		for _, it := range v.Items {
			if it.IsAction() {
				id, _ := v.Tree.Capture.Nodes[it.Node].Attr("id")
				if id == "" {
					id = "link"
				}
				out[id] = it.ID
			}
		}
		return out
	}
	s0, s1 := byID(t0.Select(Options{IDs: IDsStable})), byID(t1.Select(Options{IDs: IDsStable}))
	for _, id := range []string{"a", "c", "link"} {
		if s0[id] == "" || s0[id] != s1[id] {
			t.Errorf("stable: %s was %q, is %q", id, s0[id], s1[id])
		}
	}
	for _, id := range []string{"n", "d"} {
		for old, h := range s0 {
			if s1[id] == h {
				t.Errorf("stable: new element %s took %s, the ID of %s", id, h, old)
			}
		}
	}
	p0, p1 := byID(t0.Select(Options{})), byID(t1.Select(Options{}))
	repointed := 0
	for id, h := range p1 {
		for old, h0 := range p0 {
			if h0 == h && old != id {
				repointed++
			}
		}
	}
	if repointed == 0 {
		t.Errorf("positional: no ID re-pointed (%v then %v); the page's change should shift them", p0, p1)
	}
	t.Logf("positional %v -> %v (%d re-pointed); stable %v -> %v", p0, p1, repointed, s0, s1)

	// A new document: a new token.
	if _, err := c.page.Goto("data:text/html," + url.PathEscape(identityPage)); err != nil {
		t.Fatal(err)
	}
	_, third := c.capture(t, c.world(t), DefaultScriptOptions())
	if third.Page.Doc == "" || third.Page.Doc == first.Page.Doc {
		t.Errorf("a new document kept the token %q", third.Page.Doc)
	}
}
