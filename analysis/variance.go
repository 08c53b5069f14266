package analysis

import (
	"fmt"
	"math"
	"sort"
)

// RewardObs is one observed reward of a crossed task x simulator layout: the
// reward Y of trial Trial of simulator Sim on task Task.
type RewardObs struct {
	Task, Sim string
	Trial     int
	Y         float64
}

// VarComponent is one variance component with its share of the total.
type VarComponent struct {
	Name     string  // "task", "simulator", "task x simulator", "trial" or "residual"
	Variance float64 // method-of-moments estimate, truncated at 0
	Share    float64 // Variance / sum of the components; NaN when the sum is 0
}

// VarianceDecomposition is a two-way random-effects ANOVA of a reward.
type VarianceDecomposition struct {
	Tasks, Sims  int      // levels kept in the balanced layout
	Trials       int      // trials per (task, simulator) cell kept
	SimNames     []string // simulators, sorted
	DroppedTasks int      // tasks left out because some simulator lacks them
	DroppedObs   int      // observations left out (dropped tasks, trials beyond the cell minimum)
	// Components: task, simulator, then with Trials > 1 "task x simulator"
	// and "trial", with Trials = 1 "residual" (interaction and trial
	// together: one trial per cell cannot tell them apart).
	Components []VarComponent
	MS         map[string]float64 // mean squares by source ("task", "simulator", "interaction", "error")
}

// DecomposeVariance splits the variance of Y over a crossed task x simulator
// layout into task, simulator and, where trials repeat, task x simulator
// interaction and trial (within-cell) components: the two-way random-effects
// model y_ijk = mu + a_i + b_j + (ab)_ij + e_ijk with a tasks, b simulators
// and r trials per cell, estimated by the method of moments from the
// expected mean squares of the balanced ANOVA (Searle, Casella & McCulloch
// 1992, Variance Components, section 4.6; Montgomery, Design and Analysis of
// Experiments, section 13.3):
//
//	MS_A  = b r sum_i (ybar_i.. - ybar)^2 / (a - 1)
//	MS_B  = a r sum_j (ybar_.j. - ybar)^2 / (b - 1)
//	MS_AB = r sum_ij (ybar_ij. - ybar_i.. - ybar_.j. + ybar)^2 / ((a-1)(b-1))
//	MS_E  = sum_ijk (y_ijk - ybar_ij.)^2 / (a b (r - 1))
//	s2_trial = MS_E,  s2_AB = (MS_AB - MS_E) / r,
//	s2_task = (MS_A - MS_AB) / (b r),  s2_sim = (MS_B - MS_AB) / (a r)
//
// With r = 1 there is no MS_E; MS_AB is the residual mean square and its
// expectation is s2_AB + s2_trial, reported as one "residual" component.
// Negative estimates are set to 0 (the usual truncation; Searle et al.
// section 4.6.c) and shares are of the truncated sum.
//
// Unbalanced input is made balanced before the ANOVA, a documented and
// conservative choice rather than Henderson's method III: only the tasks
// every simulator has are kept, and in every cell only the first r trials
// by trial number (then input order), r being the smallest cell count. What
// is dropped is counted.
//
// It is an error to have fewer than two simulators or fewer than two common
// tasks.
func DecomposeVariance(obs []RewardObs) (VarianceDecomposition, error) {
	type cell struct{ task, sim string }
	cells := map[cell][]RewardObs{}
	simSet := map[string]bool{}
	taskSims := map[string]map[string]bool{}
	for _, o := range obs {
		k := cell{o.Task, o.Sim}
		cells[k] = append(cells[k], o)
		simSet[o.Sim] = true
		if taskSims[o.Task] == nil {
			taskSims[o.Task] = map[string]bool{}
		}
		taskSims[o.Task][o.Sim] = true
	}
	sims := sortedKeys(simSet)
	var tasks []string
	var dropped VarianceDecomposition
	for t, ss := range taskSims {
		if len(ss) == len(sims) {
			tasks = append(tasks, t)
		} else {
			dropped.DroppedTasks++
		}
	}
	sort.Strings(tasks)
	a, b := len(tasks), len(sims)
	if b < 2 || a < 2 {
		return VarianceDecomposition{}, fmt.Errorf("variance decomposition: %d simulators on %d common tasks, need at least 2 of each", b, a)
	}
	r := math.MaxInt
	for _, t := range tasks {
		for _, s := range sims {
			r = min(r, len(cells[cell{t, s}]))
		}
	}
	y := make([][][]float64, a)
	kept := 0
	for i, t := range tasks {
		y[i] = make([][]float64, b)
		for j, s := range sims {
			c := append([]RewardObs(nil), cells[cell{t, s}]...)
			sort.SliceStable(c, func(p, q int) bool { return c[p].Trial < c[q].Trial })
			for _, o := range c[:r] {
				y[i][j] = append(y[i][j], o.Y)
			}
			kept += r
		}
	}
	d := anova2(y)
	d.SimNames = sims
	d.DroppedTasks = dropped.DroppedTasks
	d.DroppedObs = len(obs) - kept
	return d, nil
}

