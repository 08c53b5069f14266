package judge

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/ub-bench/ub"
)

// Calibration maps a built-in label to the probability that it is right:
//
//	P(correct) = 1 / (1 + exp(-(A*logit(score) + B*rule + C)))
//
// where score is the classifier's probability for the label (clamped to
// [1e-4, 1-1e-4]) and rule is 1 when an override rule decided. It is Platt
// scaling (Platt 1999, "Probabilistic outputs for support vector machines")
// of the label's own score, with one more term because a rule's label is
// right more often than the classifier's score for it says. The zero value
// gives 0.5 for every label (uncalibrated).
type Calibration struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
	C float64 `json:"c"`
}

func calibFeatures(r Result) (x1, x2 float64) {
	s := math.Min(math.Max(r.Score, 1e-4), 1-1e-4)
	x1 = math.Log(s / (1 - s))
	if r.Rule != "" {
		x2 = 1
	}
	return x1, x2
}

// Confidence returns the calibrated probability that r's label is right.
func (c Calibration) Confidence(r Result) float64 {
	x1, x2 := calibFeatures(r)
	return 1 / (1 + math.Exp(-(c.A*x1 + c.B*x2 + c.C)))
}

// calibrationL2 is a small ridge penalty (per item) on A and B: it keeps the
// fit finite when one group (e.g. the rule labels) is all correct.
const calibrationL2 = 1e-3

// FitCalibration fits a Calibration to labels rs and whether each was right,
// by maximum likelihood with a small ridge penalty (calibrationL2), with
// L-BFGS.
func FitCalibration(rs []Result, correct []bool) (Calibration, error) {
	if len(rs) != len(correct) || len(rs) == 0 {
		return Calibration{}, fmt.Errorf("judge: calibrate: %d results, %d outcomes", len(rs), len(correct))
	}
	x1 := make([]float64, len(rs))
	x2 := make([]float64, len(rs))
	for i, r := range rs {
		x1[i], x2[i] = calibFeatures(r)
	}
	n := float64(len(rs))
	fg := func(p, g []float64) float64 {
		var loss float64
		g[0], g[1], g[2] = 0, 0, 0
		for i := range rs {
			z := p[0]*x1[i] + p[1]*x2[i] + p[2]
			q := 1 / (1 + math.Exp(-z))
			y := 0.0
			if correct[i] {
				y = 1
			}
			// log loss, computed stably: log(1+e^-z) for y=1, log(1+e^z) for y=0.
			if y == 1 {
				loss += softplus(-z)
			} else {
				loss += softplus(z)
			}
			d := q - y
			g[0] += d * x1[i]
			g[1] += d * x2[i]
			g[2] += d
		}
		for j := range g {
			g[j] /= n
		}
		g[0] += calibrationL2 * p[0]
		g[1] += calibrationL2 * p[1]
		return loss/n + calibrationL2/2*(p[0]*p[0]+p[1]*p[1])
	}
	p, err := minimize(fg, []float64{1, 0, 0}, 200, 1e-9)
	if err != nil {
		return Calibration{}, fmt.Errorf("judge: calibrate: %w", err)
	}
	return Calibration{A: p[0], B: p[1], C: p[2]}, nil
}

func softplus(z float64) float64 {
	if z > 30 {
		return z
	}
	return math.Log1p(math.Exp(z))
}

// ReliabilityBin is one bin of a reliability diagram.
type ReliabilityBin struct {
	From       float64 `json:"from"` // the bin is [From, To), the last one [From, 1]
	To         float64 `json:"to"`
	N          int     `json:"n"`
	Confidence float64 `json:"confidence"` // mean confidence of the bin's labels
	Accuracy   float64 `json:"accuracy"`   // share of them that are right
}

// Reliability bins labels by confidence into nbins equal-width bins of
// [0, 1] and returns the bins (empty ones included, with N 0) and the
// expected calibration error
//
//	ECE = sum_b (n_b / n) |accuracy_b - confidence_b|
//
// (Naeini, Cooper & Hauskrecht 2015; Guo et al. 2017, eq. 3).
func Reliability(conf []float64, correct []bool, nbins int) ([]ReliabilityBin, float64) {
	bins := make([]ReliabilityBin, nbins)
	for b := range bins {
		bins[b].From, bins[b].To = float64(b)/float64(nbins), float64(b+1)/float64(nbins)
	}
	for i, c := range conf {
		b := int(c * float64(nbins))
		b = min(max(b, 0), nbins-1)
		bins[b].N++
		bins[b].Confidence += c
		if correct[i] {
			bins[b].Accuracy++
		}
	}
	var ece float64
	for b := range bins {
		if bins[b].N == 0 {
			continue
		}
		nb := float64(bins[b].N)
		bins[b].Confidence /= nb
		bins[b].Accuracy /= nb
		ece += nb / float64(len(conf)) * math.Abs(bins[b].Accuracy-bins[b].Confidence)
	}
	return bins, ece
}

// StandardCoverages are the coverages reported by default.
var StandardCoverages = []float64{1, 0.9, 0.8, 0.7, 0.5}

// RiskCoverage keeps, for each coverage c, the round(c*n) labels of highest
// confidence (ties broken by input order) and measures them against ref.
func RiskCoverage(ref, got []Move, conf []float64, coverages []float64) ([]ub.CoveragePoint, error) {
	order := make([]int, len(conf))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return conf[order[a]] > conf[order[b]] })
	var out []ub.CoveragePoint
	for _, c := range coverages {
		k := int(math.Round(c * float64(len(conf))))
		if k == 0 {
			return nil, fmt.Errorf("judge: coverage %.2f keeps no label of %d", c, len(conf))
		}
		r, g := make([]Move, k), make([]Move, k)
		right := 0
		for j, i := range order[:k] {
			r[j], g[j] = ref[i], got[i]
			if r[j] == g[j] {
				right++
			}
		}
		ag, err := Agree(r, g)
		if err != nil {
			return nil, err
		}
		out = append(out, ub.CoveragePoint{Coverage: c, N: k, Accuracy: float64(right) / float64(k), Kappa: ag.Kappa, Lo: ag.Lo, Hi: ag.Hi})
	}
	return out, nil
}

