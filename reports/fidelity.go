package reports

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// FidelityInput is what the User fidelity section is drawn from: the
// episodes as one grader graded them, and optionally a second grader's
// verdicts on the same (episode, criterion) pairs.
type FidelityInput struct {
	Grader   string
	Episodes []ub.FidelityEpisode
	// Source, when not nil, gives the episodes instead of Episodes, the
	// same ones in the same order, by simulation id, each time it is
	// ranged over (queries.FidelityTape through FidelitySource): every
	// analysis goes over them once or more, and the report holds none of
	// them.
	Source iter.Seq[ub.FidelityEpisode]
	// SecondGrader and Pairs give the agreement between graders; Pairs are
	// the (episode, criterion) both graded, those of an episode with the
	// same family and verdicts counted in one ("" and nil: no second
	// grader). PairSource, when not nil, gives them instead, by simulation
	// id (queries.EachVerdictPair), and is ranged over once.
	SecondGrader string
	Pairs        []ub.VerdictPair
	PairSource   iter.Seq[ub.VerdictPair]
	// Qs are the fidelity levels of the frontier (nil: the seed's 0.75,
	// 0.84, 0.86); EpochPrompts x EpochRollouts the epoch (0: 1000 x 64).
	Qs                          []float64
	EpochPrompts, EpochRollouts int
	// Threshold is the success threshold on R (0: 1).
	Threshold float64
	// Prices describes the price table estimated costs come from ("" when
	// no cost is estimated).
	Prices string
	// GraderImported is whether Grader's verdicts were imported (ub
	// verdicts import) rather than given by ub grade: ub cannot know whether
	// an imported grader was blind to the simulator.
	GraderImported bool
	// Rule is the frontier rule ("": point); Bootstrap the replicates and
	// seed of every bootstrap interval (zero: 1,000 from the default seed).
	Rule      analysis.FrontierRule
	Bootstrap analysis.BootstrapOptions
	// TaskSplit, when set, keeps only the episodes of the split's tasks
	// (RestrictTaskSplit); the section says which split it covers.
	TaskSplit *TaskSplit
}

// TaskSplit is one of tau2's task splits (split_tasks.json): its name and
// the tasks of every domain that names it.
type TaskSplit struct {
	Name  string
	Tasks []queries.TaskSplitTask
}

// NewTaskSplit is the split name among the stored split tasks; ok is false
// when no domain has a split of that name.
func NewTaskSplit(tasks []queries.TaskSplitTask, name string) (s TaskSplit, ok bool) {
	s.Name = name
	for _, t := range tasks {
		if t.Split == name {
			s.Tasks = append(s.Tasks, t)
		}
	}
	return s, len(s.Tasks) > 0
}

// SplitNames are the distinct split names of the stored split tasks, in
// order.
func SplitNames(tasks []queries.TaskSplitTask) []string {
	var out []string
	for _, t := range tasks {
		if !slices.Contains(out, t.Split) {
			out = append(out, t.Split)
		}
	}
	slices.Sort(out)
	return out
}

// domains are the split's domains, in order.
func (s TaskSplit) domains() []string {
	var out []string
	for _, t := range s.Tasks {
		if !slices.Contains(out, t.Domain) {
			out = append(out, t.Domain)
		}
	}
	slices.Sort(out)
	return out
}

// RestrictTaskSplit keeps the episodes (and verdict pairs) whose domain
// and task are of split s; an episode of a domain without the split is
// left out.
func RestrictTaskSplit(eps []ub.FidelityEpisode, pairs []ub.VerdictPair, s TaskSplit) ([]ub.FidelityEpisode, []ub.VerdictPair) {
	in := map[[2]string]bool{}
	for _, t := range s.Tasks {
		in[[2]string{t.Domain, t.TaskID}] = true
	}
	var out []ub.FidelityEpisode
	ids := map[string]bool{}
	for _, e := range eps {
		if in[[2]string{e.Domain, e.Task}] {
			out = append(out, e)
			ids[e.ID] = true
		}
	}
	var ps []ub.VerdictPair
	for _, p := range pairs {
		if ids[p.SimulationID] {
			ps = append(ps, p)
		}
	}
	return out, ps
}

// fidelity is the section's analyses, computed once (figures are built
// concurrently and only read it).
type fidelity struct {
	in       FidelityInput
	ufs      []analysis.SimUFS
	frontier analysis.FrontierResult
	rewfid   []analysis.RewardFidelityRow
	families []analysis.FamilyEffect
	rerank   analysis.Rerank
	effort   analysis.Effort
	n        int // episodes after the split's and the simulators' restriction
	overlap  []analysis.ProbeOverlapRow
	changed  map[string]bool
	agree    []analysis.FamilyAgreement
	sameF    int
	agreeEps int
	// The uncertainty of SPEC 9: intervals and the frontier's stability,
	// the pairwise comparisons and trials; small are the
	// simulators below the small-sample rule (smallN their scored
	// episodes), left out of the cross-simulator statistics.
	unc    analysis.FidelityUncertainty
	pairs  []analysis.PairComparison
	trials []analysis.TrialRow
	maxK   int
	small  []string
	smallN []int
	err    error
}

// DefaultQs are the fidelity levels of the seed's frontier (section 3.1).
var DefaultQs = []float64{0.75, 0.84, 0.86}

// SetFidelity gives the report the graded episodes of its User fidelity
// section and computes every analysis of SPEC 6.4 on them.
func (r *Report) SetFidelity(in FidelityInput) {
	if in.Qs == nil {
		in.Qs = DefaultQs
	}
	if in.EpochPrompts == 0 {
		in.EpochPrompts = 1000
	}
	if in.EpochRollouts == 0 {
		in.EpochRollouts = 64
	}
	if in.Threshold == 0 {
		in.Threshold = 1
	}
	if r.simNames == nil {
		r.simNames = map[string]bool{}
	}
	eps := in.Source
	if eps == nil {
		eps = slices.Values(in.Episodes)
	}
	// The episodes kept: those of the task split's tasks, then of the
	// simulators named, when any of those episodes is theirs.
	var inSplit map[[2]string]bool
	if in.TaskSplit != nil {
		inSplit = map[[2]string]bool{}
		for _, t := range in.TaskSplit.Tasks {
			inSplit[[2]string{t.Domain, t.TaskID}] = true
		}
	}
	named := map[string]bool{}
	for _, s := range r.in.Simulators {
		named[s] = true
	}
	anyNamed := false
	for e := range eps {
		r.simNames[e.Simulator] = true // as labelled: "sim / agent" when it ran with several agents
		if named[e.Simulator] && (inSplit == nil || inSplit[[2]string{e.Domain, e.Task}]) {
			anyNamed = true
		}
	}
	restricted := inSplit != nil || anyNamed
	if restricted {
		all := eps
		eps = func(yield func(ub.FidelityEpisode) bool) {
			for e := range all {
				if (inSplit == nil || inSplit[[2]string{e.Domain, e.Task}]) && (!anyNamed || named[e.Simulator]) && !yield(e) {
					return
				}
			}
		}
	}
	r.fid = prepareFidelity(in, eps, graderAgreement(in, eps, restricted))
}

