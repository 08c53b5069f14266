package reports

import (
	"fmt"
	"iter"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ub-bench/ub/analysis"
)

// The uncertainty parts of the User fidelity section (SPEC 9): interval
// text, the frontier's choice stability, the pairwise comparisons, trials,
// the variance decomposition of R and the small-sample notes.

// ciText prints an interval as "[lo, hi]", or "n/a" when it has none.
func ciText(lo, hi float64) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "n/a"
	}
	return "[" + f3(lo) + ", " + f3(hi) + "]"
}

// stabilityText lists the simulators chosen in at least one replicate with
// their shares, most often first (ties by name), then "none" when some
// replicate had no feasible simulator.
func stabilityText(st analysis.Stability) string {
	idx := make([]int, 0, len(st.Sims))
	for i := range st.Sims {
		if st.Share[i] > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return st.Share[idx[a]] > st.Share[idx[b]] })
	var parts []string
	for _, i := range idx {
		parts = append(parts, st.Sims[i]+" "+f2(st.Share[i]))
	}
	if st.None > 0 {
		parts = append(parts, "none feasible "+f2(st.None))
	}
	return orNone(strings.Join(parts, ", "))
}

// smallNote names the simulators below the small-sample rule ("" when
// none is).
func (fd *fidelity) smallNote() string {
	if len(fd.small) == 0 {
		return ""
	}
	var parts []string
	for i, s := range fd.small {
		parts = append(parts, fmt.Sprintf("%s (%d scored)", mdText(s), fd.smallN[i]))
	}
	return fmt.Sprintf("Fewer than %d scored episodes, shown but left out of the cross-simulator statistics (re-rank and Spearman, agent effort and its correlations, variance decomposition, pairwise tests): %s.",
		analysis.MinScored, strings.Join(parts, ", "))
}

// pairwiseSection writes the table of paired comparisons.
func (fd *fidelity) pairwiseSection(b *strings.Builder) {
	if len(fd.pairs) == 0 {
		return
	}
	b.WriteString("### Paired comparisons of simulators\n\n")
	tested, same := 0, 0
	for _, p := range fd.pairs {
		if p.Reason == "" {
			tested++
			if !p.Confounded {
				same++
			}
		}
	}
	fmt.Fprintf(b, "Every pair of simulators on the episodes of the tasks both ran (paired per task and trial): exact McNemar on f "+
		"(Holm-adjusted over the %d pairs tested) and, for pairs that met the same agent, on success (Holm over those %d); the difference in UFS and in mean R "+
		"(first minus second, unweighted over domains) with a paired bootstrap 95%% interval over the common tasks. Pairs that met different agents are "+
		"confounded for success and R (the agent differs too) and are compared on f only, which scores the user alone.\n\n", tested, same)
	t := table{header: []string{"A", "B", "tasks", "pairs", "f: A only", "f: B only", "p (f)", "Holm p (f)", "success: A only", "success: B only",
		"p (success)", "Holm p (success)", "UFS A - B", "95% CI", "R A - B", "95% CI", "note"}}
	for _, p := range fd.pairs {
		if p.Reason != "" {
			t.add(p.A, p.B, strconv.Itoa(p.Tasks), strconv.Itoa(p.Pairs), "", "", "", "", "", "", "", "", "", "", "", "", "not tested: "+p.Reason)
			continue
		}
		succ := []string{strconv.Itoa(p.Success.B), strconv.Itoa(p.Success.C), pText(p.Success.P), pText(p.SuccessHolm)}
		r, note := []string{s3(p.DiffR.Estimate), ciText(p.DiffR.Lo, p.DiffR.Hi)}, ""
		if p.Confounded {
			succ, r, note = []string{"", "", "", ""}, []string{"", ""}, "different agents: success and R confounded, f only"
		}
		row := []string{p.A, p.B, strconv.Itoa(p.Tasks), strconv.Itoa(p.Pairs), strconv.Itoa(p.F.B), strconv.Itoa(p.F.C), pText(p.F.P), pText(p.FHolm)}
		row = append(row, succ...)
		row = append(row, s3(p.DiffUFS.Estimate), ciText(p.DiffUFS.Lo, p.DiffUFS.Hi))
		row = append(row, r...)
		t.add(append(row, note)...)
	}
	b.WriteString(mdTable(t))
	b.WriteString("\n")
}