// KappaCI is a kappa with its 95% interval and its number of items.
type KappaCI struct {
	N     int     `json:"n"`
	Kappa float64 `json:"kappa"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	// Observed is the raw agreement p_o.
	Observed float64 `json:"observed"`
}

func kappaCI(ag Agreement) KappaCI {
	return KappaCI{N: ag.N, Kappa: ag.Kappa, Lo: ag.Lo, Hi: ag.Hi, Observed: ag.Observed}
}

// Measurement is the leave-one-repository-out measurement of the built-in
// judge on a labels corpus (MeasureLORO).
type Measurement struct {
	// Protocol says, in words, how the numbers were made.
	Protocol string `json:"protocol"`
	// Repos is the number of repositories (folds).
	Repos int `json:"repos"`
	// All is the agreement of the out-of-fold labels with the reference
	// over the whole corpus; Unseen the same restricted to the repositories
	// the shipped weights were not trained on (the held-back part of Split).
	All    KappaCI `json:"all"`
	Unseen KappaCI `json:"unseen"`
	// ECE is the expected calibration error of the out-of-fold confidences
	// over the whole corpus, with Bins, the reliability diagram (10 bins).
	ECE  float64          `json:"ece"`
	Bins []ReliabilityBin `json:"bins"`
	// Coverage is the risk-coverage curve over the whole corpus at
	// StandardCoverages.
	Coverage []ub.CoveragePoint `json:"coverage"`
	// Shipped is the agreement, on the held-back part, of a judge trained on
	// the tune part only, as the shipped weights are (set by
	// BuildMeasurement).
	Shipped KappaCI `json:"shipped_held_back"`
	// CorpusSHA256 identifies the corpus measured (as ModelMeta's).
	CorpusSHA256 string `json:"corpus_sha256,omitempty"`
}

// Outcome is one corpus item's out-of-fold label and calibrated
// confidence.
type Outcome struct {
	Result     Result
	Confidence float64
}

// MeasureLORO measures parameters p by leave-one-repository-out over exs:
// for every repository, a judge is trained on all the others and labels it.
// The confidence of a label of repository r comes from a Calibration fitted
// to the out-of-fold labels of the other repositories only, so neither the
// weights nor the calibration that label r's messages ever saw r's labels
// (the other repositories' out-of-fold scores come from models that did
// train on r's messages, a second-order dependence this protocol accepts to
// avoid a nested cross validation). unseen names the repositories whose
// agreement is also reported alone.
func MeasureLORO(exs []Example, p Params, unseen map[string]bool) (Measurement, []Outcome, error) {
	var m Measurement
	repo := func(e Example) string { return e.Repo }
	res, err := CrossValidate(exs, p, repo)
	if err != nil {
		return m, nil, err
	}
	correct := make([]bool, len(exs))
	ref := make([]Move, len(exs))
	got := make([]Move, len(exs))
	for i, e := range exs {
		ref[i], got[i] = e.Move, res[i].Move
		correct[i] = ref[i] == got[i]
	}
	repos := map[string]bool{}
	for _, e := range exs {
		repos[e.Repo] = true
	}
	names := make([]string, 0, len(repos))
	for r := range repos {
		names = append(names, r)
	}
	sort.Strings(names)
	m.Repos = len(names)
	out := make([]Outcome, len(exs))
	conf := make([]float64, len(exs))
	for _, r := range names {
		var rs []Result
		var cs []bool
		for i, e := range exs {
			if e.Repo != r {
				rs, cs = append(rs, res[i]), append(cs, correct[i])
			}
		}
		if len(rs) == 0 {
			return m, nil, errors.New("judge: measure: one repository only")
		}
		cal, err := FitCalibration(rs, cs)
		if err != nil {
			return m, nil, err
		}
		for i, e := range exs {
			if e.Repo == r {
				conf[i] = cal.Confidence(res[i])
				out[i] = Outcome{Result: res[i], Confidence: conf[i]}
			}
		}
	}
	all, err := Agree(ref, got)
	if err != nil {
		return m, nil, err
	}
	m.All = kappaCI(all)
	var ur, ug []Move
	for i, e := range exs {
		if unseen[e.Repo] {
			ur, ug = append(ur, ref[i]), append(ug, got[i])
		}
	}
	if len(ur) > 0 {
		ua, err := Agree(ur, ug)
		if err != nil {
			return m, nil, err
		}
		m.Unseen = kappaCI(ua)
	}
	m.Bins, m.ECE = Reliability(conf, correct, 10)
	if m.Coverage, err = RiskCoverage(ref, got, conf, StandardCoverages); err != nil {
		return m, nil, err
	}
	m.Protocol = fmt.Sprintf("leave-one-repository-out over %d labelled messages of %d repositories (train on all other repositories, label the one left out); "+
		"confidence by Platt scaling fitted to the other repositories' out-of-fold labels; kappa over the five labels with the Fleiss-Cohen-Everitt 95%% interval", len(exs), m.Repos)
	return m, out, nil
}

// At returns the risk-coverage point measured at coverage c (within 1e-9),
// if there is one.
func (m Measurement) At(c float64) (ub.CoveragePoint, bool) {
	for _, p := range m.Coverage {
		if math.Abs(p.Coverage-c) < 1e-9 {
			return p, true
		}
	}
	return ub.CoveragePoint{}, false
}
