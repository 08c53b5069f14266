package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestProbesMemoryFlat: ub probes reads the stored episodes a range of
// rows at a time, with the plan of the scan in DuckDB and the tasks of a
// few ranges at a time, so its peak RSS hardly grows with the workspace:
// on the fidelity study at scale 10 (26,250 episodes, 309,311 messages)
// it stays within 1.65x of scale 1 (measured 148 vs 118 MiB, 1.25x; the
// Go heap is 9 MiB at most; 151-195 vs 109-137 MiB when every episode's
// row counts, every task and a primary key of the applicability rows
// were held). One query that sorted every message gave 322 vs 139 MiB,
// 2.3x. A second run on scale 10, which stages the results in DuckDB and
// replaces those that changed, is held to the same bound (176 MiB
// measured, 1.49x: at this size DuckDB holds the staged rows below its
// limit; the rewrite of every row it used to make showed in memory only
// from about 100 times the seed, where DuckDB fills its limit:
// TestReplaceProbeResultsWritesTheDifference in queries catches it). Each
// ub probes is a child process that reports its own peak (VmHWM).
func TestProbesMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesises 28,875 episodes")
	}
	dir := t.TempDir()
	peak := func(scale string, again bool) int64 {
		db := filepath.Join(dir, scale+".duckdb")
		if !again {
			if code, out, errs := runUB(t, "--db", db, "synth", "--study", "fidelity", "--scale", scale); code != 0 {
				t.Fatalf("synth --scale %s: exit %d\n%s\n%s", scale, code, out, errs)
			}
		}
		args, _ := json.Marshal([]string{"--db", db, "probes"})
		status := filepath.Join(dir, scale+".peak")
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(args), "UB_TEST_PEAK_RSS="+status)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "probed ") {
			t.Fatalf("probes on scale %s: %v\n%s", scale, err, out)
		}
		b, err := os.ReadFile(status)
		if err != nil {
			t.Fatalf("the child wrote no peak RSS (VmHWM): %v", err)
		}
		kb, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			t.Fatalf("peak RSS %q: %v", b, err)
		}
		return kb
	}
	small, large, again := peak("1", false), peak("10", false), peak("10", true)
	t.Logf("peak RSS of ub probes: scale 1 %d MiB, scale 10 %d MiB, again %d MiB", small>>10, large>>10, again>>10)
	for _, p := range []struct {
		run  string
		peak int64
	}{{"first", large}, {"second", again}} {
		if float64(p.peak) > 1.65*float64(small) {
			t.Errorf("ub probes (%s run) peaked at %d MiB on scale 10, %.2fx its %d MiB on scale 1; want within 1.65x",
				p.run, p.peak>>10, float64(p.peak)/float64(small), small>>10)
		}
	}
}
