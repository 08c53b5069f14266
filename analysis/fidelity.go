package analysis

import (
	"iter"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ub-bench/ub"
)

// The user-fidelity analyses of SPEC 6.4 (UserProxyBench, seed 002). They
// take plain episodes, as graded by one grader, and return plain structs.

// LabelSimulators names each episode's simulator by its user simulator,
// adding " / agent" when the same user simulator ran with more than one
// agent, so that runs of one user model against different agents stay
// apart (their rewards are not comparable).
func LabelSimulators(eps []ub.FidelityEpisode) {
	agents := map[string]map[string]bool{}
	for _, e := range eps {
		if agents[e.Simulator] == nil {
			agents[e.Simulator] = map[string]bool{}
		}
		agents[e.Simulator][e.Agent] = true
	}
	for i, e := range eps {
		if len(agents[e.Simulator]) > 1 {
			eps[i].Simulator = e.Simulator + " / " + e.Agent
		}
	}
}

// DomainUFS is one simulator's fidelity in one domain.
type DomainUFS struct {
	Domain     string
	Episodes   int     // graded episodes
	Scored     int     // episodes with f defined
	ExcludedP0 int     // flagged P0: not the task's conversation
	ExcludedNA int     // no applicable criterion
	UFS        float64 // mean f over scored episodes; NaN when none
	MeanR      float64 // mean R over scored episodes with a known R; NaN when none
	Successes  int     // scored episodes with success
}

// SimUFS is one simulator's user fidelity score (SPEC 6.2) and summary.
type SimUFS struct {
	Simulator string
	Domains   []DomainUFS // sorted by domain
	Scored    int
	Excluded  int     // P0 and nothing-applicable episodes together
	UFS       float64 // unweighted mean of the domains' UFS
	MeanR     float64 // unweighted mean of the domains' mean R
	// Cost is the mean user-side cost per simulation over the simulator's
	// graded episodes with a known cost (NaN when none); CostKnown is their
	// number and CostEstimated whether any came from a price table.
	Cost          float64
	CostKnown     int
	CostEstimated bool
}

// UFSBySimulator computes UFS(U) = mean f_i over U's scored episodes, per
// domain and as the unweighted mean over domains (SPEC 6.2), with the
// counts of excluded episodes, mean R and cost per simulation. Simulators
// come sorted by name. threshold is the success threshold on R.
func UFSBySimulator(eps iter.Seq[ub.FidelityEpisode], threshold float64) []SimUFS {
	return ufsBy(eps, ub.AllFamilies, threshold)
}

func ufsBy(eps iter.Seq[ub.FidelityEpisode], keep [4]bool, threshold float64) []SimUFS {
	type acc struct {
		d          DomainUFS
		fsum, rsum float64
		rn         int
	}
	per := map[string]map[string]*acc{}
	cost := map[string]*SimUFS{}
	for e := range eps {
		if per[e.Simulator] == nil {
			per[e.Simulator] = map[string]*acc{}
			cost[e.Simulator] = &SimUFS{}
		}
		a := per[e.Simulator][e.Domain]
		if a == nil {
			a = &acc{d: DomainUFS{Domain: e.Domain}}
			per[e.Simulator][e.Domain] = a
		}
		c := cost[e.Simulator]
		if !math.IsNaN(e.Cost) {
			c.Cost += e.Cost
			c.CostKnown++
			c.CostEstimated = c.CostEstimated || e.CostEstimated
		}
		a.d.Episodes++
		scored, f := e.ScoredWith(keep)
		switch {
		case e.P0():
			a.d.ExcludedP0++
		case !scored:
			a.d.ExcludedNA++
		default:
			a.d.Scored++
			a.fsum += float64(f)
			if !math.IsNaN(e.Reward) {
				a.rsum += e.Reward
				a.rn++
			}
			if e.Success(threshold) {
				a.d.Successes++
			}
		}
	}
	var out []SimUFS
	for _, sim := range sortedKeys(per) {
		s := *cost[sim]
		s.Simulator = sim
		if s.CostKnown > 0 {
			s.Cost /= float64(s.CostKnown)
		} else {
			s.Cost = math.NaN()
		}
		var us, rs []float64
		for _, d := range sortedKeys(per[sim]) {
			a := per[sim][d]
			a.d.UFS, a.d.MeanR = math.NaN(), math.NaN()
			if a.d.Scored > 0 {
				a.d.UFS = a.fsum / float64(a.d.Scored)
				us = append(us, a.d.UFS)
			}
			if a.rn > 0 {
				a.d.MeanR = a.rsum / float64(a.rn)
				rs = append(rs, a.d.MeanR)
			}
			s.Scored += a.d.Scored
			s.Excluded += a.d.ExcludedP0 + a.d.ExcludedNA
			s.Domains = append(s.Domains, a.d)
		}
		s.UFS, s.MeanR = meanOrNaN(us), meanOrNaN(rs)
		out = append(out, s)
	}
	return out
}

