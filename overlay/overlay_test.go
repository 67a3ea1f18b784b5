package overlay

import (
	"image"
	"image/color"
	"image/draw"
	"testing"

	"actionspace/dom"
	"actionspace/render"
)

// blank returns a w x h image filled with bg.
func blank(w, h int, bg color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(bg), image.Point{}, draw.Src)
	return img
}

func rgbaAt(img image.Image, x, y int) color.RGBA {
	return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
}

func TestBox(t *testing.T) {
	tests := []struct {
		name             string
		r                dom.Rect
		scrollX, scrollY float64
		dpr              float64
		want             image.Rectangle
	}{
		{"no scroll", dom.Rect{10, 20, 30, 40}, 0, 0, 1, image.Rect(10, 20, 40, 60)},
		{"scrolled", dom.Rect{10, 520, 30, 40}, 0, 500, 1, image.Rect(10, 20, 40, 60)},
		{"dpr 2", dom.Rect{10, 520, 30, 40}, 5, 500, 2, image.Rect(10, 40, 70, 120)},
		{"fractions round outwards", dom.Rect{10.4, 20.6, 9.2, 9.2}, 0, 0, 1, image.Rect(10, 20, 20, 30)},
		{"dpr 0 counts as 1", dom.Rect{1, 2, 3, 4}, 0, 0, 0, image.Rect(1, 2, 4, 6)},
		{"above the screen", dom.Rect{0, 100, 50, 50}, 0, 400, 1, image.Rect(0, -300, 50, -250)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Box(tt.r, tt.scrollX, tt.scrollY, tt.dpr); got != tt.want {
				t.Errorf("Box(%v, %v, %v, %v) = %v, want %v", tt.r, tt.scrollX, tt.scrollY, tt.dpr, got, tt.want)
			}
		})
	}
}

func TestColor(t *testing.T) {
	seen := map[color.RGBA]byte{}
	for _, l := range []byte{dom.LetterLink, dom.LetterButton, dom.LetterInput, dom.LetterImage, dom.LetterOption, dom.LetterOther, '?'} {
		c := Color(l)
		if prev, ok := seen[c]; ok {
			t.Errorf("Color(%c) = %v, the same as Color(%c)", l, c, prev)
		}
		seen[c] = l
		// White text needs a dark tag: luma below the middle.
		if luma := 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B); luma > 128 {
			t.Errorf("Color(%c) = %v: luma %.0f, too light for white text", l, c, luma)
		}
	}
}

func TestDraw(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	tests := []struct {
		name             string
		w, h             int
		actions          []render.Action
		scrollX, scrollY float64
		dpr              float64
		// boxes are where the actions should land on the image.
		boxes []image.Rectangle
	}{
		{
			name: "one button, scrolled",
			w:    200, h: 120,
			actions: []render.Action{{ID: "B1", Rect: dom.Rect{40, 530, 100, 60}}},
			scrollY: 500, dpr: 1,
			boxes: []image.Rectangle{image.Rect(40, 30, 140, 90)},
		},
		{
			name: "dpr 2",
			w:    400, h: 240,
			actions: []render.Action{{ID: "I1", Rect: dom.Rect{20, 15, 100, 60}}},
			dpr:     2,
			boxes:   []image.Rectangle{image.Rect(40, 30, 240, 150)},
		},
		{
			name: "a box partly off the left and top",
			w:    200, h: 120,
			actions: []render.Action{{ID: "L12", Rect: dom.Rect{-30, -20, 100, 60}}},
			dpr:     1,
			boxes:   []image.Rectangle{image.Rect(-30, -20, 70, 40)},
		},
		{
			name: "a box partly off the bottom right",
			w:    200, h: 120,
			actions: []render.Action{{ID: "M3", Rect: dom.Rect{150, 100, 100, 60}}},
			dpr:     1,
			boxes:   []image.Rectangle{image.Rect(150, 100, 250, 160)},
		},
		{
			name: "a checkbox: the tag above it",
			w:    200, h: 120,
			actions: []render.Action{{ID: "I7", Rect: dom.Rect{50, 60, 13, 13}}},
			dpr:     1,
			boxes:   []image.Rectangle{image.Rect(50, 60, 63, 73)},
		},
		{
			name: "several letters",
			w:    300, h: 200,
			actions: []render.Action{
				{ID: "L1", Rect: dom.Rect{10, 10, 80, 40}},
				{ID: "B1", Rect: dom.Rect{110, 10, 80, 40}},
				{ID: "O1", Rect: dom.Rect{10, 110, 80, 40}},
				{ID: "F1", Rect: dom.Rect{110, 110, 80, 40}},
			},
			dpr:   1,
			boxes: []image.Rectangle{image.Rect(10, 10, 90, 50), image.Rect(110, 10, 190, 50), image.Rect(10, 110, 90, 150), image.Rect(110, 110, 190, 150)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := blank(tt.w, tt.h, white)
			before := blank(tt.w, tt.h, white)
			got := Draw(src, tt.actions, tt.scrollX, tt.scrollY, tt.dpr)
			if got.Bounds() != src.Bounds() {
				t.Fatalf("bounds = %v, want %v", got.Bounds(), src.Bounds())
			}
			if string(src.Pix) != string(before.Pix) {
				t.Errorf("Draw modified its input")
			}
			bounds := src.Bounds()
			border := max(1, int(BorderWidth*max(tt.dpr, 1)))
			var tags []image.Rectangle
			for i, a := range tt.actions {
				box, col := tt.boxes[i], Color(a.ID[0])
				vis := box.Intersect(bounds)
				tag := Tag(box, bounds, len(a.ID), tt.dpr)
				tags = append(tags, tag)
				// Every visible edge of the box is drawn in the letter's
				// colour, where the tag does not cover it.
				for _, p := range []image.Point{
					{(vis.Min.X + vis.Max.X) / 2, box.Min.Y},          // top
					{(vis.Min.X + vis.Max.X) / 2, box.Max.Y - 1},      // bottom
					{box.Min.X, (vis.Min.Y + vis.Max.Y) / 2},          // left
					{box.Max.X - 1, (vis.Min.Y + vis.Max.Y) / 2},      // right
					{box.Max.X - border, (vis.Min.Y + vis.Max.Y) / 2}, // the border's inner edge
				} {
					if !p.In(bounds) || p.In(tag) {
						continue
					}
					if c := rgbaAt(got, p.X, p.Y); c != col {
						t.Errorf("%s: edge pixel %v = %v, want %v", a.ID, p, c, col)
					}
				}
				// Inside the border the page shows through.
				in := image.Pt((vis.Min.X+vis.Max.X)/2, (vis.Min.Y+vis.Max.Y)/2)
				if !in.In(tag) {
					if c := rgbaAt(got, in.X, in.Y); c != white {
						t.Errorf("%s: centre %v = %v, want the page's %v", a.ID, in, c, white)
					}
				}
				// The tag (placed as TestTag checks) is filled with the
				// colour, with white text in it.
				if tag.Empty() {
					t.Errorf("%s: no tag", a.ID)
					continue
				}
				if c := rgbaAt(got, tag.Min.X, tag.Min.Y); c != col {
					t.Errorf("%s: tag corner %v = %v, want %v", a.ID, tag.Min, c, col)
				}
				text := 0
				for y := tag.Min.Y; y < tag.Max.Y; y++ {
					for x := tag.Min.X; x < tag.Max.X; x++ {
						if rgbaAt(got, x, y) == white {
							text++
						}
					}
				}
				if text == 0 {
					t.Errorf("%s: no text in the tag %v", a.ID, tag)
				}
			}
			// Nothing changes outside the boxes and tags.
			for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
				for x := bounds.Min.X; x < bounds.Max.X; x++ {
					p := image.Pt(x, y)
					covered := false
					for i := range tt.boxes {
						covered = covered || p.In(tt.boxes[i]) || p.In(tags[i])
					}
					if !covered && rgbaAt(got, x, y) != white {
						t.Fatalf("pixel %v = %v outside every box, want %v", p, rgbaAt(got, x, y), white)
					}
				}
			}
		})
	}
}

