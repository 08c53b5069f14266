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
	// Pi is the episode's inclusion probability in the probe-guided batch
	// the decision was made in, Stratum its stratum there; 0 and "" for a
	// decision outside such a batch.
	Pi      float64
	Stratum string
	// Salvaged marks an LLM decision read from the raw response of a
	// review tau2 failed to parse.
	Salvaged bool
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
	// Family maps a code to its family for the LLM reviewer's per-family
	// accuracy; nil means every code is its own family.
	Family func(code string) string
	// Bootstrap sets the draws of the corrected share's interval (its
	// Level is Level's).
	Bootstrap BootstrapOptions
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
	// AlphaHasError and AlphaCritical are Krippendorff's alpha (nominal)
	// of the two tables ([AlphaOfTable]); NaN when undefined. At error
	// shares near 0, kappa alone is unstable.
	AlphaHasError, AlphaCritical float64
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
	// Weighted says the shares and pass rates are weighted back to the
	// population by 1 / inclusion probability (a probe-guided batch):
	// Hájek estimates with Wilson intervals on the effective sample size
	// ([HajekShare]); counts, codes and the cross tab stay counts.
	// WeightNote says why estimates are not weighted when some are from a
	// probe-guided batch and some are not.
	Weighted   bool
	WeightNote string
	// LLM measures each LLM reviewer against the final human decisions
	// (without opts.Reviewer only).
	LLM []LLMReview
}

// LLMReview is an LLM reviewer measured against the final human
// decisions on the episodes both decided, and the simulator's error share
// over every episode it reviewed, corrected for its errors.
type LLMReview struct {
	Reviewer string
	Paired   int // episodes with a final human decision and a (not failed) review of this reviewer
	Failed   int // its failed reviews (all episodes), left out
	Reviewed int // episodes it decided (not failed)
	Salvaged int // of Reviewed, those salvaged from a review tau2 failed to parse
	HasError DiagnosticAccuracy
	Critical DiagnosticAccuracy
	Families []DiagnosticAccuracy // "has an error of this family", by family
	// CorrectedError and CorrectedCritical: the share over its Reviewed
	// episodes (Raw), corrected by Rogan-Gladen with HasError's (Critical's)
	// sensitivity and specificity; beside the human share (Overall).
	CorrectedError    CorrectedShare
	CorrectedCritical CorrectedShare
}

// NotInWorkspace is the domain of decisions on episodes the workspace
// does not hold (imported labels).
const NotInWorkspace = "(not in workspace)"

// ReviewStatistics computes SPEC section 7 from decisions. Unit: the
// episode. With c reviewed episodes without a simulator error out of n, the
// error share is 1 - c/n and its interval is the pass share's interval
// flipped ([ErrorShare]); the same for critical errors, overall and per
// domain. Failed reviews are counted, never passes. LLM decisions enter
// only through opts.Reviewer and the agreement table.
//
// Two jobs, in turn: finalDecisions settles each episode's one decision
// (see there), then the statistics of the settled decisions: the error
// shares overall and per domain (reviewShares), the error codes
// (codeCounts), the cross tab with the reward, the rerun list and the
// agent's pass rates under the three policies (rewardPolicies), the
// agreement between reviewers, and each LLM reviewer measured against the
// people (without opts.Reviewer).
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
	final := finalDecisions(episodes, byEpisode, opts.Reviewer, &st)
	if len(final) == 0 {
		return st, fmt.Errorf("review statistics: no decided episode (reviewer %s)", st.Reviewer)
	}
	st.Episodes = len(final)
	st.Weighted, st.WeightNote = reviewDesign(final)
	if err := reviewShares(final, opts, &st); err != nil {
		return st, err
	}
	st.Codes = codeCounts(final)
	if err := rewardPolicies(final, opts, &st); err != nil {
		return st, err
	}
	st.Agreement = reviewAgreement(episodes, byEpisode)
	if opts.Reviewer == "" {
		var err error
		if st.LLM, err = llmReviews(items, final, st, opts); err != nil {
			return st, err
		}
	}
	return st, nil
}

