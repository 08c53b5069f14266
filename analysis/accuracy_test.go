package analysis

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// The two-developer fixture shared by the accuracy and move tests: eight
// frozen moments, scored without and with a profile.
//
//	dev  real       without    with
//	a    approve    directive  approve
//	a    directive  directive  directive
//	a    directive  inquiry    directive
//	a    inquiry    inquiry    directive
//	b    critical   directive  critical
//	b    directive  directive  directive
//	b    directive  directive  inquiry
//	b    critical   critical   critical
var (
	fixtureWithout = []Outcome{
		{"a", "approve", "directive"}, {"a", "directive", "directive"},
		{"a", "directive", "inquiry"}, {"a", "inquiry", "inquiry"},
		{"b", "critical", "directive"}, {"b", "directive", "directive"},
		{"b", "directive", "directive"}, {"b", "critical", "critical"},
	}
	fixtureWith = []Outcome{
		{"a", "approve", "approve"}, {"a", "directive", "directive"},
		{"a", "directive", "directive"}, {"a", "inquiry", "directive"},
		{"b", "critical", "critical"}, {"b", "directive", "directive"},
		{"b", "directive", "inquiry"}, {"b", "critical", "critical"},
	}
)

func TestPerDeveloper(t *testing.T) {
	tests := []struct {
		name string
		in   []Outcome
		want []DeveloperScore
	}{
		// Without: a hits rows 2 and 4 (2/4); b hits rows 6, 7, 8 (3/4).
		{"without profile a is 2/4 and b is 3/4", fixtureWithout,
			[]DeveloperScore{{"a", 2, 4, 0.5}, {"b", 3, 4, 0.75}}},
		// With: a misses only the inquiry (3/4); b misses only row 7 (3/4).
		{"with profile both are 3/4", fixtureWith,
			[]DeveloperScore{{"a", 3, 4, 0.75}, {"b", 3, 4, 0.75}}},
		{"developers come out sorted", cat(devOutcomes("z", 1, 1), devOutcomes("m", 0, 2)),
			[]DeveloperScore{{"m", 0, 2, 0}, {"z", 1, 1, 1}}},
		// a: 1 of 2, then 2 of 2 after b's 0 of 1: 3 of 4 in all.
		{"a developer met twice is merged", cat(devOutcomes("a", 1, 2), devOutcomes("b", 0, 1), devOutcomes("a", 2, 2)),
			[]DeveloperScore{{"a", 3, 4, 0.75}, {"b", 0, 1, 0}}},
		{"no outcomes give nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PerDeveloper(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMacroAccuracy(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		in   []Outcome
		want Interval
	}{
		// (0.5 + 0.75)/2 = 0.625; sd = 0.25/sqrt(2) = 0.176777; se = 0.125;
		// 0.625 -/+ 12.706205 * 0.125 = 0.625 -/+ 1.588276. The t interval
		// is not clipped to [0, 1]: with two developers it says nothing.
		{"two developers average to 0.625", fixtureWithout,
			Interval{Mean: 0.625, Lo: -0.963276, Hi: 2.213276, SD: 0.176777, N: 2}},
		// A macro mean weighs developers equally: 1/1 and 0/9 average to 0.5
		// although the pooled (micro) accuracy is 1/10.
		{"a quiet developer weighs as much as a chatty one",
			cat(devOutcomes("quiet", 1, 1), devOutcomes("chatty", 0, 9)),
			Interval{Mean: 0.5, Lo: -5.853102, Hi: 6.853102, SD: 0.707107, N: 2}},
		{"one developer has NaN bounds", devOutcomes("a", 3, 4),
			Interval{Mean: 0.75, Lo: nan, Hi: nan, SD: nan, N: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkInterval(t, MacroAccuracy(tt.in).Accuracy, tt.want, 1e-6)
		})
	}
}

func TestCollisionProbability(t *testing.T) {
	tests := []struct {
		name  string
		moves []string
		want  float64
	}{
		{"one move always collides", []string{"directive", "directive"}, 1},
		{"four equal moves collide a quarter of the time",
			[]string{"approve", "critical", "directive", "inquiry"}, 0.25},
		// p = (1/2, 1/4, 1/4): 1/4 + 1/16 + 1/16 = 0.375.
		{"a half-quarter-quarter mix is 0.375", []string{"d", "a", "d", "i"}, 0.375},
		// The seed's mix (directive 52%, critical 28%, approve 12%, inquiry
		// 8%): 0.2704 + 0.0784 + 0.0144 + 0.0064 = 0.3696.
		{"the seed's overall mix is 0.3696", seedMix(), 0.3696},
		{"no moves are NaN", nil, math.NaN()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFloat(t, "CollisionProbability", CollisionProbability(tt.moves), tt.want, 1e-12)
		})
	}
}

// seedMix returns 100 moves in the proportions of seed 000's table.
func seedMix() []string {
	var m []string
	for move, n := range map[string]int{"directive": 52, "critical": 28, "approve": 12, "inquiry": 8} {
		for range n {
			m = append(m, move)
		}
	}
	return m
}

