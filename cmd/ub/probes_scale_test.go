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
// rows at a time, so its peak RSS hardly grows with the workspace: on the
// fidelity study at scale 10 (26,250 episodes, 309,311 messages) it stays
// within 1.8x of scale 1 (measured 151-195 vs 109-137 MiB; what grows is a few
// words per episode and the result rows the transaction holds). One query
// that sorted every message gave 322 vs 139 MiB, 2.3x. Each ub probes is a
// child process that reports its own peak (VmHWM).
func TestProbesMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesises 28,875 episodes")
	}
	dir := t.TempDir()
	peak := func(scale string) int64 {
		db := filepath.Join(dir, scale+".duckdb")
		if code, out, errs := runUB(t, "--db", db, "synth", "--study", "fidelity", "--scale", scale); code != 0 {
			t.Fatalf("synth --scale %s: exit %d\n%s\n%s", scale, code, out, errs)
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
	small, large := peak("1"), peak("10")
	t.Logf("peak RSS of ub probes: scale 1 %d MiB, scale 10 %d MiB", small>>10, large>>10)
	if float64(large) > 1.8*float64(small) {
		t.Errorf("ub probes peaked at %d MiB on scale 10, %.2fx its %d MiB on scale 1; want within 1.8x", large>>10, float64(large)/float64(small), small>>10)
	}
}
