package dom

import (
	"fmt"
	"math"
)

// Stitch inserts the captures of cross-origin frames into c, in place.
// frames maps a frame's [Node.CrossOrigin] number in c to the capture the
// same script made inside that frame's own document.
//
// Each frame's nodes become the subtree of their iframe node, right after
// it, so that the nodes stay in document order and the IDs a view assigns
// run through the frame where it sits in the page. On the way in, a frame's
// rects move from its own page coordinates to c's (by the iframe's content
// box, less the frame's scroll), visibility and clip rects are cut to the
// part of the frame that shows ([Node.FrameClip]), frame depths go below
// the iframe's, an aria-hidden or inert iframe hides its elements, and
// parent and label indices are renumbered, and element keys keep the
// frame document they belong to ([Node.KeyDoc]). The page counts add up;
// the frame's own page info (URL, title, viewport, document token) is
// dropped.
//
// It returns where every node went (see [Stitched]): whatever refers to a
// node by its index in c or in a frame's capture (the browser's DOM
// identity of the captured elements) must follow. A number in frames that
// no rendered iframe of c carries is an error, and c is left unchanged.
func Stitch(c *Capture, frames map[int]*Capture) (Stitched, error) {
	if len(frames) == 0 {
		return Stitched{}, nil
	}
	at := make(map[int]int, len(frames)) // iframe node index → frame number
	found := make(map[int]bool, len(frames))
	added := 0
	for i := range c.Nodes {
		n := &c.Nodes[i]
		f, ok := frames[n.CrossOrigin]
		if n.CrossOrigin == 0 || !ok || found[n.CrossOrigin] {
			continue
		}
		if n.Kind != ElementNode || n.FrameBox == nil {
			return Stitched{}, fmt.Errorf("stitch frame %d: node %d is not a rendered frame", n.CrossOrigin, i)
		}
		at[i] = n.CrossOrigin
		found[n.CrossOrigin] = true
		added += len(f.Nodes)
	}
	for num := range frames {
		if !found[num] {
			return Stitched{}, fmt.Errorf("stitch frame %d: no such cross-origin frame in the capture", num)
		}
	}

	page := c.Page
	out := make([]Node, 0, len(c.Nodes)+added)
	newIndex := make([]int, len(c.Nodes))
	starts := make(map[int]int, len(frames))
	for i := range c.Nodes {
		n := c.Nodes[i]
		newIndex[i] = len(out)
		if n.Parent >= 0 {
			n.Parent = newIndex[n.Parent]
		}
		out = append(out, n)
		if num, ok := at[i]; ok {
			f := frames[num]
			starts[num] = len(out)
			out = appendFrame(out, newIndex[i], &c.Nodes[i], f)
			page.Elements += f.Page.Elements
			page.Texts += f.Page.Texts
			page.Truncated = page.Truncated || f.Page.Truncated
			page.Chars += f.Page.Chars
			for _, c := range f.Page.Capped {
				page.Cap(c)
			}
			page.ScriptMs = round2(page.ScriptMs + f.Page.ScriptMs)
			page.CrossOriginFrames += f.Page.CrossOriginFrames
			page.FramesStitched += 1 + f.Page.FramesStitched
		}
	}
	// Labels may point forward, past a frame: renumber once all are known.
	for i := range c.Nodes {
		if l := c.Nodes[i].LabelFor; l > 0 {
			out[newIndex[i]].LabelFor = newIndex[l]
		}
		if l := c.Nodes[i].LightParent; l > 0 {
			out[newIndex[i]].LightParent = newIndex[l]
		}
	}
	stitched := Capture{Version: c.Version, Page: page, Nodes: out}
	if err := stitched.check(); err != nil {
		return Stitched{}, fmt.Errorf("stitch frames: %w", err)
	}
	*c = stitched
	return Stitched{Index: newIndex, Frames: starts}, nil
}

// Stitched says where [Stitch] put the nodes: a frame's nodes keep their
// order and follow each other from their start, so node j of frame num is
// now at Frames[num] + j.
type Stitched struct {
	// Index[i] is the new index of node i of the capture stitched into;
	// nil when nothing moved (no frames).
	Index []int
	// Frames maps each frame number stitched in to the new index of the
	// frame capture's first node.
	Frames map[int]int
}

// Node returns the new index of node i of the capture stitched into.
func (s Stitched) Node(i int) int {
	if s.Index == nil {
		return i
	}
	return s.Index[i]
}

// appendFrame appends the nodes of frame f, whose iframe is host (at index
// hostIndex in out), converted to the host page's coordinates.
func appendFrame(out []Node, hostIndex int, host *Node, f *Capture) []Node {
	base := len(out)
	dx := host.FrameBox[0] - f.Page.ScrollX
	dy := host.FrameBox[1] - f.Page.ScrollY
	clip := *host.FrameBox
	if host.FrameClip != nil {
		clip = *host.FrameClip
	}
	hidden := host.AriaHidden == 1
	for _, n := range f.Nodes {
		if n.Parent < 0 {
			n.Parent = hostIndex
		} else {
			n.Parent += base
		}
		if n.LabelFor > 0 {
			n.LabelFor += base
		}
		if n.LightParent > 0 {
			n.LightParent += base
		}
		if n.Key > 0 && n.KeyDoc == "" {
			n.KeyDoc = f.Page.Doc // the frame's document, not the page's
		}
		n.Frame += host.Frame + 1
		n.Rect = n.Rect.offset(dx, dy)
		if n.ClipRect != nil {
			r := n.ClipRect.offset(dx, dy)
			n.ClipRect = &r
		}
		if n.Visible {
			// What the frame's box cuts away cannot be seen; what is left
			// of the element (and of its clip rect) is.
			if _, ok := cut(n.Rect, clip); !ok {
				n.Visible = false
				n.ClipRect = nil
			} else {
				soft := n.Rect
				if n.ClipRect != nil {
					soft = *n.ClipRect
				}
				soft, _ = cut(soft, clip)
				n.ClipRect = nil
				if soft != n.Rect {
					n.ClipRect = &soft
				}
			}
		}
		if hidden && n.Kind == ElementNode {
			n.AriaHidden = 1
			n.Visible = false
			n.ClipRect = nil
		}
		out = append(out, n)
	}
	return out
}

// offset moves r by (dx, dy), rounded to hundredths as the script rounds.
func (r Rect) offset(dx, dy float64) Rect {
	return Rect{round2(r[0] + dx), round2(r[1] + dy), r[2], r[3]}
}

// cut intersects r with the box c. Like the capture script, it returns a
// zero-size rect at the cut's corner, and false, when nothing is left.
func cut(r, c Rect) (Rect, bool) {
	l, t := math.Max(r[0], c[0]), math.Max(r[1], c[1])
	rr, b := math.Min(r[0]+r[2], c[0]+c[2]), math.Min(r[1]+r[3], c[1]+c[3])
	if rr > l && b > t {
		return Rect{round2(l), round2(t), round2(rr - l), round2(b - t)}, true
	}
	return Rect{round2(l), round2(t), 0, 0}, false
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
