package graph

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Ratio is the share of the measure one split should receive.
type Ratio struct {
	Name  string  // split name, e.g. "train"
	Value float64 // share in [0, 1]; the Values of a split set sum to 1
}

// DefaultRatios returns the default split set, train 0.7, val 0.1, test 0.2,
// as a new slice.
func DefaultRatios() []Ratio {
	return []Ratio{{"train", 0.7}, {"val", 0.1}, {"test", 0.2}}
}

// ratioSumTolerance is how far the ratios may sum from 1: wide enough for
// decimal fractions such as 0.7+0.1+0.2 (1.0000000000000002 in float64),
// narrow enough to catch a typo.
const ratioSumTolerance = 1e-6

// ParseRatios parses a split set written as "train=0.7,val=0.1,test=0.2",
// the form FormatRatios writes. Spaces around names and values are ignored.
func ParseRatios(s string) ([]Ratio, error) {
	var rs []Ratio
	for _, field := range strings.Split(s, ",") {
		name, value, ok := strings.Cut(field, "=")
		if !ok {
			return nil, fmt.Errorf("ratios %q: %q is not name=value", s, strings.TrimSpace(field))
		}
		name = strings.TrimSpace(name)
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return nil, fmt.Errorf("ratios %q: %s: %q is not a number", s, name, strings.TrimSpace(value))
		}
		rs = append(rs, Ratio{Name: name, Value: v})
	}
	if err := validateRatios(rs); err != nil {
		return nil, fmt.Errorf("ratios %q: %w", s, err)
	}
	return rs, nil
}

// FormatRatios writes rs as ParseRatios reads it, e.g.
// "train=0.7,val=0.1,test=0.2".
func FormatRatios(rs []Ratio) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.Name)
		b.WriteByte('=')
		b.WriteString(strconv.FormatFloat(r.Value, 'g', -1, 64))
	}
	return b.String()
}

func validateRatios(rs []Ratio) error {
	if len(rs) == 0 {
		return errors.New("no splits")
	}
	seen := make(map[string]bool, len(rs))
	sum := 0.0
	for _, r := range rs {
		switch {
		case r.Name == "":
			return errors.New("a split has no name")
		case strings.ContainsAny(r.Name, "=,\t\n\\"):
			return fmt.Errorf("split name %q contains one of = , \\ tab newline", r.Name)
		case seen[r.Name]:
			return fmt.Errorf("split %q appears twice", r.Name)
		case math.IsNaN(r.Value) || r.Value < 0 || r.Value > 1:
			return fmt.Errorf("split %q: ratio %v is not in [0, 1]", r.Name, r.Value)
		}
		seen[r.Name] = true
		sum += r.Value
	}
	if math.Abs(sum-1) > ratioSumTolerance {
		return fmt.Errorf("ratios sum to %.9g, want 1", sum)
	}
	return nil
}

// Measure is what split sizes are counted in.
type Measure string

// The measures Assign understands.
const (
	ByDevelopers Measure = "developers" // a component weighs its number of developers
	BySessions   Measure = "sessions"   // a component weighs its number of sessions
)

// SplitOptions configures Assign. The zero value is valid: seed 0, the
// DefaultRatios, counted in developers.
type SplitOptions struct {
	Seed   int64   // seeds the shuffle and the draws of Assign
	Ratios []Ratio // empty means DefaultRatios
	By     Measure // "" means ByDevelopers
}

// Assignment is the result of Assign.
type Assignment struct {
	Seed int64   // SplitOptions.Seed
	By   Measure // the measure used, never ""

	// Splits has one entry per ratio, in the order of SplitOptions.Ratios.
	Splits []SplitStats

	// ComponentSplits[i] is the index in Splits of the split that received
	// the i-th component passed to Assign.
	ComponentSplits []int

	// Hash is the hex SHA-256 of the canonical text of the assignment: one
	// line per node,
	//
	//	developer<TAB>name<TAB>split<LF>
	//	repo<TAB>name<TAB>split<LF>
	//
	// with no header or trailer, where a backslash, tab or newline in a name
	// is written \\, \t or \n. Components come in canonical order (the
	// order Components returns: most developers, then most repositories,
	// then smallest developer name, then smallest repository name), and
	// within a component its developers then its repositories, each in
	// bytewise order. The hash depends only on the graph and on which
	// component went to which split, not on the order of comps, the IDs or
	// the seed that produced it, so a published split can be checked
	// without this package.
	Hash string

	// Warnings explains, in plain words, every way the requested ratios
	// could not be met: a component larger than the target of the split it
	// landed in, or a split with a positive target that received nothing.
	// nil means none.
	Warnings []string
}

