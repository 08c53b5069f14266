package queries

import (
	"context"
	"errors"
	"iter"
	"strings"

	"github.com/ub-bench/ub"
)

// FidelityTape holds the episodes a grader graded for the report's
// analyses, which go over them many times (each analysis once or more),
// without holding them in memory: TapeFidelity reads them from the
// workspace once (one run of fidelity_episodes.sql, the costly part) and
// writes them, a few dozen bytes each, to a temporary file that is
// unlinked at once; All reads them back from it in the same order. In
// memory it keeps one copy of each name the episodes share (simulators,
// agents, domains, tasks) and of each list of probes, which grow with the
// tasks, not the episodes.
type FidelityTape struct {
	t      *tape
	probes [][]string
}

const fidelityTapeWhat = "fidelity episodes"

// TapeFidelity writes the episodes grader graded (EachFidelity, by
// simulation id) to a new tape. Close it when done.
func TapeFidelity(ctx context.Context, db Querier, grader string) (*FidelityTape, error) {
	t, err := newTape(fidelityTapeWhat)
	if err != nil {
		return nil, err
	}
	ft := &FidelityTape{t: t}
	probeIdx := map[string]int64{}
	err = EachFidelity(ctx, db, grader, func(e ub.FidelityEpisode) error {
		t.name(e.Grader)
		t.name(e.Simulator)
		t.name(e.Agent)
		t.name(e.Domain)
		t.name(e.Task)
		t.str(e.ID)
		t.int(int64(e.Trial))
		t.float(e.Reward)
		t.float(e.Cost)
		t.bool(e.CostEstimated)
		for i := range e.Applicable {
			t.int(int64(e.Applicable[i]))
			t.int(int64(e.Failed[i]))
		}
		t.int(int64(e.AgentTurns))
		t.int(int64(e.AgentQuestions))
		t.int(int64(e.AgentToolCalls))
		p := int64(0) // none fired
		if len(e.Probes) > 0 {
			key := strings.Join(e.Probes, ",")
			i, ok := probeIdx[key]
			if !ok {
				i = int64(len(ft.probes)) + 1
				probeIdx[key] = i
				ft.probes = append(ft.probes, e.Probes)
			}
			p = i
		}
		t.int(p)
		return t.end()
	})
	if err == nil {
		err = t.done()
	}
	if err != nil {
		t.close()
		return nil, err
	}
	return ft, nil
}

// Len is the number of episodes on the tape.
func (ft *FidelityTape) Len() int { return ft.t.n }

// All gives the episodes in the order they were read from the workspace,
// every time it is ranged over; it may be ranged over concurrently. A
// failure to read the tape back ends the range early and is kept for Err.
func (ft *FidelityTape) All() iter.Seq[ub.FidelityEpisode] {
	return func(yield func(ub.FidelityEpisode) bool) {
		r := ft.t.reader()
		for range ft.t.n {
			var e ub.FidelityEpisode
			e.Grader, e.Simulator, e.Agent, e.Domain, e.Task = r.name(), r.name(), r.name(), r.name(), r.name()
			e.ID = r.str()
			e.Trial = int(r.int())
			e.Reward, e.Cost = r.float(), r.float()
			e.CostEstimated = r.bool()
			for i := range e.Applicable {
				e.Applicable[i], e.Failed[i] = int(r.int()), int(r.int())
			}
			e.AgentTurns, e.AgentQuestions, e.AgentToolCalls = int(r.int()), int(r.int()), int(r.int())
			if p := r.int(); r.err == nil && p > 0 {
				if p > int64(len(ft.probes)) {
					r.err = errors.New("a probe list out of range")
				} else {
					e.Probes = ft.probes[p-1]
				}
			}
			if r.err != nil {
				ft.t.fail(fidelityTapeWhat, r.err)
				return
			}
			if !yield(e) {
				return
			}
		}
	}
}

// Err is the first failure to read the tape back (nil: every range gave
// every episode).
func (ft *FidelityTape) Err() error { return ft.t.failure() }

// Close releases the tape and its file.
func (ft *FidelityTape) Close() error { return ft.t.close() }