// agreement is analysis.GraderAgreement's of the two graders' verdict
// pairs.
type agreement struct {
	fams         []analysis.FamilyAgreement
	sameF, count int
}

// graderAgreement counts the verdict pairs of the two graders, those of
// the episodes kept when restricted. A PairSource is counted as it comes,
// its pairs of the episodes kept found by walking both in the order of
// their simulation ids.
func graderAgreement(in FidelityInput, eps iter.Seq[ub.FidelityEpisode], restricted bool) agreement {
	var a agreement
	if in.PairSource == nil {
		pairs := in.Pairs
		if restricted {
			ids := map[string]bool{}
			for e := range eps {
				ids[e.ID] = true
			}
			pairs = nil
			for _, p := range in.Pairs {
				if ids[p.SimulationID] {
					pairs = append(pairs, p)
				}
			}
		}
		a.fams, a.sameF, a.count = analysis.GraderAgreement(pairs)
		return a
	}
	var c analysis.AgreementCounter
	if !restricted {
		for p := range in.PairSource {
			c.Add(p)
		}
		a.fams, a.sameF, a.count = c.Result()
		return a
	}
	next, stop := iter.Pull(eps)
	defer stop()
	e, ok := next()
	for p := range in.PairSource {
		for ok && e.ID < p.SimulationID {
			e, ok = next()
		}
		if ok && e.ID == p.SimulationID {
			c.Add(p)
		}
	}
	a.fams, a.sameF, a.count = c.Result()
	return a
}

func prepareFidelity(in FidelityInput, eps iter.Seq[ub.FidelityEpisode], agree agreement) *fidelity {
	fd := &fidelity{in: in}
	// The sources are gone over here only: their caller may close them
	// once SetFidelity returns.
	fd.in.Source, fd.in.PairSource = nil, nil
	for range eps {
		fd.n++
	}
	th := in.Threshold
	fd.ufs = analysis.UFSBySimulator(eps, th)
	pts := make([]analysis.FrontierPoint, len(fd.ufs))
	for i, s := range fd.ufs {
		pts[i] = analysis.FrontierPoint{Simulator: s.Simulator, Cost: s.Cost, UFS: s.UFS}
	}
	fd.frontier = analysis.Frontier(pts, in.Qs)
	cost := map[string]float64{}
	for _, s := range fd.ufs {
		cost[s.Simulator] = s.Cost
	}
	fd.unc = analysis.FidelityIntervals(eps, th, cost, in.Qs, in.Rule, in.Bootstrap)
	// The frontier's choices follow the rule; their UFS is the point
	// estimate whichever rule chose them.
	point := map[string]float64{}
	for _, s := range fd.ufs {
		point[s.Simulator] = s.UFS
	}
	fd.frontier.Choices = append([]analysis.FrontierChoice(nil), fd.unc.Choices...)
	for i, c := range fd.frontier.Choices {
		if c.Simulator != "" {
			fd.frontier.Choices[i].UFS = point[c.Simulator]
		}
	}
	fd.small, fd.smallN = analysis.SmallSimulators(fd.ufs)
	cross := analysis.WithoutSimulators(eps, fd.small)
	fd.rewfid = analysis.RewardFidelity(eps, th)
	fd.families = analysis.FamilyEffects(eps, th)
	fd.rerank, fd.err = analysis.DisclosureRerank(cross, th)
	if fd.err == nil {
		fd.effort, fd.err = analysis.AgentEffort(cross, th)
	}
	fd.pairs = analysis.PairwiseFidelity(eps, th, in.Bootstrap)
	fd.maxK = 1
	for _, t := range analysis.FidelityTrials(eps, th, 1) {
		fd.maxK = max(fd.maxK, min(t.MaxTrials, 5))
	}
	fd.trials = analysis.FidelityTrials(eps, th, fd.maxK)

	fd.overlap, fd.changed = analysis.ProbeOverlap(eps, th)
	fd.agree, fd.sameF, fd.agreeEps = agree.fams, agree.sameF, agree.count
	return fd
}

// graded returns the section's analyses, or a MissingError for fig.
func (r *Report) graded(fig string) (*fidelity, error) {
	if r.fid == nil || r.fid.n == 0 {
		return nil, missing(fig, "%s", r.ufsMissing())
	}
	if r.fid.err != nil {
		return nil, r.fid.err
	}
	return r.fid, nil
}

func fnumOr(x float64, dec int, none string) string {
	if math.IsNaN(x) {
		return none
	}
	return fnum(x, dec)
}

// costText prints a cost per simulation in dollars: "" when unknown.
func costText(x float64) string { return fnumOr(x, 5, "") }

func (fd *fidelity) choicesAt(sim string) []string {
	var qs []string
	for _, c := range fd.frontier.Choices {
		if c.Simulator == sim {
			qs = append(qs, f2(c.Q))
		}
	}
	return qs
}

