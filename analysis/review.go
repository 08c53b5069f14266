package analysis

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// Simulator error rate from human review (SPEC section 7, seed 001).

// Review severities and outcomes, as stored by the workbench.
const (
	SeverityMinor            = "minor"
	SeverityCriticalHelped   = "critical_helped"
	SeverityCriticalHindered = "critical_hindered"

	ReviewNoError = "no_error"
	ReviewError   = "error"
	ReviewFailed  = "failed" // an LLM review that failed to parse: never a pass
)

// ReviewKinds of reviewer.
const (
	ReviewerHuman       = "human"
	ReviewerLLM         = "llm"
	ReviewerAdjudicator = "adjudicator"
)

// ReviewItem is one reviewer's decision on one episode.
type ReviewItem struct {
	Episode   string
	Reviewer  string
	Kind      string // human | llm | adjudicator
	Outcome   string // no_error | error | failed
	Domain    string // "" when the episode is not in the workspace
	TaskID    string
	Reward    float64
	HasReward bool
	Errors    []ReviewFinding
}

// ReviewFinding is one simulator error of a decision.
type ReviewFinding struct {
	Code, Severity string
}

// HasError reports whether the decision records a simulator error.
func (it ReviewItem) HasError() bool { return it.Outcome == ReviewError }

// Critical reports whether any recorded error changed whether the task
// could succeed (severity critical_helped or critical_hindered).
func (it ReviewItem) Critical() bool {
	for _, e := range it.Errors {
		if e.Severity != SeverityMinor {
			return true
		}
	}
	return false
}

// ReviewOptions configures ReviewStatistics. The zero value is valid.
type ReviewOptions struct {
	Level     float64          // 0 means 0.95
	Interval  BinomialInterval // nil means Wilson
	Method    string           // the interval's name, for the report ("" means wilson)
	Threshold float64          // success is reward >= Threshold; 0 means 1 (SPEC 6.1)
	// Reviewer restricts the statistics to one reviewer's decisions; ""
	// means the final human decision of each episode (adjudicated).
	Reviewer string
}

// ShareRow is the simulator error share and critical share of one domain
// (or of all, Domain "all"), each the flipped interval of the pass share.
type ShareRow struct {
	Domain   string
	N        int
	Error    Proportion
	Critical Proportion
}

// CodeCount is how many errors carry a code, and in how many episodes.
type CodeCount struct {
	Code     string
	Errors   int
	Episodes int
	Critical int // errors of that code that were critical
}

// ReviewCrossTab counts reviewed episodes with a known reward by agent
// outcome and simulator error: Counts[agentFailed][simError], 0 = no, 1 = yes.
type ReviewCrossTab struct {
	Counts [2][2]int
}

// PassRate is the agent's pass rate on some episodes with its interval.
type PassRate struct {
	Episodes int
	Pass     Proportion // K successes out of N
}

// ReviewAgreement is the agreement of two reviewers on the episodes both
// decided (a failed review is not a decision).
type ReviewAgreement struct {
	A, B          string
	KindA, KindB  string
	N             int
	HasError      Kappa
	Critical      Kappa
	ErrorTable    [2][2]int // [A has error][B has error]
	CriticalTable [2][2]int
}

// ReviewStats is every table of SPEC section 7.
type ReviewStats struct {
	Reviewer  string // the reviewer, or "final" for adjudicated human decisions
	Method    string
	Level     float64
	Threshold float64
	// Episodes is the number of episodes with a decision that counts; Failed
	// the failed reviews left out; Pending the episodes whose human
	// reviewers disagree with no adjudication yet (left out, listed).
	Episodes int
	Failed   int
	Pending  []string
	// Adjudicated counts episodes decided by an adjudicator, Agreed those
	// where two or more humans agreed.
	Adjudicated, Agreed int
	Overall             ShareRow
	Domains             []ShareRow // by domain name; "(not in workspace)" for unknown episodes
	Codes               []CodeCount
	CrossTab            ReviewCrossTab
	WithReward          int // episodes with a known reward (cross tab and policies)
	// The three policies for episodes with a critical simulator error.
	Drop      PassRate // agent pass rate on the episodes without one
	Alongside PassRate // agent pass rate on all, reported with Overall.Critical beside it
	Rerun     []string // domain/task ids of episodes with a critical error, sorted, unique
	// RerunUnknown counts episodes with a critical error whose task the
	// workspace does not know (imported decisions on episodes not ingested).
	RerunUnknown int
	Agreement    []ReviewAgreement
}

// NotInWorkspace is the domain of decisions on episodes the workspace
// does not hold (imported labels).
const NotInWorkspace = "(not in workspace)"

