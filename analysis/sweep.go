package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// SweepPoint is one setting of a sweep.
type SweepPoint struct {
	Setting  int    // N live-session turns, or K history messages
	Accuracy Macro  // macro accuracy at this setting
	VsAnchor Paired // this setting minus the anchor, paired per developer
}

// SubstitutionK are the history lengths of the substitution test, each
// compared with K = 0 at a short live window (SPEC section 5: K = 8 and 64
// at N = 1). The test is defined on these settings only, whatever other K
// a workspace holds at that window (the N x K surface adds K = 4 and 16).
var SubstitutionK = []int{8, 64}

// SweepResult is a one-dimensional sweep of a prompt setting.
type SweepResult struct {
	Anchor int          // the reference setting (N = 14, or K = 0)
	Points []SweepPoint // by ascending Setting
	// LogR is the Pearson correlation of ln(Setting) with the macro
	// accuracy, one pair per setting. R is NaN if any setting is not
	// positive (a history sweep that includes K = 0): call [Pearson] with
	// the transform wanted.
	LogR Correlation
	// Peak is the setting with the highest macro accuracy, the smallest
	// one on a tie.
	Peak int
	// PeakVsAnchor is the Peak point's VsAnchor: peak minus anchor, paired
	// per developer. At Peak == Anchor every difference is zero and T is
	// NaN.
	PeakVsAnchor Paired
}

// Sweep summarises a sweep of one prompt setting, outcomes keyed by setting
// (SPEC section 5). For the context sweep the keys are N = 1..10 and 14 and
// the anchor is 14; the two views (all moments, and the constant-dose subset
// of moments with at least 10 prior turns) are two calls with different
// outcomes. For the history sweep the keys are K = 0, 2, ..., 64 and the
// anchor is 0; the substitution test (K = 8 and 64 at N = 1) is a call with
// keys 0, 8 and 64 from the N = 1 runs.
//
// For each setting it reports the macro accuracy ([MacroAccuracy]) and the
// paired per-developer difference from the anchor ([PairedAccuracy]). Over
// the settings it reports
//
//	r = Pearson(ln N, macro accuracy(N))
//
// (seed 000: r(log N, accuracy) = +0.78 on all moments), the peak setting,
// and the paired t test of the peak against the anchor (seed 000: +0.072,
// t = 2.9 on the constant-dose subset). The peak is read off the same data it
// is tested on, so its p-value is optimistic, as the seed itself warns.
//
// It is an error for settings to be empty, to lack the anchor, or to hold a
// setting with no outcomes.
func Sweep[M Moment](settings map[int][]M, anchor int) (SweepResult, error) {
	if len(settings) == 0 {
		return SweepResult{}, errors.New("sweep: no settings")
	}
	if _, ok := settings[anchor]; !ok {
		return SweepResult{}, fmt.Errorf("sweep: no outcomes at the anchor setting %d", anchor)
	}
	keys := sortedKeys(settings)
	for _, k := range keys {
		if Total(settings[k]) == 0 {
			return SweepResult{}, fmt.Errorf("sweep: setting %d has no outcomes", k)
		}
	}
	res := SweepResult{Anchor: anchor, Peak: keys[0]}
	base := scoreMap(settings[anchor])
	logN := make([]float64, len(keys))
	acc := make([]float64, len(keys))
	best := math.Inf(-1)
	peak := 0
	for i, k := range keys {
		m := MacroAccuracy(settings[k])
		res.Points = append(res.Points, SweepPoint{
			Setting:  k,
			Accuracy: m,
			VsAnchor: pairScores(scoreMap(settings[k]), base),
		})
		logN[i] = math.NaN()
		if k > 0 {
			logN[i] = math.Log(float64(k))
		}
		acc[i] = m.Accuracy.Mean
		if acc[i] > best {
			best, peak = acc[i], i
		}
	}
	res.Peak = keys[peak]
	res.PeakVsAnchor = res.Points[peak].VsAnchor
	// Lengths match by construction, so Pearson cannot fail.
	res.LogR, _ = Pearson(logN, acc)
	return res, nil
}

// Cell is one prompt setting of the N x K surface: N live-session turns and
// K history messages.
type Cell struct {
	N, K int
}

