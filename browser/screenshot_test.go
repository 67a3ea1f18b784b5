package browser

import (
	"bytes"
	"context"
	"flag"
	"image"
	"image/color"
	"image/draw"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/overlay"
	"actionspace/pipeline"
	"actionspace/space"
)

var screenshotDir = flag.String("screenshot-dir", "", "write the screenshots the Screenshot tests decode into `DIR`, to look at them")

// recordingBrowser keeps the screenshot of every load as the browser took
// it, before the pipeline draws on it: the plain image the labeled one is
// compared with, from the same load.
type recordingBrowser struct {
	pipeline.Browser
	mu    sync.Mutex
	shots map[string][]byte // by URL
}

func (b *recordingBrowser) NewPage(ctx context.Context, cfg pipeline.PageConfig) (pipeline.Page, error) {
	p, err := b.Browser.NewPage(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &recordingPage{Page: p, b: b}, nil
}

type recordingPage struct {
	pipeline.Page
	b *recordingBrowser
}

func (p *recordingPage) Load(ctx context.Context, url string) (*pipeline.Load, error) {
	ld, err := p.Page.Load(ctx, url)
	if ld != nil && ld.Screenshot != nil {
		p.b.mu.Lock()
		p.b.shots[url] = slices.Clone(ld.Screenshot)
		p.b.mu.Unlock()
	}
	return ld, err
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

// ring returns the pixels of the outermost one-pixel ring of box that lie
// inside bounds.
func ring(box, bounds image.Rectangle) []image.Point {
	var pts []image.Point
	for x := box.Min.X; x < box.Max.X; x++ {
		pts = append(pts, image.Pt(x, box.Min.Y), image.Pt(x, box.Max.Y-1))
	}
	for y := box.Min.Y + 1; y < box.Max.Y-1; y++ {
		pts = append(pts, image.Pt(box.Min.X, y), image.Pt(box.Max.X-1, y))
	}
	return slices.DeleteFunc(pts, func(p image.Point) bool { return !p.In(bounds) })
}

// painted is an element of a corpus page with a solid background: a
// button whose box the test checks against the pixels.
type painted struct {
	name string     // the action's name
	bg   color.RGBA // its background (the page's --brand)
}

// TestScreenshot_labeled crawls corpus pages with labeled screenshots, in
// PNG and in JPEG, and checks on the stored images that every ID's box lies
// on its element: solid buttons fill their boxes exactly in the plain
// screenshot of the same load, the labeled image differs from it only
// inside the boxes and tags (PNG), and each box's outline has its letter's
// colour. One page is scrolled (a fragment URL), so the scroll offset is
// part of the test.
func TestScreenshot_labeled(t *testing.T) {
	t.Parallel()
	requireChromium(t)
	srv, err := corpora.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	login, article := srv.URL+"/login.html", srv.URL+"/article.html#comment-form"
	solid := map[string][]painted{
		login:   {{"Sign in", color.RGBA{0x4a, 0x3a, 0xff, 0xff}}},
		article: {{"Post comment", color.RGBA{0x1f, 0x6f, 0x5c, 0xff}}},
	}

	tests := []struct {
		name    string
		format  string
		quality int
		// tol is how far a pixel may be from the colour drawn or painted
		// (JPEG is lossy), far how far it must be to count as different.
		tol, far int
	}{
		{"png", pipeline.ScreenshotPNG, 0, 2, 60},
		{"jpeg", pipeline.ScreenshotJPEG, pipeline.DefaultScreenshotQuality, 40, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := pipeline.DefaultConfig()
			cfg.UseFormats([]string{space.FormatActionSpace}) // the other formats are tested apart
			cfg.RunID = "screenshot-test"
			cfg.Workers = 2
			cfg.Timeout = 20 * time.Second
			cfg.Expansions = []int{0, -1}
			cfg.Page.Screenshot = pipeline.ScreenshotConfig{Mode: pipeline.ScreenshotsLabeled, Format: tt.format, Quality: tt.quality}
			cfg.Logger = testLogger(t)
			tc := defaultTestConfig()
			tc.launch.Logger = cfg.Logger
			browser := &recordingBrowser{Browser: mustLaunchChromium(t, tc), shots: map[string][]byte{}}
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			open := func(context.Context) (pipeline.Browser, error) { return browser, nil }
			if _, err := pipeline.Crawl(ctx, cfg, pipeline.TargetsFromURLs([]string{login, article}), out, open, nil); err != nil {
				t.Fatal(err)
			}
			pageFiles, spaceFiles := datasetFiles(t, out)
			var pages []dataset.PageRow
			var spaces []dataset.SpaceRow
			for i := range pageFiles {
				p, err := dataset.ReadAll[dataset.PageRow](pageFiles[i])
				if err != nil {
					t.Fatal(err)
				}
				s, err := dataset.ReadAll[dataset.SpaceRow](spaceFiles[i])
				if err != nil {
					t.Fatal(err)
				}
				pages, spaces = append(pages, p...), append(spaces, s...)
			}
			blobs := readBlobs(t, out)
			if len(pages) != 2 {
				t.Fatalf("%d pages rows, want 2", len(pages))
			}
			for _, row := range pages {
				name := strings.TrimSuffix(filepath.Base(row.URL), filepath.Ext(row.URL))
				name, _, _ = strings.Cut(name, ".")
				blob := blobs[row.PageID]
				t.Run(name, func(t *testing.T) {
					if row.Status != dataset.StatusOK {
						t.Fatalf("status %s: %s", row.Status, row.ErrorMessage)
					}
					if blob.ScreenshotFormat != tt.format || !blob.ScreenshotLabeled || row.ScreenshotMS == nil ||
						ptrString(blob.ScreenshotWidth) != "1280" || ptrString(blob.ScreenshotHeight) != "720" || *row.DevicePixelRatio != 1 {
						t.Fatalf("screenshot columns: format %q labeled %v ms %s size %sx%s dpr %v, want %s, true, set, 1280x720, 1",
							blob.ScreenshotFormat, blob.ScreenshotLabeled, ptrString(row.ScreenshotMS),
							ptrString(blob.ScreenshotWidth), ptrString(blob.ScreenshotHeight), ptrString(row.DevicePixelRatio), tt.format)
					}
					labeled := decodeImage(t, blob.Screenshot, tt.format)
					plain := decodeImage(t, browser.shots[row.URL], tt.format)
					bounds := labeled.Bounds()
					if bounds != image.Rect(0, 0, 1280, 720) || plain.Bounds() != bounds {
						t.Fatalf("image bounds %v (plain %v), want 1280x720", bounds, plain.Bounds())
					}
					t.Logf("%s: %d bytes labeled, %d plain, screenshot %s ms", row.URL, len(blob.Screenshot), len(browser.shots[row.URL]), ptrString(row.ScreenshotMS))
					if *screenshotDir != "" {
						for kind, data := range map[string][]byte{"labeled": blob.Screenshot, "plain": browser.shots[row.URL]} {
							path := filepath.Join(*screenshotDir, kind+"-"+name+"."+map[string]string{"jpeg": "jpg", "png": "png"}[tt.format])
							if err := os.WriteFile(path, data, 0o644); err != nil {
								t.Error(err)
							}
						}
					}
					if row.URL == article && *row.ScrollY < 500 {
						t.Errorf("scroll_y = %v on %s, want the fragment to have scrolled the page", *row.ScrollY, row.URL)
					}

					// The IDs drawn are those of the first expansion (0).
					var actions []dataset.Action
					for _, s := range spaces {
						if s.PageID == row.PageID && s.ViewportExpansion == 0 {
							actions = s.Actions
						}
					}
					type onScreen struct {
						a        dataset.Action
						box, tag image.Rectangle
					}
					var shown []onScreen
					for _, a := range actions {
						box := overlay.Box(dom.Rect{a.X, a.Y, a.Width, a.Height}, *row.ScrollX, *row.ScrollY, *row.DevicePixelRatio)
						if !box.Overlaps(bounds) {
							continue
						}
						shown = append(shown, onScreen{a, box, overlay.Tag(box, bounds, len(a.ID), *row.DevicePixelRatio)})
					}
					if len(shown) < 5 {
						t.Fatalf("%d of %d actions on screen, want at least 5", len(shown), len(actions))
					}

					// Each box's outline is drawn in its letter's colour (where
					// no other box or tag covers it). JPEG smears thin lines:
					// there the outline must only have moved towards the colour.
					for _, s := range shown {
						col := overlay.Color(s.a.ID[0])
						pts := ring(s.box, bounds)
						hit, before, after := 0, 0, 0
						for _, p := range pts {
							if colorNear(rgbaAt(labeled, p), col, tt.tol) {
								hit++
							}
							before += colorDist(rgbaAt(plain, p), col)
							after += colorDist(rgbaAt(labeled, p), col)
						}
						switch {
						case tt.format == pipeline.ScreenshotPNG && hit*2 < len(pts):
							t.Errorf("%s %q at %v: %d of %d outline pixels in %v, want at least half", s.a.ID, s.a.Name, s.box, hit, len(pts), col)
						case tt.format == pipeline.ScreenshotJPEG && after*2 > before:
							t.Errorf("%s %q at %v: outline pixels %d from %v on average, %d before labeling, want at most half", s.a.ID, s.a.Name, s.box, after/len(pts), col, before/len(pts))
						}
					}

					// Solid buttons fill their boxes in the plain screenshot:
					// their colour just inside each edge, something else just
					// outside it.
					checked := 0
					for _, want := range solid[row.URL] {
						for _, s := range shown {
							b := s.box
							if s.a.Name != want.name || !b.Inset(-4).In(bounds) {
								continue
							}
							checked++
							mx, my := (b.Min.X+b.Max.X)/2, (b.Min.Y+b.Max.Y)/2
							for _, p := range []image.Point{{b.Min.X + 3, my}, {b.Max.X - 4, my}, {mx, b.Min.Y + 3}, {mx, b.Max.Y - 4}} {
								if c := rgbaAt(plain, p); !colorNear(c, want.bg, tt.tol) {
									t.Errorf("%s %q box %v: pixel %v inside = %v, want the button's %v", s.a.ID, s.a.Name, b, p, c, want.bg)
								}
							}
							for _, p := range []image.Point{{b.Min.X - 3, my}, {b.Max.X + 2, my}, {mx, b.Min.Y - 3}, {mx, b.Max.Y + 2}} {
								if c := rgbaAt(plain, p); colorNear(c, want.bg, tt.far) {
									t.Errorf("%s %q box %v: pixel %v outside = %v, want other than the button's %v", s.a.ID, s.a.Name, b, p, c, want.bg)
								}
							}
						}
					}
					if checked == 0 {
						t.Errorf("no %v on screen to check", solid[row.URL])
					}

					if tt.format != pipeline.ScreenshotPNG {
						return // JPEG re-encoding changes pixels everywhere
					}
					// The labeled image is the plain one with boxes and tags
					// drawn: it differs from it inside them and nowhere else.
					covered := image.NewAlpha(bounds)
					for _, s := range shown {
						draw.Draw(covered, s.box, image.Opaque, image.Point{}, draw.Src)
						draw.Draw(covered, s.tag, image.Opaque, image.Point{}, draw.Src)
					}
					var outside []image.Point
					changed := 0
					for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
						for x := bounds.Min.X; x < bounds.Max.X; x++ {
							p := image.Pt(x, y)
							if rgbaAt(plain, p) == rgbaAt(labeled, p) {
								continue
							}
							changed++
							if covered.AlphaAt(x, y).A == 0 {
								outside = append(outside, p)
							}
						}
					}
					if len(outside) > 0 {
						t.Errorf("%d pixels changed outside every box and tag, e.g. %v", len(outside), outside[:min(5, len(outside))])
					}
					if changed == 0 {
						t.Errorf("the labeled screenshot equals the plain one")
					}
				})
			}
		})
	}
}
