package load

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/sim/synth"
)

// fidelityWorkspace is an in-memory workspace holding the synthetic
// fidelity study (one grader, no UserBench data).
func fidelityWorkspace(t *testing.T) *queries.Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if _, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 2}); err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestReportLoadsTheFidelityStudy: with the zero Options the report holds
// the fidelity study of the workspace's one grader, scored, and OnJudge
// hears that
// no judge labelled anything.
func TestReportLoadsTheFidelityStudy(t *testing.T) {
	ws := fidelityWorkspace(t)
	judge, judges := "unset", -1
	rep, err := Report(context.Background(), ws, Options{OnJudge: func(j string, n int) { judge, judges = j, n }})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Holds(reports.StudyFidelity) || rep.Holds(reports.StudyUserBench) {
		t.Errorf("Holds(fidelity) = %v, Holds(userbench) = %v; want true, false", rep.Holds(reports.StudyFidelity), rep.Holds(reports.StudyUserBench))
	}
	if sims, _, ok := rep.FidelityTables(); !ok || len(sims) == 0 {
		t.Errorf("FidelityTables: %d simulators, ok %v; want the graded study loaded", len(sims), ok)
	}
	if judge != "" || judges != 0 {
		t.Errorf("OnJudge(%q, %d); want (\"\", 0): no judge labelled anything", judge, judges)
	}
}

// TestReportRefusesOptionsThatDoNotFit: a judge or a grader that gave
// nothing here is an OptionError naming it; a study the workspace does not
// hold is an error naming the study, not an OptionError.
func TestReportRefusesOptionsThatDoNotFit(t *testing.T) {
	ws := fidelityWorkspace(t)
	for _, tc := range []struct {
		name   string
		opts   Options
		option bool
		want   string
	}{
		{"unknown judge", Options{Judge: "nobody"}, true, "--judge nobody"},
		{"unknown grader", Options{Fidelity: Fidelity{Grader: "nobody"}}, true, `--grader "nobody" gave no verdicts`},
		{"study not held", Options{Studies: []string{reports.StudyUserBench}}, false, "--study userbench"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Report(context.Background(), ws, tc.opts)
			var oe *OptionError
			if err == nil || errors.As(err, &oe) != tc.option || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v (an OptionError: %v); want one naming %q, an OptionError: %v", err, errors.As(err, &oe), tc.want, tc.option)
			}
		})
	}
}

// TestReportHeapFlat: the report holds no episode, verdict pair or rubric
// row once loaded, and holds them only as it reads them while it loads. On
// the synthetic fidelity study at scale 1 and 8 (2,625 and 21,000
// episodes), the Go heap the loaded report keeps (after a collection)
// grows by less than 2 MiB, and the heap's peak while it loads stays
// within 4x for 8x the episodes (what grows is the per-task state: the
// synthetic study's tasks grow with its scale). Measured: kept 0.1 and
// 0.2 MiB, peak 3.4-4.2 and 10.3-11.9 MiB (2.5-3.5x). Before, the report
// kept every graded episode twice over (the User fidelity section's and
// the tau2 section's) and a row per rubric task: 2.1 and 16.2 MiB kept,
// peak 9.2 and 49.0 MiB (5.3x).
func TestReportHeapFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes the synthetic study at scale 8")
	}
	measure := func(scale int) (kept, peak uint64) {
		ctx := context.Background()
		ws, err := queries.Open(ctx, "", queries.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		if _, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 2, Scale: scale, Sampled: true}); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		base := heapObjects()
		var rep *reports.Report
		peak = peakHeapDuring(func() {
			rep, err = Report(ctx, ws, Options{Fidelity: Fidelity{Bootstrap: analysis.BootstrapOptions{B: 50}}})
		})
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		if now := heapObjects(); now > base {
			kept = now - base
		}
		runtime.KeepAlive(rep)
		return kept, peak
	}
	k1, p1 := measure(1)
	k8, p8 := measure(8)
	mib := func(x uint64) float64 { return float64(x) / (1 << 20) }
	t.Logf("heap kept by the loaded report: %.1f MiB at scale 1, %.1f MiB at scale 8; peak while loading %.1f and %.1f MiB", mib(k1), mib(k8), mib(p1), mib(p8))
	if k8 > k1+2<<20 {
		t.Errorf("the loaded report keeps %.1f MiB at scale 8 against %.1f MiB at scale 1: it holds what grows with the episodes", mib(k8), mib(k1))
	}
	if float64(p8) > 4*float64(p1) {
		t.Errorf("the heap's peak while loading is %.1f MiB at scale 8 against %.1f MiB at scale 1: over 4x for 8x the episodes", mib(p8), mib(p1))
	}
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakHeapDuring runs fn and returns the largest increase of the Go heap's
// objects over the start, sampled every millisecond.
func peakHeapDuring(fn func()) uint64 {
	runtime.GC()
	base := heapObjects()
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				if v := heapObjects(); v > base && v-base > peak.Load() {
					peak.Store(v - base)
				}
			}
		}
	}()
	fn()
	close(done)
	<-stopped
	return peak.Load()
}

// TestReportGivesDuckDBAShareOfItsLimit: while a report is loaded DuckDB
// keeps half the workspace's memory_limit (MemoryShare; the rest is the
// Go heap's), and has the whole limit again once it is loaded.
func TestReportGivesDuckDBAShareOfItsLimit(t *testing.T) {
	ctx := context.Background()
	ws := fidelityWorkspace(t)
	limit := func() string {
		var s string
		if err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := ws.Conn().ExecContext(ctx, "SET memory_limit = '512MiB'"); err != nil {
		t.Fatal(err)
	}
	before := limit()
	var during string
	if _, err := Report(ctx, ws, Options{OnJudge: func(string, int) { during = limit() }}); err != nil {
		t.Fatal(err)
	}
	// DuckDB prints 512 MiB as "512.0 MiB" and half of it as "256.0 MiB".
	if before != "512.0 MiB" || during != "256.0 MiB" {
		t.Errorf("memory_limit before and while loading: %q, %q; want \"512.0 MiB\", \"256.0 MiB\"", before, during)
	}
	if after := limit(); after != before {
		t.Errorf("memory_limit after the report: %q; want %q again", after, before)
	}
}

// TestReportUnderALockedConfiguration: with DuckDB's configuration locked
// (ub publish and ub view lock it for the user's SQL) the report loads
// with the whole limit, where changing the limit would be refused.
func TestReportUnderALockedConfiguration(t *testing.T) {
	ctx := context.Background()
	ws := fidelityWorkspace(t)
	for _, q := range []string{"SET memory_limit = '512MiB'", "SET lock_configuration = true"} {
		if _, err := ws.Conn().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var during string
	_, err := Report(ctx, ws, Options{OnJudge: func(string, int) {
		if err := ws.Conn().QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&during); err != nil {
			t.Fatal(err)
		}
	}})
	if err != nil || during != "512.0 MiB" {
		t.Errorf("Report under a locked configuration: %v, memory_limit while loading %q; want no error and \"512.0 MiB\"", err, during)
	}
}
