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
	// OversampleProbes, when not 0, splits every stratum into the episodes
	// where a judge-free probe fired and the others, and draws the first
	// with weight W (at least 1): a stratum's share of the batch is
	// proportional to its size times W (or 1), each stratum with at least
	// two episodes (or all it has). Each episode's inclusion probability
	// is recorded, so estimates can be weighted back.
	OversampleProbes float64
}

// Drawn is a sampled batch: the assignments of every reviewer and each
// drawn episode's stratum and inclusion probability, by simulation id.
type Drawn struct {
	Assignments []queries.ReviewAssignment
	Inclusion   []queries.ReviewInclusion
}

// Sample draws opts.N episodes, stratified: each stratum (the episodes
// sharing the stratify fields) gets round(N * size / total) by the
// largest-remainder rule (ties to the stratum that sorts first), and its
// episodes are drawn by a seeded shuffle of the stratum sorted by id. The
// batch's queue order is a seeded shuffle of the drawn episodes, the same
// for every reviewer. It returns the assignments of every reviewer.
func Sample(cands []queries.ReviewCandidate, opts SampleOptions) ([]queries.ReviewAssignment, error) {
	d, err := Draw(cands, opts)
	return d.Assignments, err
}

// Draw is [Sample] with the design: every drawn episode's stratum and
// inclusion probability (its stratum's quota over its size). With
// opts.OversampleProbes W, a stratum's quota is N * size * w / sum(size *
// w) (w = W for the episodes where probes fired, 1 for the others; a
// stratum takes at most all its episodes, the rest goes to the others),
// rounded by the largest remainder, and then raised to two (or the
// stratum's size) by taking from the largest quotas, so that every stratum
// has a weight and a variance.
// MaxOversample is the largest --oversample-probes weight: a bound that
// keeps every weight, inclusion probability and design effect a finite
// number (1e308 made the plan's episodes overflow, Inf made every quota
// NaN); a weight of a million already draws the fired episodes first.
const MaxOversample = 1e6

// checkOversample refuses a probe weight w that is neither 0 (none) nor a
// number from 1 to MaxOversample.
func checkOversample(w float64) error {
	if w != 0 && !(w >= 1 && w <= MaxOversample) {
		return fmt.Errorf("--oversample-probes %v: want a weight from 1 to %g", w, MaxOversample)
	}
	return nil
}

