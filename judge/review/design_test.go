package review

import (
	"context"
	"fmt"
	"testing"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// TestProbeGuidedBatchInTheWorkspace: a probe-guided batch stores each
// episode's inclusion probability; decisions made in it are weighted back,
// and an LLM reviewer over the same episodes is measured against them.
// The fixture: sim-a and sim-c have probe findings, sim-b and the eight
// plain episodes none: 2 with probes, 9 quiet. n = 6, W = 3: shares 2*3 =
// 6 against 9, so 6*6/15 = 2.4 -> 2 (all of the stratum, inclusion 1) and
// 3.6 -> 4 of 9 (inclusion 4/9).
func TestProbeGuidedBatchInTheWorkspace(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	eps := reviewtest.Three()
	for i := range 8 {
		eps = append(eps, reviewtest.Fixture{ID: fmt.Sprintf("sim-plain-%d", i), Domain: "retail", TaskID: fmt.Sprint(100 + i),
			Reason: "Ask about your order.", Messages: []reviewtest.Message{{Role: "assistant", Content: "Hi"}, {Role: "user", Content: "Where is my order?"}}})
	}
	if err := reviewtest.Insert(ctx, ws, eps); err != nil {
		t.Fatal(err)
	}
	b, as, err := CreateBatch(ctx, ws, BatchOptions{Name: "pg", N: 6, Seed: 5, Reviewers: []string{"ann"}, OversampleProbes: 3})
	if err != nil {
		t.Fatal(err)
	}
	bs, _ := queries.ReviewBatches(ctx, ws.Conn())
	if len(bs) != 1 || bs[0].OversampleProbes != 3 || bs[0].Population != 11 || b.Population != 11 {
		t.Errorf("batches %+v, want one of weight 3 over 11 episodes", bs)
	}
	inc, err := queries.BatchInclusion(ctx, ws.Conn(), "pg")
	if err != nil {
		t.Fatal(err)
	}
	pis := map[string]float64{}
	for _, x := range inc {
		pis[x.Stratum] = x.Pi
	}
	if len(inc) != 6 || len(as) != 6 || pis["probes"] != 1 || pis["quiet"] != 4.0/9 {
		t.Fatalf("inclusion %+v, want 6 episodes: probes 1, quiet 4/9", inc)
	}
	// Ann finds an error exactly on the episodes with probes; the LLM
	// reviewer agrees on all but one quiet episode, where it finds one.
	var llm []queries.Decision
	for i, x := range inc {
		d := queries.Decision{SimulationID: x.SimulationID, Reviewer: "ann", Kind: queries.KindHuman, Outcome: queries.OutcomeNoError, Batch: "pg", Source: "web"}
		if x.ProbesFired {
			d.Outcome, d.Errors = queries.OutcomeError, []queries.ReviewError{{Code: "hallucination", Severity: "minor"}}
		}
		if _, err := queries.SaveDecision(ctx, ws, d); err != nil {
			t.Fatal(err)
		}
		l := d
		l.Reviewer, l.Kind, l.Batch, l.Source = "llm:x", queries.KindLLM, "", "x.json"
		if i == len(inc)-1 && !x.ProbesFired {
			l.Outcome, l.Errors = queries.OutcomeError, []queries.ReviewError{{Code: "other", Severity: "minor"}}
		}
		llm = append(llm, l)
	}
	if err := queries.ReplaceReviewer(ctx, ws, "llm:x", llm); err != nil {
		t.Fatal(err)
	}
	st, err := Stats(ctx, ws.Conn(), StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Weighted by hand: errors on the 2 probe episodes (weight 1), none on
	// the 4 quiet ones (weight 9/4 each, 9 in all): 2 / 11.
	if !st.Weighted || st.Overall.Error.K != 2 || st.Overall.Error.N != 6 || abs(st.Overall.Error.P-2.0/11) > 1e-12 {
		t.Errorf("weighted %v, error share %+v; want weighted 2/11 from 2 of 6", st.Weighted, st.Overall.Error)
	}
	if len(st.LLM) != 1 || st.LLM[0].Paired != 6 || st.LLM[0].HasError.Table != [2][2]int{{3, 1}, {0, 2}} {
		t.Fatalf("LLM %+v, want llm:x paired on 6 with table [[3 1] [0 2]]", st.LLM)
	}
	// Specificity: the 4 episodes without an error are all quiet, of one
	// weight, so it is plain Wilson on 3/4; sensitivity likewise 2/2.
	if sp := st.LLM[0].HasError.Specificity; sp.Weighted || sp.K != 3 || sp.N != 4 {
		t.Errorf("specificity %+v, want unweighted 3/4", sp)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
