package reports

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/analysis/probes"
	"github.com/ub-bench/ub/queries"
)

const hintEpisodes = "no episodes: run ub ingest on tau2-bench result files or tau-bench v1 trajectories"

// writeTau2Releases names the tau2-bench releases the commits belong to
// (analysis.Tau2Release), when any is known, and warns when runs mix
// releases whose scores tau2 declares not comparable.
func writeTau2Releases(b *strings.Builder, commits map[string]bool, runs []analysis.Tau2Run) {
	n := map[string]int{}
	unknown := 0
	for c := range commits {
		if label, _, ok := analysis.Tau2Release(c); ok {
			n[label]++
		} else {
			unknown++
		}
	}
	if len(n) == 0 {
		return
	}
	var parts []string
	for _, label := range sortedKeysOf(n) {
		parts = append(parts, fmt.Sprintf("%s (%d commits)", label, n[label]))
	}
	if unknown > 0 {
		parts = append(parts, fmt.Sprintf("no known release (%d commits)", unknown))
	}
	fmt.Fprintf(b, "tau2-bench releases of those commits (\"v0.2.0+\": after v0.2.0, before the next): %s.\n\n", mdText(strings.Join(parts, ", ")))
	sort.Slice(runs, func(i, j int) bool { return runs[i].Commit+runs[i].Domain < runs[j].Commit+runs[j].Domain })
	for _, w := range analysis.Tau2ReleaseWarnings(runs) {
		fmt.Fprintf(b, "**Warning:** %s.\n\n", mdText(w))
	}
}

// benchmarkName labels an episode format in tables and figures.
func benchmarkName(format string) string {
	if format == "tau1" {
		return "tau-bench v1"
	}
	return format
}

// glyphs cycle with the palette so that more series than colours stay apart.
var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}

func seriesStyle(i int) (color.Color, draw.GlyphDrawer) {
	if i < len(palette) {
		return palette[i], glyphs[0]
	}
	return palette[i%len(palette)], glyphs[(i/len(palette))%len(glyphs)]
}

// probeStyle gives each of up to nine series a colour of its own: the
// palette, then black and grey (with squares and triangles, apart from the
// palette's circles); more series cycle as seriesStyle does.
func probeStyle(i int) (color.Color, draw.GlyphDrawer) {
	switch {
	case i < len(palette):
		return palette[i], draw.CircleGlyph{}
	case i == len(palette):
		return color.Black, draw.SquareGlyph{}
	case i == len(palette)+1:
		return colGrey, draw.TriangleGlyph{}
	}
	return seriesStyle(i)
}

// episodesOf counts the workspace's episodes per user simulator.
func (r *Report) episodesOf() map[string]int {
	n := map[string]int{}
	for e := range r.in.Episodes.All() {
		n[e.UserSim]++
	}
	return n
}