// ufsFrontier draws the cost-fidelity frontier. In turn: it takes the
// graded study (missing: exit 6 for the figure alone); fills the table
// with each simulator's UFS, interval, exclusions and cost, and collects
// the points of those with a cost; sets the log cost axis and a UFS axis
// spanning the data and the q lines; draws the efficient simulators'
// staircase, the q lines with the choice at each q, the error bars and
// points, the dominated points ringed, and the labels spread off each
// other and the lines; and writes the caption: the cheapest faithful
// simulator at each q with its stability, and the dominated ones.
func (r *Report) ufsFrontier() (*figure, error) {
	fd, err := r.graded("ufs-frontier")
	if err != nil {
		return nil, err
	}
	f := &figure{}
	f.table.header = []string{"simulator", "episodes_scored", "episodes_excluded", "excluded_p0", "excluded_no_criteria", "ufs", "ufs_lo", "ufs_hi", "mean_reward",
		"mean_reward_lo", "mean_reward_hi", "cost_per_sim", "cost_estimated", "cost_known_episodes", "dominated", "dominated_by", "chosen_at_q"}
	p := newPlot("Cost-fidelity frontier", "user-side cost per simulation ($, log scale)", "UFS")
	var pts, dom plotter.XYs
	var errs plotter.YErrors
	var labels []string
	for i, s := range fd.ufs {
		u := fd.unc.Sims[i]
		p0, na := 0, 0
		for _, d := range s.Domains {
			p0 += d.ExcludedP0
			na += d.ExcludedNA
		}
		est := ""
		if s.CostKnown > 0 {
			est = strconv.FormatBool(s.CostEstimated)
		}
		fr := fd.frontier
		f.table.add(s.Simulator, strconv.Itoa(s.Scored), strconv.Itoa(s.Excluded), strconv.Itoa(p0), strconv.Itoa(na),
			fnumOr(s.UFS, 3, ""), fnumOr(u.UFS.Lo, 3, ""), fnumOr(u.UFS.Hi, 3, ""), fnumOr(s.MeanR, 3, ""), fnumOr(u.MeanR.Lo, 3, ""), fnumOr(u.MeanR.Hi, 3, ""),
			costText(s.Cost), est, strconv.Itoa(s.CostKnown),
			strconv.FormatBool(fr.Dominated[i]), fr.DominatedBy[i], strings.Join(fd.choicesAt(s.Simulator), " "))
		if math.IsNaN(s.UFS) || math.IsNaN(s.Cost) || s.Cost <= 0 {
			continue
		}
		pts = append(pts, plotter.XY{X: s.Cost, Y: s.UFS})
		lo, hi := s.UFS-u.UFS.Lo, u.UFS.Hi-s.UFS
		if math.IsNaN(lo) || math.IsNaN(hi) {
			lo, hi = 0, 0
		}
		errs = append(errs, struct{ Low, High float64 }{lo, hi})
		labels = append(labels, s.Simulator)
		if fr.Dominated[i] {
			dom = append(dom, plotter.XY{X: s.Cost, Y: s.UFS})
		}
	}
	if len(pts) == 0 {
		return nil, missing("ufs-frontier", "no simulator has both a UFS and a known cost (record user_cost, or give a price table with --prices at ingest)")
	}
	lo, hi := pts[0].X, pts[0].X
	for _, pt := range pts {
		lo, hi = math.Min(lo, pt.X), math.Max(hi, pt.X)
	}
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max = lo/2, hi*5 // room for the labels
	ylo, yhi := 1.0, 0.0
	for i, pt := range pts {
		ylo, yhi = math.Min(ylo, pt.Y-errs[i].Low), math.Max(yhi, pt.Y+errs[i].High)
	}
	for _, c := range fd.frontier.Choices {
		ylo, yhi = math.Min(ylo, c.Q), math.Max(yhi, c.Q)
	}
	// The y axis spans the data and the q lines with a margin, in steps of
	// .05, not 0-1 when every point lies in a narrow band.
	p.Y.Min = math.Max(0, math.Floor((ylo-0.05)*20)/20)
	p.Y.Max = math.Min(1.05, math.Ceil((yhi+0.05)*20)/20)
	short := map[string]string{}
	for i, n := range shortNames(labels) {
		short[labels[i]] = n
		labels[i] = n
	}
	var eff plotter.XYs
	byName := map[string]analysis.SimUFS{}
	for _, s := range fd.ufs {
		byName[s.Simulator] = s
	}
	for _, name := range fd.frontier.Efficient {
		s := byName[name]
		if s.Cost > 0 {
			eff = append(eff, plotter.XY{X: s.Cost, Y: s.UFS})
		}
	}
	if len(eff) > 1 {
		// The frontier is a staircase: from each efficient point the next
		// one is reached by paying more for more fidelity.
		var stair plotter.XYs
		for i, pt := range eff {
			if i > 0 {
				stair = append(stair, plotter.XY{X: pt.X, Y: eff[i-1].Y})
			}
			stair = append(stair, pt)
		}
		l, err := plotter.NewLine(stair)
		if err != nil {
			return nil, err
		}
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.LineStyle.Color = colGrey
		p.Add(l)
		p.Legend.Add("efficient frontier", l)
	}
	var qs []float64 // the q lines' heights, which labels keep off
	for i, c := range fd.frontier.Choices {
		qs = append(qs, c.Q)
		l, err := refLine(p, c.Q, p.X.Min, p.X.Max, false, palette[(i+1)%len(palette)], true)
		if err != nil {
			return nil, err
		}
		l.LineStyle.Width = vg.Points(0.6)
		who := "none feasible"
		if c.Simulator != "" {
			who = c.Simulator
			if n, ok := short[who]; ok {
				who = n
			}
		}
		p.Legend.Add(fmt.Sprintf("q=%s: %s", f2(c.Q), who), l)
	}
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, errs})
	if err != nil {
		return nil, err
	}
	eb.LineStyle.Color = palette[0]
	eb.LineStyle.Width = vg.Points(0.8)
	eb.CapWidth = vg.Points(5)
	p.Add(eb)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color = palette[0]
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(3.5)
	p.Add(sc)
	if len(dom) > 0 {
		ring, err := plotter.NewScatter(dom)
		if err != nil {
			return nil, err
		}
		ring.GlyphStyle.Color = colAnchor
		ring.GlyphStyle.Shape = draw.RingGlyph{}
		ring.GlyphStyle.Radius = vg.Points(7)
		p.Add(ring)
		p.Legend.Add("strictly dominated", ring)
	}
	at, left := spreadLabels(pts, errs, labels, qs, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = vg.Points(8)
		if left[i] {
			lb.TextStyle[i].XAlign = draw.XRight
		}
	}
	p.Add(lb)
	p.Legend.Top = false
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	f.pic = single(p, 7*vg.Inch, 4.5*vg.Inch)
	var parts []string
	for i, c := range fd.frontier.Choices {
		if c.Simulator == "" {
			parts = append(parts, fmt.Sprintf("at q = %s no simulator of known cost is faithful enough", f2(c.Q)))
		} else {
			parts = append(parts, fmt.Sprintf("at q = %s the cheapest faithful simulator is %s (UFS %s, $%s per simulation, %d feasible; chosen in %s of the bootstrap replicates)",
				f2(c.Q), c.Simulator, f3(c.UFS), costText(c.Cost), c.Feasible, f2(shareOf(fd.unc.Stability[i], c.Simulator))))
		}
	}
	var doms []string
	for i, p := range fd.frontier.Points {
		if fd.frontier.Dominated[i] {
			doms = append(doms, p.Simulator+" (by "+fd.frontier.DominatedBy[i]+")")
		}
	}
	domText := "No simulator is strictly dominated"
	if len(doms) > 0 {
		domText = "Strictly dominated: " + strings.Join(doms, ", ")
	}
	f.caption = "Each point is a user simulator: user-side cost per simulation (log scale) against UFS, the share of its scored episodes " +
		"in which every applicable criterion passed (unweighted over domains). The dashed staircase is the efficient frontier, " +
		"ringed points are strictly dominated (another simulator is no more expensive and no less faithful, and better in one), " +
		"horizontal lines mark the required fidelity q; bars are 95% bootstrap intervals of UFS (tasks resampled within domain). " + capital(strings.Join(parts, "; ")) + ". " + domText + "." +
		" Simulators of unknown cost are in the table but not on the plot."
	return f, nil
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (r *Report) rewardFidelity() (*figure, error) {
	fd, err := r.graded("reward-fidelity")
	if err != nil {
		return nil, err
	}
	f := &figure{}
	f.table.header = []string{"simulator", "domain", "scored", "success_f1", "success_f0", "fail_f1", "fail_f0", "share_of_successes_f0",
		"share_of_successes_f0_lo", "share_of_successes_f0_hi", "share_of_all_success_f0", "share_of_all_lo", "share_of_all_hi"}
	var rows []analysis.RewardFidelityRow
	var total analysis.RewardFidelityRow
	var totalS, totalA loHi
	for _, x := range fd.rewfid {
		sim, dom := x.Simulator, x.Domain
		if sim == "" {
			sim, total = "all", x
		}
		if dom == "" {
			dom = "all"
		}
		ws, wa := wilsonCells(x.SuccessUnfaithful, x.Successes), wilsonCells(x.SuccessUnfaithful, x.Scored)
		if x.Simulator == "" {
			totalS, totalA = ws, wa
		}
		f.table.add(sim, dom, strconv.Itoa(x.Scored), strconv.Itoa(x.Successes-x.SuccessUnfaithful), strconv.Itoa(x.SuccessUnfaithful),
			strconv.Itoa(x.FailFaithful), strconv.Itoa(x.FailUnfaithful), fnumOr(x.ShareOfSuccesses, 3, ""), ws.lo, ws.hi, fnumOr(x.ShareOfAll, 3, ""), wa.lo, wa.hi)
		if x.Simulator != "" && x.Domain == "" {
			rows = append(rows, x)
		}
	}
	p := newPlot("Success x fidelity per user simulator", "", "share of scored episodes")
	names := make([]string, len(rows))
	for i, x := range rows {
		names[i] = x.Simulator
	}
	names = shortNames(names)
	for i, x := range rows {
		names[i] += fmt.Sprintf(" (n = %d)", x.Scored)
	}
	parts := []struct {
		name string
		get  func(analysis.RewardFidelityRow) int
	}{
		{"success, f = 1", func(x analysis.RewardFidelityRow) int { return x.Successes - x.SuccessUnfaithful }},
		{"success, f = 0", func(x analysis.RewardFidelityRow) int { return x.SuccessUnfaithful }},
		{"failure, f = 1", func(x analysis.RewardFidelityRow) int { return x.FailFaithful }},
		{"failure, f = 0", func(x analysis.RewardFidelityRow) int { return x.FailUnfaithful }},
	}
	var below *plotter.BarChart
	for i, part := range parts {
		vals := make(plotter.Values, len(rows))
		for j, x := range rows {
			vals[j] = float64(part.get(x)) / float64(max(1, x.Scored))
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(28))
		if err != nil {
			return nil, err
		}
		bars.Color = palette[[]int{2, 1, 4, 5}[i]]
		bars.LineStyle.Width = 0
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		p.Legend.Add(part.name, bars)
	}
	p.NominalX(names...)
	// Shares run from 0 to 1; the bars fill the axis from the first to the
	// last, with half a bar's slot at each end.
	p.Y.Min, p.Y.Max = 0, 1
	p.X.Min, p.X.Max = -0.6, float64(len(rows))-0.4
	p.Legend.Top = true
	f.pic = single(p, 7*vg.Inch, 4.5*vg.Inch)
	f.caption = fmt.Sprintf("Each bar splits a simulator's scored episodes by agent success (R >= %s) and user fidelity f. "+
		"Over all simulators %s (95%% Wilson %s to %s) of successful episodes have f = 0 (the reward did not see the user break its contract), "+
		"%s (%s to %s) of all scored episodes are a success with f = 0.", fnum(fd.in.Threshold, 2), f3(total.ShareOfSuccesses), totalS.lo, totalS.hi,
		f3(total.ShareOfAll), totalA.lo, totalA.hi)
	return f, nil
}