// SplitStats describes one split of an Assignment.
type SplitStats struct {
	Name     string
	Target   float64 // requested share of the measure, the Ratio's Value
	Achieved float64 // share of the measure the split received
	// The split's totals.
	Components int
	Developers int
	Repos      int
	Sessions   int
}

// SplitName returns the name of the split that received the i-th component
// passed to Assign.
func (a *Assignment) SplitName(i int) string {
	return a.Splits[a.ComponentSplits[i]].Name
}

// NodeSplits returns the split of every developer and every repository of
// comps, which must be the components a was computed from.
func (a *Assignment) NodeSplits(comps []Component) (developers, repos map[string]string) {
	developers = make(map[string]string)
	repos = make(map[string]string)
	for i := range comps {
		name := a.SplitName(i)
		for _, d := range comps[i].Developers {
			developers[d] = name
		}
		for _, r := range comps[i].Repos {
			repos[r] = name
		}
	}
	return developers, repos
}

// pcgStream is the second PCG seed word, fixed so that SplitOptions.Seed
// alone picks the stream. It spells "ub-split" in ASCII.
const pcgStream = 0x75622d73706c6974

// Assign puts every component, whole, into one split, so that no developer
// and no repository is in two splits, and the splits' sizes come as close
// as the components allow to the ratios.
//
// Algorithm. Let w be a component's weight (its developers, or its
// sessions with BySessions), W the sum of weights, target_s = ratio_s * W,
// and deficit_s = target_s - load_s the room left in split s.
//
//  1. Components are put in canonical order (so the input order does not
//     matter), shuffled with a PCG generator seeded from opts.Seed, then
//     stably sorted by weight, heaviest first, equal weights in shuffled
//     order.
//  2. Each component in turn goes to a split it fits in (deficit_s >= w),
//     drawn from the same generator with probability proportional to
//     deficit_s. If it fits nowhere, it goes to the split with the largest
//     deficit; ties go to the split listed first. Splits with ratio 0
//     receive nothing.
//
// Why. Every split ends within one component of its target:
// |load_s - target_s| <= the largest weight. A split that receives a
// component it does not fit in has the largest deficit, which is positive
// while weight remains, so it overshoots by less than that component. And
// if split a lacked more than the largest weight at the end, every other
// split b would have a non-negative deficit (b's last component fitted; or
// b had the largest deficit then, at least a's, so it ends at least a's
// deficit minus one weight; or b received nothing), and the deficits could
// not sum to 0, as they must. Heaviest first places the big components
// while there is room and leaves the small ones to fill the gaps, so in
// practice the splits land much closer than the bound (on target when
// enough single-developer components remain). The random choice among
// splits with room, in proportion to that room, keeps the splits
// representative: a large component goes to test about as often as the test
// ratio says, instead of always to the largest split as a pure
// largest-deficit rule would do, and the seed matters for every component,
// not only for ties. A deficit relative to the target was rejected: it gives
// every empty split the same priority, so the second-largest component lands
// in the smallest split however far it overshoots, with no bound.
//
// If no component has any weight (no developers, or no sessions), every
// component weighs 1 and the ratios apply to component counts.
//
// Ratios that cannot be met are reported in Assignment.Warnings, not as an
// error. Assign returns an error for invalid options (ratios that are
// negative, above 1, unnamed, repeated or not summing to 1; an unknown
// measure) or a component with a negative session count. comps must be as
// Components returns them, disjoint and with sorted members; their order
// does not matter.
func Assign(comps []Component, opts SplitOptions) (Assignment, error) {
	ratios := opts.Ratios
	if len(ratios) == 0 {
		ratios = DefaultRatios()
	}
	if err := validateRatios(ratios); err != nil {
		return Assignment{}, fmt.Errorf("assign splits: %w", err)
	}
	by := opts.By
	if by == "" {
		by = ByDevelopers
	}
	if by != ByDevelopers && by != BySessions {
		return Assignment{}, fmt.Errorf("assign splits: unknown measure %q (want %q or %q)", by, ByDevelopers, BySessions)
	}
	for i := range comps {
		if comps[i].Sessions < 0 {
			return Assignment{}, fmt.Errorf("assign splits: component %d (%s): negative session count %d",
				comps[i].ID, describe(&comps[i]), comps[i].Sessions)
		}
	}

	weights := make([]int, len(comps))
	total := 0
	for i := range comps {
		if by == BySessions {
			weights[i] = comps[i].Sessions
		} else {
			weights[i] = len(comps[i].Developers)
		}
		total += weights[i]
	}
	unit := string(by) // what the weights count, for warnings
	if total == 0 {
		unit = "components"
		for i := range weights {
			weights[i] = 1
		}
		total = len(comps)
	}

	// Canonical order (already so when comps come from Components), seeded
	// shuffle, heaviest first.
	canon := make([]int, len(comps))
	sorted := true
	for i := range canon {
		canon[i] = i
		if i > 0 && compareComponents(&comps[i-1], &comps[i]) > 0 {
			sorted = false
		}
	}
	if !sorted {
		slices.SortFunc(canon, func(a, b int) int { return compareComponents(&comps[a], &comps[b]) })
	}
	order := slices.Clone(canon)
	src := rand.NewPCG(uint64(opts.Seed), pcgStream)
	shuffle(src, order)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(weights[b], weights[a]) })

	// The explicit conversion rounds the product, so no platform fuses it
	// with a later subtraction (Go spec, floating-point operators) and the
	// comparisons below, hence the assignment, are the same everywhere.
	targets := make([]float64, len(ratios))
	for s, r := range ratios {
		targets[s] = float64(r.Value * float64(total))
	}
	loads := make([]int, len(ratios))
	split := make([]int, len(comps))
	deficits := make([]float64, len(ratios))
	for _, c := range order {
		w := float64(weights[c])
		best, room := -1, 0.0 // room: the sum of the deficits of splits w fits in
		for s := range targets {
			deficits[s] = targets[s] - float64(loads[s])
			if ratios[s].Value == 0 {
				continue
			}
			if deficits[s] >= w {
				room += deficits[s]
			}
			if best < 0 || deficits[s] > deficits[best] {
				best = s
			}
		}
		if room > 0 {
			// Draw x uniform in [0, room) and take the split whose share of
			// the room contains it.
			x := float64(float64(src.Uint64()>>11) * 0x1p-53 * room)
			for s := range targets {
				if ratios[s].Value == 0 || deficits[s] < w {
					continue
				}
				best = s
				if x < deficits[s] {
					break
				}
				x -= deficits[s]
			}
		}
		split[c] = best
		loads[best] += weights[c]
	}

	a := Assignment{
		Seed:            opts.Seed,
		By:              by,
		Splits:          make([]SplitStats, len(ratios)),
		ComponentSplits: split,
	}
	for s, r := range ratios {
		a.Splits[s] = SplitStats{Name: r.Name, Target: r.Value}
		if total > 0 {
			a.Splits[s].Achieved = float64(loads[s]) / float64(total)
		}
	}
	for i := range comps {
		st := &a.Splits[split[i]]
		st.Components++
		st.Developers += len(comps[i].Developers)
		st.Repos += len(comps[i].Repos)
		st.Sessions += comps[i].Sessions
	}

	for _, c := range order { // heaviest first: the worst offenders lead
		s := split[c]
		if float64(weights[c]) > targets[s] {
			a.Warnings = append(a.Warnings, fmt.Sprintf(
				"component %d (%s) holds %.1f%% of %s, more than the %.1f%% target of split %q: the ratios cannot be met",
				comps[c].ID, describe(&comps[c]), 100*float64(weights[c])/float64(total), unit, 100*ratios[s].Value, ratios[s].Name))
		}
	}
	for _, st := range a.Splits {
		if st.Components == 0 && st.Target > 0 {
			a.Warnings = append(a.Warnings, fmt.Sprintf(
				"split %q received no components (target %.1f%% of %s)", st.Name, 100*st.Target, unit))
		}
	}

	a.Hash = assignmentHash(comps, canon, split, ratios)
	return a, nil
}