// probeRates draws each probe's rate per user simulator with its 95% Wilson
// interval (SPEC 6.3, 8): simulators down the side, one colour per probe.
func (r *Report) probeRates() (*figure, error) {
	ep := r.in.Episodes
	if ep == nil {
		return nil, missing("probe-rates", hintEpisodes)
	}
	if len(ep.Rates) == 0 {
		return nil, missing("probe-rates", "no probe results: run ub probes")
	}
	simSet := map[string]bool{}
	rate := map[[2]string]queries.ProbeRate{}
	for _, x := range ep.Rates {
		simSet[x.UserSim] = true
		rate[[2]string{x.UserSim, x.Probe}] = x
	}
	sims := sortedStrings(simSet)
	f := &figure{}
	f.table.header = []string{"user_sim", "probe", "n", "hits", "rate", "wilson_lo", "wilson_hi"}
	p := newPlot("Judge-free probes: share of episodes with a finding", "share of applicable episodes (95% Wilson interval)", "")
	names := make([]string, len(sims))
	count := r.episodesOf()
	for i, s := range shortNames(sims) {
		names[len(sims)-1-i] = fmt.Sprintf("%s (n = %d)", s, count[sims[i]])
	}
	p.NominalY(names...)
	probeNames := probes.Names()
	width := 0.8
	var worst struct {
		sim, probe string
		rate       float64
	}
	worst.rate = -1
	for j, pr := range probeNames {
		var pos []float64
		var vals []interval
		for i, s := range sims {
			x, ok := rate[[2]string{s, pr}]
			if !ok || x.N == 0 {
				continue
			}
			w, err := analysis.Wilson(x.Hits, x.N, analysis.Confidence)
			if err != nil {
				return nil, err
			}
			f.table.add(s, pr, strconv.Itoa(x.N), strconv.Itoa(x.Hits), f3(w.P), f3(w.Lo), f3(w.Hi))
			pos = append(pos, float64(len(sims)-1-i)+width/2-width*(float64(j)+0.5)/float64(len(probeNames)))
			vals = append(vals, interval{w.P, w.Lo, w.Hi})
			if pr != probes.ProbeP1a && x.N >= 5 && w.P > worst.rate {
				worst.sim, worst.probe, worst.rate = s, pr, w.P
			}
		}
		col, shape := probeStyle(j)
		s, err := errDots(p, pos, vals, true, col, shape, vg.Points(2.5))
		if err != nil {
			return nil, err
		}
		if s != nil {
			p.Legend.Add(pr, s)
		}
	}
	sort.SliceStable(f.table.rows, func(a, b int) bool {
		if f.table.rows[a][0] != f.table.rows[b][0] {
			return f.table.rows[a][0] < f.table.rows[b][0]
		}
		return false
	})
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = -0.6, float64(len(sims))-0.4
	p.Legend.Top, p.Legend.Left = true, false
	p.Add(plotter.NewGrid())
	h := vg.Length(1.4+0.5*float64(len(sims))) * vg.Inch
	f.pic = single(p, 8*vg.Inch, h)
	var b strings.Builder
	fmt.Fprintf(&b, "Share of the episodes each probe applies to in which it fired at least once, per user simulator, with the 95%% Wilson interval. ")
	for _, pr := range probeNames {
		desc, _ := probes.ByName(pr)
		fmt.Fprintf(&b, "%s = %s. ", pr, desc.Description)
	}
	if worst.rate >= 0 {
		fmt.Fprintf(&b, "Highest rate (n >= 5, P1a aside): %s on %s, %s.", worst.probe, worst.sim, f3(worst.rate))
	}
	f.caption = strings.TrimSpace(b.String())
	return f, nil
}

// soloNames is names as code spans, joined by commas.
func soloNames(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = mdCode(n)
	}
	return strings.Join(out, ", ")
}

// spreads is the reward spread of the workspace's episodes (SPEC 6.4).
func (r *Report) spreads() []analysis.DomainSpread {
	eps := r.in.Episodes.All()
	return analysis.RewardSpread(func(yield func(analysis.EpisodeReward) bool) {
		for e := range eps {
			rw := math.NaN()
			if e.Reward != nil {
				rw = *e.Reward
			}
			if !yield(analysis.EpisodeReward{Benchmark: benchmarkName(e.Format), Domain: e.Domain,
				UserSim: e.UserSim, Agent: e.Agent, TaskID: e.TaskID, Reward: rw}) {
				return
			}
		}
	})
}

// nRange is the n of a domain's dots: the episodes each simulator's mean
// is over, "n = 50 each" or "n = 1-50".
func nRange(sims []analysis.SimReward) string {
	lo, hi := math.MaxInt, 0
	for _, s := range sims {
		lo, hi = min(lo, s.N), max(hi, s.N)
	}
	switch {
	case len(sims) == 0:
		return ""
	case lo == hi && len(sims) > 1:
		return fmt.Sprintf("n = %d each", lo)
	case lo == hi:
		return fmt.Sprintf("n = %d", lo)
	}
	return fmt.Sprintf("n = %d-%d", lo, hi)
}