func (r *Report) failureFamilies() (*figure, error) {
	fd, err := r.graded("failure-families")
	if err != nil {
		return nil, err
	}
	f := &figure{}
	f.table.header = []string{"family", "episodes_present", "failures", "frequency", "simulator", "domain", "n_present", "n_absent", "pass_present", "pass_absent", "effect",
		"effect_mean_lo", "effect_mean_hi", "effect_median_lo", "effect_median_hi"}
	left := newPlot("Frequency", "family", "share of scored episodes")
	right := newPlot("Pass-rate effect (present - absent)", "family", "agent pass rate difference")
	freq := make(plotter.Values, len(fd.families))
	names := make([]string, len(fd.families))
	var cells, means, meds plotter.XYs
	var notes []string
	for i, fe := range fd.families {
		names[i] = fe.Family
		freq[i] = fe.Frequency
		if math.IsNaN(freq[i]) {
			freq[i] = 0
		}
		fi := fd.unc.Families[i]
		f.table.add(fe.Family, strconv.Itoa(fe.Present), strconv.Itoa(fe.Failures), fnumOr(fe.Frequency, 3, ""), "all", "all", "", "", "", "", fnumOr(fe.Mean, 3, ""),
			fnumOr(fi.Mean.Lo, 3, ""), fnumOr(fi.Mean.Hi, 3, ""), fnumOr(fi.Median.Lo, 3, ""), fnumOr(fi.Median.Hi, 3, ""))
		for _, c := range fe.Cells {
			f.table.add(fe.Family, "", "", "", c.Simulator, c.Domain, strconv.Itoa(c.NPresent), strconv.Itoa(c.NAbsent), f3(c.PassPresent), f3(c.PassAbsent), s3(c.Effect), "", "", "", "")
			cells = append(cells, plotter.XY{X: float64(i), Y: c.Effect})
		}
		if len(fe.Cells) > 0 {
			means = append(means, plotter.XY{X: float64(i), Y: fe.Mean})
			meds = append(meds, plotter.XY{X: float64(i), Y: fe.Median})
			notes = append(notes, fmt.Sprintf("%s present in %d episodes (%s), effect mean %s (95%% CI %s), median %s (%s) over %d cells, %d sign changes",
				fe.Family, fe.Present, f3(fe.Frequency), s3(fe.Mean), ciText(fi.Mean.Lo, fi.Mean.Hi), s3(fe.Median), ciText(fi.Median.Lo, fi.Median.Hi), len(fe.Cells), fe.SignChanges))
		} else {
			notes = append(notes, fmt.Sprintf("%s present in %d episodes (%s), no cell with >= %d episodes each side", fe.Family, fe.Present, f3(fe.Frequency), analysis.MinCell))
		}
	}
	bars, err := plotter.NewBarChart(freq, vg.Points(26))
	if err != nil {
		return nil, err
	}
	bars.Color = palette[0]
	bars.LineStyle.Width = 0
	left.Add(bars)
	left.NominalX(names...)
	left.Y.Min, left.Y.Max = 0, 0.05
	for _, v := range freq {
		left.Y.Max = math.Max(left.Y.Max, v*1.1)
	}
	right.NominalX(names...)
	right.X.Min, right.X.Max = -0.6, float64(len(names))-0.4
	right.Y.Min, right.Y.Max = -1, 1
	if _, err := refLine(right, 0, right.X.Min, right.X.Max, false, colGrey, true); err != nil {
		return nil, err
	}
	for _, s := range []struct {
		xys   plotter.XYs
		name  string
		shape draw.GlyphDrawer
		col   int
		rad   float64
	}{{cells, "cell", draw.CircleGlyph{}, 4, 2.5}, {means, "mean", draw.PyramidGlyph{}, 5, 4.5}, {meds, "median", draw.SquareGlyph{}, 2, 4}} {
		if len(s.xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape, sc.GlyphStyle.Color, sc.GlyphStyle.Radius = s.shape, palette[s.col], vg.Points(s.rad)
		right.Add(sc)
		right.Legend.Add(s.name, sc)
	}
	right.Legend.Top = true
	for _, p := range []*plot.Plot{left, right} {
		p.X.Tick.Label.Rotation = 0.35
		p.X.Tick.Label.XAlign = draw.XRight
		p.Add(plotter.NewGrid())
	}
	f.pic = panels([]*plot.Plot{left, right}, 9*vg.Inch, 4.5*vg.Inch)
	f.caption = fmt.Sprintf("Left: the share of scored episodes in which each family is present (a criterion of it failed). Right: per (simulator, domain) cell with at least %d episodes with and %d without the family, "+
		"the agent's pass rate with it minus without; mean and median over cells, with bootstrap 95%% intervals (tasks resampled within domain, the cell rule applied to each replicate). A sign change is a cell whose effect has the sign opposite to the mean. %s.",
		analysis.MinCell, analysis.MinCell, capital(strings.Join(notes, "; ")))
	return f, nil
}

func (r *Report) disclosureRerank() (*figure, error) {
	fd, err := r.graded("disclosure-rerank")
	if err != nil {
		return nil, err
	}
	rr := fd.rerank
	if len(rr.Rows) < 3 {
		return nil, missing("disclosure-rerank", "%d simulators with at least %d scored episodes: a rank correlation needs 3%s",
			len(rr.Rows), analysis.MinScored, fd.smallSuffix())
	}
	f := &figure{}
	f.table.header = []string{"simulator", "ufs_all", "ufs_non_disclosure", "ufs_disclosure_only", "rank_all", "rank_non_disclosure", "rank_disclosure_only"}
	p := newPlot("Rank of each simulator under three criterion sets", "", "rank (1 = most faithful)")
	p.NominalX("all criteria", "non-disclosure", "disclosure only")
	n := len(rr.Rows)
	scored := map[string]int{}
	for _, s := range fd.ufs {
		scored[s.Simulator] = s.Scored
	}
	var sims []string
	for _, x := range rr.Rows {
		sims = append(sims, x.Simulator)
	}
	short := shortNames(sims)
	for i, x := range rr.Rows {
		f.table.add(x.Simulator, fnumOr(x.All, 3, ""), fnumOr(x.NonDisclosure, 3, ""), fnumOr(x.Disclosure, 3, ""),
			strconv.Itoa(x.RankAll), strconv.Itoa(x.RankNon), strconv.Itoa(x.RankDisc))
		pts := plotter.XYs{{X: 0, Y: float64(x.RankAll)}, {X: 1, Y: float64(x.RankNon)}, {X: 2, Y: float64(x.RankDisc)}}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		col := palette[i%len(palette)]
		l.LineStyle.Color, s.GlyphStyle.Color, s.GlyphStyle.Radius = col, col, vg.Points(3)
		if i >= len(palette) {
			l.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
		}
		p.Add(l, s)
		p.Legend.Add(fmt.Sprintf("%s (n = %d)", short[i], scored[x.Simulator]), l, s)
	}
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}} // rank 1 on top
	p.Y.Min, p.Y.Max = 0.5, float64(n)+0.5
	var ticks []plot.Tick
	for k := 1; k <= n; k++ {
		ticks = append(ticks, plot.Tick{Value: float64(k), Label: strconv.Itoa(k)})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.3, 2.3
	p.Legend.Top = false
	p.Add(plotter.NewGrid())
	f.pic = single(p, 7*vg.Inch, 4.5*vg.Inch)
	f.caption = fmt.Sprintf("Ranks of the simulators by UFS with all criteria, without the disclosure criteria, and with the disclosure criteria alone "+
		"(each unweighted over domains; ties by name); n scored episodes per simulator. Spearman's rho between disclosure-only and non-disclosure UFS is %s (n = %d), "+
		"between the full and the non-disclosure UFS %s.%s", f3(rr.RhoDiscNon.R), rr.RhoDiscNon.N, f3(rr.RhoAllNon.R), fd.smallSentence())
	return f, nil
}

