package review

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// PlanOptions configures MakePlan. At least one of Width and Detect is
// needed.
type PlanOptions struct {
	Width    float64 // target full width of the error share's interval; 0: not asked
	Detect   float64 // difference between two simulators' error shares to detect; 0: not asked
	Expected float64 // anticipated error share; < 0 means from the workspace (else 0.5)
	Level    float64 // 0 means 0.95
	Power    float64 // 0 means 0.8
	// OversampleProbes W: plan for a probe-guided batch, whose unequal
	// weights cost precision (Kish's design effect).
	OversampleProbes float64
}

// Plan is how many episodes to review.
type Plan struct {
	Expected     float64 `json:"expected"`
	ExpectedFrom string  `json:"expected_from"` // people, the LLM reviewer's name, given, or worst case
	Level        float64 `json:"level"`
	Width        float64 `json:"width,omitempty"`
	Episodes     int     `json:"episodes,omitempty"` // for Width
	Detect       float64 `json:"detect,omitempty"`
	Power        float64 `json:"power,omitempty"`
	PerSimulator int     `json:"per_simulator,omitempty"` // for Detect: episodes of each of the two simulators
	// DesignEffect is the factor applied for a probe-guided batch (1 for a
	// simple random sample), from ProbeShare, the share of the
	// workspace's episodes where probes fired.
	DesignEffect     float64 `json:"design_effect"`
	OversampleProbes float64 `json:"oversample_probes,omitempty"`
	ProbeShare       float64 `json:"probe_share,omitempty"`
	// LeftOut are the workspace's episodes no review can judge, left out
	// of ProbeShare (and of any batch); nil when there are none.
	LeftOut *LeftOut `json:"left_out,omitempty"`
}

// MakePlan says how many episodes to review for an interval of the given
// width (analysis.PlanWidth) and to detect a difference between two
// simulators (analysis.PlanDetect, from Expected to Expected + Detect, or
// to Expected - Detect when that would pass 1). db may be nil (no
// workspace): the expected share is then the one given, or 0.5 (the
// widest interval). Options that cannot be met are ErrInvalid.
func MakePlan(ctx context.Context, db queries.Querier, opts PlanOptions) (Plan, error) {
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	if opts.Power == 0 {
		opts.Power = 0.8
	}
	p := Plan{Expected: opts.Expected, ExpectedFrom: "given", Level: opts.Level, DesignEffect: 1}
	if opts.Width == 0 && opts.Detect == 0 {
		return p, kindError{fmt.Errorf("review plan: say --width, --detect or both"), ErrInvalid}
	}
	if opts.Expected > 1 {
		return p, kindError{fmt.Errorf("review plan: --expected %v: want a share between 0 and 1", opts.Expected), ErrInvalid}
	}
	var cands []queries.ReviewCandidate
	if db != nil {
		var err error
		if cands, err = queries.ReviewCandidates(ctx, db); err != nil {
			return p, err
		}
		var lo LeftOut
		if cands, lo = Reviewable(cands); lo != (LeftOut{}) {
			p.LeftOut = &lo
		}
	}
	if opts.Expected < 0 {
		p.Expected, p.ExpectedFrom = 0.5, "worst case (no decision yet)"
		if db != nil {
			ds, err := queries.ReviewDecisions(ctx, db)
			if err != nil {
				return p, err
			}
			if st, err := analysis.ReviewStatistics(Items(ds), analysis.ReviewOptions{Level: opts.Level}); err == nil {
				p.Expected, p.ExpectedFrom = st.Overall.Error.P, "people"
			} else if llm := llmShare(ds); llm.n > 0 {
				p.Expected, p.ExpectedFrom = float64(llm.k)/float64(llm.n), llm.name
			}
		}
	}
	if opts.OversampleProbes != 0 {
		if err := checkOversample(opts.OversampleProbes); err != nil {
			return p, kindError{fmt.Errorf("review plan: %w", err), ErrInvalid}
		}
		fired := 0
		for _, c := range cands {
			if c.ProbesFired {
				fired++
			}
		}
		if len(cands) > 0 {
			p.ProbeShare = float64(fired) / float64(len(cands))
		}
		p.OversampleProbes = opts.OversampleProbes
		p.DesignEffect = analysis.ProbeDesignEffect(p.ProbeShare, opts.OversampleProbes)
	}
	var err error
	if opts.Width != 0 {
		p.Width = opts.Width
		if p.Episodes, err = analysis.PlanWidth(p.Expected, opts.Width, opts.Level, p.DesignEffect); err != nil {
			return p, kindError{fmt.Errorf("review %w", err), ErrInvalid}
		}
	}
	if opts.Detect != 0 {
		p.Detect, p.Power = opts.Detect, opts.Power
		p2 := p.Expected + opts.Detect
		if p2 > 1 {
			p2 = p.Expected - opts.Detect
		}
		if p.PerSimulator, err = analysis.PlanDetect(p.Expected, p2, opts.Level, opts.Power, p.DesignEffect); err != nil {
			return p, kindError{fmt.Errorf("review %w", err), ErrInvalid}
		}
	}
	return p, nil
}

type share struct {
	name string
	k, n int
}

// llmShare is the first LLM reviewer's error share (by name), when no
// human decision counts.
func llmShare(ds []queries.Decision) share {
	var s share
	for _, d := range ds {
		if d.Kind != queries.KindLLM || d.Outcome == queries.OutcomeFailed {
			continue
		}
		if s.name == "" || d.Reviewer < s.name {
			s = share{name: d.Reviewer}
		}
	}
	for _, d := range ds {
		if d.Reviewer == s.name && d.Outcome != queries.OutcomeFailed {
			s.n++
			if d.Outcome == queries.OutcomeError {
				s.k++
			}
		}
	}
	return s
}

// Text is the plan as lines for a person.
func (p Plan) Text() string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	var b strings.Builder
	fmt.Fprintf(&b, "expected error share %s (%s), level %s\n", g(p.Expected), p.ExpectedFrom, g(p.Level))
	if p.OversampleProbes != 0 {
		fmt.Fprintf(&b, "probe-guided batch, weight %s, probes fired on %s of the episodes: design effect %s (Kish)\n",
			g(p.OversampleProbes), g(p.ProbeShare), strconv.FormatFloat(p.DesignEffect, 'f', 3, 64))
	}
	if p.LeftOut != nil {
		fmt.Fprintf(&b, "left out: %s, which no review can judge\n", p.LeftOut)
	}
	if p.Width != 0 {
		fmt.Fprintf(&b, "review %d episodes for a Wilson interval of width %s\n", p.Episodes, g(p.Width))
	}
	if p.Detect != 0 {
		fmt.Fprintf(&b, "review %d episodes of each of two simulators to detect a difference of %s in their error shares (power %s, two-sided test at %s)\n",
			p.PerSimulator, g(p.Detect), g(p.Power), g(1-p.Level))
	}
	return b.String()
}
