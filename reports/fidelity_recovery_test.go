package reports

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

// synthFidelity writes the synthetic UserProxyBench study of seed into an
// in-memory workspace and loads its graded episodes.
func synthFidelity(t testing.TB, seed uint64, scale int) []ub.FidelityEpisode {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: seed, Scale: scale}); err != nil {
		t.Fatal(err)
	}
	rows, err := queries.LoadFidelity(ctx, ws.Conn(), synth.FidelityGrader)
	if err != nil {
		t.Fatal(err)
	}
	return FidelityEpisodes(rows, synth.FidelityGrader)
}

func simName(s string) string { return "user_simulator:" + s + "@t1" }

// TestFidelityRecovery: over 20 seeds, ub's analyses recover what the
// synthetic study planted (sim/synth/ufs.go): every simulator's UFS
// within rounding of the planted value, the frontier choice at q = 0.75,
// 0.84, 0.86 and the dominated set every time; the goal-deviation effect
// on the pass rate near the planted -0.50 and the disclosure effect near
// the planted -0.03; fewer agent tool calls when the user disclosed early.
func TestFidelityRecovery(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("20 synthetic studies")
	}
	const seeds = 20
	// One study per seed, two at a time (each holds its own in-memory
	// workspace); the checks are tallied after all have run.
	results := make([]fidelityChecks, seeds)
	t.Run("seeds", func(t *testing.T) {
		for i := range results {
			seed := uint64(i + 1)
			t.Run(fmt.Sprint(seed), func(t *testing.T) {
				t.Parallel()
				results[i] = recoverFidelitySeed(t, seed)
			})
		}
	})
	var ufsOK, choiceOK, domOK, goalOK, discOK, effortOK int
	for _, r := range results {
		for ok, n := range map[*int]bool{&ufsOK: r.ufs, &choiceOK: r.choice, &domOK: r.dom, &goalOK: r.goal, &discOK: r.disc, &effortOK: r.effort} {
			if n {
				*ok++
			}
		}
	}
	t.Logf("recovered over %d seeds: UFS %d, frontier choice %d, dominated set %d, goal-deviation effect %d, disclosure effect %d, tool-call saving %d",
		seeds, ufsOK, choiceOK, domOK, goalOK, discOK, effortOK)
	if ufsOK != seeds || choiceOK != seeds || domOK != seeds {
		t.Errorf("UFS, frontier and dominated set are planted exactly and must be recovered every time")
	}
	if goalOK < seeds*9/10 || discOK < seeds*9/10 || effortOK < seeds*9/10 {
		t.Errorf("effects recovered in fewer than 90%% of seeds")
	}
}

// fidelityChecks are the checks of TestFidelityRecovery that one seed's
// study passed.
type fidelityChecks struct{ ufs, choice, dom, goal, disc, effort bool }

// recoverFidelitySeed runs TestFidelityRecovery's checks on the study of
// one seed.
func recoverFidelitySeed(t *testing.T, seed uint64) (res fidelityChecks) {
	eps := synthFidelity(t, seed, 1)
	us := analysis.UFSBySimulator(slices.Values(eps), 1)
	ok := len(us) == len(synth.FidelitySims)
	var pts []analysis.FrontierPoint
	for _, u := range us {
		pts = append(pts, analysis.FrontierPoint{Simulator: u.Simulator, Cost: u.Cost, UFS: u.UFS})
		for _, s := range synth.FidelitySims {
			// Rounding of the planted counts: at most 0.5/n_d per
			// domain, (0.5/50 + 0.5/97 + 0.5/113 + 0.5/114)/4 < 0.006.
			if u.Simulator == simName(s.Name) && math.Abs(u.UFS-s.UFS) > 0.006 {
				ok = false
			}
			if u.Simulator == simName(s.Name) && s.Estimated != u.CostEstimated {
				ok = false
			}
		}
	}
	res.ufs = ok
	fr := analysis.Frontier(pts, synth.FidelityFrontier.Qs)
	ok = true
	for i, c := range fr.Choices {
		if c.Simulator != simName(synth.FidelityFrontier.Choice[i]) {
			ok = false
		}
	}
	res.choice = ok
	var dom []string
	for i, p := range fr.Points {
		if fr.Dominated[i] {
			dom = append(dom, p.Simulator)
		}
	}
	var want []string
	for _, d := range synth.FidelityFrontier.Dominated {
		want = append(want, simName(d))
	}
	res.dom = slices.Equal(dom, want)
	fams := analysis.FamilyEffects(slices.Values(eps), 1)
	// 28 cells of 50-114 episodes; the mean effect's noise is a few
	// hundredths, so +/-0.15 around the planted effect is generous yet
	// tells goal deviation (-0.50) from disclosure (-0.03) apart.
	res.goal = math.Abs(fams[1].Mean-synth.FidelityGoalEffect) < 0.15
	res.disc = math.Abs(fams[0].Mean-synth.FidelityDisclosureEffect) < 0.10
	ef, err := analysis.AgentEffort(slices.Values(eps), 1)
	if err != nil {
		t.Fatal(err)
	}
	res.effort = math.Abs(ef.MeanToolCallDiff+synth.FidelityToolCallSaving) < 0.5 && ef.ToolCallNegative >= ef.Compared-1
	return res
}
