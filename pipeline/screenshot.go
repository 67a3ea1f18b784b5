package pipeline

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/overlay"
	"actionspace/render"
)

// screenshotColumns fills the screenshot columns of a captured page's row
// from its load. In ScreenshotsLabeled mode it draws actions, the first
// expansion's, onto the image and encodes it again in the same format (and
// JPEG quality). An image that does not decode is left out, one that cannot
// be labeled stored plain; both are logged.
func (p *processor) screenshotColumns(row *dataset.BlobRow, load *Load, pg dom.PageInfo, actions []render.Action) {
	shots := p.cfg.Page.Screenshot
	if len(load.Screenshot) == 0 || !shots.On() {
		return
	}
	log := p.cfg.logger().With(logPageID, row.PageID, logURL, row.URL)
	data := load.Screenshot
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		log.Warn("screenshot does not decode; the page is stored without one", logError, err)
		return
	}
	labeled := false
	if shots.Mode == ScreenshotsLabeled {
		out, err := labelScreenshot(data, load.ScreenshotFormat, shots.Quality, actions, pg)
		if err != nil {
			log.Warn("screenshot not labeled; it is stored plain", logError, err)
		} else {
			data, labeled = out, true
		}
	}
	row.Screenshot = data
	row.ScreenshotFormat = load.ScreenshotFormat
	row.ScreenshotWidth, row.ScreenshotHeight = ptr(int64(cfg.Width)), ptr(int64(cfg.Height))
	row.ScreenshotLabeled = labeled
}

// labelScreenshot decodes a screenshot, draws the actions' boxes and IDs
// on it and encodes it again in format (JPEG at quality).
func labelScreenshot(data []byte, format string, quality int, actions []render.Action, pg dom.PageInfo) ([]byte, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode screenshot: %w", err)
	}
	drawn := overlay.Draw(img, actions, pg.ScrollX, pg.ScrollY, pg.DPR)
	var buf bytes.Buffer
	switch format {
	case ScreenshotJPEG:
		err = jpeg.Encode(&buf, drawn, &jpeg.Options{Quality: quality})
	case ScreenshotPNG:
		err = png.Encode(&buf, drawn)
	default:
		err = fmt.Errorf("unknown format %q", format)
	}
	if err != nil {
		return nil, fmt.Errorf("encode labeled screenshot: %w", err)
	}
	return buf.Bytes(), nil
}
