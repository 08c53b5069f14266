package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ub-bench/ub"
)

// JudgeKappa is a measured Cohen's kappa with its 95% interval.
type JudgeKappa struct {
	N             int
	Kappa, Lo, Hi float64
}

// CalibrationBin is one bin of a reliability diagram.
type CalibrationBin struct {
	From, To             float64 // the bin's confidence range
	N                    int
	Confidence, Accuracy float64 // mean confidence and share right
}

// JudgeQuality is the measured agreement of the built-in judge with careful
// labels (judge.Measurement, as shipped with the judge).
type JudgeQuality struct {
	Judge    string // the judge measured: builtin
	Version  string // its weights version
	Protocol string // how it was measured, in words
	Repos    int
	// All is over the whole labelled corpus, Unseen over the repositories
	// the shipped weights were not trained on.
	All, Unseen JudgeKappa
	ECE         float64
	Bins        []CalibrationBin
	Coverage    []ub.CoveragePoint
}

// Decider counts the report judge's labels decided by one judge (a
// cascade's labels are decided by its members).
type Decider struct {
	DecidedBy, Target string
	N                 int
}

func kappaText(k JudgeKappa) string {
	return fmt.Sprintf("kappa %s (95%% CI %s to %s, n = %d)", f3(k.Kappa), f3(k.Lo), f3(k.Hi), k.N)
}

// deciderShares returns the report judge's point labels by deciding judge,
// sorted by name, and their total.
func (r *Report) deciderShares() (map[string]int, []string, int) {
	by := map[string]int{}
	total := 0
	for _, d := range r.in.Deciders {
		if d.Target == "point" {
			by[d.DecidedBy] += d.N
			total += d.N
		}
	}
	names := make([]string, 0, len(by))
	for k := range by {
		names = append(names, k)
	}
	sort.Strings(names)
	return by, names, total
}

// nearestCoverage returns the measured point nearest to coverage c.
func (q *JudgeQuality) nearestCoverage(c float64) (ub.CoveragePoint, bool) {
	best, ok := ub.CoveragePoint{}, false
	for _, p := range q.Coverage {
		if !ok || math.Abs(p.Coverage-c) < math.Abs(best.Coverage-c) {
			best, ok = p, true
		}
	}
	return best, ok
}

// judgeMethods writes the methods line on the report judge's measured
// agreement: the built-in judge's from the labelled corpus, a cascade's
// from who decided how much and the built-in judge's risk-coverage curve,
// anything else "unmeasured".
func (r *Report) judgeMethods(b *strings.Builder) {
	q := r.in.JudgeQuality
	judgeName := r.st.Judge
	by, names, total := r.deciderShares()
	cascade := len(names) > 1 || (len(names) == 1 && names[0] != judgeName)
	switch {
	case q == nil || judgeName == "":
		fmt.Fprintf(b, "- **Judge agreement with careful labels**: unmeasured for %s.\n", mdCode(judgeName))
	case judgeName == q.Judge && !cascade:
		fmt.Fprintf(b, "- **Judge agreement with careful labels**: %s agrees at %s over the labelled corpus, and %s on the repositories its shipped weights never saw (%s).\n",
			mdCode(q.Judge), kappaText(q.All), kappaText(q.Unseen), mdText(q.Protocol))
	case cascade && total > 0:
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s %d (%s%%)", mdCode(n), by[n], fnum(100*float64(by[n])/float64(total), 0)))
		}
		fmt.Fprintf(b, "- **Judge agreement with careful labels**: %s is a cascade; real messages labelled by %s.", mdCode(judgeName), strings.Join(parts, ", "))
		if kept, ok := by[q.Judge]; ok {
			c := float64(kept) / float64(total)
			if p, ok := q.nearestCoverage(c); ok {
				fmt.Fprintf(b, " The built-in judge's most confident %s%% agree with careful labels at kappa %s (95%% CI %s to %s), accuracy %s (leave-one-repository-out at coverage %s); the rest agree as the model judge does, unmeasured here unless a second judge labelled them (judge-agreement).",
					fnum(100*c, 0), f3(p.Kappa), f3(p.Lo), f3(p.Hi), f3(p.Accuracy), fnum(p.Coverage, 2))
			}
		}
		b.WriteString("\n")
	default:
		fmt.Fprintf(b, "- **Judge agreement with careful labels**: unmeasured for %s (only the built-in judge is measured on the labelled corpus: %s).\n", mdCode(judgeName), kappaText(q.All))
	}
}

// minBinN is the fewest labels a reliability bin needs to be drawn: the
// share right of one or two labels is 0 or 1 and draws a spike that says
// nothing. Smaller bins stay in the table.
const minBinN = 5