func meanOrNaN(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// FrontierPoint is one simulator on the cost-fidelity plane.
type FrontierPoint struct {
	Simulator string
	Cost      float64 // per simulation; NaN when unknown (then never chosen nor compared)
	UFS       float64 // NaN when nothing was scored
}

// FrontierChoice is U*(q).
type FrontierChoice struct {
	Q         float64
	Simulator string // "" when no simulator of known cost reaches q
	Cost, UFS float64
	Feasible  int // simulators of known cost with UFS >= q
}

// FrontierResult is the frontier of a set of simulators.
type FrontierResult struct {
	Points      []FrontierPoint // sorted by simulator
	Dominated   []bool          // Dominated[i]: Points[i] strictly dominated
	DominatedBy []string        // the cheapest dominating simulator (ties: higher UFS, then name)
	Efficient   []string        // the non-dominated simulators of known cost, by cost then name
	Choices     []FrontierChoice
}

// Frontier computes the cost-fidelity frontier (SPEC 6.4, seed eq. 2):
//
//	U*(q) = argmin_U C(U) s.t. UFS(U) >= q
//
// for each q; ties in cost are broken by higher UFS, then name, and an
// empty feasible set gives Simulator "". U is strictly dominated when
// another simulator is no more expensive and no less faithful, and better
// in one of the two. Simulators with an unknown cost or UFS take part in
// neither.
func Frontier(points []FrontierPoint, qs []float64) FrontierResult {
	ps := append([]FrontierPoint(nil), points...)
	sort.Slice(ps, func(i, j int) bool { return ps[i].Simulator < ps[j].Simulator })
	r := FrontierResult{Points: ps, Dominated: make([]bool, len(ps)), DominatedBy: make([]string, len(ps))}
	known := func(p FrontierPoint) bool { return !math.IsNaN(p.Cost) && !math.IsNaN(p.UFS) }
	better := func(a, b FrontierPoint) bool { // a precedes b: cheaper, then more faithful, then name
		if a.Cost != b.Cost {
			return a.Cost < b.Cost
		}
		if a.UFS != b.UFS {
			return a.UFS > b.UFS
		}
		return a.Simulator < b.Simulator
	}
	for i, p := range ps {
		if !known(p) {
			continue
		}
		var by *FrontierPoint
		for j, o := range ps {
			if i == j || !known(o) {
				continue
			}
			if o.Cost <= p.Cost && o.UFS >= p.UFS && (o.Cost < p.Cost || o.UFS > p.UFS) {
				if by == nil || better(o, *by) {
					by = &ps[j]
				}
			}
		}
		if by != nil {
			r.Dominated[i], r.DominatedBy[i] = true, by.Simulator
		}
	}
	var eff []FrontierPoint
	for i, p := range ps {
		if known(p) && !r.Dominated[i] {
			eff = append(eff, p)
		}
	}
	sort.Slice(eff, func(i, j int) bool { return better(eff[i], eff[j]) })
	for _, p := range eff {
		r.Efficient = append(r.Efficient, p.Simulator)
	}
	for _, q := range qs {
		c := FrontierChoice{Q: q, Cost: math.NaN(), UFS: math.NaN()}
		var best *FrontierPoint
		for j, p := range ps {
			if !known(p) || p.UFS < q {
				continue
			}
			c.Feasible++
			if best == nil || better(p, *best) {
				best = &ps[j]
			}
		}
		if best != nil {
			c.Simulator, c.Cost, c.UFS = best.Simulator, best.Cost, best.UFS
		}
		r.Choices = append(r.Choices, c)
	}
	return r
}

// EpochCost is the user-side cost of one epoch: prompts x rollouts x cost
// per simulation (SPEC 6.1).
func EpochCost(prompts, rollouts int, costPerSim float64) float64 {
	return float64(prompts) * float64(rollouts) * costPerSim
}

// RewardFidelityRow is the success x fidelity cross of one simulator in one
// domain ("" for all its domains together).
type RewardFidelityRow struct {
	Simulator, Domain string
	Scored            int
	Successes         int // scored episodes with success
	SuccessUnfaithful int // ... and f = 0
	FailFaithful      int // no success, f = 1
	FailUnfaithful    int
	ShareOfSuccesses  float64 // SuccessUnfaithful / Successes (NaN when none)
	ShareOfAll        float64 // SuccessUnfaithful / Scored
}

// RewardFidelity crosses success with f over scored episodes (SPEC 6.4):
// the share of successful episodes with f = 0, and of all episodes with
// success and f = 0, per simulator and domain, per simulator over its
// domains (Domain ""), and over everything (Simulator "", Domain "").
func RewardFidelity(eps iter.Seq[ub.FidelityEpisode], threshold float64) []RewardFidelityRow {
	type key struct{ sim, dom string }
	m := map[key]*RewardFidelityRow{}
	add := func(k key, e ub.FidelityEpisode) {
		r := m[k]
		if r == nil {
			r = &RewardFidelityRow{Simulator: k.sim, Domain: k.dom}
			m[k] = r
		}
		r.Scored++
		s, f := e.Success(threshold), e.F()
		switch {
		case s && f == 0:
			r.Successes++
			r.SuccessUnfaithful++
		case s:
			r.Successes++
		case f == 1:
			r.FailFaithful++
		default:
			r.FailUnfaithful++
		}
	}
	for e := range eps {
		if !e.Scored() {
			continue
		}
		add(key{e.Simulator, e.Domain}, e)
		add(key{e.Simulator, ""}, e)
		add(key{"", ""}, e)
	}
	keys := make([]key, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if (a.sim == "") != (b.sim == "") {
			return b.sim == ""
		}
		if a.sim != b.sim {
			return a.sim < b.sim
		}
		if (a.dom == "") != (b.dom == "") {
			return b.dom == ""
		}
		return a.dom < b.dom
	})
	out := make([]RewardFidelityRow, len(keys))
	for i, k := range keys {
		r := *m[k]
		r.ShareOfSuccesses = ratio(r.SuccessUnfaithful, r.Successes)
		r.ShareOfAll = ratio(r.SuccessUnfaithful, r.Scored)
		out[i] = r
	}
	return out
}

