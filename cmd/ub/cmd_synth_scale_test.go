package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSynthFidelityAnyScale: the fidelity study takes any scale from 1 to
// 1000 (bench-scale's million episodes is scale 381): scale 2 writes twice
// the seed's 2,625 episodes; 0 and 1001 are usage errors.
func TestSynthFidelityAnyScale(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out, errs := runUB(t, "--db", filepath.Join(dir, "f.duckdb"), "synth", "--study", "fidelity", "--scale", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "episodes   5250 of 7 simulators") {
		t.Errorf("scale 2 wrote:\n%s\nwant 5250 episodes (2 x 2,625)", out)
	}
	for _, bad := range []string{"0", "1001"} {
		if code, _, errs := runUB(t, "--db", filepath.Join(dir, bad+".duckdb"), "synth", "--study", "fidelity", "--scale", bad); code != 2 || !strings.Contains(errs, "want 1 to 1000") {
			t.Errorf("--scale %s: exit %d, %q; want the usage error", bad, code, errs)
		}
	}
}
