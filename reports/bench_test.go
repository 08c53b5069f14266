package reports

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ub-bench/ub/queries"
)

// peakHeap samples the Go heap every few milliseconds until stop is
// called, and returns the largest HeapInuse seen (DuckDB's own memory,
// outside the Go heap, is not counted).
func peakHeap() (stop func() uint64) {
	var mu sync.Mutex
	var peak uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		peak = max(peak, ms.HeapInuse)
		mu.Unlock()
	}
	go func() {
		defer close(finished)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		sample()
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// BenchmarkReport times the whole report (load the study from the
// workspace file, score it, draw every figure, write report.md and the
// manifest) on synthetic studies at the seed's scale and at 10x and 100x
// the developers, points and generations. It reports the peak Go heap in
// MB per run beside the time and allocations.
func BenchmarkReport(b *testing.B) {
	for _, scale := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("scale=%d", scale), func(b *testing.B) {
			if testing.Short() && scale > 10 {
				b.Skip("scale 100 writes 2.3 million generations")
			}
			path := filepath.Join(b.TempDir(), "study.duckdb")
			synthReport(b, path, 1, scale)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			var peak uint64
			for i := 0; i < b.N; i++ {
				runtime.GC()
				stop := peakHeap()
				ws, err := queries.Open(ctx, path, queries.Options{ReadOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				r, err := loadReport(ctx, ws, "synth")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := r.WriteAll(b.TempDir()); err != nil {
					b.Fatal(err)
				}
				ws.Close()
				peak = max(peak, stop())
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}