func ratio(k, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(k) / float64(n)
}

// FamilyCell is one (simulator, domain) cell of a family's effect.
type FamilyCell struct {
	Simulator, Domain       string
	NPresent, NAbsent       int
	PassPresent, PassAbsent float64
	Effect                  float64 // PassPresent - PassAbsent
}

// FamilyEffect is one failure family's frequency and its effect on the
// agent's pass rate (SPEC 6.4; seed fig. 3).
type FamilyEffect struct {
	Family       string
	Present      int          // scored episodes with the family present
	Failures     int          // failed criteria of the family over scored episodes
	Frequency    float64      // Present / scored episodes
	Cells        []FamilyCell // cells with >= MinCell episodes each side, by simulator and domain
	Mean, Median float64      // over Cells; NaN when none
	// SignChanges is the number of cells whose effect has the sign
	// opposite to the mean's (a zero effect counts as no change).
	SignChanges int
}

// MinCell is the least number of episodes with and without a family for a
// (simulator, domain) cell to enter the family effect.
const MinCell = 5

// FamilyEffects computes, per family, its frequency over scored episodes
// and, per (simulator, domain) cell with at least MinCell scored episodes
// with a known R on each side, the agent pass rate with the family present
// minus absent; the mean, median, number of cells and of sign changes.
func FamilyEffects(eps iter.Seq[ub.FidelityEpisode], threshold float64) []FamilyEffect {
	type cell struct {
		n, pass [2]int // [absent, present]
	}
	scored := 0
	var out []FamilyEffect
	for fi, fam := range ub.FidelityFamilies {
		fe := FamilyEffect{Family: fam}
		cells := map[[2]string]*cell{}
		for e := range eps {
			if !e.Scored() {
				continue
			}
			if fi == 0 {
				scored++
			}
			p := 0
			if e.Present(fi) {
				p = 1
				fe.Present++
			}
			fe.Failures += e.Failed[fi]
			if math.IsNaN(e.Reward) {
				continue
			}
			k := [2]string{e.Simulator, e.Domain}
			c := cells[k]
			if c == nil {
				c = &cell{}
				cells[k] = c
			}
			c.n[p]++
			if e.Success(threshold) {
				c.pass[p]++
			}
		}
		fe.Frequency = ratio(fe.Present, scored)
		keys := make([][2]string, 0, len(cells))
		for k := range cells {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i][0] != keys[j][0] {
				return keys[i][0] < keys[j][0]
			}
			return keys[i][1] < keys[j][1]
		})
		var effs []float64
		for _, k := range keys {
			c := cells[k]
			if c.n[0] < MinCell || c.n[1] < MinCell {
				continue
			}
			fc := FamilyCell{Simulator: k[0], Domain: k[1], NPresent: c.n[1], NAbsent: c.n[0],
				PassPresent: ratio(c.pass[1], c.n[1]), PassAbsent: ratio(c.pass[0], c.n[0])}
			fc.Effect = fc.PassPresent - fc.PassAbsent
			fe.Cells = append(fe.Cells, fc)
			effs = append(effs, fc.Effect)
		}
		fe.Mean, fe.Median = meanOrNaN(effs), median(effs)
		for _, x := range effs {
			if (fe.Mean > 0 && x < 0) || (fe.Mean < 0 && x > 0) {
				fe.SignChanges++
			}
		}
		out = append(out, fe)
	}
	return out
}

