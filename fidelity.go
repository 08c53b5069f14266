package ub

import "math"

// The user-fidelity study (SPEC 6.2, UserProxyBench, seed 002): each
// episode is graded against its task's rubric, criterion by criterion
// (pass, fail or na), the criteria grouped in four families. UFS, the
// study's score, is the share of scored episodes whose fidelity f is 1.

// FidelityFamilies are the failure families, in the order of
// FidelityEpisode's counts.
var FidelityFamilies = [4]string{"disclosure", "goal_deviation", "groundedness", "omitted_info"}

// FamDisclosure is the index of disclosure in FidelityFamilies.
const FamDisclosure = 0

// FidelityEpisode is one episode as one grader graded it.
type FidelityEpisode struct {
	ID, Simulator, Agent, Domain, Task string
	Grader                             string  // who gave the verdicts
	Trial                              int     // the file's trial number (0 when none)
	Reward                             float64 // the agent's task reward R; NaN when unknown
	Cost                               float64 // user-side cost of the simulation; NaN when unknown
	CostEstimated                      bool    // Cost comes from tokens x a price table
	// Applicable and Failed count the criteria (of each family, in the
	// order of FidelityFamilies) that applied (pass or fail) and failed.
	Applicable, Failed [4]int
	Probes             []string // probes that fired (P0 excludes the episode)
	AgentTurns         int      // agent messages, tool-call-only ones included
	AgentQuestions     int      // agent messages holding a question
	AgentToolCalls     int
}

// P0 is whether the episode is flagged as not belonging to its task.
func (e FidelityEpisode) P0() bool { return e.HasProbe("P0") }

// HasProbe is whether probe fired in the episode.
func (e FidelityEpisode) HasProbe(p string) bool {
	for _, x := range e.Probes {
		if x == p {
			return true
		}
	}
	return false
}

// Success is R >= threshold (SPEC 6.1: R = 1 in tau2, threshold 1).
func (e FidelityEpisode) Success(threshold float64) bool {
	return !math.IsNaN(e.Reward) && e.Reward >= threshold
}

// ScoredWith reports whether the episode is scored when only the families
// with keep[f] count, and its fidelity then: f = 1 when every applicable
// criterion of those families passed (SPEC 6.2, seed eq. 1).
func (e FidelityEpisode) ScoredWith(keep [4]bool) (scored bool, f int) {
	if e.P0() {
		return false, 0
	}
	app, failed := 0, 0
	for i := range keep {
		if keep[i] {
			app += e.Applicable[i]
			failed += e.Failed[i]
		}
	}
	if app == 0 {
		return false, 0
	}
	if failed == 0 {
		return true, 1
	}
	return true, 0
}

// AllFamilies keeps every family (ScoredWith).
var AllFamilies = [4]bool{true, true, true, true}

// Scored is whether the episode counts toward UFS (not P0, something
// applied), and F its fidelity f_i.
func (e FidelityEpisode) Scored() bool { s, _ := e.ScoredWith(AllFamilies); return s }

// F is the episode's fidelity f_i: 1 when every applicable criterion
// passed, else 0 (meaningful only when Scored).
func (e FidelityEpisode) F() int { _, f := e.ScoredWith(AllFamilies); return f }

// Present is whether family fam (an index of FidelityFamilies) is present:
// at least one of its criteria failed.
func (e FidelityEpisode) Present(fam int) bool { return e.Failed[fam] > 0 }

// VerdictPair is one (episode, criterion) both graders judged, or N of
// them: the pairs of one episode and family on which the graders gave the
// same two verdicts A and B, counted once (N 0 is read as 1).
type VerdictPair struct {
	SimulationID, Family, A, B string
	N                          int
}

// Count is the number of (episode, criterion) pairs p stands for.
func (p VerdictPair) Count() int { return max(p.N, 1) }
