package pipeline

import (
	"bytes"

	"actionspace/dataset"
)

// extrasColumns stores the page's accessibility tree and AI snapshot in
// its blobs row, each as JSON compressed with zstd (json+zstd, like the
// capture). A record that cannot be encoded is left out, with a warning.
func (p *processor) extrasColumns(t Target, blob *dataset.BlobRow, load *Load) {
	pack := func(name string, encode func(*bytes.Buffer) error) []byte {
		var buf bytes.Buffer
		err := encode(&buf)
		var packed []byte
		if err == nil {
			packed, err = dataset.CompressCapture(buf.Bytes())
		}
		if err != nil {
			p.cfg.logger().Warn(name+" not stored", logPageID, t.PageID, logURL, t.URL, logError, err)
			return nil
		}
		return packed
	}
	if rec := load.AXTree; rec != nil {
		blob.AXTree = pack("accessibility tree", func(b *bytes.Buffer) error { return rec.Encode(b) })
	}
	if snap := load.AISnapshot; snap != nil {
		blob.AISnapshot = pack("AI snapshot", func(b *bytes.Buffer) error { return snap.Encode(b) })
	}
	if blob.AXTree != nil {
		blob.AXTreeEncoding = dataset.CaptureEncoding
	}
	if blob.AISnapshot != nil {
		blob.AISnapshotEncoding = dataset.CaptureEncoding
	}
}

// probeColumns fills the pages row's actionable-now probe columns from
// the load.
func probeColumns(row *dataset.PageRow, load *Load) {
	row.ActionableProbeMS, row.ActionableProbeSkipped = optMS(load.ActionableProbeTime), load.ActionableProbeSkipped
	if load.AXTree == nil || load.AXTree.Probe == nil {
		return
	}
	pr := load.AXTree.Probe
	row.ActionableProbe, row.ActionableProbeCapped = pr.Mode, pr.Capped
	n := int64(0)
	for _, h := range pr.Hits {
		if h.Reached != nil {
			n++
		}
	}
	row.ActionableProbed = &n
}
