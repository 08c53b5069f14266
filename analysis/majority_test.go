package analysis

import (
	"math"
	"testing"
)

// TestMajorityLine uses the shared fixture: developer a's real moves are
// approve, directive, directive, inquiry (most frequent directive, 2/4 =
// 0.5); b's critical, directive, directive, critical (a tie at 2/4; the
// first by name, critical, 0.5). Macro mean (0.5 + 0.5) / 2 = 0.5, sd 0, so
// the interval is [0.5, 0.5]. The chance line of the same data is, for a,
// 1/16 + 4/16 + 1/16 = 0.375 and for b 4/16 + 4/16 = 0.5: mean 0.4375,
// below the majority line.
func TestMajorityLine(t *testing.T) {
	m := MajorityLine(fixtureWithout)
	if len(m.Developers) != 2 || m.Developers[0].Move != "directive" || m.Developers[1].Move != "critical" {
		t.Fatalf("developers %+v", m.Developers)
	}
	for _, d := range m.Developers {
		if d.N != 4 || d.Share != 0.5 {
			t.Errorf("%+v, want 4 moments, share 0.5", d)
		}
	}
	if m.Line.Mean != 0.5 || m.Line.Lo != 0.5 || m.Line.Hi != 0.5 || m.Line.N != 2 {
		t.Errorf("line %+v, want 0.5 [0.5, 0.5] over 2", m.Line)
	}
	if c := ChanceLine(fixtureWithout).Line.Mean; math.Abs(c-0.4375) > 1e-12 {
		t.Errorf("chance line %v, want 0.4375", c)
	}
	// Three developers with shares 1, 2/3 and 1/2: mean 13/18 = 0.72222;
	// sd of (1, 0.6667, 0.5) = 0.25459 (by hand: deviations 0.27778,
	// -0.05556, -0.22222; squares sum 0.12963, /2 = 0.064815, sqrt
	// 0.25459); t(0.975, 2) = 4.302653; half width 4.302653 * 0.25459 /
	// sqrt(3) = 0.63243.
	m = MajorityLine([]Outcome{
		{"x", "approve", ""},
		{"y", "inquiry", ""}, {"y", "inquiry", ""}, {"y", "other", ""},
		{"z", "critical", ""}, {"z", "directive", ""},
	})
	want := 13.0 / 18
	if math.Abs(m.Line.Mean-want) > 1e-12 || math.Abs(m.Line.Hi-m.Line.Mean-0.63243) > 1e-4 {
		t.Errorf("line %+v, want mean %.5f, half width 0.63243", m.Line, want)
	}
	if m.Developers[2].Move != "critical" { // tie: first by name
		t.Errorf("z's majority move %q, want critical", m.Developers[2].Move)
	}
	if e := MajorityLine([]Outcome(nil)); e.Line.N != 0 || !math.IsNaN(e.Line.Mean) {
		t.Errorf("empty: %+v", e.Line)
	}
}

func TestLinesFromProfile(t *testing.T) {
	// Developer a: profile moves approve x3, directive x1; scored real
	// moves directive x3, approve x1. Out of sample (hand computation):
	//   chance_a   = (3*1 + 1*3) / (4 * 4) = 6/16 = 0.375
	//   majority_a = share of the profile's mode (approve) among the
	//                scored moves = 1/4
	// while the in-sample lines read from the scored moves alone give
	// sum q^2 = (9 + 1) / 16 = 0.625 and the scored mode's share 3/4.
	// Developer b: profile critical x2; scored critical x1, inquiry x1:
	//   chance_b = (2*1) / (2 * 2) = 0.5, majority_b = 1/2.
	// Developer c has no profile move and is left out.
	profile := []Outcomes{
		{Outcome: Outcome{Developer: "a", Real: "approve"}, Count: 3},
		{Outcome: Outcome{Developer: "a", Real: "directive"}, Count: 1},
		{Outcome: Outcome{Developer: "b", Real: "critical"}, Count: 2},
	}
	scored := []Outcome{
		{Developer: "a", Real: "directive"}, {Developer: "a", Real: "directive"}, {Developer: "a", Real: "directive"}, {Developer: "a", Real: "approve"},
		{Developer: "b", Real: "critical"}, {Developer: "b", Real: "inquiry"},
		{Developer: "c", Real: "approve"},
	}
	pl := LinesFromProfile(profile, scored)
	checkFloat(t, "chance a", pl.Chance.Developers[0].Collision, 0.375, 1e-15)
	checkFloat(t, "chance b", pl.Chance.Developers[1].Collision, 0.5, 1e-15)
	checkFloat(t, "majority a", pl.Majority.Developers[0].Share, 0.25, 1e-15)
	checkFloat(t, "majority b", pl.Majority.Developers[1].Share, 0.5, 1e-15)
	checkFloat(t, "chance line", pl.Chance.Line.Mean, (0.375+0.5)/2, 1e-15)
	checkFloat(t, "majority line", pl.Majority.Line.Mean, (0.25+0.5)/2, 1e-15)
	if pl.Majority.Developers[0].Move != "approve" || len(pl.Unprofiled) != 1 || pl.Unprofiled[0] != "c" {
		t.Errorf("majority move %q, unprofiled %v: want approve, [c]", pl.Majority.Developers[0].Move, pl.Unprofiled)
	}
}
