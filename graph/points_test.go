package graph

import (
	"fmt"
	"testing"
)

func momentsFor(dev string, n int) []Moment {
	var ms []Moment
	for i := 0; i < n; i++ {
		ms = append(ms, Moment{Developer: dev, Split: "test", SessionID: fmt.Sprintf("%s-s%d", dev, i/5), TurnIdx: 2 * (i % 5), PriorTurns: 2 * (i % 5) * 3})
	}
	return ms
}

func TestFreezePoints(t *testing.T) {
	ms := append(momentsFor("bo", 50), momentsFor("al", 12)...)
	t.Run("caps each developer and keeps everyone under the cap", func(t *testing.T) {
		ps := FreezePoints(ms, 30, 7)
		per := map[string]int{}
		for _, p := range ps {
			per[p.Developer]++
		}
		if per["bo"] != 30 || per["al"] != 12 {
			t.Errorf("points per developer = %v, want bo 30, al 12", per)
		}
		if ps[0].Developer != "al" {
			t.Errorf("first point of %s, want al (sorted by developer)", ps[0].Developer)
		}
	})
	t.Run("same seed same points, other seed other points", func(t *testing.T) {
		a, b, c := FreezePoints(ms, 30, 7), FreezePoints(ms, 30, 7), FreezePoints(ms, 30, 8)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Error("same seed gave different points")
		}
		if fmt.Sprint(a) == fmt.Sprint(c) {
			t.Error("another seed gave the same 30 of 50 points")
		}
	})
	t.Run("a developer's draw ignores other developers", func(t *testing.T) {
		alone := FreezePoints(momentsFor("bo", 50), 30, 7)
		with := FreezePoints(ms, 30, 7)
		if fmt.Sprint(alone) != fmt.Sprint(with[12:]) {
			t.Error("adding al changed bo's points")
		}
	})
	t.Run("constant dose from 10 prior turns", func(t *testing.T) {
		for _, p := range FreezePoints(ms, 0, 1) {
			if p.ConstantDose != (p.PriorTurns >= 10) {
				t.Errorf("%+v", p)
			}
		}
	})
	t.Run("ids are stable and distinct", func(t *testing.T) {
		seen := map[string]bool{}
		for _, p := range FreezePoints(ms, 0, 1) {
			if seen[p.ID] || p.ID != PointID(p.SessionID, p.TurnIdx) || len(p.ID) != 13 {
				t.Errorf("bad id %q", p.ID)
			}
			seen[p.ID] = true
		}
	})
}