func (r *Report) agentEffort() (*figure, error) {
	fd, err := r.graded("agent-effort")
	if err != nil {
		return nil, err
	}
	ef := fd.effort
	if ef.CommonTasks < analysis.MinCommonTasks {
		return nil, missing("agent-effort", "%d tasks completed by every simulator with at least %d scored episodes, fewer than %d%s",
			ef.CommonTasks, analysis.MinScored, analysis.MinCommonTasks, fd.smallSuffix())
	}
	f := &figure{}
	f.table.header = []string{"simulator", "successes_disclosure", "successes_no_disclosure", "tool_calls_disclosure", "tool_calls_no_disclosure", "tool_call_diff",
		"questions_disclosure", "questions_no_disclosure", "question_diff", "common_mean_agent_turns", "common_ufs", "common_mean_reward"}
	var tu, tr plotter.XYs
	var sims []string
	for _, x := range ef.Rows {
		f.table.add(x.Simulator, strconv.Itoa(x.NPresent), strconv.Itoa(x.NAbsent), fnumOr(x.ToolCallsPresent, 2, ""), fnumOr(x.ToolCallsAbsent, 2, ""), fnumOr(x.ToolCallDiff, 2, ""),
			fnumOr(x.QuestionsPresent, 2, ""), fnumOr(x.QuestionsAbsent, 2, ""), fnumOr(x.QuestionDiff, 2, ""),
			fnumOr(x.CommonTurns, 2, ""), fnumOr(x.CommonUFS, 3, ""), fnumOr(x.CommonR, 3, ""))
		if math.IsNaN(x.CommonTurns) || math.IsNaN(x.CommonUFS) || math.IsNaN(x.CommonR) {
			continue
		}
		tu = append(tu, plotter.XY{X: x.CommonUFS, Y: x.CommonTurns})
		tr = append(tr, plotter.XY{X: x.CommonR, Y: x.CommonTurns})
		sims = append(sims, x.Simulator)
	}
	if len(tu) == 0 {
		return nil, missing("agent-effort", "no task was completed by every simulator")
	}
	// One colour and glyph per simulator, named in one legend beside the
	// right panel: names next to the points ran into each other and off
	// the panel.
	on := fmt.Sprintf(" on the %d common tasks", ef.CommonTasks)
	left := newPlot(fmt.Sprintf("Turns vs UFS (r = %s, n = %d simulators)", f3(ef.TurnsUFS.R), ef.TurnsUFS.N), "UFS"+on, "mean agent turns")
	right := newPlot(fmt.Sprintf("Turns vs reward (r = %s, n = %d simulators)", f3(ef.TurnsR.R), ef.TurnsR.N), "mean agent reward R"+on, "mean agent turns")
	names := shortNames(sims)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, pt := range tu {
		ylo, yhi = math.Min(ylo, pt.Y), math.Max(yhi, pt.Y)
	}
	for i, pts := range []plotter.XYs{tu, tr} {
		p := []*plot.Plot{left, right}[i]
		xlo, xhi := math.Inf(1), math.Inf(-1)
		for k, pt := range pts {
			xlo, xhi = math.Min(xlo, pt.X), math.Max(xhi, pt.X)
			sc, err := plotter.NewScatter(plotter.XYs{pt})
			if err != nil {
				return nil, err
			}
			col, shape := seriesStyle(k)
			sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = col, shape, vg.Points(3.5)
			p.Add(sc)
			if i == 1 {
				p.Legend.Add(names[k], sc)
			}
		}
		niceAxis(&p.X, xlo, xhi)
		niceAxis(&p.Y, ylo, yhi)
		p.Add(plotter.NewGrid())
	}
	f.pic = panels([]*plot.Plot{left, right}, 9*vg.Inch, 4*vg.Inch)
	f.caption = fmt.Sprintf("On the %d tasks every simulator completed, mean agent turns (agent messages, tool-call-only ones included) against each simulator's UFS "+
		"(Pearson r = %s) and mean reward (r = %s) on those tasks, across %d simulators. In successful episodes, when the user disclosed early the agent made "+
		"%s tool calls and asked %s questions per episode relative to when it did not (mean of per-simulator differences over %d simulators with both; "+
		"fewer tool calls for %d, fewer questions for %d).",
		ef.CommonTasks, f3(ef.TurnsUFS.R), f3(ef.TurnsR.R), len(tu), s2(ef.MeanToolCallDiff), s2(ef.MeanQuestionDiff), ef.Compared, ef.ToolCallNegative, ef.QuestionNegative)
	f.caption += fd.smallSentence()
	return f, nil
}