// describe names a component for a message: its size and first members.
func describe(c *Component) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d developers, %d repos", len(c.Developers), len(c.Repos))
	if len(c.Developers) > 0 {
		fmt.Fprintf(&b, ", developer %q", c.Developers[0])
		if len(c.Developers) > 1 {
			b.WriteString(" ...")
		}
	} else if len(c.Repos) > 0 {
		fmt.Fprintf(&b, ", repo %q", c.Repos[0])
		if len(c.Repos) > 1 {
			b.WriteString(" ...")
		}
	}
	return b.String()
}

// shuffle is a Fisher-Yates shuffle drawing from src. It is written out,
// rather than taken from rand.Rand.Shuffle, so that assignments depend only
// on the PCG output sequence, which is a fixed published algorithm, and not
// on how a Go release maps it to integers.
func shuffle(src *rand.PCG, s []int) {
	for i := len(s) - 1; i > 0; i-- {
		j := uint64n(src, uint64(i+1))
		s[i], s[j] = s[j], s[i]
	}
}

// uint64n returns a uniform integer in [0, n), n > 0, by Lemire's
// multiply-and-reject method ("Fast random integer generation in an
// interval", ACM TOMACS 29(1), 2019).
func uint64n(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// assignmentHash returns the hex SHA-256 of the canonical text described
// at Assignment.Hash; canon lists the components in canonical order.
func assignmentHash(comps []Component, canon, split []int, ratios []Ratio) string {
	h := sha256.New()
	w := bufio.NewWriterSize(h, 64<<10)
	var line []byte
	write := func(kind string, names []string, split string) {
		for _, name := range names {
			line = append(line[:0], kind...)
			line = append(line, '\t')
			line = appendEscaped(line, name)
			line = append(line, '\t')
			line = appendEscaped(line, split)
			line = append(line, '\n')
			w.Write(line) // a hash never fails to write
		}
	}
	for _, i := range canon {
		name := ratios[split[i]].Name
		write("developer", comps[i].Developers, name)
		write("repo", comps[i].Repos, name)
	}
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

// appendEscaped appends s with backslash, tab and newline escaped, so that
// the canonical text has one node per line and three fields per node.
func appendEscaped(b []byte, s string) []byte {
	start := 0 // s[start:i] is still to copy
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '\\':
			esc = `\\`
		case '\t':
			esc = `\t`
		case '\n':
			esc = `\n`
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, esc...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// Audit checks a split against the edges it was made from: it returns an
// error naming the first offending edge, in the order of edges, if the edge's
// developer or repository has no split, or if they are in different splits
// (a leak). developerSplit and repoSplit map node names to split names, as
// Assignment.NodeSplits returns them. A map holds one split per name, so a
// node stored twice with two splits (two rows of a table) must be caught
// where it is stored, before building the maps.
func Audit(edges []Edge, developerSplit, repoSplit map[string]string) error {
	var firstErr error
	bad := 0
	for i, e := range edges {
		var err error
		ds, dok := developerSplit[e.Developer]
		rs, rok := repoSplit[e.Repo]
		switch {
		case e.Developer != "" && !dok:
			err = fmt.Errorf("edge %d: developer %q has no split", i, e.Developer)
		case e.Repo != "" && !rok:
			err = fmt.Errorf("edge %d: repo %q has no split", i, e.Repo)
		case e.Developer != "" && e.Repo != "" && ds != rs:
			err = fmt.Errorf("edge %d: developer %q is in %q but their repo %q is in %q", i, e.Developer, ds, e.Repo, rs)
		}
		if err != nil {
			bad++
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	if bad > 1 {
		return fmt.Errorf("%w (and %d more offending edges)", firstErr, bad-1)
	}
	return firstErr
}
