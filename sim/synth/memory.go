package synth

import (
	"fmt"
	"sort"

	"github.com/ub-bench/ub/graph"
	"github.com/ub-bench/ub/queries"
)

// TwinOf is the planted simulator that [MemoryOptions.Twin] copies, and
// TwinSimulator the copy's name.
const (
	TwinOf        = "gpt-5.5"
	TwinSimulator = "gpt-5.5-twin"
)

// MemoryOptions configures InMemory. The zero value is valid: seed 0 at
// scale 1, the leaderboard runs only.
type MemoryOptions struct {
	Seed  uint64
	Scale int // as Options.Scale; 0 means 1
	// Twin adds TwinSimulator: TwinOf's planted behaviour in every
	// condition, under another name and so with its own draws (its own
	// offsets v and generation streams). The pair TwinOf - TwinSimulator
	// is a planted null: equal planted accuracy, independent noise. The
	// other simulators' draws do not change.
	Twin bool
	// Trials is Options.Trials: generations per point; 0 means 1.
	Trials int
}

// InMemory draws the leaderboard of the synthetic study of opts (every
// planted simulator in each of its conditions at N = 14, K = 0) without a
// workspace: the same corpus, points and generations as Write with the
// same seed and scale writes (the points drawn by [graph.FreezePoints] from
// the held-out moments of the eligible developers, as ub points draws
// them), as a queries.Study with Points and Generations, labelled by
// [Judge]: what reports.Prepare scores. It is the fixture of tests that
// need many seeds, where a workspace per seed would take seconds.
func InMemory(opts MemoryOptions) (*queries.Study, error) {
	scale := max(opts.Scale, 1)
	c, err := buildCorpus(opts.Seed, scale, nil)
	if err != nil {
		return nil, err
	}
	var ms []graph.Moment
	for _, m := range c.moments {
		d := c.byName[m.developer]
		ms = append(ms, graph.Moment{Developer: m.developer, Split: d.split, SessionID: m.sessionID, TurnIdx: m.turnIdx, PriorTurns: m.turnIdx})
	}
	frozen := graph.FreezePoints(ms, PointsPerDeveloper, int64(opts.Seed))
	rows := make([]queries.PointRow, len(frozen))
	for i, p := range frozen {
		rows[i] = queries.PointRow{ID: p.ID, Developer: p.Developer, Split: p.Split, SessionID: p.SessionID,
			TurnIdx: p.TurnIdx, PriorTurns: p.PriorTurns, ConstantDose: p.ConstantDose}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Developer != rows[j].Developer {
			return rows[i].Developer < rows[j].Developer
		}
		return rows[i].ID < rows[j].ID
	})
	if want := EligiblePerBlock * scale * PointsPerDeveloper; len(rows) != want {
		return nil, fmt.Errorf("synth: %d points, want %d", len(rows), want)
	}
	st := &queries.Study{Judge: Judge, Generations: []queries.StudyGeneration{}}
	index := map[string]int{}
	for i, p := range rows {
		m := c.moments[p.ID]
		index[p.ID] = i
		st.Points = append(st.Points, queries.StudyPoint{ID: p.ID, Developer: p.Developer, SessionID: p.SessionID, TurnIdx: p.TurnIdx,
			PriorTurns: p.PriorTurns, ConstantDose: p.ConstantDose, Real: m.move, Words: m.words})
	}
	sims := Planted()
	if opts.Twin {
		for _, s := range sims {
			if s.Name == TwinOf {
				s.Name = TwinSimulator
				sims = append(sims, s)
				break
			}
		}
	}
	c.drawGenerations(opts.Seed, sims, runsOf(sims, true), opts.Trials, rows, func(g drawn) {
		st.Generations = append(st.Generations, queries.StudyGeneration{Point: index[g.point.ID], Simulator: g.run.Simulator,
			Condition: g.run.Condition, N: g.run.WindowN, K: g.run.HistoryK, Move: g.move, Words: g.words, TokensIn: g.tin, TokensOut: g.tout, Cost: g.cost,
			Trial: g.trial})
	})
	count := map[[2]string]int{}
	for _, m := range c.profile {
		count[[2]string{m.developer, m.move}]++
	}
	for k, n := range count {
		st.ProfileMoves = append(st.ProfileMoves, queries.StudyProfileMove{Developer: k[0], Move: k[1], Count: n})
	}
	sort.Slice(st.ProfileMoves, func(i, j int) bool {
		a, b := st.ProfileMoves[i], st.ProfileMoves[j]
		if a.Developer != b.Developer {
			return a.Developer < b.Developer
		}
		return a.Move < b.Move
	})
	for _, s := range sims {
		st.Simulators = append(st.Simulators, queries.StudySimulator{Name: s.Name, Backend: Backend, Model: s.Model})
	}
	sort.Slice(st.Simulators, func(i, j int) bool { return st.Simulators[i].Name < st.Simulators[j].Name })
	return st, nil
}