// fidelitySection writes the "User fidelity" section of report.md: the
// summary tables, the frontier choices and epoch cost, the tables of every
// analysis, the section's figures and a methods paragraph.
func (r *Report) fidelitySection(b *strings.Builder, out []built) {
	fd := r.fid
	if fd == nil || fd.n == 0 {
		return
	}
	in := fd.in
	scored, excluded := 0, 0
	for _, s := range fd.ufs {
		scored += s.Scored
		excluded += s.Excluded
	}
	b.WriteString("### User fidelity score (UFS)\n\n")
	fmt.Fprintf(b, "User fidelity of %d user simulators over %d episodes graded by %s: %d scored, %d excluded "+
		"(flagged P0, not their task's conversation, or no applicable criterion).\n\n", len(fd.ufs), fd.n, mdCode(in.Grader), scored, excluded)
	if s := in.TaskSplit; s != nil {
		fmt.Fprintf(b, "Only the tasks of task split %s (tau2's split_tasks.json): %d tasks of %s; episodes of other tasks are left out of every table and figure of this section.\n\n",
			mdCode(s.Name), len(s.Tasks), mdText(strings.Join(s.domains(), ", ")))
	}

	b.WriteString("#### Table 1: summary per simulator\n\n")
	t1 := table{header: []string{"simulator", "scored", "excluded", "mean R", "mean R 95% CI", "UFS", "UFS 95% CI", "cost/sim ($)", "cost", "dominated"}}
	for i, s := range fd.ufs {
		kind := "unknown"
		if s.CostKnown > 0 {
			kind = "recorded"
			if s.CostEstimated {
				kind = "estimated"
			}
		}
		dom := ""
		if fd.frontier.Dominated[i] {
			dom = "yes (by " + fd.frontier.DominatedBy[i] + ")"
		}
		u := fd.unc.Sims[i]
		t1.add(s.Simulator, strconv.Itoa(s.Scored), strconv.Itoa(s.Excluded), fnumOr(s.MeanR, 3, "n/a"), ciText(u.MeanR.Lo, u.MeanR.Hi),
			fnumOr(s.UFS, 3, "n/a"), ciText(u.UFS.Lo, u.UFS.Hi), fnumOr(s.Cost, 5, "n/a"), kind, dom)
	}
	b.WriteString(mdTable(t1))
	if note := fd.smallNote(); note != "" {
		fmt.Fprintf(b, "\n%s\n", note)
	}
	b.WriteString("\n#### Table 2: per domain\n\n")
	t2 := table{header: []string{"simulator", "domain", "n scored", "excluded P0", "excluded no criteria", "mean R", "UFS", "UFS 95% CI (Wilson)"}}
	for i, s := range fd.ufs {
		for j, d := range s.Domains {
			ci := "n/a"
			if j < len(fd.unc.Sims[i].Domains) && d.Scored > 0 {
				w := fd.unc.Sims[i].Domains[j].UFS
				ci = ciText(w.Lo, w.Hi)
			}
			t2.add(s.Simulator, d.Domain, strconv.Itoa(d.Scored), strconv.Itoa(d.ExcludedP0), strconv.Itoa(d.ExcludedNA), fnumOr(d.MeanR, 3, "n/a"), fnumOr(d.UFS, 3, "n/a"), ci)
		}
	}
	b.WriteString(mdTable(t2))
	b.WriteString("\n#### Frontier choice and epoch cost\n\n")
	fmt.Fprintf(b, "U*(q) chosen on the %s. Choice stability: the share of %d bootstrap replicates (tasks resampled within domain) in which each simulator is U*(q) on the replicate's UFS.\n\n",
		map[analysis.FrontierRule]string{analysis.RulePoint: "UFS point estimate", analysis.RuleLower: "lower bound of the UFS 95% interval"}[fd.unc.Rule], fd.unc.Options.B)
	t3 := table{header: []string{"q", "U*(q)", "UFS", "cost/sim ($)", "feasible", fmt.Sprintf("epoch cost ($, %d prompts x %d rollouts)", in.EpochPrompts, in.EpochRollouts),
		"choice stability", "not distinguishable from U*(q)"}}
	for i, c := range fd.frontier.Choices {
		who, epoch := "none feasible", "n/a"
		if c.Simulator != "" {
			who = c.Simulator
			epoch = fnum(analysis.EpochCost(in.EpochPrompts, in.EpochRollouts, c.Cost), 2)
		}
		st := fd.unc.Stability[i]
		t3.add(f2(c.Q), who, fnumOr(c.UFS, 3, "n/a"), fnumOr(c.Cost, 5, "n/a"), strconv.Itoa(c.Feasible), epoch, stabilityText(st), orNone(strings.Join(st.Indistinguishable, ", ")))
	}
	b.WriteString(mdTable(t3))
	fmt.Fprintf(b, "\nEfficient frontier (by cost): %s.\n\n", mdText(orNone(strings.Join(fd.frontier.Efficient, ", "))))
	fd.pairwiseSection(b)
	_, _, rewardK := r.rewardTrials()
	fd.trialsSection(b, rewardK >= 2)

	if len(fd.overlap) > 0 {
		b.WriteString("### Probe overlap\n\n")
		t := table{header: []string{"probe", "simulator", "fired (scored)", "fired, every criterion passed", "UFS", "UFS with probe folded", "rank", "rank folded"}}
		for _, o := range fd.overlap {
			t.add(o.Probe, o.Simulator, strconv.Itoa(o.Fired), strconv.Itoa(o.FiredAllPass), fnumOr(o.UFS, 3, "n/a"), fnumOr(o.Folded, 3, "n/a"), strconv.Itoa(o.RankUFS), strconv.Itoa(o.RankFolded))
		}
		b.WriteString(mdTable(t))
		var ch []string
		for _, p := range sortedStrings(fd.changed) {
			ch = append(ch, p)
		}
		fmt.Fprintf(b, "\nProbes whose folding changes the ranking: %s.\n\n", mdText(orNone(strings.Join(ch, ", "))))
	}
	if len(fd.agree) > 0 {
		// The heading names no grader: a heading's anchor, in the contents,
		// would carry the names' letters into an attribute.
		fmt.Fprintf(b, "### Agreement between graders\n\nGraders %s and %s on the (episode, criterion) pairs both graded.\n\n", mdCode(in.Grader), mdCode(in.SecondGrader))
		t := table{header: []string{"family", "verdicts", "equal", "kappa", "95% CI"}}
		for _, a := range fd.agree {
			ci := fnumOr(a.Kappa.Lo, 3, "n/a") + " to " + fnumOr(a.Kappa.Hi, 3, "n/a")
			if a.Kappa.Degenerate != "" {
				ci = "none: " + a.Kappa.Degenerate
			}
			t.add(a.Family, strconv.Itoa(a.N), strconv.Itoa(a.Equal), fnumOr(a.Kappa.Kappa, 3, "n/a"), ci)
		}
		b.WriteString(mdTable(t))
		fmt.Fprintf(b, "\nSame episode fidelity f in %d of %d episodes both graded.\n\n", fd.sameF, fd.agreeEps)
	}
	studyFigures(b, out, StudyFidelity, func(name string) bool { return name != "probe-rates" && name != "reward-range" })
}