// ReviewStatistics computes SPEC section 7 from decisions. Unit: the
// episode. With c reviewed episodes without a simulator error out of n, the
// error share is 1 - c/n and its interval is the pass share's interval
// flipped ([ErrorShare]); the same for critical errors, overall and per
// domain. Failed reviews are counted, never passes. Without
// opts.Reviewer, each episode's decision is its adjudicator's when there
// is one, else its human reviewers' when they agree on "has an error" and
// "critical" (the alphabetically first reviewer's codes are counted), and
// otherwise it is pending and left out. LLM decisions enter only through
// opts.Reviewer and the agreement table.
func ReviewStatistics(items []ReviewItem, opts ReviewOptions) (ReviewStats, error) {
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	if opts.Method == "" {
		opts.Method = "wilson"
	}
	if opts.Threshold == 0 {
		opts.Threshold = 1
	}
	st := ReviewStats{Reviewer: opts.Reviewer, Method: opts.Method, Level: opts.Level, Threshold: opts.Threshold}
	if st.Reviewer == "" {
		st.Reviewer = "final"
	}
	items = append([]ReviewItem(nil), items...)
	sort.Slice(items, func(i, j int) bool {
		if items[i].Episode != items[j].Episode {
			return items[i].Episode < items[j].Episode
		}
		return items[i].Reviewer < items[j].Reviewer
	})
	byEpisode := map[string][]ReviewItem{}
	var episodes []string
	for _, it := range items {
		if _, ok := byEpisode[it.Episode]; !ok {
			episodes = append(episodes, it.Episode)
		}
		byEpisode[it.Episode] = append(byEpisode[it.Episode], it)
	}
	var final []ReviewItem
	for _, ep := range episodes {
		its := byEpisode[ep]
		if opts.Reviewer != "" {
			for _, it := range its {
				if it.Reviewer != opts.Reviewer {
					continue
				}
				if it.Outcome == ReviewFailed {
					st.Failed++
				} else {
					final = append(final, it)
				}
			}
			continue
		}
		var adj, humans []ReviewItem
		for _, it := range its {
			switch {
			case it.Kind == ReviewerAdjudicator && it.Outcome != ReviewFailed:
				adj = append(adj, it)
			case it.Kind == ReviewerHuman && it.Outcome != ReviewFailed:
				humans = append(humans, it)
			}
		}
		switch {
		case len(adj) > 0:
			final = append(final, adj[0])
			st.Adjudicated++
		case len(humans) == 1:
			final = append(final, humans[0])
		case len(humans) > 1:
			agree := true
			for _, h := range humans[1:] {
				if h.HasError() != humans[0].HasError() || h.Critical() != humans[0].Critical() {
					agree = false
				}
			}
			if agree {
				final = append(final, humans[0])
				st.Agreed++
			} else {
				st.Pending = append(st.Pending, ep)
			}
		}
	}
	if len(final) == 0 {
		return st, fmt.Errorf("review statistics: no decided episode (reviewer %s)", st.Reviewer)
	}
	st.Episodes = len(final)
	var err error
	if st.Overall, err = shareRow("all", final, opts); err != nil {
		return st, err
	}
	byDomain := map[string][]ReviewItem{}
	for _, it := range final {
		d := it.Domain
		if d == "" {
			d = NotInWorkspace
		}
		byDomain[d] = append(byDomain[d], it)
	}
	for _, d := range sortedKeys(byDomain) {
		row, err := shareRow(d, byDomain[d], opts)
		if err != nil {
			return st, err
		}
		st.Domains = append(st.Domains, row)
	}
	codes := map[string]*CodeCount{}
	for _, it := range final {
		seen := map[string]bool{}
		for _, e := range it.Errors {
			c := codes[e.Code]
			if c == nil {
				c = &CodeCount{Code: e.Code}
				codes[e.Code] = c
			}
			c.Errors++
			if e.Severity != SeverityMinor {
				c.Critical++
			}
			if !seen[e.Code] {
				seen[e.Code] = true
				c.Episodes++
			}
		}
	}
	for _, c := range codes {
		st.Codes = append(st.Codes, *c)
	}
	sort.Slice(st.Codes, func(i, j int) bool {
		if st.Codes[i].Errors != st.Codes[j].Errors {
			return st.Codes[i].Errors > st.Codes[j].Errors
		}
		return st.Codes[i].Code < st.Codes[j].Code
	})
	var pass, passRest, rest int
	rerun := map[string]bool{}
	for _, it := range final {
		if it.Critical() {
			if it.TaskID == "" {
				st.RerunUnknown++
			} else {
				rerun[it.Domain+"/"+it.TaskID] = true
			}
		}
		if !it.HasReward {
			continue
		}
		st.WithReward++
		ok := it.Reward >= opts.Threshold
		st.CrossTab.Counts[b2i(!ok)][b2i(it.HasError())]++
		if ok {
			pass++
		}
		if !it.Critical() {
			rest++
			if ok {
				passRest++
			}
		}
	}
	st.Rerun = sortedKeys(rerun)
	if st.WithReward > 0 {
		p, err := opts.interval()(pass, st.WithReward, opts.Level)
		if err != nil {
			return st, err
		}
		st.Alongside = PassRate{Episodes: st.WithReward, Pass: p}
	}
	if rest > 0 {
		p, err := opts.interval()(passRest, rest, opts.Level)
		if err != nil {
			return st, err
		}
		st.Drop = PassRate{Episodes: rest, Pass: p}
	}
	st.Agreement = reviewAgreement(episodes, byEpisode)
	return st, nil
}

