package reports

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

// BenchmarkFidelitySection times the User fidelity section end to end:
// load the graded episodes from the workspace file, run every analysis
// (with the bootstrap intervals, choice stability and the 21 pairwise
// comparisons at the default B = 1,000), draw its figures and write
// report.md, on the synthetic UserProxyBench study at the seed's scale
// (2,625 episodes, about 15,600 verdicts) and at 10x. It reports the peak
// Go heap in MB per run.
func BenchmarkFidelitySection(b *testing.B) {
	for _, scale := range []int{1, 10} {
		b.Run(fmt.Sprintf("scale=%d", scale), func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "fidelity.duckdb")
			ws, err := queries.Open(ctx, path, queries.Options{})
			if err != nil {
				b.Fatal(err)
			}
			st, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 1, Scale: scale})
			ws.Close()
			if err != nil {
				b.Fatal(err)
			}
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
				rows, err := queries.LoadFidelity(ctx, ws.Conn(), synth.FidelityGrader)
				if err != nil {
					b.Fatal(err)
				}
				r := Prepare(Input{})
				r.SetFidelity(FidelityInput{Grader: synth.FidelityGrader, Episodes: FidelityEpisodes(rows, synth.FidelityGrader)})
				if _, err := r.WriteAll(b.TempDir()); err != nil {
					b.Fatal(err)
				}
				ws.Close()
				peak = max(peak, stop())
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(st.Episodes), "episodes")
			b.ReportMetric(float64(st.Verdicts), "verdicts")
		})
	}
}

// BenchmarkFidelityUncertainty times the uncertainty analyses alone at the
// seed's scale with B = 1,000: the intervals, frontier stability and family
// effects (FidelityIntervals) and every pairwise comparison
// (PairwiseFidelity).
func BenchmarkFidelityUncertainty(b *testing.B) {
	eps := synthFidelity(b, 1, 1)
	cost := map[string]float64{}
	for _, s := range analysis.UFSBySimulator(slices.Values(eps), 1) {
		cost[s.Simulator] = s.Cost
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		analysis.FidelityIntervals(slices.Values(eps), 1, cost, DefaultQs, analysis.RulePoint, analysis.BootstrapOptions{})
		analysis.PairwiseFidelity(slices.Values(eps), 1, analysis.BootstrapOptions{})
	}
}
