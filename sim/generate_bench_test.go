package sim_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
	"github.com/ub-bench/ub/sim/runner"
	"github.com/ub-bench/ub/sim/synth"
)

// BenchmarkGenerateSpan measures the time ub generate spends outside its
// requests: from the start of Generate to the first call (first-ms), and
// from the end of the last call to Generate's return (tail-ms), over the
// synthetic study of seed 3 (two conditions per frozen point) against an
// endpoint that answers at once.
func BenchmarkGenerateSpan(b *testing.B) {
	ctx := context.Background()
	src := filepath.Join(b.TempDir(), "synth.duckdb")
	ws0, err := queries.Open(ctx, src, queries.Options{})
	if err != nil {
		b.Fatal(err)
	}
	st, err := synth.Write(ctx, ws0, synth.Options{Seed: 3})
	if err != nil {
		b.Fatal(err)
	}
	ws0.Close()
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "ub.duckdb")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		ws, err := queries.Open(ctx, path, queries.Options{})
		if err != nil {
			b.Fatal(err)
		}
		e := sim.Experiment{Name: "t", Conditions: []string{sim.CondNoProfile, sim.CondTerse},
			Simulators: []sim.SimulatorConfig{{Name: "m", Backend: "openai", Model: "fake", PriceIn: 2, PriceOut: 8}}}
		if err := e.Check(); err != nil {
			b.Fatal(err)
		}
		var mu sync.Mutex
		var first, last time.Time
		calls := 0
		client := runner.BackendFunc(func(_ context.Context, r runner.Request) (runner.Response, error) {
			mu.Lock()
			if first.IsZero() {
				first = time.Now()
			}
			calls++
			mu.Unlock()
			resp := runner.Response{Text: "ok " + r.Messages[len(r.Messages)-1].Content[:1], TokensIn: 10, TokensOut: 5}
			mu.Lock()
			last = time.Now()
			mu.Unlock()
			return resp, nil
		})
		b.StartTimer()
		start := time.Now()
		res, err := sim.Generate(ctx, ws, e, sim.GenerateOptions{Client: client})
		end := time.Now()
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if s := res.Simulators[0]; s.Written != 2*st.Points || calls != 2*st.Points {
			b.Fatalf("%+v, %d calls: want %d written and sent", s, calls, 2*st.Points)
		}
		b.ReportMetric(float64(first.Sub(start).Microseconds())/1e3, "first-ms")
		b.ReportMetric(float64(end.Sub(last).Microseconds())/1e3, "tail-ms")
		b.ReportMetric(float64(calls), "requests")
		ws.Close()
		b.StartTimer()
	}
}