func (o ReviewOptions) interval() BinomialInterval {
	if o.Interval == nil {
		return Wilson
	}
	return o.Interval
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func shareRow(domain string, its []ReviewItem, opts ReviewOptions) (ShareRow, error) {
	n := len(its)
	var clean, nonCritical int
	for _, it := range its {
		if !it.HasError() {
			clean++
		}
		if !it.Critical() {
			nonCritical++
		}
	}
	e, err := ErrorShare(clean, n, opts.Level, opts.interval())
	if err != nil {
		return ShareRow{}, fmt.Errorf("%s: %w", domain, err)
	}
	c, err := ErrorShare(nonCritical, n, opts.Level, opts.interval())
	if err != nil {
		return ShareRow{}, fmt.Errorf("%s: %w", domain, err)
	}
	return ShareRow{Domain: domain, N: n, Error: e, Critical: c}, nil
}

// reviewAgreement is Cohen's kappa on "has a simulator error" and on
// "critical" for every pair of reviewers (adjudicators excluded) who both
// decided at least one episode.
func reviewAgreement(episodes []string, byEpisode map[string][]ReviewItem) []ReviewAgreement {
	type pairKey struct{ a, b string }
	pairs := map[pairKey]*ReviewAgreement{}
	labels := []string{"no", "yes"}
	yn := func(b bool) string { return labels[b2i(b)] }
	conf := map[pairKey][2]Confusion{}
	for _, ep := range episodes {
		its := byEpisode[ep]
		for i := range its {
			for j := i + 1; j < len(its); j++ {
				a, b := its[i], its[j]
				if a.Kind == ReviewerAdjudicator || b.Kind == ReviewerAdjudicator || a.Outcome == ReviewFailed || b.Outcome == ReviewFailed {
					continue
				}
				k := pairKey{a.Reviewer, b.Reviewer}
				p := pairs[k]
				if p == nil {
					p = &ReviewAgreement{A: a.Reviewer, B: b.Reviewer, KindA: a.Kind, KindB: b.Kind}
					pairs[k] = p
					conf[k] = [2]Confusion{ConfusionOf(labels), ConfusionOf(labels)}
				}
				p.N++
				p.ErrorTable[b2i(a.HasError())][b2i(b.HasError())]++
				p.CriticalTable[b2i(a.Critical())][b2i(b.Critical())]++
				c := conf[k]
				c[0].Add(yn(a.HasError()), yn(b.HasError()), 1)
				c[1].Add(yn(a.Critical()), yn(b.Critical()), 1)
			}
		}
	}
	var out []ReviewAgreement
	for k, p := range pairs {
		c := conf[k]
		p.HasError, p.Critical = CohenKappa(c[0]), CohenKappa(c[1])
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].A != out[j].A {
			return out[i].A < out[j].A
		}
		return out[i].B < out[j].B
	})
	return out
}

// MarshalJSON writes the agreement with null for an undefined kappa
// (JSON has no NaN).
func (a ReviewAgreement) MarshalJSON() ([]byte, error) {
	num := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	k := func(k Kappa) map[string]any {
		return map[string]any{"n": k.N, "observed": num(k.Observed), "expected": num(k.Expected), "kappa": num(k.Kappa),
			"se": num(k.SE), "lo": num(k.Lo), "hi": num(k.Hi)}
	}
	return json.Marshal(map[string]any{"a": a.A, "b": a.B, "kind_a": a.KindA, "kind_b": a.KindB, "n": a.N,
		"has_error": k(a.HasError), "critical": k(a.Critical), "error_table": a.ErrorTable, "critical_table": a.CriticalTable})
}

// FormatKappa prints a kappa, or "undefined" when it is NaN (both
// reviewers used one and the same answer throughout).
func FormatKappa(k Kappa) string {
	if math.IsNaN(k.Kappa) {
		return "undefined"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", k.Kappa, k.Lo, k.Hi)
}
