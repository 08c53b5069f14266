package judge

import (
	"context"
	"errors"
	"fmt"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// FleissResult is Fleiss' kappa of three or more judges on the moves of
// the targets every one of them labelled.
type FleissResult struct {
	Judges []string `json:"judges"`
	Items  int      `json:"items"`
	Kappa  float64  `json:"kappa"`
}

// ErrNoCommonTargets says the judges labelled no target in common: there
// is no Fleiss kappa to compute, which is not a fault of the workspace.
var ErrNoCommonTargets = errors.New("no target every judge labelled")

// FleissJudges computes Fleiss' kappa (analysis.FleissKappa) of the named
// judges over the moves (Moves) of the targets all of them labelled
// readably. Fewer than three judges, or no target they all labelled, is
// an error.
func FleissJudges(ctx context.Context, db queries.Querier, names []string) (FleissResult, error) {
	if len(names) < 3 {
		return FleissResult{}, fmt.Errorf("fleiss: %d judges, want three or more", len(names))
	}
	rows, err := queries.LabelMatrix(ctx, db, names)
	if err != nil {
		return FleissResult{}, err
	}
	moves := Moves()
	col := map[string]int{}
	for i, m := range moves {
		col[m.String()] = i
	}
	var counts [][]int
	last := [2]string{}
	for _, l := range rows {
		key := [2]string{l.Target, l.TargetID}
		if len(counts) == 0 || key != last {
			counts = append(counts, make([]int, len(moves)))
			last = key
		}
		j, ok := col[l.Move]
		if !ok {
			return FleissResult{}, fmt.Errorf("fleiss: judge %s: %s %s: unknown move %q", l.Judge, l.Target, l.TargetID, l.Move)
		}
		counts[len(counts)-1][j]++
	}
	if len(counts) == 0 {
		return FleissResult{}, fmt.Errorf("fleiss: judges %v: %w", names, ErrNoCommonTargets)
	}
	k, err := analysis.FleissKappa(counts)
	if err != nil {
		return FleissResult{}, err
	}
	return FleissResult{Judges: names, Items: len(counts), Kappa: k}, nil
}
