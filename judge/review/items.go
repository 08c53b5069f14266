package review

import (
	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// Items turns stored decisions into the statistics' input.
func Items(ds []queries.Decision) []analysis.ReviewItem {
	out := make([]analysis.ReviewItem, 0, len(ds))
	for _, d := range ds {
		it := analysis.ReviewItem{Episode: d.SimulationID, Reviewer: d.Reviewer, Kind: d.Kind, Outcome: d.Outcome,
			Domain: d.Domain, TaskID: d.TaskID, Reward: d.Reward.Float64, HasReward: d.Reward.Valid,
			Pi: d.Pi, Stratum: d.Stratum, Salvaged: d.Salvaged}
		for _, e := range d.Errors {
			it.Errors = append(it.Errors, analysis.ReviewFinding{Code: e.Code, Severity: e.Severity})
		}
		out = append(out, it)
	}
	return out
}