// pText prints a p value with four decimals, "<.0001" below.
func pText(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p < 0.0001:
		return "<.0001"
	}
	return fnum(p, 4)
}

// trialsSection writes pass^k and UFS^k per simulator.
//
// Its pass^k is over the scored episodes only, beside UFS^k on the same
// episodes. When the report also shows "Trials: pass^k from the rewards"
// (rewards), over every episode with a reward, the caption says so.
func (fd *fidelity) trialsSection(b *strings.Builder, rewards bool) {
	if len(fd.trials) == 0 {
		return
	}
	b.WriteString("### Trials: pass^k and UFS^k\n\n")
	if rewards {
		b.WriteString("Over the scored episodes only (graded, not flagged P0, with an applicable criterion; of the simulators and tasks shown), " +
			"so that pass^k stands beside UFS^k on the same episodes; \"Trials: pass^k from the rewards\" above counts every episode with a reward, " +
			"scored or not. ")
	}
	if fd.maxK < 2 {
		b.WriteString("Every (simulator, task) has a single trial: pass^1 is the success rate and UFS^1 the task-weighted UFS; pass^k for k > 1 " +
			"needs repeated trials of a task, and with one trial per cell the trial-to-trial variance cannot be told from the task x simulator interaction.\n\n")
	} else {
		fmt.Fprintf(b, "Repeated trials of one (agent, user simulator, task): pass^k = C(c, k) / C(n, k) per task with c successes in n >= k trials, "+
			"averaged over the tasks with at least k trials (their number in brackets); UFS^k likewise with f = 1 for success. Up to k = %d.\n\n", fd.maxK)
	}
	h := []string{"simulator", "tasks", "most trials"}
	for k := 1; k <= fd.maxK; k++ {
		h = append(h, fmt.Sprintf("pass^%d", k))
	}
	for k := 1; k <= fd.maxK; k++ {
		h = append(h, fmt.Sprintf("UFS^%d", k))
	}
	t := table{header: h}
	cell := func(p analysis.PassK) string {
		if p.Tasks == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%s (%d)", f3(p.Value), p.Tasks)
	}
	for _, r := range fd.trials {
		row := []string{r.Simulator, strconv.Itoa(r.Tasks), strconv.Itoa(r.MaxTrials)}
		for _, p := range r.PassK {
			row = append(row, cell(p))
		}
		for _, p := range r.UFSK {
			row = append(row, cell(p))
		}
		t.add(row...)
	}
	b.WriteString(mdTable(t))
	b.WriteString("\n")
}

// rewardTrialsSection writes pass^k per (user simulator, agent) from the
// rewards alone (P0 episodes left out), with its interval and n, when some
// task ran more than once: it needs no rubric and no verdict. When the
// report also shows the UFS section's trials table, over the scored
// episodes only, the caption says how the two differ.
func (r *Report) rewardTrialsSection(b *strings.Builder) {
	trials, threshold, maxK := r.rewardTrials()
	if maxK < 2 {
		return
	}
	b.WriteString("### Trials: pass^k from the rewards\n\n")
	fmt.Fprintf(b, "Repeated trials of one (agent, user simulator, task), P0 episodes left out, a success being R >= %s: "+
		"pass^k = C(c, k) / C(n, k) per task with c successes in n >= k trials, averaged over the n tasks with at least k trials, "+
		"with the Student t 95%% interval of that mean over tasks, clipped to [0, 1]. From the rewards alone: no rubric or verdict is needed. Up to k = %d.",
		fnum(threshold, 2), maxK)
	if r.fid != nil && len(r.fid.trials) > 0 {
		b.WriteString(" Every episode with a reward counts here, scored or not; \"Trials: pass^k and UFS^k\" below counts the scored episodes only.")
	}
	b.WriteString("\n\n")
	h := []string{"user simulator", "agent", "tasks", "most trials"}
	for k := 1; k <= maxK; k++ {
		h = append(h, fmt.Sprintf("pass^%d [95%% CI] (n)", k))
	}
	t := table{header: h}
	for _, x := range trials {
		row := []string{x.UserSim, x.Agent, strconv.Itoa(x.Tasks), strconv.Itoa(x.MaxTrials)}
		for i, p := range x.PassK {
			iv := x.PassCI[i]
			switch {
			case p.Tasks == 0:
				row = append(row, "n/a (n 0)")
			case math.IsNaN(iv.Lo):
				row = append(row, fmt.Sprintf("%s (n %d, no interval)", f3(p.Value), p.Tasks))
			default:
				row = append(row, fmt.Sprintf("%s [%s, %s] (n %d)", f3(p.Value), f3(iv.Lo), f3(iv.Hi), p.Tasks))
			}
		}
		t.add(row...)
	}
	b.WriteString(mdTable(t))
	b.WriteString("\n")
}

