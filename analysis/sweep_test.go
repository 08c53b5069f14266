package analysis

import (
	"math"
	"testing"
)

// accs builds one setting's outcomes from per-developer accuracies, two
// moments each (so 0, 0.5 and 1 are exact).
func accs(byDev map[string]float64) []Outcome {
	var out []Outcome
	for _, d := range sortedKeys(byDev) {
		out = append(out, devOutcomes(d, int(byDev[d]*2), 2)...)
	}
	return out
}

func checkPaired(t *testing.T, name string, p Paired, devs []string, mean, tstat, pval float64) {
	t.Helper()
	if !equalStrings(p.Developers, devs) {
		t.Errorf("%s: Developers = %v, want %v", name, p.Developers, devs)
	}
	checkFloat(t, name+" MeanDiff", p.Test.MeanDiff, mean, 1e-9)
	checkFloat(t, name+" T", p.Test.T, tstat, 1e-9)
	checkFloat(t, name+" P", p.Test.P, pval, 1e-6)
}

func TestSweep(t *testing.T) {
	// Context sweep by hand, three developers, anchor N = 4:
	//
	//	N   a    b    c    macro
	//	1   0.5  0    0.5  1/3
	//	2   1    0.5  1    5/6   <- peak
	//	4   0.5  0.5  0.5  1/2   <- anchor
	//
	// Peak vs anchor: d = (0.5, 0, 0.5), mean 1/3, se 1/6, t = 2 on 2 df,
	// p = 1 - 2/sqrt(6) = 0.183503 (2-df tail 1/2 - t/(2 sqrt(t^2+2))).
	// N = 1 vs anchor: d = (0, -0.5, 0), t = -1, p = 1 - 1/sqrt(3) = 0.422650.
	// ln N = (0, ln 2, 2 ln 2) is evenly spaced, so centred x = (-1, 0, 1)
	// ln 2; centred y = (-2/9, 5/18, -1/18). r = (1/6) / sqrt(2 * 7/54) =
	// sqrt(3/28) = 0.327327; t = r sqrt(1/(1-r^2)) = sqrt(3)/5 on 1 df, and
	// the Cauchy tail gives p = 1 - (2/pi) atan(sqrt(3)/5) = 0.787705.
	ctx := map[int][]Outcome{
		1: accs(map[string]float64{"a": 0.5, "b": 0, "c": 0.5}),
		2: accs(map[string]float64{"a": 1, "b": 0.5, "c": 1}),
		4: accs(map[string]float64{"a": 0.5, "b": 0.5, "c": 0.5}),
	}
	abc := []string{"a", "b", "c"}
	t.Run("context peak at N=2 beats the anchor, t 2", func(t *testing.T) {
		s, err := Sweep(ctx, 4)
		if err != nil {
			t.Fatal(err)
		}
		if s.Peak != 2 || s.Anchor != 4 || len(s.Points) != 3 {
			t.Fatalf("Peak %d, Anchor %d, %d points", s.Peak, s.Anchor, len(s.Points))
		}
		for i, want := range []struct {
			n   int
			acc float64
		}{{1, 1.0 / 3}, {2, 5.0 / 6}, {4, 0.5}} {
			if s.Points[i].Setting != want.n {
				t.Errorf("Points[%d].Setting = %d, want %d", i, s.Points[i].Setting, want.n)
			}
			checkFloat(t, "macro", s.Points[i].Accuracy.Accuracy.Mean, want.acc, 1e-12)
		}
		checkPaired(t, "peak", s.PeakVsAnchor, abc, 1.0/3, 2, 1-2/math.Sqrt(6))
		checkPaired(t, "N=1", s.Points[0].VsAnchor, abc, -1.0/6, -1, 1-1/math.Sqrt(3))
		checkFloat(t, "LogR.R", s.LogR.R, math.Sqrt(3.0/28), 1e-12)
		checkFloat(t, "LogR.P", s.LogR.P, 1-2/math.Pi*math.Atan(math.Sqrt(3)/5), 1e-9)
		if s.LogR.N != 3 {
			t.Errorf("LogR.N = %d, want 3", s.LogR.N)
		}
		// At the anchor itself every difference is zero and T is NaN.
		if a := s.Points[2].VsAnchor.Test; a.MeanDiff != 0 || !math.IsNaN(a.T) {
			t.Errorf("anchor vs itself = %+v", a)
		}
	})
	t.Run("history sweep with K=0 has a NaN log r", func(t *testing.T) {
		hist := map[int][]Outcome{0: ctx[4], 8: ctx[1], 64: ctx[2]}
		s, err := Sweep(hist, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(s.LogR.R) {
			t.Errorf("LogR.R = %g, want NaN", s.LogR.R)
		}
		if s.Peak != 64 {
			t.Errorf("Peak = %d, want 64", s.Peak)
		}
		checkPaired(t, "K=8 vs K=0", s.Points[1].VsAnchor, abc, -1.0/6, -1, 1-1/math.Sqrt(3))
	})
	t.Run("a tie for the peak goes to the smaller setting", func(t *testing.T) {
		s, err := Sweep(map[int][]Outcome{3: ctx[2], 5: ctx[2], 14: ctx[4]}, 14)
		if err != nil {
			t.Fatal(err)
		}
		if s.Peak != 3 {
			t.Errorf("Peak = %d, want 3", s.Peak)
		}
	})
	errs := []struct {
		name     string
		settings map[int][]Outcome
		anchor   int
	}{
		{"no settings is an error", nil, 14},
		{"a missing anchor is an error", ctx, 14},
		{"an empty setting is an error", map[int][]Outcome{1: nil, 14: ctx[4]}, 14},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Sweep(tt.settings, tt.anchor); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestSurface(t *testing.T) {
	// N x K by hand; d appears only at N = 14, and (1, 16) is an inner
	// column that does not enter the contrasts.
	//
	//	cell      a    b    c    d    macro
	//	(1, 0)    0.5  0.5  0    -    1/3
	//	(1, 16)   1    1    1    -    1
	//	(1, 64)   0.5  1    0.5  -    2/3
	//	(14, 0)   1    0.5  0.5  0.5  0.625
	//	(14, 64)  0.5  0.5  1    0.5  0.625
	//
	// N = 1, K64 - K0: (0, 0.5, 0.5): mean 1/3, t = 2 on 2 df, p 0.183503.
	// N = 14, K64 - K0: (-0.5, 0, 0.5, 0): mean 0, t = 0, p = 1.
	// Interaction, (K64 - K0 at N=1) - (K64 - K0 at N=14), for a, b, c:
	// (0 + 0.5, 0.5 - 0, 0.5 - 0.5) = (0.5, 0.5, 0): mean 1/3, t = 2 on 2 df,
	// p = 0.183503; d is unpaired.
	cells := map[Cell][]Outcome{
		{1, 0}:   accs(map[string]float64{"a": 0.5, "b": 0.5, "c": 0}),
		{1, 16}:  accs(map[string]float64{"a": 1, "b": 1, "c": 1}),
		{1, 64}:  accs(map[string]float64{"a": 0.5, "b": 1, "c": 0.5}),
		{14, 0}:  accs(map[string]float64{"a": 1, "b": 0.5, "c": 0.5, "d": 0.5}),
		{14, 64}: accs(map[string]float64{"a": 0.5, "b": 0.5, "c": 1, "d": 0.5}),
	}
	t.Run("history helps at N=1 more than at N=14, t 2", func(t *testing.T) {
		s, err := Surface(cells)
		if err != nil {
			t.Fatal(err)
		}
		if s.NLo != 1 || s.NHi != 14 || s.KLo != 0 || s.KHi != 64 {
			t.Errorf("corners N %d..%d K %d..%d", s.NLo, s.NHi, s.KLo, s.KHi)
		}
		wantCells := []struct {
			c   Cell
			acc float64
		}{{Cell{1, 0}, 1.0 / 3}, {Cell{1, 16}, 1}, {Cell{1, 64}, 2.0 / 3}, {Cell{14, 0}, 0.625}, {Cell{14, 64}, 0.625}}
		if len(s.Cells) != len(wantCells) {
			t.Fatalf("%d cells, want %d", len(s.Cells), len(wantCells))
		}
		for i, w := range wantCells {
			if s.Cells[i].Cell != w.c {
				t.Errorf("Cells[%d] = %v, want %v", i, s.Cells[i].Cell, w.c)
			}
			checkFloat(t, "cell macro", s.Cells[i].Accuracy.Accuracy.Mean, w.acc, 1e-12)
		}
		if len(s.Rows) != 2 || s.Rows[0].N != 1 || s.Rows[1].N != 14 {
			t.Fatalf("Rows = %+v", s.Rows)
		}
		checkPaired(t, "N=1", s.Rows[0].History, []string{"a", "b", "c"}, 1.0/3, 2, 1-2/math.Sqrt(6))
		checkPaired(t, "N=14", s.Rows[1].History, []string{"a", "b", "c", "d"}, 0, 0, 1)
		checkPaired(t, "interaction", s.Interaction, []string{"a", "b", "c"}, 1.0/3, 2, 1-2/math.Sqrt(6))
		if !equalStrings(s.Interaction.Unpaired, []string{"d"}) {
			t.Errorf("Interaction.Unpaired = %v, want [d]", s.Interaction.Unpaired)
		}
	})
	t.Run("an N without the K corners is an error", func(t *testing.T) {
		bad := map[Cell][]Outcome{}
		for c, o := range cells {
			bad[c] = o
		}
		bad[Cell{4, 16}] = cells[Cell{1, 16}]
		if _, err := Surface(bad); err == nil {
			t.Error("no error")
		}
	})
	t.Run("an empty cell is an error", func(t *testing.T) {
		if _, err := Surface(map[Cell][]Outcome{{1, 0}: nil}); err == nil {
			t.Error("no error")
		}
	})
	t.Run("no cells is an error", func(t *testing.T) {
		if _, err := Surface(map[Cell][]Outcome(nil)); err == nil {
			t.Error("no error")
		}
	})
}
