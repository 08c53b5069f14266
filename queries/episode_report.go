package queries

import (
	"context"
	"database/sql"
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
	// the placeholders, nor the episodes of solo-mode runs.
	Episodes []EpisodeRow
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
// solo-mode episodes, Episodes is empty and Rates nil: the report says
// what it left out.
func LoadEpisodeReport(ctx context.Context, db Querier) (*EpisodeReport, error) {
	rep := &EpisodeReport{}
	err := epScan(ctx, db, "ep_report_episodes", func(r *sql.Rows) error {
		var e EpisodeRow
		err := r.Scan(&e.SimulationID, &e.Format, &e.Domain, &e.UserSim, &e.Agent, &e.TaskID, &e.Reward, &e.SourceFile,
			&e.UserCost, &e.CostEstimated, &e.TaskMismatch, &e.GitCommit, &e.Tau2Version, &e.Trial, &e.NoUser, &e.NoRun)
		switch {
		case e.NoRun:
			rep.Placeholders++
		case e.NoUser:
			rep.Solo = append(rep.Solo, e)
		default:
			rep.Episodes = append(rep.Episodes, e)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(rep.Episodes) == 0 {
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
