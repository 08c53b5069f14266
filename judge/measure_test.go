package judge

import (
	"math"
	"testing"
)

// TestMinimizeQuadratic: f(x) = (x-a)' A (x-a) / 2 with A = [[3, 1], [1, 2]]
// (positive definite) and a = (1, -2) has its minimum 0 at x = a.
func TestMinimizeQuadratic(t *testing.T) {
	a := []float64{1, -2}
	fg := func(x, g []float64) float64 {
		d0, d1 := x[0]-a[0], x[1]-a[1]
		g[0] = 3*d0 + d1
		g[1] = d0 + 2*d1
		return (3*d0*d0 + 2*d0*d1 + 2*d1*d1) / 2
	}
	x, err := minimize(fg, []float64{10, 10}, 100, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(x[0]-1) > 1e-6 || math.Abs(x[1]+2) > 1e-6 {
		t.Errorf("minimum at %v, want (1, -2)", x)
	}
}

// TestMinimizeLogistic fits a logistic regression whose maximum likelihood
// estimate is known by hand: x = 0, 0, 1, 1, 1 with y = 0, 1, 0, 1, 1. The
// model with an intercept and one binary feature is saturated, so the
// fitted probabilities are the group means: P(y|x=0) = 1/2 gives b = 0,
// P(y|x=1) = 2/3 gives w + b = logit(2/3) = ln 2.
func TestMinimizeLogistic(t *testing.T) {
	xs := []float64{0, 0, 1, 1, 1}
	ys := []float64{0, 1, 0, 1, 1}
	fg := func(p, g []float64) float64 {
		var loss float64
		g[0], g[1] = 0, 0
		for i := range xs {
			z := p[0]*xs[i] + p[1]
			q := 1 / (1 + math.Exp(-z))
			loss -= ys[i]*math.Log(q) + (1-ys[i])*math.Log(1-q)
			g[0] += (q - ys[i]) * xs[i]
			g[1] += q - ys[i]
		}
		return loss
	}
	p, err := minimize(fg, []float64{0.5, 0.5}, 200, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p[0]-math.Ln2) > 1e-5 || math.Abs(p[1]) > 1e-5 {
		t.Errorf("w, b = %v, want ln 2 = %.6f, 0", p, math.Ln2)
	}
}

// TestFitCalibration: two groups of classifier labels, score 0.6 (logit
// 0.405) right 1 time in 2, and score 0.9 (logit 2.197) right 3 times in 4.
// Platt scaling with two distinct scores and no rule labels is saturated:
// the fitted confidences are the groups' shares right, 1/2 and 3/4, up to
// the tiny ridge penalty (calibrationL2 = 1e-3 moves them by < 0.01).
func TestFitCalibration(t *testing.T) {
	rs := []Result{{Score: 0.6}, {Score: 0.6}, {Score: 0.9}, {Score: 0.9}, {Score: 0.9}, {Score: 0.9}}
	ok := []bool{true, false, true, true, true, false}
	c, err := FitCalibration(rs, ok)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Confidence(Result{Score: 0.6}); math.Abs(got-0.5) > 0.01 {
		t.Errorf("confidence at 0.6 = %.4f, want 0.5", got)
	}
	if got := c.Confidence(Result{Score: 0.9}); math.Abs(got-0.75) > 0.01 {
		t.Errorf("confidence at 0.9 = %.4f, want 0.75", got)
	}
	if _, err := FitCalibration(rs, ok[:2]); err == nil {
		t.Error("mismatched lengths accepted")
	}
}

// TestReliability: confidences 0.15, 0.15, 0.95, 0.95, 0.95 with 1 of the
// first two right and 2 of the last three right. Bin [0.1, 0.2): mean
// confidence 0.15, accuracy 0.5, gap 0.35; bin [0.9, 1]: 0.95 against
// 2/3, gap 0.28333. ECE = 2/5 * 0.35 + 3/5 * 0.28333 = 0.14 + 0.17 = 0.31.
func TestReliability(t *testing.T) {
	bins, ece := Reliability([]float64{0.15, 0.15, 0.95, 0.95, 0.95}, []bool{true, false, true, true, false}, 10)
	if len(bins) != 10 || bins[1].N != 2 || bins[9].N != 3 || bins[0].N != 0 {
		t.Fatalf("bins %+v", bins)
	}
	if math.Abs(bins[1].Accuracy-0.5) > 1e-12 || math.Abs(bins[9].Confidence-0.95) > 1e-12 {
		t.Errorf("bins %+v", bins)
	}
	if math.Abs(ece-0.31) > 1e-9 {
		t.Errorf("ECE %.6f, want 0.31", ece)
	}
	// A confidence of exactly 1 falls into the last bin.
	if bins, _ := Reliability([]float64{1}, []bool{true}, 10); bins[9].N != 1 {
		t.Errorf("confidence 1 not in the last bin: %+v", bins[9])
	}
}

// TestRiskCoverage: ten labels, confidence falling with the index; the
// first six are right, then wrong, right, wrong, wrong. At coverage 0.5
// the five most confident are all right (accuracy 1); at 0.7 the seven
// kept hold one error (6/7 = 0.857); at 1.0, 7 of 10.
func TestRiskCoverage(t *testing.T) {
	ref := []Move{Approve, Critical, Directive, Inquiry, Other, Critical, Directive, Inquiry, Approve, Critical}
	got := []Move{Approve, Critical, Directive, Inquiry, Other, Critical, Inquiry, Inquiry, Directive, Directive}
	conf := []float64{0.99, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55}
	pts, err := RiskCoverage(ref, got, conf, []float64{1, 0.7, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		n   int
		acc float64
	}{{10, 0.7}, {7, 6.0 / 7}, {5, 1}}
	for i, w := range want {
		if pts[i].N != w.n || math.Abs(pts[i].Accuracy-w.acc) > 1e-12 {
			t.Errorf("coverage %.1f: n %d, accuracy %.4f; want %d, %.4f", pts[i].Coverage, pts[i].N, pts[i].Accuracy, w.n, w.acc)
		}
	}
	// At 0.5 every kept label is right over five different labels: kappa 1.
	if pts[2].Kappa != 1 {
		t.Errorf("kappa at 0.5 = %v, want 1", pts[2].Kappa)
	}
	// Order of the input must not matter: reverse it.
	for i, j := 0, len(ref)-1; i < j; i, j = i+1, j-1 {
		ref[i], ref[j], got[i], got[j], conf[i], conf[j] = ref[j], ref[i], got[j], got[i], conf[j], conf[i]
	}
	rev, _ := RiskCoverage(ref, got, conf, []float64{1, 0.7, 0.5})
	for i := range rev {
		a, b := rev[i], pts[i]
		same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
		if a.Coverage != b.Coverage || a.N != b.N || a.Accuracy != b.Accuracy || !same(a.Kappa, b.Kappa) || !same(a.Lo, b.Lo) || !same(a.Hi, b.Hi) {
			t.Errorf("reversed input: %+v, want %+v", rev[i], pts[i])
		}
	}
}

// TestTrainLearnsWords trains on hand-written messages in which made-up
// words decide the move (no cue can know them) and checks that the trained
// judge labels new messages by those words: training, not the shipped
// weights, is what is tested.
func TestTrainLearnsWords(t *testing.T) {
	p := Params{Lambda: 0.01, Words: 2, Bigrams: 0, Lead: 0, Cues: 0, MinDF: 1, Iterations: 300}
	var exs []Example
	add := func(move Move, msgs ...string) {
		for _, m := range msgs {
			exs = append(exs, Example{ID: m, Repo: "r", Message: m, Move: move})
		}
	}
	add(Inquiry, "zorp the widget", "zorp a gadget", "zorp zorp")
	add(Critical, "blick the widget", "blick a gadget", "the blick")
	add(Directive, "fnord the widget", "fnord a gadget", "a fnord")
	add(Approve, "quux the widget", "quux a gadget", "quux quux")
	m, err := Train(exs, p)
	if err != nil {
		t.Fatal(err)
	}
	b := FromModel(m)
	for _, tt := range []struct {
		msg  string
		want Move
	}{{"zorp gadget", Inquiry}, {"blick widget", Critical}, {"widget fnord", Directive}, {"gadget quux", Approve}} {
		if r := b.Label(tt.msg, ""); r.Move != tt.want {
			t.Errorf("Label(%q) = %s (%.2f), want %s", tt.msg, r.Move, r.Score, tt.want)
		}
	}
}
