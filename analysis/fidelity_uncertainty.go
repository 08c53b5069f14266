package analysis

import (
	"cmp"
	"iter"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ub-bench/ub"
)

// Uncertainty for the user-fidelity analyses (SPEC 6.4 and 9): Wilson
// intervals on proportions, a bootstrap that resamples tasks within each
// domain for the means over domains, the frontier's choice stability, paired
// comparisons of simulators, trials (pass^k) and the small-sample rule.

// The small-sample rule (SPEC 9), one rule for the whole fidelity section:
// a simulator with fewer than MinScored scored episodes (episodes with a
// reward, where nothing is graded), a (simulator, domain) cell with fewer
// than MinCellN, or a comparison on fewer than MinCommonTasks tasks, is
// shown with its n but left out of every cross-simulator statistic
// (correlations, re-rank and Spearman, pairwise tests, the reward spread's
// min and max, the variance decomposition). 20 episodes
// put a Wilson 95% interval of a proportion near .8 at about +-.17 wide,
// already wider than most gaps between simulators; 5 tasks is the least
// for a task-clustered bootstrap to have a useful number of distinct
// resamples (C(2n-1, n) = 126 at n = 5, 10 at n = 3) and for a rank
// correlation over them to mean more than a coin toss.
const (
	MinScored      = 20
	MinCellN       = 5
	MinCommonTasks = 5
)

// SmallSimulators returns the simulators with fewer than MinScored scored
// episodes, sorted, with their counts.
func SmallSimulators(ufs []SimUFS) (names []string, scored []int) {
	for _, s := range ufs {
		if s.Scored < MinScored {
			names = append(names, s.Simulator)
			scored = append(scored, s.Scored)
		}
	}
	return names, scored
}

// WithoutSimulators gives the episodes whose simulator is not in drop.
func WithoutSimulators(eps iter.Seq[ub.FidelityEpisode], drop []string) iter.Seq[ub.FidelityEpisode] {
	if len(drop) == 0 {
		return eps
	}
	d := map[string]bool{}
	for _, s := range drop {
		d[s] = true
	}
	return func(yield func(ub.FidelityEpisode) bool) {
		for e := range eps {
			if !d[e.Simulator] && !yield(e) {
				return
			}
		}
	}
}

// taskAgg is one simulator's scored episodes on one task.
type taskAgg struct {
	r     float64 // sum of the R of the scored episodes with a known R
	n, f  int32   // scored episodes, and those with f = 1
	rn    int32   // scored episodes with a known R
	succ  int32   // scored episodes with success
	fam   [4][2]famAgg
	known bool // any scored episode
}

// famAgg counts episodes with a known R (n) and successes (pass) for one
// family absent [0] or present [1]. A task's episodes of one simulator
// are far fewer than 2^31: 32 bits halve the index, which has a cell for
// every (simulator, task).
type famAgg struct{ n, pass int32 }

// fidIndex lays the scored episodes out as simulator x domain x task, the
// tasks of a domain being the union over simulators (the bootstrap's
// clusters).
type fidIndex struct {
	sims    []string
	domains []string
	tasks   [][]string
	cell    [][][]taskAgg // [sim][domain][task]
}

func newFidIndex(eps iter.Seq[ub.FidelityEpisode], threshold float64) *fidIndex {
	simSet, domTasks := map[string]bool{}, map[string]map[string]bool{}
	for e := range eps {
		simSet[e.Simulator] = true
		if domTasks[e.Domain] == nil {
			domTasks[e.Domain] = map[string]bool{}
		}
		domTasks[e.Domain][e.Task] = true
	}
	ix := &fidIndex{sims: sortedKeys(simSet), domains: sortedKeys(domTasks)}
	simI, domI := map[string]int{}, map[string]int{}
	taskI := make([]map[string]int, len(ix.domains))
	for i, s := range ix.sims {
		simI[s] = i
	}
	for d, name := range ix.domains {
		domI[name] = d
		ts := sortedKeys(domTasks[name])
		ix.tasks = append(ix.tasks, ts)
		taskI[d] = map[string]int{}
		for j, t := range ts {
			taskI[d][t] = j
		}
	}
	ix.cell = make([][][]taskAgg, len(ix.sims))
	for i := range ix.sims {
		ix.cell[i] = make([][]taskAgg, len(ix.domains))
		for d := range ix.domains {
			ix.cell[i][d] = make([]taskAgg, len(ix.tasks[d]))
		}
	}
	for e := range eps {
		if !e.Scored() {
			continue
		}
		d := domI[e.Domain]
		a := &ix.cell[simI[e.Simulator]][d][taskI[d][e.Task]]
		a.known = true
		a.n++
		a.f += int32(e.F())
		if !math.IsNaN(e.Reward) {
			a.rn++
			a.r += e.Reward
			s := int32(0)
			if e.Success(threshold) {
				s = 1
			}
			for fi := range a.fam {
				p := 0
				if e.Present(fi) {
					p = 1
				}
				a.fam[fi][p].n++
				a.fam[fi][p].pass += s
			}
		}
		if e.Success(threshold) {
			a.succ++
		}
	}
	return ix
}

