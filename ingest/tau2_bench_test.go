package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
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
// with encoding/json alone (into any), in the same run, and reports two
// peak Go heap increases of each (peakHeapIncrease) against the largest
// file (target: below 4x): the heap in use, garbage not yet collected
// included (peak/largest-file), and the heap the garbage collector found
// live (live-peak/largest-file).
//
// peakHeapIncrease returns the peak of the Go heap in use (runtime.MemStats
// HeapInuse, sampled every 20 ms) while fn runs, less the heap in use just
// before it after a full GC: the memory fn itself holds, not what the test
// binary held already; and the same of the live heap (runtime/metrics
// /gc/heap/live:bytes, the heap marked live by the last GC cycle, sampled
// every 2 ms, which catches every cycle unless two end within 2 ms). DuckDB's
// own (C++) memory is not Go heap and is not counted.
func peakHeapIncrease(fn func()) (inuse, live uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	live1 := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	baseLive := live1()
	var peak uint64
	peakLive := samplePeak(2*time.Millisecond, live1, func() { peak = peakHeap(fn) })
	if peak > base {
		inuse = peak - base
	}
	if peakLive > baseLive {
		live = peakLive - baseLive
	}
	return inuse, live
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
		var peak, live uint64
		var cpu time.Duration
		for i := 0; i < b.N; i++ {
			ws := benchWorkspace(b)
			c0 := cpuTime(b)
			b.StartTimer()
			p, l := peakHeapIncrease(func() {
				st, err := Run(context.Background(), ws, paths, Options{NewProber: testProber})
				if err != nil || st.Episodes != 769 {
					b.Fatalf("%d episodes: %v", st.Episodes, err)
				}
				// ub ingest closes the workspace, which checkpoints
				// what the write-ahead log still holds: part of the cost.
				if err := ws.Close(); err != nil {
					b.Fatal(err)
				}
			})
			peak, live = max(peak, p), max(live, l)
			b.StopTimer()
			cpu += cpuTime(b) - c0
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(peak)/float64(largest), "peak/largest-file")
		b.ReportMetric(float64(live)/float64(largest), "live-peak/largest-file")
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(total)
		b.ReportAllocs()
		var peak, live uint64
		c0 := cpuTime(b)
		for i := 0; i < b.N; i++ {
			p, l := peakHeapIncrease(func() {
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
			})
			peak, live = max(peak, p), max(live, l)
		}
		b.ReportMetric((cpuTime(b)-c0).Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		b.ReportMetric(float64(peak)/float64(largest), "peak/largest-file")
		b.ReportMetric(float64(live)/float64(largest), "live-peak/largest-file")
	})
}

// countSink counts the episodes parsed and fails on any error.
type countSink struct {
	b *testing.B
	n int
}

func (s *countSink) EpisodeFile(f *EpisodeFile) error { s.n += len(f.Episodes); return nil }
func (s *countSink) Error(e *ParseError)              { s.b.Fatal(e) }

// BenchmarkIngestTau2Parts splits the CPU of BenchmarkIngestTau2Corpus's
// ingest: parse (the 26 files parsed, nothing written; every task key
// computed, as no writer remembers them), no-probes (the whole ingest
// without the probes) and ingest (with them, as the command runs it).
// No heap sampling: cpu-s/op is the process's CPU while the work runs.
func BenchmarkIngestTau2Parts(b *testing.B) {
	paths, total, _ := tau2BenchFiles(b)
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(total)
		c0 := cpuTime(b)
		for i := 0; i < b.N; i++ {
			s := &countSink{b: b}
			for _, p := range paths {
				f, err := os.Open(p)
				if err != nil {
					b.Fatal(err)
				}
				parse := ParseTau2
				if filepath.Base(filepath.Dir(p)) == "tau_trait" {
					parse = ParseTau1
				}
				if err := parse(p, f, s); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
			if s.n != 769 {
				b.Fatalf("%d episodes, want 769", s.n)
			}
		}
		b.ReportMetric((cpuTime(b)-c0).Seconds()/float64(b.N), "cpu-s/op")
	})
	for _, probe := range []bool{false, true} {
		name := "no-probes"
		if probe {
			name = "ingest"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(total)
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				ws := benchWorkspace(b)
				c0 := cpuTime(b)
				b.StartTimer()
				opts := Options{}
				if probe {
					opts.NewProber = testProber
				}
				st, err := Run(context.Background(), ws, paths, opts)
				if err != nil || st.Episodes != 769 {
					b.Fatalf("%d episodes: %v", st.Episodes, err)
				}
				if err := ws.Close(); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cpu += cpuTime(b) - c0
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
