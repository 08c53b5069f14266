package analysis

import (
	"math"
	"slices"
	"sort"

	"github.com/ub-bench/ub"
)

// This file holds the two-sided comparison of `ub compare`: one simulator
// (or one setting of it) A against another, B, on the same points or the
// same tasks, with every difference taken as B - A so that a negative
// difference means B is worse. It reuses the paired statistics of the
// report's pairwise comparisons ([MeanBootstrap], [SignFlip],
// [PairwiseFidelity], [FidelityIntervals]).

// AccuracyPair compares the UserBench accuracy of A and B on the
// developers both were scored on.
type AccuracyPair struct {
	Developers         int // developers scored by both
	MomentsA, MomentsB int // their moments scored by A and by B
	// A and B are the macro accuracies (mean over the common developers)
	// with their developer bootstrap intervals; Diff is the mean of the
	// per-developer difference acc_B - acc_A with its interval, from the
	// same replicates (one draw of developers serves all three).
	A, B, Diff BootInterval
	P          float64 // sign-flip permutation p of Diff ([SignFlip]); NaN for no developer
	// Small is whether Developers is below [MinDevelopers]: the report
	// leaves such a pair out of its comparisons, and a regression check
	// does not judge it.
	Small bool
}

// CompareAccuracy pairs the per-developer accuracies a and b (of
// [PerDeveloper]) by developer and returns A's and B's macro accuracy on
// the common developers, the mean of d = acc_B - acc_A with its developer
// bootstrap interval ([MeanBootstrap], opts), and the sign-flip p of d
// ([SignFlip], seed opts.Seed), as [CompareSimulators] computes for every
// pair of the report, with the sign turned so that B - A < 0 means B is
// worse. Developers scored by one side only are left out.
func CompareAccuracy(a, b []DeveloperScore, opts BootstrapOptions) AccuracyPair {
	opts = opts.withDefaults()
	ma, mb := map[string]DeveloperScore{}, map[string]DeveloperScore{}
	for _, d := range a {
		ma[d.Developer] = d
	}
	for _, d := range b {
		mb[d.Developer] = d
	}
	var out AccuracyPair
	var xa, xb, diff []float64
	for _, dev := range sortedKeys(ma) {
		db, ok := mb[dev]
		if !ok {
			continue
		}
		da := ma[dev]
		out.Developers++
		out.MomentsA += da.N
		out.MomentsB += db.N
		xa, xb = append(xa, da.Accuracy), append(xb, db.Accuracy)
		diff = append(diff, db.Accuracy-da.Accuracy)
	}
	out.A, out.B, out.Diff = MeanBootstrap(xa, opts), MeanBootstrap(xb, opts), MeanBootstrap(diff, opts)
	out.P = math.NaN()
	if len(diff) > 0 {
		out.P = SignFlip(diff, opts.Seed)
	}
	out.Small = out.Developers < MinDevelopers
	return out
}

// FidelityPair compares the user fidelity of A and B on the episodes of
// the tasks both ran.
type FidelityPair struct {
	// A and B are each side's UFS and mean R on the paired episodes, with
	// their task bootstrap intervals ([FidelityIntervals]).
	A, B SimInterval
	// Pair is the paired comparison of [PairwiseFidelity] with A and B in
	// this order: DiffUFS and DiffR are B - A; F.B and Success.B count
	// the pairs where only A has the outcome 1, F.C and Success.C those
	// where only B has it.
	Pair PairComparison
	// Agents are the agents A and B met, sorted (one when they met the
	// same agent; the pair is Confounded otherwise).
	Agents []string
}