// rewardTrials is pass^k per (user simulator, agent) of every episode with
// a reward (P0 episodes left out), a success being R >= the threshold, up
// to maxK (at most 5; below 2 when no task ran more than once).
func (r *Report) rewardTrials() (trials []analysis.RewardTrialRow, threshold float64, maxK int) {
	threshold = 1.0
	if r.fid != nil {
		threshold = r.fid.in.Threshold
	}
	if r.in.Episodes == nil {
		return nil, threshold, 1
	}
	rows := r.trialRewards(false)
	maxK = 1
	for _, t := range analysis.RewardTrials(rows, threshold, 1) {
		maxK = max(maxK, min(t.MaxTrials, 5))
	}
	if maxK < 2 {
		return nil, threshold, maxK
	}
	return analysis.RewardTrials(rows, threshold, maxK), threshold, maxK
}

// trialRewards gives the rewards of the workspace's episodes, P0 episodes
// and those without a reward left out, with their trial numbers when
// trials (0 when not).
func (r *Report) trialRewards(trials bool) iter.Seq[analysis.TrialReward] {
	eps := r.in.Episodes.All()
	return func(yield func(analysis.TrialReward) bool) {
		for e := range eps {
			if e.TaskMismatch || e.Reward == nil {
				continue
			}
			trial := 0
			if trials && e.Trial != nil {
				trial = int(*e.Trial)
			}
			if !yield(analysis.TrialReward{Benchmark: benchmarkName(e.Format), Domain: e.Domain, UserSim: e.UserSim, Agent: e.Agent,
				TaskID: e.TaskID, Trial: trial, Reward: *e.Reward}) {
				return
			}
		}
	}
}

// varianceSection writes the decomposition of R per (benchmark, domain,
// agent) of the workspace's episodes (graded or not; P0 episodes left out).
func (r *Report) varianceSection(b *strings.Builder) {
	variance := analysis.RewardVariance(r.trialRewards(true))
	if len(variance) == 0 {
		return
	}
	b.WriteString("### How much of the reward is the simulator\n\n")
	b.WriteString("Two-way random-effects ANOVA of R over tasks x simulators (method of moments, balanced on the tasks every simulator ran), per domain and agent, " +
		"P0 episodes left out: " +
		"the share of the variance of R due to the task, to the simulator and to what is left. ")
	one := false
	for _, v := range variance {
		if v.Err == "" && v.Decomposition.Trials == 1 {
			one = true
		}
	}
	if one {
		b.WriteString("With a single trial per (task, simulator) the residual holds the task x simulator interaction and the trial-to-trial noise together: one trial cannot tell them apart.")
	}
	b.WriteString("\n\n")
	t := table{header: []string{"benchmark", "domain", "agent", "simulators", "tasks", "trials", "task", "simulator", "task x simulator", "trial", "residual", "note"}}
	for _, v := range variance {
		note := ""
		if len(v.Excluded) > 0 {
			note = "left out (fewer than " + strconv.Itoa(analysis.MinScored) + " episodes with a reward): " + strings.Join(v.Excluded, ", ")
		}
		if v.Err != "" {
			t.add(v.Benchmark, v.Domain, v.Agent, "", "", "", "", "", "", "", "", strings.TrimPrefix(strings.Join([]string{note, "not computed: " + v.Err}, "; "), "; "))
			continue
		}
		d := v.Decomposition
		comp := map[string]string{}
		for _, c := range d.Components {
			comp[c.Name] = fnumOr(c.Share, 3, "n/a") + " (" + fnum(c.Variance, 4) + ")"
		}
		if d.DroppedTasks > 0 {
			note = strings.TrimPrefix(note+fmt.Sprintf("; %d tasks not run by every simulator left out", d.DroppedTasks), "; ")
		}
		get := func(k string) string {
			if v, ok := comp[k]; ok {
				return v
			}
			return ""
		}
		t.add(v.Benchmark, v.Domain, v.Agent, strconv.Itoa(d.Sims), strconv.Itoa(d.Tasks), strconv.Itoa(d.Trials),
			get("task"), get("simulator"), get("task x simulator"), get("trial"), get("residual"), note)
	}
	b.WriteString(mdTable(t))
	b.WriteString("\nEach cell: share of the variance (the variance component in brackets); negative method-of-moments estimates are set to 0.\n\n")
}