// finalDecisions returns the one decision of each episode the statistics
// count, in episode order, and counts in st the failed reviews (with
// reviewer), the adjudicated and agreed episodes and the pending ones.
// With reviewer, an episode's decision is that reviewer's. Without, it is
// its adjudicator's when there is one, else its human reviewers' when they
// agree on "has an error" and "critical" (the alphabetically first
// reviewer's codes are counted), and otherwise it is pending and left out.
func finalDecisions(episodes []string, byEpisode map[string][]ReviewItem, reviewer string, st *ReviewStats) []ReviewItem {
	var final []ReviewItem
	for _, ep := range episodes {
		its := byEpisode[ep]
		if reviewer != "" {
			for _, it := range its {
				if it.Reviewer != reviewer {
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
	return final
}

// reviewShares sets st.Overall and st.Domains: the error and critical
// shares with their intervals over the final decisions, overall and per
// domain (episodes the workspace does not hold under NotInWorkspace).
func reviewShares(final []ReviewItem, opts ReviewOptions, st *ReviewStats) error {
	var err error
	all := func(ReviewItem) bool { return true }
	if st.Overall, err = shareRow("all", final, final, all, opts, st.Weighted); err != nil {
		return err
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
		in := func(it ReviewItem) bool { return it.Domain == d || (it.Domain == "" && d == NotInWorkspace) }
		row, err := shareRow(d, byDomain[d], final, in, opts, st.Weighted)
		if err != nil {
			return err
		}
		st.Domains = append(st.Domains, row)
	}
	return nil
}

// codeCounts counts each error code over the final decisions (errors,
// critical errors, episodes with it), most errors first, then by code.
func codeCounts(final []ReviewItem) []CodeCount {
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
	var out []CodeCount
	for _, c := range codes {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Errors != out[j].Errors {
			return out[i].Errors > out[j].Errors
		}
		return out[i].Code < out[j].Code
	})
	return out
}

// rewardPolicies sets what the final decisions say of the agent's reward:
// the rerun list (domain/task of each episode with a critical error, and
// the count of those whose task is unknown), the cross tab of pass/fail
// against has-an-error, and the agent's pass rate on all episodes with a
// reward (Alongside) and on those without a critical error (Drop),
// weighted back when the batch was probe-guided.
func rewardPolicies(final []ReviewItem, opts ReviewOptions, st *ReviewStats) error {
	var pass, passRest, rest int
	rerun := map[string]bool{}
	for _, it := range final {
		if it.Critical() {
			switch {
			case it.TaskID == "":
				st.RerunUnknown++
			case it.Domain == "":
				rerun[NotInWorkspace+"/"+it.TaskID] = true
			default:
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
	passes := func(it ReviewItem) bool { return it.Reward >= opts.Threshold }
	if st.WithReward > 0 {
		p, err := opts.interval()(pass, st.WithReward, opts.Level)
		if err != nil {
			return err
		}
		if st.Weighted {
			p, err = weightedShare(final, func(it ReviewItem) bool { return it.HasReward }, passes, opts.Level)
			if err != nil {
				return err
			}
		}
		st.Alongside = PassRate{Episodes: st.WithReward, Pass: p}
	}
	if rest > 0 {
		p, err := opts.interval()(passRest, rest, opts.Level)
		if err != nil {
			return err
		}
		if st.Weighted {
			p, err = weightedShare(final, func(it ReviewItem) bool { return it.HasReward && !it.Critical() }, passes, opts.Level)
			if err != nil {
				return err
			}
		}
		st.Drop = PassRate{Episodes: rest, Pass: p}
	}
	return nil
}

// reviewDesign says whether the final decisions are weighted: when every
// one comes from a probe-guided batch (Pi > 0). When only some do, the
// estimates are unweighted and the note says so.
func reviewDesign(final []ReviewItem) (bool, string) {
	n := 0
	for _, it := range final {
		if it.Pi > 0 {
			n++
		}
	}
	switch {
	case n == 0:
		return false, ""
	case n < len(final):
		return false, fmt.Sprintf("%d of the %d decided episodes were drawn by a probe-guided batch and %d were not: "+
			"without one design for all, the estimates are unweighted (and lean towards the episodes where probes fired)", n, len(final), len(final)-n)
	}
	return true, ""
}

// weightedShare is [HajekShare] over the final decisions: the share of y
// among the episodes in.
func weightedShare(final []ReviewItem, in, y func(ReviewItem) bool, level float64) (Proportion, error) {
	us := make([]DesignUnit, len(final))
	for i, it := range final {
		us[i] = DesignUnit{Stratum: it.Stratum, Pi: it.Pi, In: in(it), Y: in(it) && y(it)}
	}
	d, err := HajekShare(us, level)
	return d.Proportion, err
}

// llmReviews measures every LLM reviewer against the final human
// decisions and corrects its error share (Rogan-Gladen).
func llmReviews(items, final []ReviewItem, st ReviewStats, opts ReviewOptions) ([]LLMReview, error) {
	family := opts.Family
	if family == nil {
		family = func(c string) string { return c }
	}
	finalOf := map[string]ReviewItem{}
	for _, it := range final {
		finalOf[it.Episode] = it
	}
	byReviewer := map[string][]ReviewItem{}
	for _, it := range items {
		if it.Kind == ReviewerLLM {
			byReviewer[it.Reviewer] = append(byReviewer[it.Reviewer], it)
		}
	}
	families := func(it ReviewItem) map[string]bool {
		m := map[string]bool{}
		for _, e := range it.Errors {
			m[family(e.Code)] = true
		}
		return m
	}
	var out []LLMReview
	for _, name := range sortedKeys(byReviewer) {
		r := LLMReview{Reviewer: name}
		var errs, crits int
		var he, cr []PairedCall
		fam := map[string][]PairedCall{}
		type pair struct{ h, l map[string]bool }
		var pairs []pair
		var pis []PairedCall
		for _, it := range byReviewer[name] {
			if it.Outcome == ReviewFailed {
				r.Failed++
				continue
			}
			r.Reviewed++
			if it.Salvaged {
				r.Salvaged++
			}
			if it.HasError() {
				errs++
			}
			if it.Critical() {
				crits++
			}
			h, ok := finalOf[it.Episode]
			if !ok {
				continue
			}
			r.Paired++
			pi, stratum := 0.0, ""
			if st.Weighted {
				pi, stratum = h.Pi, h.Stratum
			}
			he = append(he, PairedCall{Stratum: stratum, Pi: pi, Reference: h.HasError(), Test: it.HasError()})
			cr = append(cr, PairedCall{Stratum: stratum, Pi: pi, Reference: h.Critical(), Test: it.Critical()})
			pairs = append(pairs, pair{families(h), families(it)})
			pis = append(pis, PairedCall{Stratum: stratum, Pi: pi})
			for f := range pairs[len(pairs)-1].h {
				fam[f] = nil
			}
			for f := range pairs[len(pairs)-1].l {
				fam[f] = nil
			}
		}
		if r.Reviewed == 0 {
			out = append(out, r)
			continue
		}
		boot := opts.Bootstrap
		boot.Level = opts.Level
		var err error
		if r.Paired > 0 {
			r.HasError = Diagnose("has a simulator error", he, opts.Level)
			r.Critical = Diagnose("critical", cr, opts.Level)
			for _, f := range sortedKeys(fam) {
				calls := make([]PairedCall, len(pairs))
				for i, p := range pairs {
					calls[i] = PairedCall{Stratum: pis[i].Stratum, Pi: pis[i].Pi, Reference: p.h[f], Test: p.l[f]}
				}
				r.Families = append(r.Families, Diagnose(f, calls, opts.Level))
			}
		} else {
			r.HasError.Sensitivity, r.HasError.Specificity = nanProportion(), nanProportion()
			r.Critical.Sensitivity, r.Critical.Specificity = r.HasError.Sensitivity, r.HasError.Specificity
		}
		if r.CorrectedError, err = CorrectedErrorShare(errs, r.Reviewed, r.HasError.Sensitivity, r.HasError.Specificity, boot); err != nil {
			return nil, err
		}
		if r.CorrectedCritical, err = CorrectedErrorShare(crits, r.Reviewed, r.Critical.Sensitivity, r.Critical.Specificity, boot); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
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

func shareRow(domain string, its, final []ReviewItem, in func(ReviewItem) bool, opts ReviewOptions, weighted bool) (ShareRow, error) {
	if weighted {
		e, err := weightedShare(final, in, ReviewItem.HasError, opts.Level)
		if err != nil {
			return ShareRow{}, fmt.Errorf("%s: %w", domain, err)
		}
		c, err := weightedShare(final, in, ReviewItem.Critical, opts.Level)
		if err != nil {
			return ShareRow{}, fmt.Errorf("%s: %w", domain, err)
		}
		return ShareRow{Domain: domain, N: len(its), Error: e, Critical: c}, nil
	}
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

// reviewAgreement is Cohen's kappa and Krippendorff's alpha on "has a
// simulator error" and on "critical" for every pair of reviewers (adjudicators excluded) who both
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
		p.AlphaHasError, p.AlphaCritical = AlphaOfTable(p.ErrorTable), AlphaOfTable(p.CriticalTable)
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

// MarshalJSON writes the agreement with null for an undefined kappa or
// alpha (JSON has no NaN).
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
		"has_error": k(a.HasError), "critical": k(a.Critical), "error_table": a.ErrorTable, "critical_table": a.CriticalTable,
		"alpha_has_error": num(a.AlphaHasError), "alpha_critical": num(a.AlphaCritical)})
}

// FormatKappa prints a kappa, or "undefined" when it is NaN (both
// reviewers used one and the same answer throughout).
func FormatKappa(k Kappa) string {
	if math.IsNaN(k.Kappa) {
		return "undefined"
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", k.Kappa, k.Lo, k.Hi)
}