func Draw(cands []queries.ReviewCandidate, opts SampleOptions) (Drawn, error) {
	if opts.N <= 0 {
		return Drawn{}, fmt.Errorf("sample: --n %d, need at least 1", opts.N)
	}
	if opts.N > len(cands) {
		return Drawn{}, fmt.Errorf("sample: %d episodes asked, the workspace has %d", opts.N, len(cands))
	}
	if err := checkOversample(opts.OversampleProbes); err != nil {
		return Drawn{}, fmt.Errorf("sample: %w", err)
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
			return Drawn{}, fmt.Errorf("sample: bad or repeated reviewer name %q", r)
		}
		seen[r] = true
	}
	for _, f := range opts.Stratify {
		if f != "domain" && f != "success" {
			return Drawn{}, fmt.Errorf("sample: cannot stratify by %q (want domain, success)", f)
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
		if opts.OversampleProbes != 0 {
			if c.ProbesFired {
				parts = append(parts, "probes")
			} else {
				parts = append(parts, "quiet")
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
	quota, err := allocate(keys, strata, opts)
	if err != nil {
		return Drawn{}, err
	}
	var drawn []string
	var inc []queries.ReviewInclusion
	for _, k := range keys {
		s := strata[k]
		r := rand.New(rand.NewPCG(opts.Seed, hashString(k)))
		r.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		for _, c := range s[:quota[k]] {
			drawn = append(drawn, c.SimulationID)
			inc = append(inc, queries.ReviewInclusion{SimulationID: c.SimulationID, Stratum: k, ProbesFired: c.ProbesFired,
				StratumSize: len(s), StratumN: quota[k], Pi: float64(quota[k]) / float64(len(s))})
		}
	}
	sort.Slice(inc, func(i, j int) bool { return inc[i].SimulationID < inc[j].SimulationID })
	sort.Strings(drawn)
	r := rand.New(rand.NewPCG(opts.Seed, hashString("queue")))
	r.Shuffle(len(drawn), func(i, j int) { drawn[i], drawn[j] = drawn[j], drawn[i] })
	var out []queries.ReviewAssignment
	for _, rv := range reviewers {
		for i, id := range drawn {
			out = append(out, queries.ReviewAssignment{Reviewer: rv, Position: i + 1, SimulationID: id})
		}
	}
	return Drawn{Assignments: out, Inclusion: inc}, nil
}

// allocate gives every stratum its quota of opts.N: proportional to its
// size (times the probe weight), capped at its size, by the largest
// remainder (ties to the stratum that sorts first); with probe weighting,
// each stratum then gets at least min(2, size) from the largest quotas.
func allocate(keys []string, strata map[string][]queries.ReviewCandidate, opts SampleOptions) (map[string]int, error) {
	weight := func(k string) float64 {
		if opts.OversampleProbes != 0 && strings.HasSuffix(k, "probes") {
			return opts.OversampleProbes
		}
		return 1
	}
	quota := map[string]int{}
	exact := map[string]float64{}
	// Proportional shares, capped: a stratum whose share exceeds its size
	// takes all of it and leaves the rest to the others, until none does.
	free := append([]string(nil), keys...)
	left := float64(opts.N)
	for {
		var tot float64
		for _, k := range free {
			tot += float64(len(strata[k])) * weight(k)
		}
		var next []string
		capped := false
		for _, k := range free {
			e := left * float64(len(strata[k])) * weight(k) / tot
			if e >= float64(len(strata[k])) {
				exact[k] = float64(len(strata[k]))
				left -= exact[k]
				capped = true
				continue
			}
			exact[k] = e
			next = append(next, k)
		}
		if !capped || len(next) == 0 {
			break
		}
		free = next
	}
	type rem struct {
		key  string
		frac float64
	}
	var rems []rem
	n := opts.N
	for _, k := range keys {
		quota[k] = int(exact[k])
		n -= quota[k]
		rems = append(rems, rem{k, exact[k] - float64(quota[k])})
	}
	sort.SliceStable(rems, func(i, j int) bool { return rems[i].frac > rems[j].frac })
	for i := 0; n > 0; i = (i + 1) % len(rems) {
		if quota[rems[i].key] < len(strata[rems[i].key]) {
			quota[rems[i].key]++
			n--
		}
	}
	if opts.OversampleProbes == 0 {
		return quota, nil
	}
	for _, k := range keys {
		for want := min(2, len(strata[k])); quota[k] < want; {
			big := ""
			for _, o := range keys {
				if o != k && quota[o] > min(2, len(strata[o])) && (big == "" || quota[o] > quota[big]) {
					big = o
				}
			}
			if big == "" {
				return nil, fmt.Errorf("sample: --n %d is too small for %d strata: a probe-guided batch needs two episodes of each", opts.N, len(keys))
			}
			quota[big]--
			quota[k]++
		}
	}
	return quota, nil
}

func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// LeftOut counts the candidates no review can judge: episodes of solo-mode
// runs (no simulated user) and placeholders of simulations that never ran.
type LeftOut struct {
	Solo   int `json:"solo,omitempty"`
	NotRun int `json:"not_run,omitempty"`
}

// String says what was left out: "" when nothing was.
func (l LeftOut) String() string {
	var parts []string
	if l.Solo > 0 {
		parts = append(parts, fmt.Sprintf("%d %s of solo-mode runs (no simulated user)", l.Solo, map[bool]string{true: "episode", false: "episodes"}[l.Solo == 1]))
	}
	if l.NotRun > 0 {
		parts = append(parts, fmt.Sprintf("%d %s of simulations that never ran", l.NotRun, map[bool]string{true: "placeholder", false: "placeholders"}[l.NotRun == 1]))
	}
	return strings.Join(parts, " and ")
}

// Reviewable keeps the candidates a review can judge, those with a
// simulated user that ran, and counts the others.
func Reviewable(cands []queries.ReviewCandidate) ([]queries.ReviewCandidate, LeftOut) {
	var kept []queries.ReviewCandidate
	var lo LeftOut
	for _, c := range cands {
		switch {
		case c.NotRun:
			lo.NotRun++
		case c.NoUser:
			lo.Solo++
		default:
			kept = append(kept, c)
		}
	}
	return kept, lo
}