// RerankRow is one simulator's UFS and rank under all criteria, the
// non-disclosure criteria and the disclosure criteria only.
type RerankRow struct {
	Simulator                      string
	All, NonDisclosure, Disclosure float64 // UFS; NaN when nothing scored
	RankAll, RankNon, RankDisc     int     // 1 = most faithful; ties by name
}

// Rerank is the disclosure re-rank (SPEC 6.4).
type Rerank struct {
	Rows []RerankRow // by simulator
	// RhoDiscNon is Spearman's rho between disclosure-only and
	// non-disclosure UFS across simulators (the seed's .071); RhoAllNon
	// between the full and the non-disclosure UFS.
	RhoDiscNon, RhoAllNon Correlation
}

// DisclosureRerank scores every simulator with all criteria, with every
// family but disclosure, and with disclosure alone (each an unweighted mean
// over domains, an episode scored when a criterion of the kept families
// applied), ranks them under each and correlates the rankings.
func DisclosureRerank(eps iter.Seq[ub.FidelityEpisode], threshold float64) (Rerank, error) {
	all := ufsBy(eps, ub.AllFamilies, threshold)
	non := ufsBy(eps, [4]bool{false, true, true, true}, threshold)
	disc := ufsBy(eps, [4]bool{true, false, false, false}, threshold)
	var r Rerank
	for i := range all {
		r.Rows = append(r.Rows, RerankRow{Simulator: all[i].Simulator, All: all[i].UFS, NonDisclosure: non[i].UFS, Disclosure: disc[i].UFS})
	}
	rank := func(get func(RerankRow) float64, set func(*RerankRow, int)) {
		idx := make([]int, len(r.Rows))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool {
			x, y := get(r.Rows[idx[a]]), get(r.Rows[idx[b]])
			if math.IsNaN(x) != math.IsNaN(y) {
				return !math.IsNaN(x)
			}
			if x != y {
				return x > y
			}
			return r.Rows[idx[a]].Simulator < r.Rows[idx[b]].Simulator
		})
		for k, i := range idx {
			set(&r.Rows[i], k+1)
		}
	}
	rank(func(x RerankRow) float64 { return x.All }, func(x *RerankRow, k int) { x.RankAll = k })
	rank(func(x RerankRow) float64 { return x.NonDisclosure }, func(x *RerankRow, k int) { x.RankNon = k })
	rank(func(x RerankRow) float64 { return x.Disclosure }, func(x *RerankRow, k int) { x.RankDisc = k })
	var a, n, d []float64
	for _, x := range r.Rows {
		a, n, d = append(a, x.All), append(n, x.NonDisclosure), append(d, x.Disclosure)
	}
	var err error
	if r.RhoDiscNon, err = Spearman(d, n); err != nil {
		return r, err
	}
	r.RhoAllNon, err = Spearman(a, n)
	return r, err
}