func (ix *fidIndex) sizes() []int {
	s := make([]int, len(ix.tasks))
	for d, ts := range ix.tasks {
		s[d] = len(ts)
	}
	return s
}

// ones is the observed-data weighting (every task once).
func (ix *fidIndex) ones() [][]int {
	c := make([][]int, len(ix.tasks))
	for d, ts := range ix.tasks {
		c[d] = make([]int, len(ts))
		for j := range c[d] {
			c[d][j] = 1
		}
	}
	return c
}

// ufsR returns simulator i's UFS and mean R under the task weights w: per
// domain the weighted share of f = 1 (of R), then the unweighted mean over
// the domains where the simulator has scored episodes in the data (want).
// A domain that the resample left empty makes the statistic NaN.
func (ix *fidIndex) ufsR(i int, w [][]int) (ufs, r float64) {
	var us, rs float64
	var nu, nr int
	for d := range ix.domains {
		var n, f, rn int
		var rsum float64
		present := false
		for j, a := range ix.cell[i][d] {
			if !a.known {
				continue
			}
			present = true
			k := w[d][j]
			n += k * int(a.n)
			f += k * int(a.f)
			rn += k * int(a.rn)
			rsum += float64(k) * a.r
		}
		if !present {
			continue
		}
		if n == 0 {
			return math.NaN(), math.NaN()
		}
		us += float64(f) / float64(n)
		nu++
		if rn > 0 {
			rs += rsum / float64(rn)
			nr++
		} else if ix.hasR(i, d) {
			r = math.NaN()
		}
	}
	ufs, rr := math.NaN(), math.NaN()
	if nu > 0 {
		ufs = us / float64(nu)
	}
	if nr > 0 && !math.IsNaN(r) {
		rr = rs / float64(nr)
	}
	return ufs, rr
}

func (ix *fidIndex) hasR(i, d int) bool {
	for _, a := range ix.cell[i][d] {
		if a.rn > 0 {
			return true
		}
	}
	return false
}

// SimInterval is one simulator's UFS and mean R with their bootstrap
// intervals, and each domain's UFS with its Wilson interval.
type SimInterval struct {
	Simulator string
	Scored    int
	UFS       BootInterval // unweighted over domains; bootstrap over tasks within domain
	MeanR     BootInterval
	Domains   []DomainInterval
}

// DomainInterval is one simulator's UFS in one domain with its Wilson
// interval.
type DomainInterval struct {
	Domain string
	UFS    Proportion // K = episodes with f = 1 of N scored; zero N: no interval
}

// FrontierRule says how the frontier compares a simulator's UFS with q.
type FrontierRule string

// The frontier rules: on the point estimate, or on the lower bound of its
// bootstrap interval (a simulator is feasible only when the data are
// confident it reaches q).
const (
	RulePoint FrontierRule = "point"
	RuleLower FrontierRule = "lower"
)

// Stability is the frontier's robustness at one q.
type Stability struct {
	Q      float64
	Chosen string // U*(q) under the rule; "" when none is feasible
	// Share[k] is the share of bootstrap replicates in which Sims[k] is
	// U*(q) under the point rule on the replicate's UFS; None the share in
	// which no simulator is feasible.
	Sims  []string
	Share []float64
	None  float64
	// Indistinguishable are the other simulators of known cost whose paired
	// bootstrap interval of UFS(U) - UFS(U*) contains 0.
	Indistinguishable []string
}

// FamilyInterval is a family effect's mean and median over cells with
// their bootstrap intervals.
type FamilyInterval struct {
	Family       string
	Mean, Median BootInterval
}

