package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// tau2BenchFiles lists the 26 episode files of corpus/tau2 (results/ and
// tau_trait/) and their total and largest size.
func tau2BenchFiles(b *testing.B) (paths []string, total, largest int64) {
	root := corpusDir(b, "tau2")
	for _, sub := range []string{"results", "tau_trait"} {
		m, _ := filepath.Glob(filepath.Join(root, sub, "*.json"))
		for _, p := range m {
			fi, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			paths = append(paths, p)
			total += fi.Size()
			largest = max(largest, fi.Size())
		}
	}
	if len(paths) != 26 {
		b.Fatalf("%d episode files, want 26", len(paths))
	}
	return paths, total, largest
}

// BenchmarkIngestTau2Corpus compares ub ingest of all of corpus/tau2
// (26 files, 769 episodes, probes included) with decoding the same files
// with encoding/json alone (into any), in the same run, and reports the
// peak Go heap increase of each (peakHeapIncrease) against the largest file
// (target: below 4x).
// peakHeapIncrease is the peak of the Go heap in use (runtime.MemStats
// HeapInuse, sampled every 20 ms) while fn runs, less the heap
// in use just before it after a full GC: the memory fn itself holds, not what
// the test binary held already. DuckDB's own (C++) memory is not Go heap and
// is not counted.
func peakHeapIncrease(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	peak := peakHeap(fn)
	if peak < base {
		return 0
	}
	return peak - base
}

// cpuTime is the user+system CPU time of the whole process so far, every
// thread (DuckDB's own included). On a shared machine it moves far less
// than wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkIngestTau2Corpus(b *testing.B) {
	paths, total, largest := tau2BenchFiles(b)
	b.Run("ub-ingest", func(b *testing.B) {
		b.SetBytes(total)
		b.ReportAllocs()
		var peak uint64
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			ws := benchWorkspace(b)
			c0 := cpuTime(b)
			b.StartTimer()
			peak = max(peak, peakHeapIncrease(func() {
				st, err := Run(context.Background(), ws, paths, Options{})
				if err != nil || st.Episodes != 769 {
					b.Fatalf("%d episodes: %v", st.Episodes, err)
				}
				// ub ingest closes the workspace, which checkpoints
				// what the write-ahead log still holds: part of the cost.
				if err := ws.Close(); err != nil {
					b.Fatal(err)
				}
			}))
			b.StopTimer()
			cpu += cpuTime(b) - c0
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(peak)/float64(largest), "peak/largest-file")
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(total)
		b.ReportAllocs()
		var peak uint64
		c0 := cpuTime(b)
		for i := 0; i < b.N; i++ {
			peak = max(peak, peakHeapIncrease(func() {
				for _, p := range paths {
					data, err := os.ReadFile(p)
					if err != nil {
						b.Fatal(err)
					}
					var v any
					if err := json.Unmarshal(data, &v); err != nil {
						b.Fatal(err)
					}
				}
			}))
		}
		b.ReportMetric((cpuTime(b)-c0).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(peak)/float64(largest), "peak/largest-file")
	})
}