// EffortRow is one simulator's agent effort in successful scored episodes
// with disclosure present and absent.
type EffortRow struct {
	Simulator                         string
	NPresent, NAbsent                 int
	ToolCallsPresent, ToolCallsAbsent float64 // mean agent tool calls
	QuestionsPresent, QuestionsAbsent float64 // mean agent questions
	ToolCallDiff, QuestionDiff        float64 // present - absent; NaN when a side is empty
	// On the tasks every simulator completed: mean agent turns, UFS, mean R.
	CommonTurns, CommonUFS, CommonR float64
}

// Effort is the agent-effort analysis (SPEC 6.4; seed 3.4 and appendix E).
type Effort struct {
	Rows []EffortRow
	// Means over simulators with both sides of the per-simulator
	// differences, and how many of those are negative (the agent did less
	// when the user over-disclosed).
	MeanToolCallDiff, MeanQuestionDiff float64
	ToolCallNegative, QuestionNegative int
	Compared                           int // simulators with both sides
	CommonTasks                        int // tasks every simulator completed
	// Pearson r across simulators of mean agent turns with UFS and with R,
	// on the common tasks.
	TurnsUFS, TurnsR Correlation
}

// AgentEffort compares, within successful scored episodes, agent tool calls
// and questions with and without disclosure present, per simulator; and on
// the tasks every simulator completed (a non-P0 episode with a known R for
// each (domain, task)), each simulator's mean agent turns, UFS and mean R,
// with Pearson r of turns against UFS and against R across simulators.
func AgentEffort(eps iter.Seq[ub.FidelityEpisode], threshold float64) (Effort, error) {
	sims := map[string]bool{}
	done := map[[2]string]map[string]bool{}
	for e := range eps {
		sims[e.Simulator] = true
		if e.P0() || math.IsNaN(e.Reward) {
			continue
		}
		k := [2]string{e.Domain, e.Task}
		if done[k] == nil {
			done[k] = map[string]bool{}
		}
		done[k][e.Simulator] = true
	}
	common := map[[2]string]bool{}
	for k, s := range done {
		if len(s) == len(sims) {
			common[k] = true
		}
	}
	var out Effort
	out.CommonTasks = len(common)
	names := sortedKeys(sims)
	commonEps := func(yield func(ub.FidelityEpisode) bool) {
		for e := range eps {
			if common[[2]string{e.Domain, e.Task}] && !e.P0() && !math.IsNaN(e.Reward) && !yield(e) {
				return
			}
		}
	}
	cu := map[string]SimUFS{}
	for _, s := range UFSBySimulator(commonEps, threshold) {
		cu[s.Simulator] = s
	}
	var turns, ufs, rs []float64
	var tdiffs, qdiffs []float64
	for _, sim := range names {
		row := EffortRow{Simulator: sim}
		var tc, q [2]float64
		var n [2]int
		var ct float64
		var cn int
		for e := range eps {
			if e.Simulator != sim {
				continue
			}
			if common[[2]string{e.Domain, e.Task}] && !e.P0() && !math.IsNaN(e.Reward) {
				ct += float64(e.AgentTurns)
				cn++
			}
			if !e.Scored() || !e.Success(threshold) {
				continue
			}
			p := 0
			if e.Present(ub.FamDisclosure) {
				p = 1
			}
			n[p]++
			tc[p] += float64(e.AgentToolCalls)
			q[p] += float64(e.AgentQuestions)
		}
		row.NAbsent, row.NPresent = n[0], n[1]
		row.ToolCallsAbsent, row.ToolCallsPresent = div(tc[0], n[0]), div(tc[1], n[1])
		row.QuestionsAbsent, row.QuestionsPresent = div(q[0], n[0]), div(q[1], n[1])
		row.ToolCallDiff = row.ToolCallsPresent - row.ToolCallsAbsent
		row.QuestionDiff = row.QuestionsPresent - row.QuestionsAbsent
		if n[0] > 0 && n[1] > 0 {
			out.Compared++
			tdiffs, qdiffs = append(tdiffs, row.ToolCallDiff), append(qdiffs, row.QuestionDiff)
			if row.ToolCallDiff < 0 {
				out.ToolCallNegative++
			}
			if row.QuestionDiff < 0 {
				out.QuestionNegative++
			}
		}
		row.CommonTurns, row.CommonUFS, row.CommonR = div(ct, cn), math.NaN(), math.NaN()
		if s, ok := cu[sim]; ok {
			row.CommonUFS, row.CommonR = s.UFS, s.MeanR
		}
		if cn > 0 {
			turns, ufs, rs = append(turns, row.CommonTurns), append(ufs, row.CommonUFS), append(rs, row.CommonR)
		}
		out.Rows = append(out.Rows, row)
	}
	out.MeanToolCallDiff, out.MeanQuestionDiff = meanOrNaN(tdiffs), meanOrNaN(qdiffs)
	var err error
	if out.TurnsUFS, err = Pearson(turns, ufs); err != nil {
		return out, err
	}
	out.TurnsR, err = Pearson(turns, rs)
	return out, err
}

