package browser

import (
	"encoding/json"
	"strings"

	"actionspace/axtree"
	"actionspace/dom"
	"actionspace/oracle"
	"actionspace/pipeline"
)

// secretsExpr reads what the capture left aside in its world
// (dom.SecretsGlobal), as JSON; null when it left nothing.
const secretsExpr = `JSON.stringify(globalThis.` + dom.SecretsGlobal + ` || null)`

// pageSecrets is what a load knows of the values of the page's password
// and hidden inputs, to keep them out of everything stored about the
// page: the scrub of the values themselves, and whether there are
// password inputs at all (which the AI snapshot's textboxes are then
// tied to).
type pageSecrets struct {
	scrub     *dom.Secrets
	passwords bool
	// boxes are the password inputs' boxes in page coordinates, with
	// their frame depth, from the capture and the accessibility tree;
	// read on first need.
	boxes []secretBox
	read  bool
}

// secretBox is a password input's border box and how many frames deep
// it is.
type secretBox struct {
	box   dom.Rect
	depth int
}

// readSecrets reads, from every world a capture ran in, the values the
// capture left aside. A world that cannot be read costs only the scrub of
// its values (the structural rules still apply) and is logged at debug
// level.
func (p *pwPage) readSecrets(worlds []CaptureWorld, rawURL string) *pageSecrets {
	var values [][2]string
	s := &pageSecrets{}
	for _, w := range worlds {
		res, err := evaluateIn(w.Session, w.Context, secretsExpr, 0)
		str, _ := res.(string)
		if err != nil || str == "" || str == "null" {
			if err != nil {
				p.log.Debug("secrets of a capture world not read", logURL, rawURL, logError, shortError{err})
			}
			continue
		}
		var rec dom.SecretsRecord
		if err := json.Unmarshal([]byte(str), &rec); err != nil {
			p.log.Debug("secrets of a capture world not read", logURL, rawURL, logError, err)
			continue
		}
		values = append(values, rec.Values...)
		s.passwords = s.passwords || rec.Passwords > 0
	}
	s.scrub = dom.NewSecrets(values)
	return s
}

// html takes the secrets out of the page's serialized HTML.
func (s *pageSecrets) html(src string) string {
	out, _ := s.scrub.RedactHTML(src)
	return out
}

// load scrubs the capture record and the final URL of ld (whose user
// information the pipeline takes out of every row, failed or not).
func (s *pageSecrets) load(ld *pipeline.Load) {
	ld.Capture, _ = s.scrub.ScrubJSON(ld.Capture)
	ld.FinalURL, _ = s.scrub.Scrub(ld.FinalURL)
}

// axTree scrubs the secrets from every string of an accessibility tree
// record (the values of password inputs are already left out by
// TakeAXTree).
func (s *pageSecrets) axTree(rec *axtree.Record) {
	if s.scrub.Empty() {
		return
	}
	for i := range rec.Frames {
		rec.Frames[i].URL, _ = s.scrub.Scrub(rec.Frames[i].URL)
		rec.Frames[i].Missing, _ = s.scrub.Scrub(rec.Frames[i].Missing)
	}
	for i := range rec.Nodes {
		n := &rec.Nodes[i]
		n.Name, _ = s.scrub.Scrub(n.Name)
		n.Value, _ = s.scrub.Scrub(n.Value)
		for k := range n.Props {
			n.Props[k][1], _ = s.scrub.Scrub(n.Props[k][1])
		}
	}
}

// snapshot takes the values of password inputs out of an AI snapshot,
// which Playwright prints (`- textbox "Password" [ref=e7]: hunter2`),
// then scrubs the secrets from what is left. A textbox line is a password
// input's when its box, placed in the page, overlaps a password input's
// box (from the capture, and from the accessibility tree rec when there
// is one) by at least oracle.MinOverlap at the same frame depth, as
// oracle.Tie ties handles to elements; on a page with password inputs, a
// textbox line without a box loses its value too. capture is the stored
// capture record.
func (s *pageSecrets) snapshot(snap *axtree.Snapshot, rec *axtree.Record, capture []byte) {
	if s.passwords {
		if nodes, err := axtree.ParseSnapshot(snap.Text); err == nil {
			boxes := axtree.PageBoxes(nodes, snap, rec)
			pw := s.passwordBoxes(rec, capture)
			drop := make([]bool, len(nodes))
			depth := axtree.SnapDepths(nodes)
			found := false
			for i := range nodes {
				n := &nodes[i]
				if n.Kind != axtree.SnapElement || n.Role != "textbox" {
					continue
				}
				if boxes[i] == nil {
					drop[i], found = true, true
					continue
				}
				for _, b := range pw {
					if b.depth == depth[i] && oracle.IoU(b.box, *boxes[i]) >= oracle.MinOverlap {
						drop[i], found = true, true
						break
					}
				}
			}
			if found {
				snap.Text, _ = axtree.DropValues(snap.Text, nodes, drop)
			}
		}
	}
	snap.Text, _ = s.scrub.Scrub(snap.Text)
}

// passwordBoxes returns the boxes of the password inputs, read once: the
// capture's (input elements whose type attribute says password) and the
// accessibility tree's (axtree.Node.Password; the tree is taken nearer
// the snapshot's time).
func (s *pageSecrets) passwordBoxes(rec *axtree.Record, capture []byte) []secretBox {
	if s.read {
		return s.boxes
	}
	s.read = true
	if c, err := dom.Parse(capture); err == nil {
		for i := range c.Nodes {
			n := &c.Nodes[i]
			if t, _ := n.Attr("type"); n.Kind == dom.ElementNode && n.Tag == "input" && strings.EqualFold(t, "password") {
				s.boxes = append(s.boxes, secretBox{box: n.Rect, depth: n.Frame})
			}
		}
	}
	if rec != nil {
		depth := rec.FrameDepths()
		for i := range rec.Nodes {
			n := &rec.Nodes[i]
			if n.Password && n.Box != nil && n.Frame < len(depth) {
				s.boxes = append(s.boxes, secretBox{box: *n.Box, depth: depth[n.Frame]})
			}
		}
	}
	return s.boxes
}
