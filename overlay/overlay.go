package overlay

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"actionspace/dom"
	"actionspace/render"
)

// Geometry of the drawing, in CSS pixels (scaled by the device pixel ratio
// on the image).
const (
	// BorderWidth is the width of a box's outline, drawn inside the box.
	BorderWidth = 2
	// TagPadding is the space between a tag's edge and its text.
	TagPadding = 2
)

// Color returns the colour boxes and tags of IDs starting with letter are
// drawn in: L blue, B red, I green, F purple, O orange, M teal, anything
// else grey. The colours are dark enough for the tags' white text and far
// enough apart to tell the letters apart.
func Color(letter byte) color.RGBA {
	switch letter {
	case dom.LetterLink:
		return color.RGBA{R: 0x1a, G: 0x5f, B: 0xd6, A: 0xff}
	case dom.LetterButton:
		return color.RGBA{R: 0xd0, G: 0x1c, B: 0x1c, A: 0xff}
	case dom.LetterInput:
		return color.RGBA{R: 0x0b, G: 0x8a, B: 0x2e, A: 0xff}
	case dom.LetterImage:
		return color.RGBA{R: 0x8b, G: 0x2f, B: 0xc9, A: 0xff}
	case dom.LetterOption:
		return color.RGBA{R: 0xc2, G: 0x5a, B: 0x00, A: 0xff}
	case dom.LetterOther:
		return color.RGBA{R: 0x00, G: 0x7c, B: 0x85, A: 0xff}
	}
	return color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
}

// Box returns where r, a box in page coordinates, lies on a screenshot
// taken at scroll offset (scrollX, scrollY) with device pixel ratio dpr, in
// image pixels, rounded outwards. It is not clipped to the image. A dpr of
// 0 or less counts as 1.
func Box(r dom.Rect, scrollX, scrollY, dpr float64) image.Rectangle {
	if dpr <= 0 {
		dpr = 1
	}
	x0 := math.Floor((r[0] - scrollX) * dpr)
	y0 := math.Floor((r[1] - scrollY) * dpr)
	x1 := math.Ceil((r[0] + r[2] - scrollX) * dpr)
	y1 := math.Ceil((r[1] + r[3] - scrollY) * dpr)
	return image.Rect(clampInt(x0), clampInt(y0), clampInt(x1), clampInt(y1))
}

// Tag returns where the tag of a box at box (image pixels) is drawn on an
// image with bounds bounds, for an ID of n characters at device pixel
// ratio dpr: inside the box's visible part, at its top-left corner; or,
// when the box is narrower than the tag (a checkbox, a radio button, an
// icon) and there is room, just above that corner, so as not to hide the
// control. It is moved left or up as needed to stay on the image, and
// empty when no part of the box is on the image.
func Tag(box, bounds image.Rectangle, n int, dpr float64) image.Rectangle {
	vis := box.Intersect(bounds)
	if vis.Empty() {
		return image.Rectangle{}
	}
	k := scale(dpr)
	w := (n*basicfont.Face7x13.Advance + 2*TagPadding) * k
	h := (basicfont.Face7x13.Height + 2*TagPadding) * k
	t := image.Rect(vis.Min.X, vis.Min.Y, vis.Min.X+w, vis.Min.Y+h)
	if box.Dx() < w && vis.Min.Y-h >= bounds.Min.Y {
		t = t.Sub(image.Pt(0, h))
	}
	if d := t.Max.X - bounds.Max.X; d > 0 {
		t = t.Sub(image.Pt(d, 0))
	}
	if d := t.Max.Y - bounds.Max.Y; d > 0 {
		t = t.Sub(image.Pt(0, d))
	}
	return t.Intersect(bounds)
}

// Draw returns a copy of img with every action's box and ID drawn on it.
// The actions' rects are in page coordinates; scrollX and scrollY are the
// page's scroll offset when the screenshot was taken and dpr its device
// pixel ratio (see [Box]). All boxes are drawn first, then all tags, so
// that no box crosses a tag. img is not modified.
func Draw(img image.Image, actions []render.Action, scrollX, scrollY, dpr float64) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	border := max(1, int(math.Round(BorderWidth*max(dpr, 1))))
	type tag struct {
		rect image.Rectangle
		id   string
		col  color.RGBA
	}
	tags := make([]tag, 0, len(actions))
	for _, a := range actions {
		box := Box(a.Rect, scrollX, scrollY, dpr).Add(b.Min)
		if box.Intersect(b).Empty() {
			continue
		}
		col := colorOf(a.ID)
		outline(out, box, border, col)
		if a.ID != "" {
			tags = append(tags, tag{Tag(box, b, len(a.ID), dpr), a.ID, col})
		}
	}
	for _, t := range tags {
		label(out, t.rect, t.id, t.col, scale(dpr))
	}
	return out
}

// colorOf is the colour of an ID.
func colorOf(id string) color.RGBA {
	if id == "" {
		return Color(0)
	}
	return Color(id[0])
}

// outline draws the edges of box, w pixels wide and inside it, clipped to
// dst.
func outline(dst *image.RGBA, box image.Rectangle, w int, c color.RGBA) {
	w = min(w, (box.Dx()+1)/2, (box.Dy()+1)/2)
	if w <= 0 {
		return
	}
	src := image.NewUniform(c)
	edges := []image.Rectangle{
		image.Rect(box.Min.X, box.Min.Y, box.Max.X, box.Min.Y+w), // top
		image.Rect(box.Min.X, box.Max.Y-w, box.Max.X, box.Max.Y), // bottom
		image.Rect(box.Min.X, box.Min.Y, box.Min.X+w, box.Max.Y), // left
		image.Rect(box.Max.X-w, box.Min.Y, box.Max.X, box.Max.Y), // right
	}
	for _, e := range edges {
		draw.Draw(dst, e.Intersect(dst.Bounds()), src, image.Point{}, draw.Src)
	}
}

// label fills r with c and writes id in it in white, the font scaled k
// times.
func label(dst *image.RGBA, r image.Rectangle, id string, c color.RGBA, k int) {
	if r.Empty() {
		return
	}
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
	face := basicfont.Face7x13
	// Render the text at 1x on the tag colour, then copy it scaled.
	w := len(id) * face.Advance
	h := face.Height
	glyphs := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(glyphs, glyphs.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	d := font.Drawer{Dst: glyphs, Src: image.White, Face: face, Dot: fixed.P(0, face.Ascent)}
	d.DrawString(id)
	origin := r.Min.Add(image.Pt(TagPadding*k, TagPadding*k))
	bounds := r.Intersect(dst.Bounds())
	for y := range h * k {
		for x := range w * k {
			p := origin.Add(image.Pt(x, y))
			if p.In(bounds) {
				dst.SetRGBA(p.X, p.Y, glyphs.RGBAAt(x/k, y/k))
			}
		}
	}
}

// scale is the integer factor the tag font is drawn at: the device pixel
// ratio, rounded, at least 1.
func scale(dpr float64) int {
	return max(1, int(math.Round(dpr)))
}

// clampInt converts a pixel coordinate to int, saturating far off-image
// values so that they cannot overflow.
func clampInt(v float64) int {
	const limit = 1 << 30
	switch {
	case math.IsNaN(v):
		return 0
	case v > limit:
		return limit
	case v < -limit:
		return -limit
	}
	return int(v)
}