// fidelityMethods writes the methods of the user-fidelity study: what the
// probes are and, when episodes were graded, how UFS and every analysis
// of it are computed.
func (r *Report) fidelityMethods(b *strings.Builder) {
	b.WriteString("### Methods (user fidelity)\n\n")
	b.WriteString("Episodes are read from tau2-bench result files (or tau-bench v1 trajectories). The judge-free probes (`ub probes --probe P` defines each) " +
		"flag what can be told from the transcript alone; probe P0 (the user states another customer's identity) keeps an episode out of fidelity scoring.")
	fd := r.fid
	if fd == nil || fd.n == 0 {
		b.WriteString("\n\n")
		return
	}
	in := fd.in
	prices := "No cost was estimated."
	if in.Prices != "" {
		prices = "Estimated costs: " + mdText(in.Prices) + "."
	}
	blind := fmt.Sprintf("The verdicts of grader %s were imported (ub verdicts import): whether it saw which simulator produced an episode is not recorded.", mdCode(in.Grader))
	if !in.GraderImported {
		blind = fmt.Sprintf("Grader %s graded with ub grade, one criterion per call, without the simulator's name.", mdCode(in.Grader))
	}
	fmt.Fprintf(b, " Each task's rubric holds criteria about the simulated user only, each grounded in a verbatim quote of the task's blueprint or the "+
		"simulator guidelines (checked after NFKC, space, quote-mark and `**` normalisation, case-folded). A grader gives every (episode, criterion) "+
		"pass, fail or na. %s An episode's fidelity f is 1 when every applicable (non-na) criterion "+
		"passed, else 0; episodes with no applicable criterion, and episodes flagged P0, are "+
		"excluded and counted. UFS is the mean f of a simulator's scored episodes per domain, and the unweighted mean over domains. Success is R >= %s. "+
		"Cost per simulation is the mean of the recorded user cost where it is a positive number, else the user messages' tokens priced by a dated "+
		"table (estimated), else unknown: a simulator of unknown cost is never chosen nor compared on the frontier. U*(q) is the cheapest simulator "+
		"with UFS >= q, ties by higher UFS then name; a simulator is strictly dominated when another is no more expensive and no less faithful and "+
		"better in one. The family effect is computed per (simulator, domain) cell with >= %d scored episodes with and without the family. "+
		"Agent effort compares successful scored episodes with and without a failed disclosure criterion; the turns correlations use the tasks "+
		"every simulator completed (a non-P0 episode with a reward). A probe folded into UFS sets f = 0 wherever it fired. Kappa between graders is "+
		"Cohen's over pass / fail / na with the Fleiss-Cohen-Everitt interval. %s Simulators are named by their user simulator, with the agent "+
		"added when one user simulator ran against several agents. %s\n\n", blind, fnum(in.Threshold, 2), analysis.MinCell, prices, fd.uncertaintyMethods())
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// FidelityTables returns the section's analyses as plain rows for tests
// and callers that print them: the UFS per simulator and the frontier.
func (r *Report) FidelityTables() ([]analysis.SimUFS, analysis.FrontierResult, bool) {
	if r.fid == nil {
		return nil, analysis.FrontierResult{}, false
	}
	return r.fid.ufs, r.fid.frontier, true
}

// FidelityEpisodes keeps the episodes graded by grader, simulators named
// by analysis.LabelSimulators (on a copy: eps is left as it is).
func FidelityEpisodes(eps []ub.FidelityEpisode, grader string) []ub.FidelityEpisode {
	var out []ub.FidelityEpisode
	for _, e := range eps {
		if e.Grader == grader {
			out = append(out, e)
		}
	}
	analysis.LabelSimulators(out)
	return out
}

// FidelitySource gives the episodes of eps graded by grader, simulators
// named as analysis.LabelSimulators names them, each time it is ranged
// over, as FidelityEpisodes keeps them but without holding them: it goes
// over eps once now to find the simulators that ran with several agents.
func FidelitySource(eps iter.Seq[ub.FidelityEpisode], grader string) iter.Seq[ub.FidelityEpisode] {
	agents := map[string]map[string]bool{}
	for e := range eps {
		if e.Grader != grader {
			continue
		}
		if agents[e.Simulator] == nil {
			agents[e.Simulator] = map[string]bool{}
		}
		agents[e.Simulator][e.Agent] = true
	}
	labels := map[[2]string]string{} // one copy of each "sim / agent"
	for sim, as := range agents {
		if len(as) > 1 {
			for a := range as {
				labels[[2]string{sim, a}] = sim + " / " + a
			}
		}
	}
	return func(yield func(ub.FidelityEpisode) bool) {
		for e := range eps {
			if e.Grader != grader {
				continue
			}
			if l, ok := labels[[2]string{e.Simulator, e.Agent}]; ok {
				e.Simulator = l
			}
			if !yield(e) {
				return
			}
		}
	}
}

// shortNames drops the prefix and suffix every name shares (a run's
// "user_simulator:" and "@t1"), cut at a separator, so that labels in a
// figure stay short; the table keeps the full names. A single name, or
// names that would become empty or equal, are returned as they are.
func shortNames(names []string) []string {
	if len(names) < 2 {
		return names
	}
	pre, suf := names[0], names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, pre) {
			pre = pre[:len(pre)-1]
		}
		for !strings.HasSuffix(n, suf) {
			suf = suf[1:]
		}
	}
	if i := strings.LastIndexAny(pre, ":/_-"); i >= 0 {
		pre = pre[:i+1]
	} else {
		pre = ""
	}
	if i := strings.IndexAny(suf, "@:/_-"); i >= 0 {
		suf = suf[i:]
	} else {
		suf = ""
	}
	out := make([]string, len(names))
	seen := map[string]bool{}
	for i, n := range names {
		if len(pre)+len(suf) >= len(n) {
			return names
		}
		out[i] = n[len(pre) : len(n)-len(suf)]
		if seen[out[i]] {
			return names
		}
		seen[out[i]] = true
	}
	return out
}