// drawnBins are the reliability bins the diagram draws: those of at least
// minBinN labels.
func drawnBins(bins []CalibrationBin) []CalibrationBin {
	var out []CalibrationBin
	for _, bn := range bins {
		if bn.N >= minBinN {
			out = append(out, bn)
		}
	}
	return out
}

// judgeCoverage draws the built-in judge's reliability diagram and its
// risk-coverage curve.
func (r *Report) judgeCoverage() (*figure, error) {
	q := r.in.JudgeQuality
	if q == nil || len(q.Coverage) == 0 {
		return nil, missing("judge-coverage", "no measurement of the built-in judge was given to the report: run ub report from a build whose judge/builtin_measure.json go generate ./judge wrote")
	}
	f := &figure{}
	f.table.header = []string{"curve", "from", "to", "n", "confidence", "accuracy", "kappa", "ci_lo", "ci_hi"}
	var rel, diag plotter.XYs
	for _, bn := range q.Bins {
		f.table.add("reliability", fnum(bn.From, 1), fnum(bn.To, 1), strconv.Itoa(bn.N), f3(bn.Confidence), f3(bn.Accuracy), "", "", "")
	}
	for _, bn := range drawnBins(q.Bins) {
		rel = append(rel, plotter.XY{X: bn.Confidence, Y: bn.Accuracy})
	}
	for _, p := range q.Coverage {
		f.table.add("coverage", fnum(p.Coverage, 2), "", strconv.Itoa(p.N), "", f3(p.Accuracy), f3(p.Kappa), f3(p.Lo), f3(p.Hi))
	}
	diag = plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}}

	left := newPlot(fmt.Sprintf("Reliability (ECE %s)", f3(q.ECE)), "confidence", "share right")
	left.X.Min, left.X.Max, left.Y.Min, left.Y.Max = 0, 1, 0, 1
	dl, err := plotter.NewLine(diag)
	if err != nil {
		return nil, err
	}
	dl.LineStyle.Color = colGrey
	dl.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	left.Add(dl, plotter.NewGrid())
	if len(rel) > 0 {
		ln, pts, err := plotter.NewLinePoints(rel)
		if err != nil {
			return nil, err
		}
		ln.LineStyle.Color, pts.GlyphStyle.Color = colNoProfile, colNoProfile
		pts.GlyphStyle.Shape = draw.CircleGlyph{}
		left.Add(ln, pts)
	}

	right := newPlot("Risk-coverage", "coverage (most confident share kept)", "agreement with careful labels")
	right.X.Min, right.X.Max = 0.45, 1.02
	pos := make([]float64, len(q.Coverage))
	kap := make([]interval, len(q.Coverage))
	var acc plotter.XYs
	lo := 1.0
	for i, p := range q.Coverage {
		pos[i] = p.Coverage
		kap[i] = interval{p.Kappa, p.Lo, p.Hi}
		acc = append(acc, plotter.XY{X: p.Coverage, Y: p.Accuracy})
		lo = math.Min(lo, math.Min(p.Lo, p.Accuracy))
	}
	right.Y.Min, right.Y.Max = math.Max(0, lo-0.05), 1
	ks, err := errDots(right, pos, kap, false, colNoProfile, draw.CircleGlyph{}, vg.Points(3))
	if err != nil {
		return nil, err
	}
	al, ap, err := plotter.NewLinePoints(acc)
	if err != nil {
		return nil, err
	}
	al.LineStyle.Color, ap.GlyphStyle.Color = colProfile, colProfile
	ap.GlyphStyle.Shape = draw.SquareGlyph{}
	right.Add(al, ap, plotter.NewGrid())
	if ks != nil {
		right.Legend.Add("kappa (95% CI)", ks)
	}
	right.Legend.Add("accuracy", al, ap)
	right.Legend.Top, right.Legend.Left = false, false
	f.pic = panels([]*plot.Plot{left, right}, 9*vg.Inch, 3.6*vg.Inch)

	var b strings.Builder
	fmt.Fprintf(&b, "Built-in judge `%s` against careful labels, %s. Left: labels binned by calibrated confidence, share right per bin of at least 5 labels (smaller bins only in the table; expected calibration error %s). "+
		"Right: kappa and accuracy of the labels kept when only the most confident share is kept; a cascade (ub judge --cascade builtin,NAME --coverage C) sends the rest to a model judge. ",
		q.Version, q.Protocol, f3(q.ECE))
	var pts []string
	for _, p := range q.Coverage {
		pts = append(pts, fmt.Sprintf("%s: kappa %s, accuracy %s", fnum(p.Coverage, 1), f3(p.Kappa), f3(p.Accuracy)))
	}
	fmt.Fprintf(&b, "By coverage: %s. Overall %s; on repositories the shipped weights never saw, %s.", strings.Join(pts, "; "), kappaText(q.All), kappaText(q.Unseen))
	f.caption = b.String()
	return f, nil
}
