package pipeline

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"testing"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/overlay"
	"actionspace/render"
)

// TestScreenshot_columns fills the screenshot columns from a synthetic
// load, without a browser.
func TestScreenshot_columns(t *testing.T) {
	white := image.NewRGBA(image.Rect(0, 0, 64, 48))
	draw.Draw(white, white.Bounds(), image.White, image.Point{}, draw.Src)
	var pngData, jpegData bytes.Buffer
	if err := png.Encode(&pngData, white); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpegData, white, &jpeg.Options{Quality: 70}); err != nil {
		t.Fatal(err)
	}
	actions := []render.Action{{ID: "B1", Rect: dom.Rect{10, 110, 30, 20}}}
	pg := dom.PageInfo{ScrollY: 100, DPR: 1}
	tests := []struct {
		name        string
		mode        string
		data        []byte
		format      string
		wantFormat  string
		wantLabeled bool
		wantNull    bool
	}{
		{"plain png", ScreenshotsPlain, pngData.Bytes(), ScreenshotPNG, "png", false, false},
		{"labeled png", ScreenshotsLabeled, pngData.Bytes(), ScreenshotPNG, "png", true, false},
		{"labeled jpeg", ScreenshotsLabeled, jpegData.Bytes(), ScreenshotJPEG, "jpeg", true, false},
		{"none taken", ScreenshotsLabeled, nil, "", "", false, true},
		{"not an image", ScreenshotsPlain, []byte("not an image"), ScreenshotPNG, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Page.Screenshot = ScreenshotConfig{Mode: tt.mode, Format: ScreenshotPNG, Quality: DefaultScreenshotQuality}
			cfg.Logger = testLogger(t)
			p, err := newProcessor(cfg, "test")
			if err != nil {
				t.Fatal(err)
			}
			var row dataset.BlobRow
			p.screenshotColumns(&row, &Load{Screenshot: tt.data, ScreenshotFormat: tt.format}, pg, actions)
			if got := row.Screenshot == nil; got != tt.wantNull {
				t.Fatalf("screenshot null = %v, want %v", got, tt.wantNull)
			}
			if row.ScreenshotFormat != tt.wantFormat || row.ScreenshotLabeled != tt.wantLabeled {
				t.Errorf("format %q labeled %v, want %q %v", row.ScreenshotFormat, row.ScreenshotLabeled, tt.wantFormat, tt.wantLabeled)
			}
			if tt.wantNull {
				if row.ScreenshotWidth != nil || row.ScreenshotHeight != nil {
					t.Errorf("size %s x %s, want null", ptrString(row.ScreenshotWidth), ptrString(row.ScreenshotHeight))
				}
				return
			}
			if ptrString(row.ScreenshotWidth) != "64" || ptrString(row.ScreenshotHeight) != "48" {
				t.Errorf("size %s x %s, want 64 x 48", ptrString(row.ScreenshotWidth), ptrString(row.ScreenshotHeight))
			}
			img := decodeImage(t, row.Screenshot, tt.wantFormat)
			// The box of B1 is at (10, 10) on the image: page y 110 minus
			// scroll 100.
			got := rgbaAt(img, image.Pt(25, 10))
			if red := overlay.Color('B'); tt.wantLabeled != colorNear(got, red, 40) {
				t.Errorf("pixel on B1's top edge = %v; labeled %v, want it near %v exactly when labeled", got, tt.wantLabeled, red)
			}
		})
	}
}

// BenchmarkScreenshot_label decodes, labels and re-encodes a 1280x720
// JPEG with 100 actions: the Go-side cost of a labeled screenshot.
func BenchmarkScreenshot_label(b *testing.B) {
	// A page-like image: a light background and rows of short dark
	// strokes, like lines of text.
	img := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{248, 249, 250, 255}), image.Point{}, draw.Src)
	for y := 20; y < 700; y += 24 {
		for x := 40; x < 1200; x += 9 {
			draw.Draw(img, image.Rect(x, y, x+2+(x*y)%6, y+11), image.NewUniform(color.RGBA{30, 30, 40, 255}), image.Point{}, draw.Src)
		}
	}
	var data bytes.Buffer
	if err := jpeg.Encode(&data, img, &jpeg.Options{Quality: 70}); err != nil {
		b.Fatal(err)
	}
	actions := make([]render.Action, 100)
	for i := range actions {
		actions[i] = render.Action{ID: "B1", Rect: dom.Rect{float64(i%10) * 120, float64(i/10) * 70, 110, 30}}
	}
	for b.Loop() {
		if _, err := labelScreenshot(data.Bytes(), ScreenshotJPEG, 70, actions, dom.PageInfo{DPR: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// colorNear reports whether every channel of a and b differs by at most tol.
func colorNear(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return d(a.R, b.R) <= tol && d(a.G, b.G) <= tol && d(a.B, b.B) <= tol
}

// colorDist is the sum of the channel differences of a and b.
func colorDist(a, b color.RGBA) int {
	d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return d(a.R, b.R) + d(a.G, b.G) + d(a.B, b.B)
}

func rgbaAt(img image.Image, p image.Point) color.RGBA {
	return color.RGBAModel.Convert(img.At(p.X, p.Y)).(color.RGBA)
}

func decodeImage(t *testing.T, data []byte, format string) image.Image {
	t.Helper()
	img, got, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode %s screenshot: %v", format, err)
	}
	if got != format {
		t.Fatalf("screenshot decodes as %s, want %s", got, format)
	}
	return img
}