// SurfaceCell is the macro accuracy at one cell (the heatmap value).
type SurfaceCell struct {
	Cell
	Accuracy Macro
}

// SurfaceRow is the history effect at one N.
type SurfaceRow struct {
	N int
	// History is acc(N, KHi) - acc(N, KLo), paired per developer.
	History Paired
}

// SurfaceResult is the N x K surface.
type SurfaceResult struct {
	NLo, NHi int           // smallest and largest N
	KLo, KHi int           // smallest and largest K
	Cells    []SurfaceCell // sorted by N, then K
	Rows     []SurfaceRow  // one per N, ascending
	// Interaction is, per developer present in all four corner cells,
	//
	//	[acc(NLo, KHi) - acc(NLo, KLo)] - [acc(NHi, KHi) - acc(NHi, KLo)]
	//
	// with the paired t test of those differences.
	Interaction Paired
}

// Surface summarises the N x K surface of SPEC section 5, outcomes keyed by
// cell (N in {1, 2, 4, 8, 14} x K in {0, 4, 16, 64} in seed 000): the macro
// accuracy of every cell for the heatmap; for each N, the paired
// per-developer history effect acc(N, KHi) - acc(N, KLo) (K64 - K0); and the
// interaction.
//
// The interaction is a difference in differences, paired per developer: how
// much more history helps with the shortest live window than with the
// longest,
//
//	i_d = [acc_d(NLo, KHi) - acc_d(NLo, KLo)] - [acc_d(NHi, KHi) - acc_d(NHi, KLo)]
//
// tested with a one-sample t test of i_d against zero on n - 1 df (the
// paired t test of the two per-N effects). A positive mean says history
// substitutes for missing live context; seed 000 reports t = -0.9, a null.
// Each i_d is the 2 x 2 within-developer interaction contrast of one
// developer's four corner cells, so the test is that of the N x K
// interaction of a repeated-measures design restricted to the corners; its
// mean equals the same contrast of the four corner macro accuracies when
// every developer is in all four. With a single N the interaction is zero
// for everyone and T is NaN.
//
// It is an error for cells to be empty, to hold a cell with no outcomes, or
// to have an N without both the KLo and the KHi cell.
func Surface[M Moment](cells map[Cell][]M) (SurfaceResult, error) {
	if len(cells) == 0 {
		return SurfaceResult{}, errors.New("surface: no cells")
	}
	keys := make([]Cell, 0, len(cells))
	for c := range cells {
		keys = append(keys, c)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].N != keys[j].N {
			return keys[i].N < keys[j].N
		}
		return keys[i].K < keys[j].K
	})
	res := SurfaceResult{NLo: keys[0].N, NHi: keys[len(keys)-1].N, KLo: keys[0].K, KHi: keys[0].K}
	scores := map[Cell]map[string]float64{}
	ns := map[int]bool{}
	for _, c := range keys {
		if Total(cells[c]) == 0 {
			return SurfaceResult{}, fmt.Errorf("surface: cell N=%d K=%d has no outcomes", c.N, c.K)
		}
		res.KLo, res.KHi = min(res.KLo, c.K), max(res.KHi, c.K)
		ns[c.N] = true
		res.Cells = append(res.Cells, SurfaceCell{Cell: c, Accuracy: MacroAccuracy(cells[c])})
		scores[c] = scoreMap(cells[c])
	}
	for _, n := range sortedKeys(ns) {
		lo, hi := Cell{n, res.KLo}, Cell{n, res.KHi}
		for _, c := range []Cell{lo, hi} {
			if _, ok := cells[c]; !ok {
				return SurfaceResult{}, fmt.Errorf("surface: N=%d has no K=%d cell", c.N, c.K)
			}
		}
		res.Rows = append(res.Rows, SurfaceRow{N: n, History: pairScores(scores[hi], scores[lo])})
	}
	corners := []map[string]float64{
		scores[Cell{res.NLo, res.KHi}], scores[Cell{res.NLo, res.KLo}],
		scores[Cell{res.NHi, res.KHi}], scores[Cell{res.NHi, res.KLo}],
	}
	res.Interaction = pairedFrom(corners, func(v []float64) float64 {
		return (v[0] - v[1]) - (v[2] - v[3])
	})
	return res, nil
}
