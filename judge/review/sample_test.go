package review

import (
	"database/sql"
	"fmt"
	"reflect"
	"testing"

	"github.com/ub-bench/ub/queries"
)

func TestSampleStratified(t *testing.T) {
	// 60 airline episodes (20 successes) and 40 retail (30 successes):
	// strata airline/failure 40, airline/success 20, retail/failure 10,
	// retail/success 30. n = 10 -> exact quotas 4, 2, 1, 3 (10 * size/100).
	var cands []queries.ReviewCandidate
	for i := range 100 {
		dom, ok := "airline", i%3 == 0
		if i >= 60 {
			dom, ok = "retail", i%4 != 0
		}
		r := 0.0
		if ok {
			r = 1
		}
		cands = append(cands, queries.ReviewCandidate{SimulationID: fmt.Sprintf("s%03d", i), Domain: dom, Reward: sql.NullFloat64{Float64: r, Valid: true}})
	}
	opts := SampleOptions{N: 10, Seed: 42, Stratify: []string{"domain", "success"}, Reviewers: []string{"a", "b"}}
	as, err := Sample(cands, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 20 {
		t.Fatalf("%d assignments, want 10 per reviewer", len(as))
	}
	by := map[string]*queries.ReviewCandidate{}
	for i := range cands {
		by[cands[i].SimulationID] = &cands[i]
	}
	count := map[string]int{}
	var qa, qb []string
	for _, a := range as {
		c := by[a.SimulationID]
		if a.Reviewer == "a" {
			count[fmt.Sprintf("%s/%v", c.Domain, c.Reward.Float64)]++
			qa = append(qa, a.SimulationID)
		} else {
			qb = append(qb, a.SimulationID)
		}
	}
	want := map[string]int{"airline/0": 4, "airline/1": 2, "retail/0": 1, "retail/1": 3}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("per stratum %v, want %v", count, want)
	}
	if !reflect.DeepEqual(qa, qb) {
		t.Errorf("double assignment: queues differ %v %v", qa, qb)
	}
	// Reproducible from the seed, whatever the input order; another seed
	// draws another batch.
	rev := append([]queries.ReviewCandidate(nil), cands...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	again, _ := Sample(rev, opts)
	if !reflect.DeepEqual(as, again) {
		t.Error("same seed, other input order: another batch")
	}
	opts.Seed = 43
	other, _ := Sample(cands, opts)
	if reflect.DeepEqual(as, other) {
		t.Error("seeds 42 and 43 drew the same batch")
	}
}