func TestChanceLine(t *testing.T) {
	// a's real moves: approve, directive, directive, inquiry ->
	// 1/16 + 1/4 + 1/16 = 0.375. b's: critical x2, directive x2 -> 0.5.
	// Line: 0.4375. Generated moves are ignored, so both conditions agree.
	for name, in := range map[string][]Outcome{"without": fixtureWithout, "with": fixtureWith} {
		t.Run(name+" profile the line is 0.4375", func(t *testing.T) {
			ch := ChanceLine(in)
			want := []DeveloperChance{{"a", 4, 0.375}, {"b", 4, 0.5}}
			if !reflect.DeepEqual(ch.Developers, want) {
				t.Errorf("Developers = %+v, want %+v", ch.Developers, want)
			}
			checkFloat(t, "Line.Mean", ch.Line.Mean, 0.4375, 1e-12)
		})
	}
	t.Run("no outcomes give a NaN line", func(t *testing.T) {
		ch := ChanceLine([]Outcome(nil))
		if ch.Developers != nil || !math.IsNaN(ch.Line.Mean) {
			t.Errorf("got %+v", ch)
		}
	})
}

func TestPairedAccuracy(t *testing.T) {
	t.Run("profile effect: a gains 0.25, b none, t 1 on 1 df", func(t *testing.T) {
		// d = (0.75 - 0.5, 0.75 - 0.75) = (0.25, 0); mean 0.125, sd 0.176777,
		// se 0.125, t = 1 on 1 df. 1 df is Cauchy, P(|T| > 1) =
		// 1 - (2/pi) atan(1) = 0.5 exactly; CI 0.125 -/+ 12.706205 * 0.125.
		p := PairedAccuracy(fixtureWith, fixtureWithout)
		if !equalStrings(p.Developers, []string{"a", "b"}) || len(p.Unpaired) != 0 {
			t.Fatalf("Developers %v, Unpaired %v", p.Developers, p.Unpaired)
		}
		checkFloat(t, "Diffs[0]", p.Diffs[0], 0.25, 1e-12)
		checkFloat(t, "Diffs[1]", p.Diffs[1], 0, 1e-12)
		checkFloat(t, "MeanDiff", p.Test.MeanDiff, 0.125, 1e-12)
		checkFloat(t, "T", p.Test.T, 1, 1e-12)
		checkFloat(t, "P", p.Test.P, 0.5, 1e-9)
		checkFloat(t, "CI.Lo", p.Test.CI.Lo, -1.463276, 1e-6)
		checkFloat(t, "CI.Hi", p.Test.CI.Hi, 1.713276, 1e-6)
	})
	t.Run("a developer missing from one side is reported unpaired", func(t *testing.T) {
		a := cat(devOutcomes("x", 1, 2), devOutcomes("y", 2, 2), devOutcomes("z", 0, 1))
		b := cat(devOutcomes("w", 1, 1), devOutcomes("x", 0, 2), devOutcomes("y", 1, 2))
		p := PairedAccuracy(a, b)
		if !equalStrings(p.Developers, []string{"x", "y"}) || !equalStrings(p.Unpaired, []string{"w", "z"}) {
			t.Fatalf("Developers %v, Unpaired %v", p.Developers, p.Unpaired)
		}
		// x: 0.5 - 0 = 0.5; y: 1 - 0.5 = 0.5.
		checkFloat(t, "MeanDiff", p.Test.MeanDiff, 0.5, 1e-12)
	})
	t.Run("no developers in common give NaN", func(t *testing.T) {
		p := PairedAccuracy(devOutcomes("x", 1, 1), devOutcomes("y", 1, 1))
		if len(p.Developers) != 0 || !math.IsNaN(p.Test.MeanDiff) {
			t.Errorf("got %+v", p)
		}
	})
}

// TestOrderDoesNotMatter checks determinism: shuffled rows give identical
// results, since developers and moves are sorted before aggregating.
func TestOrderDoesNotMatter(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var rows []Outcome
	moves := []string{"approve", "critical", "directive", "inquiry", "other"}
	for i := range 500 {
		rows = append(rows, Outcome{
			Developer: string(rune('a' + i%13)),
			Real:      moves[rng.IntN(len(moves))],
			Generated: moves[rng.IntN(len(moves))],
		})
	}
	shuffled := append([]Outcome(nil), rows...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	t.Run("macro accuracy is identical", func(t *testing.T) {
		if a, b := MacroAccuracy(rows), MacroAccuracy(shuffled); !reflect.DeepEqual(a, b) {
			t.Errorf("%+v != %+v", a, b)
		}
	})
	t.Run("chance line is identical", func(t *testing.T) {
		if a, b := ChanceLine(rows), ChanceLine(shuffled); !reflect.DeepEqual(a, b) {
			t.Errorf("%+v != %+v", a, b)
		}
	})
	t.Run("move breakdown is identical", func(t *testing.T) {
		if a, b := MoveBreakdown(rows, rows), MoveBreakdown(shuffled, shuffled); !reflect.DeepEqual(a, b) {
			t.Errorf("%+v != %+v", a, b)
		}
	})
}
