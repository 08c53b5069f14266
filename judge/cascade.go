package judge

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
)

// CascadeModel is the model judge of a cascade.
type CascadeModel struct {
	Name     string // the judge's name, recorded as the decider of its labels
	Model    string // model name
	Endpoint runner.Endpoint
}

// CascadeOptions configures Cascade.
type CascadeOptions struct {
	// Coverage is the share of items the built-in judge keeps, its most
	// confident ones (round(Coverage*n), as RiskCoverage keeps); the
	// rest go to the model judge. 0 means 0.7.
	Coverage float64
	// Step configures RunStep for the model judge's requests.
	Step runner.StepOptions
}

// CascadeStats says who labelled how much.
type CascadeStats struct {
	Items, Builtin, Model, Failed, Unparseable int
	// Run is the runner's account of the model judge's requests.
	Run runner.RunStats
}

// CascadeName is the judge name a cascade's labels are stored under: the
// built-in judge, then the model judge.
func CascadeName(model string) string { return BuiltinName + "+" + model }

// Cascade labels every item with the built-in judge b, keeps the share
// opts.Coverage it is most confident of, and sends the rest to the model
// judge m: RunStep with JudgeStep (cache, retries, rate limit, cost), so a
// second run sends nothing. Ties in confidence are broken by item order.
//
// The labels, of kind ("point" or "generation"), are in item order and
// stored under CascadeName(m.Name), each with the judge that decided it
// (DecidedBy) and the built-in judge's confidence in its own label (kept
// also for items it handed on: it is why they were). An item whose model
// request failed has no label (CascadeStats.Failed); an answer that does not
// parse is the label 'unparseable' with the raw answer, never a guess.
func Cascade(ctx context.Context, items []queries.LabelTarget, kind string, b *Builtin, m CascadeModel, store runner.Store, opts CascadeOptions) ([]queries.Label, CascadeStats, error) {
	cov := opts.Coverage
	if cov == 0 {
		cov = 0.7
	}
	if cov < 0 || cov > 1 || math.IsNaN(cov) {
		return nil, CascadeStats{}, fmt.Errorf("cascade: coverage %v outside [0, 1]", cov)
	}
	name := CascadeName(m.Name)
	st := CascadeStats{Items: len(items)}
	out := make([]queries.Label, len(items))
	order := make([]int, len(items))
	for i, it := range items {
		r := b.Label(it.Text, it.PrevAgent)
		out[i] = queries.Label{Target: kind, TargetID: it.ID, Judge: name, Move: r.Move.String(), Raw: r.Reason,
			Confidence: r.Confidence, DecidedBy: BuiltinName, PromptVersion: b.Version()}
		if r.Fine != 0 {
			out[i].Label7 = r.Fine.String()
		}
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return out[order[x]].Confidence > out[order[y]].Confidence })
	keep := int(math.Round(cov * float64(len(items))))
	send := order[keep:]
	sort.Ints(send)
	st.Builtin = keep
	if len(send) == 0 {
		return out, st, nil
	}
	sent := make([]queries.LabelTarget, len(send))
	for j, i := range send {
		sent[j] = items[i]
	}
	res, err := runner.RunStep(ctx, store, sent, JudgeStep(m.Endpoint, m.Model, name, kind), opts.Step)
	st.Run = res.Stats
	if err != nil {
		return nil, st, fmt.Errorf("cascade: %w", err)
	}
	// res.Rows holds one label per sent item in order, less the items in
	// res.Failures (also in order).
	failed := map[int]bool{}
	for _, f := range res.Failures {
		failed[f.Index] = true
	}
	st.Failed = len(res.Failures)
	labels := make([]queries.Label, 0, len(items)-st.Failed)
	next, row := 0, 0
	for i := range out {
		if next < len(send) && send[next] == i {
			j := next
			next++
			if failed[j] {
				continue
			}
			l := res.Rows[row]
			row++
			l.Confidence, l.DecidedBy = out[i].Confidence, m.Name
			st.Model++
			if l.Move == "unparseable" {
				st.Unparseable++
			}
			labels = append(labels, l)
			continue
		}
		labels = append(labels, out[i])
	}
	return labels, st, nil
}
