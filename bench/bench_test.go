package bench

import (
	"context"
	"testing"

	"actionspace/dataset"
	"actionspace/dom"
	"actionspace/space"
)

// BenchmarkRender is the render path of a sweep: select the view and
// render it, for every stored corpus capture, under every cell of a fixed
// expansion of the default matrix (trees decoded once, outside the
// timer). It reports
// renders per second on one core.
func BenchmarkRender(b *testing.B) {
	var trees []*dom.Tree
	for _, p := range storedCaptures(b) {
		c, err := dom.Parse(readCapture(b, p))
		if err != nil {
			b.Fatal(err)
		}
		trees = append(trees, dom.NewTree(c))
	}
	for _, c := range DefaultConfig().Cells() {
		if c.Budget > 0 {
			continue // BenchmarkFitBudget in package render
		}
		b.Run(c.Key(), func(b *testing.B) {
			opts := dom.Options{Expansion: c.Expansion, Text: c.Text}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				for _, t := range trees {
					if _, err := (space.Fast{}).Render(ctx, t.Select(opts)); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*len(trees))/b.Elapsed().Seconds(), "renders/s")
		})
	}
}

// BenchmarkRenderPage is a stored page's whole re-render as the sweep's
// timing pass does it: decompress and decode the capture, build the tree,
// render every cell of a fixed expansion of the default matrix once.
func BenchmarkRenderPage(b *testing.B) {
	var packed [][]byte
	for _, p := range storedCaptures(b) {
		z, err := dataset.CompressCapture(readCapture(b, p))
		if err != nil {
			b.Fatal(err)
		}
		packed = append(packed, z)
	}
	var cells []Cell
	for _, c := range DefaultConfig().Cells() {
		if c.Budget == 0 {
			cells = append(cells, c)
		}
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, z := range packed {
			tree, err := decode(z, dataset.MaxCaptureBytes)
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range cells {
				if _, err := (space.Fast{}).Render(ctx, tree.Select(dom.Options{Expansion: c.Expansion, Text: c.Text})); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric(float64(b.N*len(packed))/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(b.N*len(packed)*len(cells))/b.Elapsed().Seconds(), "renders/s")
}