// CompareFidelity compares simulators a and b (labels of eps; a == b
// compares a simulator with itself) on the tasks both ran. A task's scored
// episodes of each side are paired in trial order, then by id, and an
// unpaired surplus is left out (as [PairwiseFidelity] pairs them), so the
// estimates and the difference stand on the same episodes. The
// comparison is [PairwiseFidelity]'s with its differences turned to B - A:
// exact McNemar on f and on success, a paired bootstrap interval of the
// difference in UFS and in mean R resampling the common tasks within
// domain; a pair that met different agents is Confounded (success and R
// not compared), one below [MinScored] paired episodes a side or
// [MinCommonTasks] common tasks carries a Reason and no test.
func CompareFidelity(eps []ub.FidelityEpisode, a, b string, threshold float64, opts BootstrapOptions) FidelityPair {
	opts = opts.withDefaults()
	type key struct{ dom, task string }
	side := func(sim string) map[key][]ub.FidelityEpisode {
		m := map[key][]ub.FidelityEpisode{}
		for _, e := range eps {
			if e.Simulator == sim && e.Scored() {
				k := key{e.Domain, e.Task}
				m[k] = append(m[k], e)
			}
		}
		for _, es := range m {
			sort.SliceStable(es, func(i, j int) bool {
				if es[i].Trial != es[j].Trial {
					return es[i].Trial < es[j].Trial
				}
				return es[i].ID < es[j].ID
			})
		}
		return m
	}
	ea, eb := side(a), side(b)
	var paired []ub.FidelityEpisode
	agents := map[string]bool{}
	for k, xs := range ea {
		ys := eb[k]
		for t := range min(len(xs), len(ys)) {
			x, y := xs[t], ys[t]
			x.Simulator, y.Simulator = "A", "B"
			agents[x.Agent], agents[y.Agent] = true, true
			paired = append(paired, x, y)
		}
	}
	sort.Slice(paired, func(i, j int) bool {
		p, q := paired[i], paired[j]
		if p.Simulator != q.Simulator {
			return p.Simulator < q.Simulator
		}
		if p.Domain != q.Domain {
			return p.Domain < q.Domain
		}
		if p.Task != q.Task {
			return p.Task < q.Task
		}
		if p.Trial != q.Trial {
			return p.Trial < q.Trial
		}
		return p.ID < q.ID
	})
	out := FidelityPair{Agents: sortedKeys(agents)}
	nan := BootInterval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	out.A = SimInterval{Simulator: a, UFS: nan, MeanR: nan}
	out.B = SimInterval{Simulator: b, UFS: nan, MeanR: nan}
	out.Pair = PairComparison{A: a, B: b, Reason: "no common task", DiffUFS: nan, DiffR: nan,
		F: McNemar{P: math.NaN()}, Success: McNemar{P: math.NaN()}, FHolm: math.NaN(), SuccessHolm: math.NaN()}
	if len(paired) == 0 {
		return out
	}
	iv := FidelityIntervals(slices.Values(paired), threshold, nil, nil, RulePoint, opts)
	for _, s := range iv.Sims {
		switch s.Simulator {
		case "A":
			out.A = s
			out.A.Simulator = a
		case "B":
			out.B = s
			out.B.Simulator = b
		}
	}
	pcs := PairwiseFidelity(slices.Values(paired), threshold, opts)
	if len(pcs) != 1 {
		return out
	}
	pc := pcs[0]
	pc.A, pc.B = a, b
	pc.DiffUFS, pc.DiffR = negated(pc.DiffUFS), negated(pc.DiffR)
	out.Pair = pc
	return out
}

// negated turns an interval of A - B into one of B - A. The percentile
// interval of the negated replicates is the negated interval with its
// bounds swapped (the type 7 quantile is symmetric under x -> -x). 0 - x rather
// than -x keeps a zero difference +0 in JSON.
func negated(b BootInterval) BootInterval {
	b.Estimate, b.Lo, b.Hi = 0-b.Estimate, 0-b.Hi, 0-b.Lo
	return b
}

// Regressed is the regression check of `ub compare`: whether B is worse
// than A beyond margin with confidence, that is whether the upper bound of
// the interval of B - A is below -margin. An interval that could not be
// computed (NaN) is not a regression.
func Regressed(diff BootInterval, margin float64) bool {
	return diff.Hi < -margin
}