// FidelityUncertainty is every interval of the fidelity section.
type FidelityUncertainty struct {
	Options   BootstrapOptions // as resolved (B, seed, level)
	Rule      FrontierRule
	Sims      []SimInterval
	Choices   []FrontierChoice // U*(q) under Rule
	Stability []Stability
	Families  []FamilyInterval
}

// FidelityIntervals computes the intervals of the fidelity section on the
// graded episodes: per simulator and domain a Wilson interval on UFS; per
// simulator a percentile bootstrap interval of UFS over domains and of mean
// R, resampling tasks within each domain (all of a task's episodes, of
// every simulator, move together, so the replicates of two simulators are
// paired); the frontier's choice under rule at every q, its choice
// stability over the same replicates and the simulators not
// distinguishable from the choice; the family effects' mean and median over
// cells. cost gives each simulator's cost per simulation (NaN: unknown).
func FidelityIntervals(eps iter.Seq[ub.FidelityEpisode], threshold float64, cost map[string]float64, qs []float64, rule FrontierRule, opts BootstrapOptions) FidelityUncertainty {
	opts = opts.withDefaults()
	if rule == "" {
		rule = RulePoint
	}
	ix := newFidIndex(eps, threshold)
	out := FidelityUncertainty{Options: opts, Rule: rule}
	ns := len(ix.sims)
	// One pass over the replicates: every simulator's UFS and R, and the
	// family effects.
	reps := make([][]float64, ns) // UFS per replicate
	rreps := make([][]float64, ns)
	famMean := make([][]float64, len(ub.FidelityFamilies))
	famMed := make([][]float64, len(ub.FidelityFamilies))
	var famDropped [4][2]int
	ClusterReplicates(ix.sizes(), opts, func(_ int, w [][]int) {
		for i := range ns {
			u, r := ix.ufsR(i, w)
			reps[i] = append(reps[i], u)
			rreps[i] = append(rreps[i], r)
		}
		for fi := range ub.FidelityFamilies {
			m, md := ix.familyEffect(fi, w)
			if math.IsNaN(m) {
				famDropped[fi][0]++
			} else {
				famMean[fi] = append(famMean[fi], m)
			}
			if math.IsNaN(md) {
				famDropped[fi][1]++
			} else {
				famMed[fi] = append(famMed[fi], md)
			}
		}
	})
	ones := ix.ones()
	point := make([]float64, ns)
	for i, s := range ix.sims {
		u, r := ix.ufsR(i, ones)
		point[i] = u
		si := SimInterval{Simulator: s, UFS: bootOf(u, reps[i], opts), MeanR: bootOf(r, rreps[i], opts)}
		for d, dom := range ix.domains {
			var n, f int
			present := false
			for _, a := range ix.cell[i][d] {
				present = present || a.known
				n += int(a.n)
				f += int(a.f)
			}
			if !present {
				continue
			}
			si.Scored += n
			p, err := Wilson(f, n, opts.Level)
			if err != nil {
				p = Proportion{K: f, N: n, P: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
			}
			si.Domains = append(si.Domains, DomainInterval{Domain: dom, UFS: p})
		}
		out.Sims = append(out.Sims, si)
	}
	for fi, fam := range ub.FidelityFamilies {
		m, md := ix.familyEffect(fi, ones)
		fiv := FamilyInterval{Family: fam,
			Mean:   bootOf(m, famMean[fi], opts),
			Median: bootOf(md, famMed[fi], opts)}
		fiv.Mean.Dropped, fiv.Median.Dropped = famDropped[fi][0], famDropped[fi][1]
		out.Families = append(out.Families, fiv)
	}
	// The frontier under the rule.
	pts := make([]FrontierPoint, ns)
	for i, s := range ix.sims {
		u := point[i]
		if rule == RuleLower {
			u = out.Sims[i].UFS.Lo
		}
		c, ok := cost[s]
		if !ok {
			c = math.NaN()
		}
		pts[i] = FrontierPoint{Simulator: s, Cost: c, UFS: u}
	}
	out.Choices = Frontier(pts, qs).Choices
	for qi, q := range qs {
		st := Stability{Q: q, Chosen: out.Choices[qi].Simulator, Sims: ix.sims, Share: make([]float64, ns)}
		for b := range opts.B {
			best := -1
			for i := range ns {
				u := reps[i][b]
				if math.IsNaN(u) || math.IsNaN(pts[i].Cost) || u < q {
					continue
				}
				if best < 0 || pts[i].Cost < pts[best].Cost ||
					(pts[i].Cost == pts[best].Cost && (u > reps[best][b] || (u == reps[best][b] && ix.sims[i] < ix.sims[best]))) {
					best = i
				}
			}
			if best < 0 {
				st.None++
			} else {
				st.Share[best]++
			}
		}
		for i := range st.Share {
			st.Share[i] /= float64(opts.B)
		}
		st.None /= float64(opts.B)
		if c := indexOf(ix.sims, st.Chosen); c >= 0 {
			for i := range ns {
				if i == c || math.IsNaN(pts[i].Cost) {
					continue
				}
				var diff []float64
				for b := range opts.B {
					if d := reps[i][b] - reps[c][b]; !math.IsNaN(d) {
						diff = append(diff, d)
					}
				}
				lo, hi := PercentileInterval(diff, opts.Level)
				if lo <= 0 && hi >= 0 {
					st.Indistinguishable = append(st.Indistinguishable, ix.sims[i])
				}
			}
		}
		out.Stability = append(out.Stability, st)
	}
	return out
}

func bootOf(est float64, reps []float64, opts BootstrapOptions) BootInterval {
	b := BootInterval{Estimate: est, B: opts.B}
	var fin []float64
	for _, v := range reps {
		if math.IsNaN(v) {
			b.Dropped++
		} else {
			fin = append(fin, v)
		}
	}
	b.Lo, b.Hi = PercentileInterval(fin, opts.Level)
	return b
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// familyEffect is the mean and median over (simulator, domain) cells of
// family fi's pass-rate effect under the task weights w, with the cell rule
// of FamilyEffects (>= MinCell episodes each side) applied to the weighted
// counts.
func (ix *fidIndex) familyEffect(fi int, w [][]int) (mean, med float64) {
	var effs []float64
	for i := range ix.sims {
		for d := range ix.domains {
			var n, pass [2]int
			for j, a := range ix.cell[i][d] {
				k := w[d][j]
				for p := range 2 {
					n[p] += k * int(a.fam[fi][p].n)
					pass[p] += k * int(a.fam[fi][p].pass)
				}
			}
			if n[0] < MinCell || n[1] < MinCell {
				continue
			}
			effs = append(effs, float64(pass[1])/float64(n[1])-float64(pass[0])/float64(n[0]))
		}
	}
	return meanOrNaN(effs), median(effs)
}

// PairComparison compares two simulators on the episodes of the tasks both
// ran (paired per (domain, task) and trial order).
type PairComparison struct {
	A, B string
	// Confounded: the two met different agents. UFS scores the user alone,
	// so f is still compared; success and R are not (NaN, no test).
	Confounded bool
	Reason     string // why the pair is not compared ("" when it is)
	Tasks      int    // common (domain, task) pairs
	Pairs      int    // paired scored episodes
	F          McNemar
	Success    McNemar // on paired episodes both with a known R
	// FHolm and SuccessHolm are the Holm-adjusted p values over the pairs
	// compared (NaN when not compared).
	FHolm, SuccessHolm float64
	// DiffUFS and DiffR are UFS(A) - UFS(B) and mean R(A) - mean R(B) on
	// the paired episodes (unweighted over domains), with a paired bootstrap
	// interval resampling the common tasks within domain.
	DiffUFS, DiffR BootInterval
}

// PairwiseFidelity compares every pair of simulators (A < B by name) on the
// episodes of the same tasks: exact McNemar on f and on success, a paired
// bootstrap interval of the difference in UFS and in R, and Holm-adjusted p
// values across the pairs compared. Episodes of a (domain, task) are paired
// in trial order, then by id; an unpaired surplus is left out. A pair whose
// simulators met different agents is confounded: f is tested (UFS scores
// the user alone), success and R are not, and its f test is in the Holm
// family of f while the success family holds same-agent pairs only; a pair
// with fewer than MinCommonTasks common tasks, or a simulator below
// MinScored, is listed with the reason and not tested.
func PairwiseFidelity(eps iter.Seq[ub.FidelityEpisode], threshold float64, opts BootstrapOptions) []PairComparison {
	opts = opts.withDefaults()
	type key struct{ dom, task string }
	// Of each scored episode, what the pairing and the tests read, in 32
	// bytes: its simulator and task (indexes; the tasks numbered in the
	// order of (domain, task)), trial, f, success and R, and the order it
	// came in. Its id is kept (apart) only when the episodes do not come
	// in the order of their ids: the order of arrival then breaks ties of
	// trial as the ids would. A million episodes held in maps of slices,
	// one per (simulator, task), took 160 MB.
	type paired struct {
		sim, task, trial int32
		f                int8
		succ             bool
		reward           float64
		seq              int
	}
	byID := true
	prev, first := "", true
	for e := range eps {
		if !first && e.ID <= prev {
			byID = false
			break
		}
		prev, first = e.ID, false
	}
	simIdx := map[string]int32{}
	var simNames []string
	agents := map[string]map[string]bool{}
	var scored []int
	taskIdx := map[key]int32{}
	var recs []paired
	var ids []string
	for e := range eps {
		si, ok := simIdx[e.Simulator]
		if !ok {
			si = int32(len(simNames))
			simIdx[e.Simulator] = si
			simNames = append(simNames, e.Simulator)
			agents[e.Simulator] = map[string]bool{}
			scored = append(scored, 0)
		}
		agents[e.Simulator][e.Agent] = true
		if !e.Scored() {
			continue
		}
		scored[si]++
		k := key{e.Domain, e.Task}
		ti, ok := taskIdx[k]
		if !ok {
			ti = int32(len(taskIdx))
			taskIdx[k] = ti
		}
		recs = append(recs, paired{sim: si, task: ti, trial: int32(e.Trial), reward: e.Reward, f: int8(e.F()), succ: e.Success(threshold), seq: len(recs)})
		if !byID {
			ids = append(ids, e.ID)
		}
	}
	// The tasks renumbered in the order of (domain, task).
	tasks := make([]key, len(taskIdx))
	for k, i := range taskIdx {
		tasks[i] = k
	}
	order := make([]int32, len(tasks))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int {
		return cmp.Or(strings.Compare(tasks[x].dom, tasks[y].dom), strings.Compare(tasks[x].task, tasks[y].task))
	})
	rank := make([]int32, len(tasks))
	sorted := make([]key, len(tasks))
	for r, i := range order {
		rank[i] = int32(r)
		sorted[r] = tasks[i]
	}
	tasks, order, taskIdx = sorted, nil, nil
	for i := range recs {
		recs[i].task = rank[recs[i].task]
	}
	rank = nil
	// By simulator, task, trial, then id (or arrival).
	slices.SortFunc(recs, func(x, y paired) int {
		if c := cmp.Or(cmp.Compare(x.sim, y.sim), cmp.Compare(x.task, y.task), cmp.Compare(x.trial, y.trial)); c != 0 {
			return c
		}
		if !byID {
			if c := strings.Compare(ids[x.seq], ids[y.seq]); c != 0 {
				return c
			}
		}
		return cmp.Compare(x.seq, y.seq)
	})
	ids = nil
	// Each simulator's episodes are recs[from[i]:from[i+1]].
	from := make([]int, len(simNames)+1)
	for _, r := range recs {
		from[r.sim+1]++
	}
	for i := range simNames {
		from[i+1] += from[i]
	}
	// sameTask is the length of the run of episodes of rs[0]'s task.
	sameTask := func(rs []paired) int {
		n := 1
		for n < len(rs) && rs[n].task == rs[0].task {
			n++
		}
		return n
	}
	sims := slices.Clone(simNames)
	slices.Sort(sims)
	var out []PairComparison
	var pf, ps []float64
	var tested []int
	for i, a := range sims {
		for _, b := range sims[i+1:] {
			ia, ib := simIdx[a], simIdx[b]
			pc := PairComparison{A: a, B: b, FHolm: math.NaN(), SuccessHolm: math.NaN(),
				DiffUFS: BootInterval{Estimate: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}}
			pc.DiffR = pc.DiffUFS
			pc.Confounded = !sameSet(agents[a], agents[b])
			// The paired layout: per domain (sorted), per common task
			// (sorted), the paired episodes' f and R.
			type pt struct {
				fa, fb, n, rn int
				ra, rb        float64
			}
			var layout [][]pt
			var sizes []int
			var fx, fy, sx, sy []int
			ra, rb := recs[from[ia]:from[ia+1]], recs[from[ib]:from[ib+1]]
			lastDom := ""
			for len(ra) > 0 && len(rb) > 0 {
				ta, tb := ra[0].task, rb[0].task
				if ta != tb {
					if ta < tb {
						ra = ra[sameTask(ra):]
					} else {
						rb = rb[sameTask(rb):]
					}
					continue
				}
				na, nb := sameTask(ra), sameTask(rb)
				ea, eb := ra[:na], rb[:nb]
				ra, rb = ra[na:], rb[nb:]
				if dom := tasks[ta].dom; pc.Tasks == 0 || dom != lastDom {
					layout = append(layout, nil)
					sizes = append(sizes, 0)
					lastDom = dom
				}
				pc.Tasks++
				var p pt
				for t := range min(len(ea), len(eb)) {
					x, y := ea[t], eb[t]
					p.n++
					p.fa += int(x.f)
					p.fb += int(y.f)
					fx, fy = append(fx, int(x.f)), append(fy, int(y.f))
					if !math.IsNaN(x.reward) && !math.IsNaN(y.reward) {
						p.rn++
						p.ra += x.reward
						p.rb += y.reward
						sx, sy = append(sx, b2i(x.succ)), append(sy, b2i(y.succ))
					}
				}
				layout[len(layout)-1] = append(layout[len(layout)-1], p)
				sizes[len(sizes)-1]++
			}
			pc.Pairs = len(fx)
			switch {
			case scored[ia] < MinScored || scored[ib] < MinScored:
				pc.Reason = "fewer than 20 scored episodes"
			case pc.Tasks < MinCommonTasks:
				pc.Reason = "fewer than 5 common tasks"
			}
			if pc.Reason != "" {
				out = append(out, pc)
				continue
			}
			pc.F, _ = McNemarPaired(fx, fy)
			pc.Success = McNemar{P: math.NaN()}
			if !pc.Confounded {
				pc.Success, _ = McNemarPaired(sx, sy)
			}
			diff := func(w [][]int, reward bool) float64 {
				var s float64
				for d, ps := range layout {
					var num, den float64
					for j, p := range ps {
						k := float64(w[d][j])
						if reward {
							num += k * (p.ra - p.rb)
							den += k * float64(p.rn)
						} else {
							num += k * float64(p.fa-p.fb)
							den += k * float64(p.n)
						}
					}
					if den == 0 {
						return math.NaN()
					}
					s += num / den
				}
				return s / float64(len(layout))
			}
			// One pass over the replicates for both differences (the same
			// resampled tasks for UFS and R).
			var du, dr []float64
			ClusterReplicates(sizes, opts, func(_ int, w [][]int) {
				du = append(du, diff(w, false))
				if !pc.Confounded {
					dr = append(dr, diff(w, true))
				}
			})
			ones := make([][]int, len(sizes))
			for d, n := range sizes {
				ones[d] = make([]int, n)
				for j := range ones[d] {
					ones[d][j] = 1
				}
			}
			pc.DiffUFS = bootOf(diff(ones, false), du, opts)
			if !pc.Confounded {
				pc.DiffR = bootOf(diff(ones, true), dr, opts)
			}
			pf, ps = append(pf, pc.F.P), append(ps, pc.Success.P)
			tested = append(tested, len(out))
			out = append(out, pc)
		}
	}
	hf, hs := Holm(pf), Holm(ps)
	for j, k := range tested {
		out[k].FHolm, out[k].SuccessHolm = hf[j], hs[j]
	}
	return out
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// TrialRow is pass^k and UFS^k of one simulator: how often k trials of a
// task all succeed, and all have f = 1.
type TrialRow struct {
	Simulator string
	Tasks     int // (domain, task) with a scored episode
	MaxTrials int // most trials of one task
	PassK     []PassK
	UFSK      []PassK
}

// FidelityTrials counts, per simulator, the trials of each (domain, task)
// (its scored episodes with a known R for pass^k, its scored episodes for
// UFS^k) and returns pass^k and UFS^k for k = 1..maxK over the tasks with at
// least k trials. Repeated trials are the episodes of one (agent, user
// simulator, task); the simulator label already tells agents apart.
func FidelityTrials(eps iter.Seq[ub.FidelityEpisode], threshold float64, maxK int) []TrialRow {
	type key struct{ dom, task string }
	// One entry a task, with the counts of each simulator (by the order
	// they came in) in place: f, then success. A simulator's counts with
	// no scored episode (fid.N 0) are not a task of its.
	type counts struct{ fid, pass TaskTrials }
	simIdx := map[string]int{}
	trials := map[key][]counts{}
	for e := range eps {
		if !e.Scored() {
			continue
		}
		si, ok := simIdx[e.Simulator]
		if !ok {
			si = len(simIdx)
			simIdx[e.Simulator] = si
		}
		k := key{e.Domain, e.Task}
		cs := trials[k]
		if len(cs) <= si {
			cs = append(cs, make([]counts, si+1-len(cs))...)
			trials[k] = cs
		}
		c := &cs[si]
		c.fid.N++
		c.fid.C += e.F()
		if !math.IsNaN(e.Reward) {
			c.pass.N++
			c.pass.C += b2i(e.Success(threshold))
		}
	}
	ks := make([]key, 0, len(trials))
	for k := range trials {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].dom != ks[j].dom {
			return ks[i].dom < ks[j].dom
		}
		return ks[i].task < ks[j].task
	})
	var out []TrialRow
	for _, s := range sortedKeys(simIdx) {
		si := simIdx[s]
		row := TrialRow{Simulator: s}
		var pt, ft []TaskTrials
		for _, k := range ks {
			cs := trials[k]
			if si >= len(cs) || cs[si].fid.N == 0 {
				continue
			}
			c := cs[si]
			row.Tasks++
			row.MaxTrials = max(row.MaxTrials, c.fid.N)
			ft = append(ft, c.fid)
			if c.pass.N > 0 {
				pt = append(pt, c.pass)
			}
		}
		for k := 1; k <= maxK; k++ {
			p, _ := PassHatK(pt, k)
			u, _ := PassHatK(ft, k)
			row.PassK, row.UFSK = append(row.PassK, p), append(row.UFSK, u)
		}
		out = append(out, row)
	}
	return out
}