// anova2 is the balanced two-way random-effects ANOVA of DecomposeVariance
// on y[task][sim][trial], every cell of the same length r >= 1.
func anova2(y [][][]float64) VarianceDecomposition {
	a, b, r := len(y), len(y[0]), len(y[0][0])
	af, bf, rf := float64(a), float64(b), float64(r)
	cellMean := make([][]float64, a)
	rowMean := make([]float64, a)
	colMean := make([]float64, b)
	var grand float64
	for i := range a {
		cellMean[i] = make([]float64, b)
		for j := range b {
			var s float64
			for _, v := range y[i][j] {
				s += v
			}
			m := s / rf
			cellMean[i][j] = m
			rowMean[i] += m / bf
			colMean[j] += m / af
			grand += m / (af * bf)
		}
	}
	var ssA, ssB, ssAB, ssE float64
	for i := range a {
		ssA += (rowMean[i] - grand) * (rowMean[i] - grand)
	}
	ssA *= bf * rf
	for j := range b {
		ssB += (colMean[j] - grand) * (colMean[j] - grand)
	}
	ssB *= af * rf
	for i := range a {
		for j := range b {
			e := cellMean[i][j] - rowMean[i] - colMean[j] + grand
			ssAB += e * e
			for _, v := range y[i][j] {
				ssE += (v - cellMean[i][j]) * (v - cellMean[i][j])
			}
		}
	}
	ssAB *= rf
	msA := ssA / (af - 1)
	msB := ssB / (bf - 1)
	msAB := ssAB / ((af - 1) * (bf - 1))
	d := VarianceDecomposition{Tasks: a, Sims: b, Trials: r,
		MS: map[string]float64{"task": msA, "simulator": msB, "interaction": msAB}}
	pos := func(v float64) float64 { return math.Max(0, v) }
	task := pos((msA - msAB) / (bf * rf))
	sim := pos((msB - msAB) / (af * rf))
	if r == 1 {
		d.Components = []VarComponent{{Name: "task", Variance: task}, {Name: "simulator", Variance: sim}, {Name: "residual", Variance: msAB}}
	} else {
		msE := ssE / (af * bf * (rf - 1))
		d.MS["error"] = msE
		d.Components = []VarComponent{{Name: "task", Variance: task}, {Name: "simulator", Variance: sim},
			{Name: "task x simulator", Variance: pos((msAB - msE) / rf)}, {Name: "trial", Variance: msE}}
	}
	var tot float64
	for _, c := range d.Components {
		tot += c.Variance
	}
	for i := range d.Components {
		d.Components[i].Share = math.NaN()
		if tot > 0 {
			d.Components[i].Share = d.Components[i].Variance / tot
		}
	}
	return d
}
