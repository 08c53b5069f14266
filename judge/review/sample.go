package review

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/ub-bench/ub/queries"
)

// SampleOptions configures Sample.
type SampleOptions struct {
	N         int      // episodes in the batch
	Seed      uint64   // the same seed and episodes give the same batch
	Stratify  []string // any of "domain", "success"; nil: one stratum
	Reviewers []string // every reviewer reviews every episode; nil means one reviewer "reviewer"
	Threshold float64  // success is reward >= Threshold; 0 means 1
}

// Sample draws opts.N episodes, stratified: each stratum (the episodes
// sharing the stratify fields) gets round(N * size / total) by the
// largest-remainder rule (ties to the stratum that sorts first), and its
// episodes are drawn by a seeded shuffle of the stratum sorted by id. The
// batch's queue order is a seeded shuffle of the drawn episodes, the same
// for every reviewer. It returns the assignments of every reviewer.
func Sample(cands []queries.ReviewCandidate, opts SampleOptions) ([]queries.ReviewAssignment, error) {
	if opts.N <= 0 {
		return nil, fmt.Errorf("sample: --n %d, need at least 1", opts.N)
	}
	if opts.N > len(cands) {
		return nil, fmt.Errorf("sample: %d episodes asked, the workspace has %d", opts.N, len(cands))
	}
	if opts.Threshold == 0 {
		opts.Threshold = 1
	}
	reviewers := opts.Reviewers
	if len(reviewers) == 0 {
		reviewers = []string{"reviewer"}
	}
	seen := map[string]bool{}
	for _, r := range reviewers {
		if r == "" || strings.ContainsAny(r, ",\n") || seen[r] {
			return nil, fmt.Errorf("sample: bad or repeated reviewer name %q", r)
		}
		seen[r] = true
	}
	for _, f := range opts.Stratify {
		if f != "domain" && f != "success" {
			return nil, fmt.Errorf("sample: cannot stratify by %q (want domain, success)", f)
		}
	}
	cs := append([]queries.ReviewCandidate(nil), cands...)
	sort.Slice(cs, func(i, j int) bool { return cs[i].SimulationID < cs[j].SimulationID })
	strata := map[string][]queries.ReviewCandidate{}
	for _, c := range cs {
		var parts []string
		for _, f := range opts.Stratify {
			switch f {
			case "domain":
				parts = append(parts, c.Domain)
			case "success":
				switch {
				case !c.Reward.Valid:
					parts = append(parts, "unknown")
				case c.Reward.Float64 >= opts.Threshold:
					parts = append(parts, "success")
				default:
					parts = append(parts, "failure")
				}
			}
		}
		k := strings.Join(parts, "/")
		strata[k] = append(strata[k], c)
	}
	keys := make([]string, 0, len(strata))
	for k := range strata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	quota := map[string]int{}
	type rem struct {
		key  string
		frac float64
	}
	var rems []rem
	left := opts.N
	for _, k := range keys {
		exact := float64(opts.N) * float64(len(strata[k])) / float64(len(cs))
		quota[k] = int(exact)
		left -= quota[k]
		rems = append(rems, rem{k, exact - float64(quota[k])})
	}
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].frac > rems[j].frac })
	for i := 0; left > 0; i = (i + 1) % len(rems) {
		if quota[rems[i].key] < len(strata[rems[i].key]) {
			quota[rems[i].key]++
			left--
		}
	}
	var drawn []string
	for _, k := range keys {
		s := strata[k]
		r := rand.New(rand.NewPCG(opts.Seed, hashString(k)))
		r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		for _, c := range s[:quota[k]] {
			drawn = append(drawn, c.SimulationID)
		}
	}
	sort.Strings(drawn)
	r := rand.New(rand.NewPCG(opts.Seed, hashString("queue")))
	r.Shuffle(len(drawn), func(i, j int) { drawn[i], drawn[j] = drawn[j], drawn[i] })
	var out []queries.ReviewAssignment
	for _, rv := range reviewers {
		for i, id := range drawn {
			out = append(out, queries.ReviewAssignment{Reviewer: rv, Position: i + 1, SimulationID: id})
		}
	}
	return out, nil
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
