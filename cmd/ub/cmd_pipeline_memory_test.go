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

// childPeakRSS runs ub with args as a child process and returns its exit
// code, its stdout and stderr, and its peak resident set (VmHWM, KiB).
func childPeakRSS(t *testing.T, args ...string) (int, string, int64) {
	t.Helper()
	a, _ := json.Marshal(args)
	peak := filepath.Join(t.TempDir(), "peak")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(a), "UB_TEST_PEAK_RSS="+peak)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("ub %s: %v", strings.Join(args, " "), err)
		}
		code = ee.ExitCode()
	}
	b, err := os.ReadFile(peak)
	if err != nil {
		t.Fatalf("ub %s: the child wrote no peak RSS (VmHWM): %v\n%s", strings.Join(args, " "), err, out)
	}
	kib, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatalf("peak RSS %q: %v", b, err)
	}
	return code, string(out), kib
}

// TestPipelineMemoryFlat: the steps of make bench-scale (synth, verdict
// export, verdict import, probes, report), each a child process at
// --memory-limit 128MiB, on the fidelity study at scale 1 and at scale 4.
// Each step's peak RSS stays within the bound bench-scale checks (the
// limit + 256 MiB) at both scales, and within its factor of its own peak
// at scale 1. The factors are what the steps do now, with room for a
// shared machine's noise (measured at scale 1 and 4: synth 138 and 203 MiB,
// 1.47x; export 108 and 124, 1.15x; import 136 and 167-178, 1.23-1.31x
// since ep_verdicts has no primary key (148 and 200, 1.35x with it); probes
// 110 and 118, 1.07x, since it plans its scan in DuckDB and its rows have
// no key to hold (117 and 138, 1.18x, before); report 130-134 and 160-163,
// 1.19-1.25x, since its large reads stream (both lower than the 156 and
// 172, 1.11x, when DuckDB held their results whole, and the 165 and 204,
// 1.23x, up to 1.33x, while the report held the episodes in Go): a step
// that came to hold its input in Go, or a DuckDB
// that stopped honouring the limit, goes over. They are not yet the flat
// memory the pipeline aims at (synth and import still grow with the
// workspace, the report with its tasks; see docs/performance.md, Scale).
// TestProbesMemoryFlat holds the probes at scale 10 too.
func TestPipelineMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesises 13,125 episodes")
	}
	const limit, boundKiB = "128MiB", (128 + 256) << 10
	dir := t.TempDir()
	steps := []string{"synth", "export", "import", "probes", "report"}
	peaks := map[string][2]int64{}
	for i, scale := range []string{"1", "4"} {
		db := filepath.Join(dir, scale+".duckdb")
		verdicts := filepath.Join(dir, scale+".jsonl")
		for _, step := range steps {
			args := []string{"--memory-limit", limit, "--db", db}
			switch step {
			case "synth":
				args = append(args, "synth", "--study", "fidelity", "--scale", scale)
			case "export":
				args = append(args, "export", "--out", verdicts, "--query",
					"select simulation_id, criterion_id, verdict, turn_idx, reason from ep_verdicts order by simulation_id, criterion_id")
			case "import":
				args = append(args, "verdicts", "import", "--grader", "bench-import", verdicts)
			case "probes":
				args = append(args, "probes")
			case "report":
				args = append(args, "report", "--out", filepath.Join(dir, "report-"+scale))
			}
			code, out, kib := childPeakRSS(t, args...)
			if code != 0 {
				t.Fatalf("%s at scale %s: exit %d\n%s", step, scale, code, out)
			}
			p := peaks[step]
			p[i] = kib
			peaks[step] = p
		}
	}
	factor := map[string]float64{"synth": 1.8, "export": 1.4, "import": 1.55, "probes": 1.3, "report": 1.35}
	for _, step := range steps {
		p := peaks[step]
		t.Logf("%-6s peak RSS: scale 1 %d MiB, scale 4 %d MiB (%.2fx)", step, p[0]>>10, p[1]>>10, float64(p[1])/float64(p[0]))
		for i, scale := range []string{"1", "4"} {
			if p[i] > boundKiB {
				t.Errorf("%s at scale %s peaked at %d MiB; want at most --memory-limit %s + 256 MiB = %d MiB", step, scale, p[i]>>10, limit, boundKiB>>10)
			}
		}
		if float64(p[1]) > factor[step]*float64(p[0]) {
			t.Errorf("%s peaked at %d MiB at scale 4, %.2fx its %d MiB at scale 1; want within %.2fx",
				step, p[1]>>10, float64(p[1])/float64(p[0]), p[0]>>10, factor[step])
		}
	}
}