func div(s float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// ProbeOverlapRow is one probe's overlap with the rubric verdicts for one
// simulator, and the UFS with the probe folded in.
type ProbeOverlapRow struct {
	Probe, Simulator    string
	Fired               int     // scored episodes where the probe fired
	FiredAllPass        int     // ... and every applicable criterion passed (f = 1)
	UFS, Folded         float64 // UFS, and UFS with f = 0 wherever the probe fired
	RankUFS, RankFolded int
}

// ProbeOverlap, for each probe other than P0 that fired in a scored
// episode, counts per simulator the scored episodes where it fired and
// those where every applicable criterion nevertheless passed, and folds it
// into UFS (f_i = 0 where it fired; unweighted over domains); changed says
// per probe whether the ranking of simulators changes.
func ProbeOverlap(eps iter.Seq[ub.FidelityEpisode], threshold float64) (rows []ProbeOverlapRow, changed map[string]bool) {
	probes := map[string]bool{}
	for e := range eps {
		if !e.Scored() {
			continue
		}
		for _, p := range e.Probes {
			if p != "P0" {
				probes[p] = true
			}
		}
	}
	base := UFSBySimulator(eps, threshold)
	changed = map[string]bool{}
	for _, p := range sortedKeys(probes) {
		fired, allPass := map[string]int{}, map[string]int{}
		for e := range eps {
			if !e.Scored() || !e.HasProbe(p) {
				continue
			}
			fired[e.Simulator]++
			if e.F() == 1 {
				allPass[e.Simulator]++
			}
		}
		// The episodes as they are, but where the probe fired a synthetic
		// failure of a family-less criterion: one more applicable and
		// failed count folds f to 0.
		folded := func(yield func(ub.FidelityEpisode) bool) {
			for e := range eps {
				if e.Scored() && e.HasProbe(p) {
					e.Applicable[0]++
					e.Failed[0]++
				}
				if !yield(e) {
					return
				}
			}
		}
		fu := UFSBySimulator(folded, threshold)
		rank := func(ss []SimUFS) map[string]int {
			idx := append([]SimUFS(nil), ss...)
			sort.SliceStable(idx, func(a, b int) bool {
				if idx[a].UFS != idx[b].UFS {
					return idx[a].UFS > idx[b].UFS
				}
				return idx[a].Simulator < idx[b].Simulator
			})
			m := map[string]int{}
			for k, s := range idx {
				m[s.Simulator] = k + 1
			}
			return m
		}
		rb, rf := rank(base), rank(fu)
		for i, s := range base {
			row := ProbeOverlapRow{Probe: p, Simulator: s.Simulator, Fired: fired[s.Simulator], FiredAllPass: allPass[s.Simulator],
				UFS: s.UFS, Folded: fu[i].UFS, RankUFS: rb[s.Simulator], RankFolded: rf[s.Simulator]}
			if row.RankUFS != row.RankFolded {
				changed[p] = true
			}
			rows = append(rows, row)
		}
	}
	return rows, changed
}

// FamilyAgreement is the agreement of two graders on one family's verdicts
// ("all" for every family together).
type FamilyAgreement struct {
	Family string
	N      int // verdicts both gave
	Equal  int
	Kappa  Kappa // Cohen's kappa over pass / fail / na
}

// GraderAgreement gives Cohen's kappa (CohenKappa over the labels pass,
// fail, na) between two graders per criterion family and over all, and
// the number of episodes both graded with the same f (an episode's f from
// the pairs alone; episodes where nothing applied for either are left out
// of that count). Families without pairs are omitted. The pairs may come in
// any order (AgreementCounter counts them as they come, by simulation id).
func GraderAgreement(pairs []ub.VerdictPair) (fams []FamilyAgreement, sameF, episodes int) {
	ps := slices.Clone(pairs)
	slices.SortStableFunc(ps, func(a, b ub.VerdictPair) int { return strings.Compare(a.SimulationID, b.SimulationID) })
	var c AgreementCounter
	for _, p := range ps {
		c.Add(p)
	}
	return c.Result()
}

// AgreementCounter counts verdict pairs for GraderAgreement as they come,
// without holding them: the contingency counts of each family and of all,
// and the current episode's applicable and failed counts (the pairs must
// come grouped by simulation id, as queries.EachVerdictPair gives them).
// The zero value counts nothing yet.
type AgreementCounter struct {
	by      map[string]*Confusion
	all     Confusion
	n, eq   map[string]int
	any     bool
	cur     string
	ep      struct{ appA, failA, appB, failB int }
	sameF   int
	episode int
}

var agreementLabels = []string{"fail", "na", "pass"}

// Add counts p.
func (c *AgreementCounter) Add(p ub.VerdictPair) {
	if c.by == nil {
		c.by, c.n, c.eq = map[string]*Confusion{}, map[string]int{}, map[string]int{}
		c.all = ConfusionOf(agreementLabels)
	}
	if !c.any || p.SimulationID != c.cur {
		c.flush()
		c.cur = p.SimulationID
	}
	c.any = true
	k := p.Count()
	conf := c.by[p.Family]
	if conf == nil {
		x := ConfusionOf(agreementLabels)
		conf = &x
		c.by[p.Family] = conf
	}
	conf.Add(p.A, p.B, k)
	c.all.Add(p.A, p.B, k)
	c.n[p.Family] += k
	if p.A == p.B {
		c.eq[p.Family] += k
		c.eq["all"] += k
	}
	c.n["all"] += k
	if p.A != "na" {
		c.ep.appA += k
	}
	if p.A == "fail" {
		c.ep.failA += k
	}
	if p.B != "na" {
		c.ep.appB += k
	}
	if p.B == "fail" {
		c.ep.failB += k
	}
}

// flush ends the current episode.
func (c *AgreementCounter) flush() {
	e := c.ep
	c.ep = struct{ appA, failA, appB, failB int }{}
	if e.appA == 0 || e.appB == 0 {
		return
	}
	c.episode++
	if (e.failA == 0) == (e.failB == 0) {
		c.sameF++
	}
}

// Result is GraderAgreement's of the pairs counted so far.
func (c *AgreementCounter) Result() (fams []FamilyAgreement, sameF, episodes int) {
	c.flush()
	for _, f := range ub.FidelityFamilies {
		if conf, ok := c.by[f]; ok {
			fams = append(fams, FamilyAgreement{Family: f, N: c.n[f], Equal: c.eq[f], Kappa: CohenKappa(*conf)})
		}
	}
	if c.any {
		fams = append(fams, FamilyAgreement{Family: "all", N: c.n["all"], Equal: c.eq["all"], Kappa: CohenKappa(c.all)})
	}
	return fams, c.sameF, c.episode
}