// TrialReward is one episode's reward for the variance decomposition:
// what it ran on, its trial number and R (NaN when the file records none).
type TrialReward struct {
	Benchmark, Domain, UserSim, Agent, TaskID string
	Trial                                     int
	Reward                                    float64
}

// DomainVariance is the variance decomposition of R in one domain for the
// simulators that met one agent there.
type DomainVariance struct {
	Benchmark, Domain, Agent string
	Excluded                 []string // simulators below the small-sample rule, left out
	Decomposition            VarianceDecomposition
	Err                      string // why there is none ("" when there is)
}

// RewardVariance decomposes R, per (benchmark, domain, agent), into task,
// simulator and trial (or residual) components with [DecomposeVariance],
// over the episodes with a known R (the caller leaves P0 episodes out) of
// the simulators with at least MinScored of them over all their domains and
// MinCellN in this one; a layout with fewer than
// two such simulators, or fewer than MinCommonTasks common tasks, is
// reported with the reason instead.
func RewardVariance(rows iter.Seq[TrialReward]) []DomainVariance {
	type key struct{ bench, dom, agent string }
	by := map[key]map[string][]RewardObs{}
	total := map[string]int{}
	for e := range rows {
		if !math.IsNaN(e.Reward) {
			total[e.UserSim]++
		}
	}
	for e := range rows {
		if math.IsNaN(e.Reward) {
			continue
		}
		k := key{e.Benchmark, e.Domain, e.Agent}
		if by[k] == nil {
			by[k] = map[string][]RewardObs{}
		}
		by[k][e.UserSim] = append(by[k][e.UserSim], RewardObs{Task: e.TaskID, Sim: e.UserSim, Trial: e.Trial, Y: e.Reward})
	}
	keys := make([]key, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.bench != b.bench {
			return a.bench < b.bench
		}
		if a.dom != b.dom {
			return a.dom < b.dom
		}
		return a.agent < b.agent
	})
	var out []DomainVariance
	for _, k := range keys {
		dv := DomainVariance{Benchmark: k.bench, Domain: k.dom, Agent: k.agent}
		var obs []RewardObs
		for _, s := range sortedKeys(by[k]) {
			if total[s] < MinScored || len(by[k][s]) < MinCellN {
				dv.Excluded = append(dv.Excluded, s)
				continue
			}
			obs = append(obs, by[k][s]...)
		}
		d, err := DecomposeVariance(obs)
		switch {
		case err != nil:
			dv.Err = "fewer than 2 simulators or 2 common tasks"
		case d.Tasks < MinCommonTasks:
			dv.Err = "fewer than 5 common tasks"
		default:
			dv.Decomposition = d
		}
		out = append(out, dv)
	}
	return out
}
