package analysis

import (
	"iter"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

// EpisodeReward is one episode's reward and what it ran on. Benchmark
// tells domains of the same name apart (tau-Trait's telecom is not tau2's).
type EpisodeReward struct {
	Benchmark, Domain, UserSim, Agent, TaskID string
	Reward                                    float64 // NaN when the file records none
}

// SimReward is one user simulator's mean reward in a domain.
type SimReward struct {
	UserSim string
	N       int     // episodes with a reward
	MeanR   float64 // mean of the rewards
	Agents  []string
}

// DomainSpread is the reward spread of SPEC 6.4 in one domain: the mean R of
// each simulator, their min and max, and whether the comparison is
// confounded (the simulators did not all meet one and the same agent on the
// same set of tasks), with the reason.
type DomainSpread struct {
	Benchmark, Domain string
	Sims              []SimReward // by name
	Min, Max          float64     // over the simulators not in Small
	Small             []string    // below the small-sample rule: shown, left out of Min and Max
	Confounded        bool
	Reason            string
}

// RewardSpread groups episodes by benchmark and domain and, in each, by
// user simulator: mean R per simulator (episodes without a reward left
// out), min and max of those means over the simulators with at least
// MinCellN episodes with a reward in the domain and MinScored over all the
// rows (the small-sample rule: a one-episode file does not set a domain's
// maximum); the others are listed in Small.
// A domain with one simulator has Min = Max. Domains come sorted by benchmark and name.
func RewardSpread(rows iter.Seq[EpisodeReward]) []DomainSpread {
	type acc struct {
		sum    float64
		n      int
		agents map[string]bool
		tasks  map[string]bool
	}
	type dkey struct{ b, d string }
	by := map[dkey]map[string]*acc{}
	total := map[string]int{}
	for r := range rows {
		if !math.IsNaN(r.Reward) {
			total[r.UserSim]++
		}
	}
	for r := range rows {
		k := dkey{r.Benchmark, r.Domain}
		if by[k] == nil {
			by[k] = map[string]*acc{}
		}
		a := by[k][r.UserSim]
		if a == nil {
			a = &acc{agents: map[string]bool{}, tasks: map[string]bool{}}
			by[k][r.UserSim] = a
		}
		a.agents[r.Agent] = true
		a.tasks[r.TaskID] = true
		if !math.IsNaN(r.Reward) {
			a.sum += r.Reward
			a.n++
		}
	}
	keys := make([]dkey, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].b != keys[j].b {
			return keys[i].b < keys[j].b
		}
		return keys[i].d < keys[j].d
	})
	var out []DomainSpread
	for _, k := range keys {
		ds := DomainSpread{Benchmark: k.b, Domain: k.d, Min: math.NaN(), Max: math.NaN()}
		sims := by[k]
		names := make([]string, 0, len(sims))
		for s := range sims {
			names = append(names, s)
		}
		sort.Strings(names)
		allAgents := map[string]bool{}
		var taskSet string
		sameTasks := true
		for i, s := range names {
			a := sims[s]
			sr := SimReward{UserSim: s, N: a.n, MeanR: math.NaN(), Agents: slices.Sorted(maps.Keys(a.agents))}
			if a.n > 0 {
				sr.MeanR = a.sum / float64(a.n)
			}
			if a.n < MinCellN || total[s] < MinScored {
				ds.Small = append(ds.Small, s)
			} else {
				if math.IsNaN(ds.Min) || sr.MeanR < ds.Min {
					ds.Min = sr.MeanR
				}
				if math.IsNaN(ds.Max) || sr.MeanR > ds.Max {
					ds.Max = sr.MeanR
				}
			}
			for ag := range a.agents {
				allAgents[ag] = true
			}
			ts := strings.Join(slices.Sorted(maps.Keys(a.tasks)), "\x00")
			if i == 0 {
				taskSet = ts
			} else if ts != taskSet {
				sameTasks = false
			}
			ds.Sims = append(ds.Sims, sr)
		}
		switch {
		case len(allAgents) > 1:
			ds.Confounded, ds.Reason = true, "the simulators met different agents ("+strings.Join(slices.Sorted(maps.Keys(allAgents)), ", ")+")"
		case !sameTasks:
			ds.Confounded, ds.Reason = true, "the simulators ran different task sets"
		}
		out = append(out, ds)
	}
	return out
}

// RewardTrialRow is pass^k of one (user simulator, agent) from the rewards
// alone: no rubric, verdict or probe is needed.
type RewardTrialRow struct {
	UserSim, Agent string
	Tasks          int // tasks with a reward
	MaxTrials      int // most trials of one task
	// PassK[k-1] is pass^k over the tasks with at least k trials, with
	// PassCI[k-1], the Student t 95% interval of the mean over those tasks
	// of C(c, k) / C(n, k), clipped to [0, 1] (NaN bounds with fewer than
	// two tasks; Lo = Hi when every task gives the same value).
	PassK  []PassK
	PassCI []Interval
}

// RewardTrials counts the trials of each task, (benchmark, domain, task),
// of each (user simulator, agent) in rows, a success being R >= threshold
// (tau2's success is R = 1), and returns pass^k (PassHatK) for k =
// 1..maxK with its interval over tasks (MeanCI of the per-task
// C(c, k) / C(n, k), Student 1908, clipped to pass^k's range [0, 1]).
// Rows are sorted by user simulator and agent.
func RewardTrials(rows iter.Seq[TrialReward], threshold float64, maxK int) []RewardTrialRow {
	type group struct{ sim, agent string }
	type task struct{ bench, dom, task string }
	by := map[group]map[task]*TaskTrials{}
	for r := range rows {
		if math.IsNaN(r.Reward) {
			continue
		}
		g, t := group{r.UserSim, r.Agent}, task{r.Benchmark, r.Domain, r.TaskID}
		if by[g] == nil {
			by[g] = map[task]*TaskTrials{}
		}
		if by[g][t] == nil {
			by[g][t] = &TaskTrials{}
		}
		by[g][t].N++
		if r.Reward >= threshold {
			by[g][t].C++
		}
	}
	groups := make([]group, 0, len(by))
	for g := range by {
		groups = append(groups, g)
	}
	sort.Slice(groups, func(i, j int) bool {
		if groups[i].sim != groups[j].sim {
			return groups[i].sim < groups[j].sim
		}
		return groups[i].agent < groups[j].agent
	})
	var out []RewardTrialRow
	for _, g := range groups {
		ts := make([]task, 0, len(by[g]))
		for t := range by[g] {
			ts = append(ts, t)
		}
		sort.Slice(ts, func(i, j int) bool {
			a, b := ts[i], ts[j]
			if a.bench != b.bench {
				return a.bench < b.bench
			}
			if a.dom != b.dom {
				return a.dom < b.dom
			}
			return a.task < b.task
		})
		row := RewardTrialRow{UserSim: g.sim, Agent: g.agent, Tasks: len(ts)}
		var tt []TaskTrials
		for _, t := range ts {
			tt = append(tt, *by[g][t])
			row.MaxTrials = max(row.MaxTrials, by[g][t].N)
		}
		for k := 1; k <= maxK; k++ {
			p, _ := PassHatK(tt, k)
			var per []float64
			for _, t := range tt {
				if t.N >= k {
					per = append(per, combRatio(t.C, t.N, k))
				}
			}
			iv := MeanCI(per, Confidence)
			iv.Lo, iv.Hi = math.Max(0, iv.Lo), math.Min(1, iv.Hi)
			row.PassK, row.PassCI = append(row.PassK, p), append(row.PassCI, iv)
		}
		out = append(out, row)
	}
	return out
}
