package browser

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"actionspace/corpora"
	"actionspace/pipeline"
	"actionspace/space"
)

// BenchmarkRemote_Throughput measures pages per minute of the bundled
// corpus, repeated to about 100 URLs (?v=0…6), crawled by 1 or 2 shards
// (concurrent crawls, each with its own pool of 4 workers and its own
// driver, as separate processes would) over 1 or 2 local browser servers,
// and by one crawl on a local Chromium for reference. Each sub-benchmark is
// one whole crawl timed from connecting to the last part closed; run it
// once:
//
//	go test ./browser -run '^$' -bench Remote_Throughput -benchtime 1x
//
// The numbers are only comparable within one run on one machine.
func BenchmarkRemote_Throughput(b *testing.B) {
	tools := requireRunServer(b)
	srv, err := corpora.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	var urls []string
	for v := range 7 {
		for _, u := range corpora.DefaultURLs(srv.URL) {
			urls = append(urls, fmt.Sprintf("%s?v=%d", u, v))
		}
	}
	targets := pipeline.TargetsFromURLs(urls)
	servers := []*runServer{startRunServer(b, tools), startRunServer(b, tools)}

	crawl := func(b *testing.B, endpoints []string, shards int) {
		for b.Loop() {
			out := b.TempDir()
			var wg sync.WaitGroup
			errs := make([]error, shards)
			ok := make([]int, shards)
			start := time.Now()
			for i := range shards {
				sh := pipeline.Shard{Index: i, Count: shards}
				cfg := pipeline.DefaultConfig()
				cfg.UseFormats([]string{space.FormatActionSpace}) // the other formats are tested apart
				cfg.RunID = "throughput"
				cfg.Workers = 4
				cfg.Logger = testLogger(b)
				if shards > 1 {
					cfg.Output.Partition = sh.Partition()
				}
				wg.Go(func() {
					st, err := pipeline.Crawl(context.Background(), cfg, sh.Filter(targets), out, remoteOpener(cfg, endpoints...), nil)
					errs[i], ok[i] = err, st.OK
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			total := 0
			for i := range shards {
				if errs[i] != nil {
					b.Fatal(errs[i])
				}
				total += ok[i]
			}
			if total != len(targets) {
				b.Errorf("%d of %d pages ok", total, len(targets))
			}
			b.ReportMetric(float64(len(targets))/elapsed.Minutes(), "pages/min")
		}
	}
	b.Run("local/shards=1", func(b *testing.B) { crawl(b, nil, 1) })
	for _, n := range []int{1, 2} {
		var eps []string
		for _, s := range servers[:n] {
			eps = append(eps, s.endpoint)
		}
		for _, shards := range []int{1, 2} {
			b.Run(fmt.Sprintf("servers=%d/shards=%d", n, shards), func(b *testing.B) { crawl(b, eps, shards) })
		}
	}
}
