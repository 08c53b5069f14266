package queries

import (
	"context"
	"iter"
	"runtime"
	"slices"
)

// EpisodeRow is one episode as the report reads it. Nil pointers are NULL.
type EpisodeRow struct {
	SimulationID, Format, Domain, UserSim, Agent, TaskID string
	Reward                                               *float64
	SourceFile                                           string
	UserCost                                             *float64 // recorded > 0, else estimated, else nil (unknown)
	CostEstimated                                        *bool
	TaskMismatch                                         bool // flagged by P0
	GitCommit, Tau2Version                               *string
	Trial                                                *int64 // the file's trial number
	NoUser                                               bool   // its run has no simulated user (solo mode)
	NoRun                                                bool   // a placeholder of a simulation that never ran
}

// EpisodeReport is what the report's user-fidelity section and figures
// are drawn from.
type EpisodeReport struct {
	// Episodes are those every statistic counts, by simulation_id: not
	// the placeholders, nor the episodes of solo-mode runs. LoadEpisodeReport
	// leaves it nil and writes them to a tape instead (All and Len read
	// them): the report goes over them several times, and a million of
	// them held in Go took hundreds of megabytes.
	Episodes []EpisodeRow
	tape     *tape
	Rates    []ProbeRate // per user simulator and probe
	// Placeholders counts the simulations that never ran (tau2's
	// termination_reason infrastructure_error, no messages), kept out of
	// every count as tau2 keeps them out of its metrics.
	Placeholders int
	// Solo are the episodes of runs without a simulated user (tau2's solo
	// mode), by simulation_id: no user-simulator statistic counts them.
	Solo []EpisodeRow
}

// LoadEpisodeReport reads the episodes and the probe rates; nil when the
// workspace has no episode at all. When it holds only placeholders and
// solo-mode episodes, Len is 0 and Rates nil: the report says what it left
// out. The episodes a statistic counts go to a temporary file, unlinked at
// once and closed when the EpisodeReport is no longer reachable.
func LoadEpisodeReport(ctx context.Context, db Querier) (*EpisodeReport, error) {
	t, err := newTape(episodeTapeWhat)
	if err != nil {
		return nil, err
	}
	rep := &EpisodeReport{tape: t}
	runtime.AddCleanup(rep, func(t *tape) { t.close() }, t)
	err = eachRow(ctx, db, q("ep_report_episodes"), nil, func(scan func(...any) error) error {
		var e EpisodeRow
		err := scan(&e.SimulationID, &e.Format, &e.Domain, &e.UserSim, &e.Agent, &e.TaskID, &e.Reward, &e.SourceFile,
			&e.UserCost, &e.CostEstimated, &e.TaskMismatch, &e.GitCommit, &e.Tau2Version, &e.Trial, &e.NoUser, &e.NoRun)
		if err != nil {
			return err
		}
		switch {
		case e.NoRun:
			rep.Placeholders++
		case e.NoUser:
			rep.Solo = append(rep.Solo, e)
		default:
			return writeEpisodeRow(t, e)
		}
		return nil
	})
	if err == nil {
		err = t.done()
	}
	if err != nil {
		return nil, err
	}
	if t.n == 0 {
		if rep.Placeholders == 0 && len(rep.Solo) == 0 {
			return nil, nil
		}
		return rep, nil
	}
	if rep.Rates, err = ProbeRatesBySim(ctx, db); err != nil {
		return nil, err
	}
	return rep, nil
}

const episodeTapeWhat = "episodes"

// optional pointers on a tape: a presence byte, then the value.
func writeEpisodeRow(t *tape, e EpisodeRow) error {
	t.str(e.SimulationID)
	t.name(e.Format)
	t.name(e.Domain)
	t.name(e.UserSim)
	t.name(e.Agent)
	t.name(e.TaskID)
	t.name(e.SourceFile)
	t.bool(e.Reward != nil)
	if e.Reward != nil {
		t.float(*e.Reward)
	}
	t.bool(e.UserCost != nil)
	if e.UserCost != nil {
		t.float(*e.UserCost)
	}
	t.bool(e.CostEstimated != nil)
	if e.CostEstimated != nil {
		t.bool(*e.CostEstimated)
	}
	t.bool(e.TaskMismatch)
	t.bool(e.GitCommit != nil)
	if e.GitCommit != nil {
		t.name(*e.GitCommit)
	}
	t.bool(e.Tau2Version != nil)
	if e.Tau2Version != nil {
		t.name(*e.Tau2Version)
	}
	t.bool(e.Trial != nil)
	if e.Trial != nil {
		t.int(*e.Trial)
	}
	t.bool(e.NoUser)
	t.bool(e.NoRun)
	return t.end()
}

func readEpisodeRow(r *tapeReader) EpisodeRow {
	var e EpisodeRow
	e.SimulationID = r.str()
	e.Format, e.Domain, e.UserSim, e.Agent, e.TaskID, e.SourceFile = r.name(), r.name(), r.name(), r.name(), r.name(), r.name()
	if r.bool() {
		x := r.float()
		e.Reward = &x
	}
	if r.bool() {
		x := r.float()
		e.UserCost = &x
	}
	if r.bool() {
		x := r.bool()
		e.CostEstimated = &x
	}
	e.TaskMismatch = r.bool()
	if r.bool() {
		x := r.name()
		e.GitCommit = &x
	}
	if r.bool() {
		x := r.name()
		e.Tau2Version = &x
	}
	if r.bool() {
		x := r.int()
		e.Trial = &x
	}
	e.NoUser, e.NoRun = r.bool(), r.bool()
	return e
}

// Len is the number of episodes every statistic counts.
func (rep *EpisodeReport) Len() int {
	if rep.tape != nil {
		return rep.tape.n
	}
	return len(rep.Episodes)
}

// All gives the episodes every statistic counts, by simulation_id, each
// time it is ranged over (Episodes, or the tape LoadEpisodeReport wrote);
// it may be ranged over concurrently. A failure to read the tape back ends
// the range early and is kept for Err.
func (rep *EpisodeReport) All() iter.Seq[EpisodeRow] {
	if rep.tape == nil {
		return slices.Values(rep.Episodes)
	}
	return func(yield func(EpisodeRow) bool) {
		r := rep.tape.reader()
		for range rep.tape.n {
			e := readEpisodeRow(r)
			if r.err != nil {
				rep.tape.fail(episodeTapeWhat, r.err)
				return
			}
			if !yield(e) {
				return
			}
		}
	}
}

// Err is the first failure to read the episodes back (nil: none).
func (rep *EpisodeReport) Err() error {
	if rep.tape == nil {
		return nil
	}
	return rep.tape.failure()
}