// uncertaintyMethods is the methods text for the section's intervals,
// tests and small-sample rule.
func (fd *fidelity) uncertaintyMethods() string {
	o := fd.unc.Options
	rule := "on the UFS point estimate"
	if fd.unc.Rule == analysis.RuleLower {
		rule = "on the lower bound of the UFS 95% bootstrap interval (a simulator is feasible at q only when its lower bound reaches q)"
	}
	return fmt.Sprintf("Uncertainty: UFS per simulator and domain, and the reward x fidelity shares, carry Wilson 95%% intervals (Wilson 1927). "+
		"UFS over domains, mean R and the family effects' mean and median carry percentile bootstrap 95%% intervals (Efron & Tibshirani 1993) from "+
		"%d replicates that resample tasks with replacement within each domain, all of a task's episodes together (seed %d, math/rand/v2 PCG; "+
		"the same data and seed give the same intervals). U*(q) is chosen %s (--frontier-rule); choice stability is the share of replicates in "+
		"which each simulator is U*(q) on the replicate's UFS, and a simulator is not distinguishable from U*(q) when the bootstrap interval of "+
		"its UFS minus U*(q)'s, on the same replicates, contains 0. Pairs of simulators that met the same agent are compared on the episodes "+
		"of their common tasks: the exact two-sided McNemar test (binomial on the discordant pairs) on f and on success, Holm's step-down "+
		"adjustment over the pairs tested, and a paired bootstrap interval of the difference; pairs that met different agents are compared on f "+
		"only (UFS scores the user alone), their success and R being confounded with the agent. pass^k is tau2's C(c, k) / C(n, k) per task averaged over tasks with n >= k trials. The variance of R is split into task, "+
		"simulator and residual (interaction and trial together when each cell has one trial) by the method of moments of the balanced "+
		"two-way random-effects ANOVA. Small samples: a simulator with fewer than %d scored episodes, a (simulator, domain) cell with fewer "+
		"than %d, and a comparison on fewer than %d common tasks, is shown with its n but left out of the cross-simulator statistics (re-rank and Spearman, agent effort, pairwise tests, "+
		"variance decomposition, the reward range's min and max), with a note naming it; a figure whose statistic cannot be computed under the "+
		"rule is skipped with the reason. Kappa intervals are clipped to [-1, 1]; a table with one category or no disagreement has none.",
		o.B, o.Seed, rule, analysis.MinScored, analysis.MinCellN, analysis.MinCommonTasks)
}

// loHi is a printed interval's two bounds ("" when there is none).
type loHi struct{ lo, hi string }

// wilsonCells is the Wilson 95% interval of k of n as two table cells.
func wilsonCells(k, n int) loHi {
	w, err := analysis.Wilson(k, n, analysis.Confidence)
	if err != nil {
		return loHi{}
	}
	return loHi{f3(w.Lo), f3(w.Hi)}
}

// shareOf is the share of replicates in which sim is U*(q).
func shareOf(st analysis.Stability, sim string) float64 {
	for i, s := range st.Sims {
		if s == sim {
			return st.Share[i]
		}
	}
	return 0
}

// smallSuffix names the simulators left out, for a skip reason.
func (fd *fidelity) smallSuffix() string {
	if len(fd.small) == 0 {
		return ""
	}
	return " (left out: " + strings.Join(fd.small, ", ") + ")"
}

// smallSentence is the one-line note of a caption whose statistic left
// simulators out.
func (fd *fidelity) smallSentence() string {
	if len(fd.small) == 0 {
		return ""
	}
	return fmt.Sprintf(" Left out under the small-sample rule (fewer than %d scored episodes): %s.", analysis.MinScored, strings.Join(fd.small, ", "))
}
