package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ub-bench/ub/sim/synth"
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

// TestSynthFidelityDrawsF: ub synth --study fidelity draws each episode's
// f at its simulator's planted rate in its domain, so the number of
// unfaithful episodes of a (simulator, domain) is Binomial(n, 1 - UFS_d),
// not round((1 - UFS_d) n) planted exactly (before: all 28 cells exactly
// so, and a UFS with no sampling noise). E.g. gemma-4-26b in airline:
// UFS_d = 0.55 + 0.02, n = 50 scored tasks, unfaithful mean
// 50 x 0.43 = 21.5, sd sqrt(50 x 0.43 x 0.57) = 3.50; the exact planting
// gave round(21.5) = 22. Every cell must lie within 4 sd of its mean
// (each fails with probability about 6e-5), and most cells must differ
// from the exact count.
func TestSynthFidelityDrawsF(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "f.duckdb")
	if code, out, errs := runUB(t, "--db", db, "synth", "--study", "fidelity"); code != 0 || !strings.Contains(out, "fidelity drawn at its simulator's planted UFS") {
		t.Fatalf("synth: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := runUB(t, "--db", db, "sql", "--format", "csv", `select r.user_model, e.domain,
		count(*) filter (where x.fails > 0) as unfaithful, count(*) as scored
		from (select simulation_id, count(*) filter (where verdict = 'fail') as fails, count(*) filter (where verdict <> 'na') as applied
		      from ep_verdicts group by 1) x
		join ep_episodes e using (simulation_id) join ep_runs r using (run_id)
		where x.applied > 0 group by all order by 1, 2`)
	if code != 0 {
		t.Fatalf("sql: %d %s", code, errs)
	}
	ufs, offset := map[string]float64{}, map[string]float64{}
	for _, s := range synth.FidelitySims {
		ufs[s.Name] = s.UFS
	}
	for _, d := range synth.FidelityDomains {
		offset[d.Name] = d.Offset
	}
	cells, exact := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		f := strings.Split(line, ",")
		x, _ := strconv.Atoi(f[2])
		n, _ := strconv.Atoi(f[3])
		p := 1 - (ufs[f[0]] + offset[f[1]])
		mean, sd := float64(n)*p, math.Sqrt(float64(n)*p*(1-p))
		if math.Abs(float64(x)-mean) > 4*sd {
			t.Errorf("%s %s: %d unfaithful of %d, planted mean %.1f sd %.2f: beyond 4 sd", f[0], f[1], x, n, mean, sd)
		}
		if x == int(math.Round(mean)) {
			exact++
		}
		cells++
	}
	if cells != 28 || exact > cells/2 {
		t.Errorf("%d cells, %d with exactly round((1 - UFS_d) n) unfaithful episodes: f is not drawn", cells, exact)
	}
}
