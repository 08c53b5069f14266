package reports

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

// The coverage study of the UserBench intervals and tests: coverageSeeds
// synthetic studies (synth.InMemory: the leaderboard that ub synth writes
// with the same seed and scale, plus the planted null pair gpt-5.5 /
// gpt-5.5-twin) at coverageScale. Each seed draws new developers, so the
// planted accuracy is the population mean that the developer bootstrap
// interval estimates.
//
//   - Coverage: the 95% developer bootstrap interval of the macro accuracy
//     of every simulator in each condition (the leaderboard's boot_lo,
//     boot_hi) covers the planted value in 92-98% of the intervals.
//   - Power: the seed's headline gap, the top of the planted leaderboard
//     (gpt-5.5, and its twin) against the bottom (osim-4b) without
//     profile, planted +0.146, is found (Holm-adjusted p < 0.05 over the
//     condition's pairs, as the pairwise table prints it) in every seed.
//     The share found of every planted gap of at least smallGap is logged.
//   - Size: the planted null pair is rejected (raw sign-flip p < 0.05, the
//     test alone, not helped by Holm) in at most 7% of its tests.
//
// Scale 2 (40 developers) is the smallest that meets the power check: at
// scale 1 (20 developers) the paired difference has a standard error near
// 0.04 and the headline gap misses Holm's threshold over 36 pairs in about
// half the seeds (measured: gaps >= 0.10 found in 136 of 240 tests), while
// coverage (0.957) and size (3 of 80) hold there too.
const (
	coverageSeeds = 40
	coverageScale = 2
	smallGap      = 0.10
	headlineTop   = synth.TwinOf
	headlineLow   = "osim-4b"
)

type seedCoverage struct {
	boot, t          coverage // macro accuracy intervals covering the planted value
	found, gaps      int      // planted gaps >= smallGap found (Holm < 0.05) of those tested
	headFound, headN int      // the headline gap found of those tested
	nullRejected     int      // null-pair tests with raw p < 0.05
	nullTests        int
	missed           []string
}

func coverSeed(t *testing.T, seed uint64, planted map[string]synth.Simulator) seedCoverage {
	st, err := synth.InMemory(synth.MemoryOptions{Seed: seed, Scale: coverageScale, Twin: true})
	if err != nil {
		t.Error(err)
		return seedCoverage{}
	}
	r := Prepare(Input{Study: st})
	var res seedCoverage
	for _, cond := range []string{queries.CondNoProfile, queries.CondProfile} {
		for _, sim := range r.leaderboardSims() {
			o := r.anchor(sim, cond)
			if o == nil {
				continue
			}
			want := planted[sim].Conditions[cond].Accuracy
			m := analysis.MacroAccuracy(o)
			bi := analysis.MacroBootstrap(m, r.bootOpts())
			res.boot.check(want, bi.Lo, bi.Hi)
			res.t.check(want, m.Accuracy.Lo, m.Accuracy.Hi)
		}
		c := r.comparison(cond)
		for _, p := range c.Pairs {
			gap := planted[p.A].Conditions[cond].Accuracy - planted[p.B].Conditions[cond].Accuracy
			if p.A+p.B == synth.TwinOf+synth.TwinSimulator || p.B+p.A == synth.TwinOf+synth.TwinSimulator {
				res.nullTests++
				if p.P < 0.05 {
					res.nullRejected++
				}
			}
			if math.Abs(gap) >= smallGap {
				res.gaps++
				if p.Holm < 0.05 {
					res.found++
				}
			}
			if cond == queries.CondNoProfile && (p.A == headlineTop || p.A == synth.TwinSimulator) && p.B == headlineLow {
				res.headN++
				if p.Holm < 0.05 {
					res.headFound++
				} else {
					res.missed = append(res.missed, fmt.Sprintf("seed %d %s-%s (planted %+.3f, diff %+.3f, Holm p %.3f)", seed, p.A, p.B, gap, p.Diff.Estimate, p.Holm))
				}
			}
		}
	}
	return res
}

func TestUserBenchCoverage(t *testing.T) {
	planted := map[string]synth.Simulator{}
	for _, s := range synth.Planted() {
		planted[s.Name] = s
		if s.Name == synth.TwinOf {
			planted[synth.TwinSimulator] = s
		}
	}
	results := make([]seedCoverage, coverageSeeds)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = coverSeed(t, uint64(i+1), planted)
		}()
	}
	wg.Wait()
	var boot, tci coverage
	var found, gaps, headFound, headN, nullRej, nullN int
	var missed []string
	for _, r := range results {
		boot.in, boot.n = boot.in+r.boot.in, boot.n+r.boot.n
		tci.in, tci.n = tci.in+r.t.in, tci.n+r.t.n
		found, gaps = found+r.found, gaps+r.gaps
		headFound, headN = headFound+r.headFound, headN+r.headN
		nullRej, nullN = nullRej+r.nullRejected, nullN+r.nullTests
		missed = append(missed, r.missed...)
	}
	t.Logf("%d seeds at scale %d: bootstrap intervals cover the planted accuracy in %d of %d (%.3f); t intervals %d of %d (%.3f)",
		coverageSeeds, coverageScale, boot.in, boot.n, boot.rate(), tci.in, tci.n, tci.rate())
	t.Logf("headline gap %s - %s found (Holm p < 0.05): %d of %d; every planted gap >= %.2f: %d of %d; planted null rejected (raw p < 0.05): %d of %d (%.3f)",
		headlineTop, headlineLow, headFound, headN, smallGap, found, gaps, nullRej, nullN, float64(nullRej)/float64(nullN))
	if boot.rate() < 0.92 || boot.rate() > 0.98 {
		t.Errorf("bootstrap coverage %.3f outside [0.92, 0.98]", boot.rate())
	}
	if headN != 2*coverageSeeds || headFound != headN {
		t.Errorf("the headline gap found in %d of %d tests: %v", headFound, headN, missed)
	}
	if nullN == 0 || float64(nullRej) > 0.07*float64(nullN) {
		t.Errorf("the planted null is rejected in %d of %d tests, above 7%%", nullRej, nullN)
	}
}

// TestInMemoryMatchesWorkspace: the coverage study's fixture is ub synth:
// the leaderboard of synth.InMemory (no workspace) equals, cell for cell,
// the leaderboard of the study synth.Write puts in a workspace and
// queries.LoadStudy reads back, lines from the profile sessions included.
func TestInMemoryMatchesWorkspace(t *testing.T) {
	st, err := synth.InMemory(synth.MemoryOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	mem := build(t, Prepare(Input{Study: st}), (*Report).leaderboard)
	ws := build(t, synthReport(t, "", 3, 1), (*Report).leaderboard)
	if fmt.Sprint(mem.table.rows) != fmt.Sprint(ws.table.rows) {
		t.Errorf("in memory:\n%v\nworkspace:\n%v", mem.table.rows, ws.table.rows)
	}
	if mem.caption != ws.caption {
		t.Errorf("captions differ:\n%s\n%s", mem.caption, ws.caption)
	}
}