func TestTag(t *testing.T) {
	bounds := image.Rect(0, 0, 200, 100)
	// A two-character tag at dpr 1 is 2*7+2*2 = 18 wide, 13+2*2 = 17 high.
	tests := []struct {
		name string
		box  image.Rectangle
		n    int
		dpr  float64
		want image.Rectangle
	}{
		{"inside at the top-left", image.Rect(50, 40, 150, 80), 2, 1, image.Rect(50, 40, 68, 57)},
		{"three characters", image.Rect(50, 40, 150, 80), 3, 1, image.Rect(50, 40, 75, 57)},
		{"dpr 2 doubles it", image.Rect(50, 40, 150, 80), 2, 2, image.Rect(50, 40, 86, 74)},
		{"narrow box: above it", image.Rect(50, 40, 63, 53), 2, 1, image.Rect(50, 23, 68, 40)},
		{"narrow box at the top: inside", image.Rect(50, 5, 63, 18), 2, 1, image.Rect(50, 5, 68, 22)},
		{"clipped box: at its visible corner", image.Rect(-30, -20, 100, 60), 2, 1, image.Rect(0, 0, 18, 17)},
		{"at the right edge: moved left", image.Rect(190, 40, 260, 80), 2, 1, image.Rect(182, 40, 200, 57)},
		{"at the bottom edge: moved up", image.Rect(50, 95, 150, 140), 2, 1, image.Rect(50, 83, 68, 100)},
		{"off the image: none", image.Rect(250, 40, 300, 80), 2, 1, image.Rectangle{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Tag(tt.box, bounds, tt.n, tt.dpr); got != tt.want {
				t.Errorf("Tag(%v, %v, %d, %v) = %v, want %v", tt.box, bounds, tt.n, tt.dpr, got, tt.want)
			}
		})
	}
}

func TestDraw_offScreen(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	src := blank(100, 100, white)
	actions := []render.Action{
		{ID: "B1", Rect: dom.Rect{10, 900, 50, 20}}, // below the screen
		{ID: "L1", Rect: dom.Rect{200, 10, 50, 20}}, // right of it
		{ID: "I1", Rect: dom.Rect{10, 10, 0, 0}},    // no area
	}
	got := Draw(src, actions, 0, 0, 1).(*image.RGBA)
	if string(got.Pix) != string(src.Pix) {
		t.Errorf("Draw drew actions that are not on the image")
	}
	if tag := Tag(Box(actions[0].Rect, 0, 0, 1), src.Bounds(), 2, 1); !tag.Empty() {
		t.Errorf("Tag of an off-screen box = %v, want empty", tag)
	}
}

// BenchmarkDraw draws 100 actions on a 1280x720 screenshot.
func BenchmarkDraw(b *testing.B) {
	src := blank(1280, 720, color.RGBA{240, 240, 240, 255})
	actions := make([]render.Action, 100)
	for i := range actions {
		actions[i] = render.Action{ID: "L" + string(rune('0'+i%10)), Rect: dom.Rect{float64(i%10) * 120, float64(i/10) * 70, 110, 30}}
	}
	for b.Loop() {
		Draw(src, actions, 0, 0, 1)
	}
}
