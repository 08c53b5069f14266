package analysis

import (
	"math"
	"reflect"
	"testing"
)

func TestJeffreysPublished(t *testing.T) {
	// RSurveillance::binom.jeffreys (CRAN, version 0.2.1), the examples of
	// its manual page: 25/200 -> 0.08462743 to 0.176126; 10/200 ->
	// 0.02599340 to 0.08687509; 50/200 -> 0.19387268 to 0.31330266.
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{25, 200, 0.08462743, 0.176126},
		{10, 200, 0.02599340, 0.08687509},
		{50, 200, 0.19387268, 0.31330266},
	} {
		p, err := Jeffreys(c.k, c.n, 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Lo-c.lo) > 1e-6 || math.Abs(p.Hi-c.hi) > 1e-6 {
			t.Errorf("Jeffreys(%d, %d) = [%.8f, %.8f], want [%.8f, %.8f]", c.k, c.n, p.Lo, p.Hi, c.lo, c.hi)
		}
	}
}

func TestJeffreysClosedForm(t *testing.T) {
	// k = 0, n = 1: the posterior is Beta(1/2, 3/2), whose CDF has the
	// closed form (substitute t = sin^2 theta in the integral of
	// t^-1/2 (1-t)^1/2, and B(1/2, 3/2) = pi/2):
	//   F(x) = (2/pi) (asin(sqrt x) + sqrt(x (1 - x))).
	// The upper 95% bound solves F(x) = 0.975; bisection on the closed form
	// (not gonum's beta quantile) gives it. The lower bound is 0 by the
	// boundary rule.
	f := func(x float64) float64 { return 2 / math.Pi * (math.Asin(math.Sqrt(x)) + math.Sqrt(x*(1-x))) }
	a, b := 0.0, 1.0
	for range 200 {
		m := (a + b) / 2
		if f(m) < 0.975 {
			a = m
		} else {
			b = m
		}
	}
	p, err := Jeffreys(0, 1, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if p.Lo != 0 || math.Abs(p.Hi-a) > 1e-9 {
		t.Errorf("Jeffreys(0, 1) = [%v, %v], want [0, %v]", p.Lo, p.Hi, a)
	}
	if p, _ := Jeffreys(3, 3, 0.95); p.Hi != 1 {
		t.Errorf("Jeffreys(3, 3).Hi = %v, want 1", p.Hi)
	}
	if _, err := Jeffreys(4, 3, 0.95); err == nil {
		t.Error("Jeffreys(4, 3): no error")
	}
}

func TestErrorShareNinetyCalls(t *testing.T) {
	// The README's worked example: ../shared/corpus/tau2/annotations/
	// tau_elicit_human_failure_validation_90_calls.csv holds 90 calls with
	// a human failure source: 81 agent, 4 system, 4 unresolved, 1 user. The
	// user (simulator) is at fault in 1 call; the 4 unresolved are no
	// decision, so n = 86 and c = 85 calls without a simulator error.
	//
	// Wilson, z = 1.959964, z^2 = 3.841459, z^2/n = 0.0446681, p = 85/86:
	//   centre = (p + z^2/(2n)) / (1 + z^2/n) = 0.9674902
	//   half   = z sqrt(p(1-p)/n + z^2/(4n^2)) / (1 + z^2/n) = 0.0304542
	//   pass [0.9370359, 0.9979444] -> error share 1/86 = 0.0116279,
	//   flipped: [1 - 0.9979444, 1 - 0.9370359] = [0.0020556, 0.0629641].
	// Clopper-Pearson on the error count 1 (the interval is symmetric under
	// k -> n-k): lower solves P(X >= 1) = 1 - (1-p)^86 = 0.025, so
	//   p = 1 - 0.975^(1/86) = 0.00029435;
	// upper solves P(X <= 1) = (1-p)^86 + 86 p (1-p)^85 = 0.025: bisection
	// on that polynomial gives 0.0630905.
	w, err := ErrorShare(85, 86, 0.95, Wilson)
	if err != nil {
		t.Fatal(err)
	}
	if w.K != 1 || w.N != 86 || math.Abs(w.P-1.0/86) > 1e-12 || math.Abs(w.Lo-0.0020556) > 1e-6 || math.Abs(w.Hi-0.0629641) > 1e-6 {
		t.Errorf("Wilson error share = %+v, want 1/86 = 0.0116279 [0.0020556, 0.0629641]", w)
	}
	cp, err := ErrorShare(85, 86, 0.95, ClopperPearson)
	if err != nil {
		t.Fatal(err)
	}
	lo := 1 - math.Pow(0.975, 1.0/86)
	f := func(p float64) float64 { return math.Pow(1-p, 86) + 86*p*math.Pow(1-p, 85) - 0.025 }
	a, b := 0.0, 1.0
	for range 200 {
		m := (a + b) / 2
		if f(m) > 0 {
			a = m
		} else {
			b = m
		}
	}
	if math.Abs(cp.Lo-lo) > 1e-7 || math.Abs(cp.Hi-a) > 1e-7 || math.Abs(cp.Lo-0.00029435) > 1e-7 || math.Abs(cp.Hi-0.0630905) > 1e-6 {
		t.Errorf("Clopper-Pearson error share = [%v, %v], want [%v, %v]", cp.Lo, cp.Hi, lo, a)
	}
}

// reviewFixture: five episodes, two humans (alice, bob), an adjudicator and
// an LLM reviewer whose only review failed to parse.
func reviewFixture() []ReviewItem {
	crit := func(code, sev string) []ReviewFinding { return []ReviewFinding{{Code: code, Severity: sev}} }
	it := func(ep, rev, kind, out, dom string, reward float64, errs []ReviewFinding) ReviewItem {
		return ReviewItem{Episode: ep, Reviewer: rev, Kind: kind, Outcome: out, Domain: dom, TaskID: "t" + ep[1:], Reward: reward, HasReward: true, Errors: errs}
	}
	return []ReviewItem{
		it("e1", "alice", "human", "no_error", "airline", 1, nil),
		it("e1", "bob", "human", "no_error", "airline", 1, nil),
		it("e2", "alice", "human", "error", "airline", 0, crit("hallucination", "critical_hindered")),
		it("e2", "bob", "human", "error", "airline", 0, crit("hallucination", "critical_hindered")),
		it("e3", "alice", "human", "error", "retail", 0, crit("premature_termination", "minor")),
		it("e3", "bob", "human", "no_error", "retail", 0, nil),
		it("e4", "alice", "human", "error", "retail", 1, crit("other", "minor")),
		it("e5", "alice", "human", "no_error", "retail", 0, nil),
		it("e5", "bob", "human", "error", "retail", 0, crit("wrong_sequence", "critical_helped")),
		it("e5", "judge", "adjudicator", "error", "retail", 0, crit("wrong_sequence", "critical_helped")),
		it("e6", "llm:gpt", "llm", "failed", "airline", 1, nil),
	}
}

func TestReviewStatisticsByHand(t *testing.T) {
	st, err := ReviewStatistics(reviewFixture(), ReviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Final decisions: e1 (agreed, no error), e2 (agreed, critical), e4
	// (alice alone, minor), e5 (adjudicated, critical); e3 pending (alice
	// error, bob none); e6 has only an LLM review (not a human decision).
	if st.Episodes != 4 || st.Agreed != 2 || st.Adjudicated != 1 || !reflect.DeepEqual(st.Pending, []string{"e3"}) {
		t.Fatalf("episodes %d agreed %d adjudicated %d pending %v, want 4 2 1 [e3]", st.Episodes, st.Agreed, st.Adjudicated, st.Pending)
	}
	// Error share 3/4: Wilson on the pass share 1/4 (z^2/n = 0.960365):
	// centre = (0.25 + 0.480182)/1.960365 = 0.372468, half = 1.959964 *
	// sqrt(0.046875 + 0.060023)/1.960365 = 0.326891 -> pass [0.045587,
	// 0.699358], flipped error [0.300642, 0.954413].
	o := st.Overall
	if o.N != 4 || o.Error.K != 3 || math.Abs(o.Error.P-0.75) > 1e-12 || math.Abs(o.Error.Lo-0.300642) > 1e-6 || math.Abs(o.Error.Hi-0.954413) > 1e-6 {
		t.Errorf("overall error share %+v, want 3/4 [0.300642, 0.954413]", o.Error)
	}
	// Critical 2/4 (e2, e5): pass 2/4 Wilson [0.150039, 0.849961], symmetric.
	if o.Critical.K != 2 || math.Abs(o.Critical.Lo-0.150039) > 1e-6 || math.Abs(o.Critical.Hi-0.849961) > 1e-6 {
		t.Errorf("overall critical share %+v, want 2/4 [0.150039, 0.849961]", o.Critical)
	}
	if len(st.Domains) != 2 || st.Domains[0].Domain != "airline" || st.Domains[0].Error.K != 1 || st.Domains[1].Domain != "retail" ||
		st.Domains[1].Error.K != 2 || st.Domains[1].Critical.K != 1 {
		t.Errorf("domains %+v, want airline 1/2 error, retail 2/2 error 1/2 critical", st.Domains)
	}
	// retail: 2 of 2 with an error: pass 0/2, Wilson [0, 0.657620] -> error [0.342380, 1].
	if r := st.Domains[1].Error; math.Abs(r.Lo-0.342380) > 1e-6 || r.Hi != 1 {
		t.Errorf("retail error interval [%v, %v], want [0.342380, 1]", r.Lo, r.Hi)
	}
	wantCodes := []CodeCount{{"hallucination", 1, 1, 1}, {"other", 1, 1, 0}, {"wrong_sequence", 1, 1, 1}}
	if !reflect.DeepEqual(st.Codes, wantCodes) {
		t.Errorf("codes %+v, want %+v", st.Codes, wantCodes)
	}
	// Cross tab [agent failed][simulator error]: e1 [0][0], e4 [0][1], e2 and e5 [1][1].
	if st.CrossTab.Counts != [2][2]int{{1, 1}, {0, 2}} {
		t.Errorf("cross tab %v, want [[1 1] [0 2]]", st.CrossTab.Counts)
	}
	// Drop: e1 and e4 remain, both passed: 2/2. Alongside: 2/4.
	if st.Drop.Pass.K != 2 || st.Drop.Pass.N != 2 || st.Alongside.Pass.K != 2 || st.Alongside.Pass.N != 4 {
		t.Errorf("drop %+v alongside %+v, want 2/2 and 2/4", st.Drop.Pass, st.Alongside.Pass)
	}
	if !reflect.DeepEqual(st.Rerun, []string{"airline/t2", "retail/t5"}) {
		t.Errorf("rerun %v", st.Rerun)
	}
	// alice vs bob on e1 e2 e3 e5. Has error: (n,n) (y,y) (y,n) (n,y):
	// p_o = 1/2, marginals 1/2 each, p_e = 1/2, kappa 0. Critical: (n,n)
	// (y,y) (n,n) (n,y): p_o = 3/4, alice 1/4 yes, bob 2/4 yes, p_e =
	// 3/4*2/4 + 1/4*2/4 = 1/2, kappa = (3/4 - 1/2)/(1/2) = 1/2.
	if len(st.Agreement) != 1 {
		t.Fatalf("agreement %+v, want one pair", st.Agreement)
	}
	ag := st.Agreement[0]
	if ag.A != "alice" || ag.B != "bob" || ag.N != 4 || math.Abs(ag.HasError.Kappa) > 1e-12 || math.Abs(ag.Critical.Kappa-0.5) > 1e-12 {
		t.Errorf("agreement %s vs %s n %d: kappa %v / %v, want 0 / 0.5", ag.A, ag.B, ag.N, ag.HasError.Kappa, ag.Critical.Kappa)
	}
	// Krippendorff's alpha (nominal), 4 units of 2 values, n = 8 values.
	// Has error: 4 no, 4 yes; disagreeing ordered pairs 2 (e3) + 2 (e5):
	// alpha = 1 - (n-1) * 4 / (2 * 4 * 4) = 1 - 28/32 = 0.125. Critical:
	// 5 no, 3 yes; disagreeing pairs 2 (e5): alpha = 1 - 7 * 2 / (2 * 5 *
	// 3) = 1 - 14/30 = 8/15.
	if math.Abs(ag.AlphaHasError-0.125) > 1e-12 || math.Abs(ag.AlphaCritical-8.0/15) > 1e-12 {
		t.Errorf("alpha %v / %v, want 0.125 / 0.533333", ag.AlphaHasError, ag.AlphaCritical)
	}
}

func TestReviewStatisticsOneReviewer(t *testing.T) {
	st, err := ReviewStatistics(reviewFixture(), ReviewOptions{Reviewer: "llm:gpt"})
	if err == nil {
		t.Fatalf("a reviewer whose only review failed: %+v, want an error (a failed review is no pass)", st)
	}
	st, err = ReviewStatistics(reviewFixture(), ReviewOptions{Reviewer: "bob", Interval: ClopperPearson, Method: "cp"})
	if err != nil {
		t.Fatal(err)
	}
	// bob: e1 none, e2 critical, e3 none, e5 critical -> 2 of 4.
	if st.Episodes != 4 || st.Overall.Error.K != 2 || st.Overall.Critical.K != 2 || st.Method != "cp" {
		t.Errorf("bob: %+v", st.Overall)
	}
}
