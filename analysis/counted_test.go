package analysis

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// countedFixture draws single outcomes and lengths of a few developers and
// the same moments counted: equal rows merged, in an order other than the
// singles'.
func countedFixture(seed uint64) ([]Outcome, []Outcomes, []Length, []Lengths) {
	rng := rand.New(rand.NewPCG(seed, 7))
	moves := []string{"approve", "critical", "directive", "inquiry", "other", ""}
	var single []Outcome
	var lengths []Length
	for range 400 {
		dev := fmt.Sprintf("d%d", rng.IntN(7))
		real := moves[rng.IntN(len(moves)-1)]
		gen := real
		if rng.IntN(3) > 0 {
			gen = moves[rng.IntN(len(moves))]
		}
		single = append(single, Outcome{Developer: dev, Real: real, Generated: gen})
		lengths = append(lengths, Length{Developer: dev, Words: rng.IntN(40)})
	}
	oc, lc := map[Outcome]int{}, map[Length]int{}
	for _, o := range single {
		oc[o]++
	}
	for _, l := range lengths {
		lc[l]++
	}
	var counted []Outcomes
	for o, n := range oc { // map order: any order must do
		counted = append(counted, Outcomes{Outcome: o, Count: n})
	}
	var countedLengths []Lengths
	for l, n := range lc {
		countedLengths = append(countedLengths, Lengths{Length: l, Count: n})
	}
	// A zero count is no moment at all.
	counted = append(counted, Outcomes{Outcome: Outcome{Developer: "nobody", Real: "approve"}})
	countedLengths = append(countedLengths, Lengths{Length: Length{Developer: "nobody", Words: 1000}})
	return single, counted, lengths, countedLengths
}

// TestCountedEqualsSingle: every statistic gives the same result, to the
// last bit, on counted outcomes (lengths) as on the single ones they count.
func TestCountedEqualsSingle(t *testing.T) {
	for seed := range uint64(5) {
		single, counted, lengths, countedLengths := countedFixture(seed)
		half := len(single) / 2
		// The first half's counts, for the two-sample statistics.
		a, b := single[:half], single[half:]
		ca := count(a)
		cb := count(b)
		check := func(name string, got, want any) {
			t.Helper()
			// %v prints NaN as NaN, so equal NaNs compare equal.
			if g, w := fmt.Sprintf("%v", got), fmt.Sprintf("%v", want); g != w {
				t.Errorf("seed %d: %s counted = %s, single = %s", seed, name, g, w)
			}
		}
		check("Total", Total(counted), len(single))
		check("PerDeveloper", PerDeveloper(counted), PerDeveloper(single))
		check("MacroAccuracy", MacroAccuracy(counted), MacroAccuracy(single))
		check("ChanceLine", ChanceLine(counted), ChanceLine(single))
		check("MajorityLine", MajorityLine(counted), MajorityLine(single))
		check("PairedAccuracy", PairedAccuracy(ca, cb), PairedAccuracy(a, b))
		check("MoveBreakdown", MoveBreakdown(ca, cb), MoveBreakdown(a, b))
		check("SpuriousInquiry", SpuriousInquiry(counted), SpuriousInquiry(single))
		check("CriticalRecall", CriticalRecall(counted), CriticalRecall(single))
		sw, err := Sweep(map[int][]Outcomes{1: ca, 14: cb}, 14)
		sws, errs := Sweep(map[int][]Outcome{1: a, 14: b}, 14)
		check("Sweep", fmt.Sprint(sw, err), fmt.Sprint(sws, errs))
		su, err := Surface(map[Cell][]Outcomes{{1, 0}: ca, {1, 64}: cb})
		sus, errs := Surface(map[Cell][]Outcome{{1, 0}: a, {1, 64}: b})
		check("Surface", fmt.Sprint(su, err), fmt.Sprint(sus, errs))
		check("Verbosity", Verbosity(countedLengths), Verbosity(lengths))
		// An odd number of messages: the median is one length, not a mean.
		odd := append(countedLengths, Lengths{Length: Length{Developer: "d0", Words: 3}, Count: 1})
		check("Verbosity odd", Verbosity(odd), Verbosity(append(lengths, Length{Developer: "d0", Words: 3})))
	}
}

// count merges equal outcomes, in order of first appearance.
func count(single []Outcome) []Outcomes {
	at := map[Outcome]int{}
	var out []Outcomes
	for _, o := range single {
		i, ok := at[o]
		if !ok {
			i = len(out)
			at[o] = i
			out = append(out, Outcomes{Outcome: o})
		}
		out[i].Count++
	}
	return out
}

// TestCountedEmpty: outcomes that count no moment are an empty setting,
// as no outcomes are.
func TestCountedEmpty(t *testing.T) {
	zero := []Outcomes{{Outcome: Outcome{Developer: "a", Real: "approve", Generated: "approve"}}}
	if _, err := Sweep(map[int][]Outcomes{1: zero, 14: zero}, 14); err == nil {
		t.Error("Sweep of settings with zero counts: no error")
	}
	if m := MacroAccuracy(zero); m.Developers != nil || m.Accuracy.N != 0 {
		t.Errorf("MacroAccuracy of zero counts = %+v, want no developers", m)
	}
}