// spreadLabels places each point's label beside it, 9 points off, in the
// order of the points from the top, at the nearest height that is free:
// whose band (3 points below the returned anchor to 8 above it) overlaps
// no label placed before, crosses no horizontal line at one of the
// heights in avoid, and reaches no other point, its ring (7 points) or its
// error bar (errs). It tries just below the point, then just above, then
// farther down and up in steps of 5 points, at each height right of the
// point first, then left of it (left[i]: the label ends at its anchor).
// Boxes are estimated in data units of a plot about 400 points wide and
// 260 high with 8-point text (a character about 4.4 points wide, a line
// 10 points high); x is on a log scale from xmin to xmax. The anchors are
// where the labels' text starts (or ends), at their bottom.
func spreadLabels(pts plotter.XYs, errs plotter.YErrors, labels []string, avoid []float64, xmin, xmax, ymin, ymax float64) (anchors plotter.XYs, left []bool) {
	const widthPt, heightPt, charPt, linePt = 400.0, 260.0, 4.4, 10.0
	decade := (math.Log10(xmax) - math.Log10(xmin)) / widthPt // log10 units per point
	pt := (ymax - ymin) / heightPt                            // data units per point
	line := linePt * pt
	type box struct{ x0, x1, y float64 }
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return pts[order[a]].Y > pts[order[b]].Y })
	anchors = make(plotter.XYs, len(pts))
	left = make([]bool, len(pts))
	var placed []box
	free := func(b box) bool {
		if b.y-3*pt < ymin || b.y+8*pt > ymax {
			return false
		}
		for _, o := range placed {
			if b.x0 < o.x1 && o.x0 < b.x1 && math.Abs(b.y-o.y) < 0.999*line {
				return false
			}
		}
		for _, a := range avoid {
			if a > b.y-3*pt && a < b.y+8*pt {
				return false
			}
		}
		for j, q := range pts {
			x := math.Log10(q.X)
			lo, hi := q.Y-7*pt, q.Y+7*pt
			if j < len(errs) {
				lo, hi = math.Min(lo, q.Y-errs[j].Low), math.Max(hi, q.Y+errs[j].High)
			}
			if x+7*decade > b.x0 && x-7*decade < b.x1 && hi > b.y-3*pt && lo < b.y+8*pt {
				return false
			}
		}
		return true
	}
	var offsets []float64 // in points, from the point to the anchor
	for k := 0; k < 10; k++ {
		offsets = append(offsets, -9-5*float64(k), 3+5*float64(k))
	}
	for _, i := range order {
		x := math.Log10(pts[i].X)
		w := decade * charPt * float64(len(labels[i]))
		b := box{x + 9*decade, x + 9*decade + w, pts[i].Y - 9*pt}
		done := false
		for _, d := range offsets {
			for _, l := range []bool{false, true} {
				c := box{x + 9*decade, x + 9*decade + w, pts[i].Y + d*pt}
				if l {
					c.x0, c.x1 = x-9*decade-w, x-9*decade
				}
				if free(c) {
					b, left[i], done = c, l, true
					break
				}
			}
			if done {
				break
			}
		}
		placed = append(placed, b)
		ax := b.x0
		if left[i] {
			ax = b.x1
		}
		anchors[i] = plotter.XY{X: math.Pow(10, ax), Y: b.y}
	}
	return anchors, left
}