// rewardRange draws, per domain, the mean reward R of each user simulator
// and a grey bar from the lowest to the highest (SPEC 6.4, 8). A domain
// whose simulators did not meet the same agent on the same tasks is marked
// confounded.
func (r *Report) rewardRange() (*figure, error) {
	if r.in.Episodes == nil {
		return nil, missing("reward-range", hintEpisodes)
	}
	ds := r.spreads()
	f := &figure{}
	f.table.header = []string{"benchmark", "domain", "user_sim", "episodes", "mean_r", "in_range", "domain_min", "domain_max", "confounded", "agents"}
	simSet := map[string]bool{}
	for _, d := range ds {
		for _, s := range d.Sims {
			simSet[s.UserSim] = true
		}
	}
	sims := sortedStrings(simSet)
	simIdx := map[string]int{}
	for i, s := range sims {
		simIdx[s] = i
	}
	names := make([]string, len(ds))
	p := newPlot("Reward range across user simulators, per domain", "mean reward R", "")
	bySim := make([]plotter.XYs, len(sims))
	var confounded, clean, small []string
	for i, d := range ds {
		for _, s := range d.Small {
			small = append(small, fmt.Sprintf("%s in %s %s", s, d.Benchmark, d.Domain))
		}
		y := float64(len(ds) - 1 - i)
		label, n := d.Benchmark+" "+d.Domain, nRange(d.Sims)
		if d.Confounded {
			n = "confounded; " + n
			confounded = append(confounded, d.Benchmark+" "+d.Domain)
		} else if len(d.Sims)-len(d.Small) > 1 {
			clean = append(clean, fmt.Sprintf("%s %s (%d simulators, R %s to %s)", d.Benchmark, d.Domain, len(d.Sims)-len(d.Small), f3(d.Min), f3(d.Max)))
		}
		names[len(ds)-1-i] = label
		if n != "" {
			names[len(ds)-1-i] += " (" + n + ")"
		}
		if !math.IsNaN(d.Min) {
			bar, err := plotter.NewLine(plotter.XYs{{X: d.Min, Y: y}, {X: d.Max, Y: y}})
			if err != nil {
				return nil, err
			}
			bar.LineStyle.Color = colLight
			bar.LineStyle.Width = vg.Points(9)
			bar.LineStyle.Width = vg.Points(9)
			p.Add(bar)
		}
		for _, s := range d.Sims {
			f.table.add(d.Benchmark, d.Domain, s.UserSim, strconv.Itoa(s.N), f3(s.MeanR), strconv.FormatBool(s.N >= analysis.MinScored), f3(d.Min), f3(d.Max),
				strconv.FormatBool(d.Confounded), strings.Join(s.Agents, " "))
			if !math.IsNaN(s.MeanR) {
				k := simIdx[s.UserSim]
				bySim[k] = append(bySim[k], plotter.XY{X: s.MeanR, Y: y})
			}
		}
	}
	p.NominalY(names...)
	short := shortNames(sims)
	for k, xys := range bySim {
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		col, shape := seriesStyle(k)
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = col, shape, vg.Points(3.5)
		p.Add(sc)
		p.Legend.Add(short[k], sc)
	}
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = -0.6, float64(len(ds))-0.4
	p.Legend.Top, p.Legend.Left = true, false
	p.Add(plotter.NewGrid())
	h := vg.Length(1.4+0.45*float64(len(ds))+0.18*float64(len(sims))) * vg.Inch
	f.pic = single(p, 8*vg.Inch, h)
	var b strings.Builder
	fmt.Fprintf(&b, "Mean task reward R of each user simulator per domain (dots), grey bar from the lowest to the highest mean of the simulators with at least %d episodes with a reward. ", analysis.MinScored)
	if len(small) > 0 {
		fmt.Fprintf(&b, "Fewer than %d episodes, drawn but not in the range: %s. ", analysis.MinScored, strings.Join(small, ", "))
	}
	if len(clean) > 0 {
		fmt.Fprintf(&b, "Same agent and tasks, so the spread is the simulators': %s. ", strings.Join(clean, "; "))
	}
	if len(confounded) > 0 {
		fmt.Fprintf(&b, "Confounded (the simulators met different agents or tasks, so the spread mixes agent and simulator): %s.", strings.Join(confounded, ", "))
	}
	f.caption = strings.TrimSpace(b.String())
	return f, nil
}

