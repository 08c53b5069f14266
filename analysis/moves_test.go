package analysis

import (
	"math"
	"reflect"
	"testing"
)

func TestMoveBreakdown(t *testing.T) {
	// From the fixture in accuracy_test.go, real moves: approve 1, critical
	// 2, directive 4, inquiry 1 of 8 in each condition, so shares 0.125,
	// 0.25, 0.5, 0.125.
	// Without: approve 0/1, critical 1/2, directive 3/4, inquiry 1/1.
	// With:    approve 1/1, critical 2/2, directive 3/4, inquiry 0/1.
	want := []MoveAgreement{
		{Move: "approve", Share: 0.125, With: Rate{1, 1, 1}, Without: Rate{0, 1, 0}, Lift: 1},
		{Move: "critical", Share: 0.25, With: Rate{2, 2, 1}, Without: Rate{1, 2, 0.5}, Lift: 0.5},
		{Move: "directive", Share: 0.5, With: Rate{3, 4, 0.75}, Without: Rate{3, 4, 0.75}, Lift: 0},
		{Move: "inquiry", Share: 0.125, With: Rate{0, 1, 0}, Without: Rate{1, 1, 1}, Lift: -1},
	}
	t.Run("profile lifts approve and critical, costs inquiry", func(t *testing.T) {
		if got := MoveBreakdown(fixtureWith, fixtureWithout); !reflect.DeepEqual(got, want) {
			t.Errorf("got  %+v\nwant %+v", got, want)
		}
	})
	t.Run("a move seen in one condition only has a NaN lift", func(t *testing.T) {
		with := []Outcome{{"a", "other", "other"}, {"a", "directive", "directive"}}
		without := []Outcome{{"a", "directive", "approve"}}
		got := MoveBreakdown(with, without)
		if len(got) != 2 || got[0].Move != "directive" || got[1].Move != "other" {
			t.Fatalf("got %+v", got)
		}
		// directive: 2 of 3 moments overall; other: 1 of 3.
		checkFloat(t, "directive share", got[0].Share, 2.0/3, 1e-12)
		checkFloat(t, "directive lift", got[0].Lift, 1, 1e-12)
		checkFloat(t, "other share", got[1].Share, 1.0/3, 1e-12)
		if got[1].Without.N != 0 || !math.IsNaN(got[1].Without.P) || !math.IsNaN(got[1].Lift) {
			t.Errorf("other = %+v, want an empty Without and a NaN lift", got[1])
		}
	})
}

func TestSpuriousInquiry(t *testing.T) {
	tests := []struct {
		name   string
		in     []Outcome
		pooled Rate
		devs   []DeveloperRate
		macro  Interval
	}{
		// Without: 7 moments whose real move is not inquiry; the simulator
		// asked at one of them (a, real directive, generated inquiry): 1/7.
		// a: 1 of 3, b: 0 of 4; macro 1/6, sd sqrt(2)/6 = 0.235702, se 1/6,
		// CI 1/6 -/+ 12.706205/6 = [-1.951034, 2.284367].
		{"without profile one spurious question in seven", fixtureWithout,
			Rate{1, 7, 1.0 / 7},
			[]DeveloperRate{{"a", 1, 3, 1.0 / 3}, {"b", 0, 4, 0}},
			Interval{Mean: 1.0 / 6, Lo: -1.951034, Hi: 2.284367, SD: 0.235702, N: 2}},
		// With: the spurious question moves to b (real directive, generated
		// inquiry): 1/7 pooled; a 0/3, b 1/4; macro 1/8.
		{"with profile one spurious question in seven", fixtureWith,
			Rate{1, 7, 1.0 / 7},
			[]DeveloperRate{{"a", 0, 3, 0}, {"b", 1, 4, 0.25}},
			Interval{Mean: 0.125, Lo: -1.463276, Hi: 1.713276, SD: 0.176777, N: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SpuriousInquiry(tt.in)
			if got.Pooled != tt.pooled {
				t.Errorf("Pooled = %+v, want %+v", got.Pooled, tt.pooled)
			}
			if !reflect.DeepEqual(got.Developers, tt.devs) {
				t.Errorf("Developers = %+v, want %+v", got.Developers, tt.devs)
			}
			checkInterval(t, got.Macro, tt.macro, 1e-6)
		})
	}
	t.Run("a correct question is not spurious", func(t *testing.T) {
		got := SpuriousInquiry([]Outcome{{"a", "inquiry", "inquiry"}, {"a", "approve", "approve"}})
		if got.Pooled != (Rate{0, 1, 0}) {
			t.Errorf("Pooled = %+v, want 0/1", got.Pooled)
		}
	})
}

func TestCriticalRecall(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		in     []Outcome
		pooled Rate
		macro  Interval
	}{
		// Only b has critical moments. Without: 1 of 2 recalled; with: 2 of
		// 2. One developer, so the macro bounds are NaN; a, with no critical
		// moment, is left out rather than counted as 0.
		{"without profile half the faults are recalled", fixtureWithout,
			Rate{1, 2, 0.5}, Interval{Mean: 0.5, Lo: nan, Hi: nan, SD: nan, N: 1}},
		{"with profile every fault is recalled", fixtureWith,
			Rate{2, 2, 1}, Interval{Mean: 1, Lo: nan, Hi: nan, SD: nan, N: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CriticalRecall(tt.in)
			if got.Pooled != tt.pooled {
				t.Errorf("Pooled = %+v, want %+v", got.Pooled, tt.pooled)
			}
			checkInterval(t, got.Macro, tt.macro, 1e-12)
		})
	}
	t.Run("no critical moments give a NaN rate", func(t *testing.T) {
		got := CriticalRecall(devOutcomes("a", 1, 2))
		if got.Pooled.N != 0 || !math.IsNaN(got.Pooled.P) || got.Developers != nil || !math.IsNaN(got.Macro.Mean) {
			t.Errorf("got %+v", got)
		}
	})
}