// userFidelity writes the "User fidelity" section of report.md when the
// workspace has episodes: what was ingested per result file (episodes, mean
// R, P0 flags, cost), the benchmark versions, the probe rates per
// simulator and the reward spread per domain.
func (r *Report) userFidelity(b *strings.Builder) {
	ep := r.in.Episodes
	if ep == nil {
		return
	}
	b.WriteString("### Episodes\n\n")
	type fileAcc struct {
		format, domain, sim, agent string
		n, rewarded, p0, costed    int
		sumR, sumCost              float64
		estimated                  bool
	}
	// A result file may hold the episodes of several domains, simulators
	// and agents (ub synth writes one file): a row per file and each of
	// them.
	type fileKey struct{ path, domain, sim, agent string }
	files := map[fileKey]*fileAcc{}
	paths := map[string]bool{}
	commits := map[string]bool{}
	versions := map[string]bool{}
	runSeen := map[string]bool{}
	var runs []analysis.Tau2Run
	flagged := 0
	for e := range ep.All() {
		key := fileKey{e.SourceFile, e.Domain, e.UserSim, e.Agent}
		a := files[key]
		if a == nil {
			a = &fileAcc{format: e.Format, domain: e.Domain, sim: e.UserSim, agent: e.Agent}
			files[key] = a
		}
		paths[e.SourceFile] = true
		a.n++
		if e.Reward != nil {
			a.rewarded++
			a.sumR += *e.Reward
		}
		if e.TaskMismatch {
			a.p0++
			flagged++
		}
		if e.UserCost != nil {
			a.costed++
			a.sumCost += *e.UserCost
			if e.CostEstimated != nil && *e.CostEstimated {
				a.estimated = true
			}
		}
		if e.GitCommit != nil {
			commits[*e.GitCommit] = true
			if !runSeen[*e.GitCommit+"\x00"+e.Domain] {
				runSeen[*e.GitCommit+"\x00"+e.Domain] = true
				runs = append(runs, analysis.Tau2Run{Commit: *e.GitCommit, Domain: e.Domain})
			}
		}
		if e.Tau2Version != nil {
			versions[*e.Tau2Version] = true
		}
	}
	fmt.Fprintf(b, "%d episodes from %d result %s. %d episodes state another customer's identity (probe P0) and are kept out of fidelity scoring.\n\n",
		ep.Len(), len(paths), plural(len(paths), "file", "files"), flagged)
	if ep.Placeholders > 0 {
		fmt.Fprintf(b, "%d %s never ran: tau2 recorded %s with termination reason `infrastructure_error` and no messages. "+
			"As tau2 does, the report leaves them out of every count, mean and probe rate.\n\n",
			ep.Placeholders, plural(ep.Placeholders, "simulation", "simulations"), plural(ep.Placeholders, "a placeholder", "placeholders"))
	}
	if len(ep.Solo) > 0 {
		soloFiles, soloAgents := map[string]bool{}, map[string]bool{}
		for _, e := range ep.Solo {
			soloFiles[e.SourceFile], soloAgents[e.Agent] = true, true
		}
		fmt.Fprintf(b, "%d %s from %d result %s (agent %s) ran in tau2's solo mode (user `dummy_user`): no simulated user took part, "+
			"the agent performed the user's actions itself. They are left out of every user-simulator statistic below (episodes, probe rates, reward range, fidelity).\n\n",
			len(ep.Solo), plural(len(ep.Solo), "episode", "episodes"), len(soloFiles), plural(len(soloFiles), "file", "files"),
			soloNames(sortedStrings(soloAgents)))
	}
	t := table{header: []string{"file", "benchmark", "domain", "user simulator", "agent", "episodes", "mean R", "P0 flagged", "user cost / episode"}}
	keys := make([]fileKey, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.path != b.path {
			return a.path < b.path
		}
		if a.domain != b.domain {
			return a.domain < b.domain
		}
		if a.sim != b.sim {
			return a.sim < b.sim
		}
		return a.agent < b.agent
	})
	for _, key := range keys {
		a, path := files[key], key.path
		meanR := math.NaN()
		if a.rewarded > 0 {
			meanR = a.sumR / float64(a.rewarded)
		}
		cost := "unknown"
		if a.costed > 0 {
			cost = "$" + fnum(a.sumCost/float64(a.costed), 4)
			if a.estimated {
				cost += " (estimated)"
			} else if a.format == "tau1" {
				// tau-bench v1 overwrites total_cost each turn: what it
				// records is the last turn's cost.
				cost = "at least " + cost + " (v1 records the last turn's cost)"
			}
			if a.costed < a.n {
				cost += fmt.Sprintf(" (%d of %d known)", a.costed, a.n)
			}
		}
		t.add(filepath.Base(path), benchmarkName(a.format), a.domain, a.sim, a.agent, strconv.Itoa(a.n), f3(meanR), strconv.Itoa(a.p0), cost)
	}
	b.WriteString(mdTable(t))
	b.WriteString("\n")
	fmt.Fprintf(b, "Benchmark versions: %d distinct tau2-bench commits (`info.git_commit`)", len(commits))
	switch {
	case versions["1.x"] && versions["2.x"]:
		b.WriteString("; **this workspace mixes tau2 1.x and 2.x runs**, whose simulators and evaluators differ.\n\n")
	case len(versions) == 0:
		b.WriteString("; the files do not say which tau2 release (1.x or 2.x) they come from.\n\n")
	default:
		fmt.Fprintf(b, "; release %s.\n\n", mdText(strings.Join(sortedStrings(versions), ", ")))
	}
	writeTau2Releases(b, commits, runs)
	if len(ep.Rates) > 0 {
		b.WriteString("### Judge-free probes\n\n")
		b.WriteString("Per user simulator, the episodes each probe applies to (n) and those where it fired (hits); figure `probe-rates`. Each probe is defined by `ub probes --probe P`.\n\n")
		pt := table{header: []string{"user simulator", "probe", "n", "hits", "rate"}}
		for _, x := range ep.Rates {
			pt.add(x.UserSim, x.Probe, strconv.Itoa(x.N), strconv.Itoa(x.Hits), f3(float64(x.Hits)/float64(max(x.N, 1))))
		}
		b.WriteString(mdTable(pt))
		b.WriteString("\n")
	}
	b.WriteString("### Reward spread\n\n")
	st := table{header: []string{"benchmark", "domain", "simulators", "min mean R", "max mean R", "comparison"}}
	for _, d := range r.spreads() {
		cmp := "same agent and tasks"
		if d.Confounded {
			cmp = "confounded: " + d.Reason
		}
		if len(d.Small) > 0 {
			cmp += fmt.Sprintf("; fewer than %d episodes, not in the range: %s", analysis.MinScored, strings.Join(d.Small, ", "))
		}
		st.add(d.Benchmark, d.Domain, strconv.Itoa(len(d.Sims)), f3(d.Min), f3(d.Max), cmp)
	}
	b.WriteString(mdTable(st))
	b.WriteString("\n")
	r.varianceSection(b)
	r.rewardTrialsSection(b)
}
