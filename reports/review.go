package reports

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ub-bench/ub/analysis"
)

// The review figures of SPEC section 8 (section 7's statistics).
const (
	FigReviewErrorShare = "review-error-share"
	FigReviewCodes      = "review-codes"
)

func pct(x float64) string { return fnum(100*x, 1) + "%" }

func shareCell(p analysis.Proportion) string {
	return fmt.Sprintf("%d/%d = %s [%s, %s]", p.K, p.N, pct(p.P), pct(p.Lo), pct(p.Hi))
}

// cellOf is shareCell, or for weighted statistics the counts of reviewed
// episodes beside the weighted estimate (k/n is then not the estimate).
func cellOf(st analysis.ReviewStats) func(analysis.Proportion) string {
	if !st.Weighted {
		return shareCell
	}
	return func(p analysis.Proportion) string {
		return fmt.Sprintf("%d/%d reviewed, weighted %s [%s, %s]", p.K, p.N, pct(p.P), pct(p.Lo), pct(p.Hi))
	}
}

func (rs reviewSet) errorShare() (*figure, error) {
	st := rs.st
	rows := append([]analysis.ShareRow(nil), st.Domains...)
	rows = append(rows, st.Overall)
	names := make([]string, len(rows))
	var errs, crits []interval
	t := table{header: []string{"domain", "n", "errors", "error_share", "error_lo", "error_hi", "critical", "critical_share", "critical_lo", "critical_hi"}}
	for i, r := range rows {
		names[i] = fmt.Sprintf("%s (n = %d)", r.Domain, r.N)
		errs = append(errs, interval{r.Error.P, r.Error.Lo, r.Error.Hi})
		crits = append(crits, interval{r.Critical.P, r.Critical.Lo, r.Critical.Hi})
		t.add(r.Domain, strconv.Itoa(r.N), strconv.Itoa(r.Error.K), f3(r.Error.P), f3(r.Error.Lo), f3(r.Error.Hi),
			strconv.Itoa(r.Critical.K), f3(r.Critical.P), f3(r.Critical.Lo), f3(r.Critical.Hi))
	}
	p := newPlot("Simulator error share per domain", "", fmt.Sprintf("share of reviewed episodes (%s %.0f%%)", st.Method, 100*st.Level))
	pos := func(off float64) []float64 {
		out := make([]float64, len(rows))
		for i := range out {
			out[i] = float64(i) + off
		}
		return out
	}
	se, err := errDots(p, pos(-0.12), errs, false, palette[0], draw.CircleGlyph{}, vg.Points(3.5))
	if err != nil {
		return nil, err
	}
	sc, err := errDots(p, pos(0.12), crits, false, palette[5], draw.TriangleGlyph{}, vg.Points(3.5))
	if err != nil {
		return nil, err
	}
	p.Legend.Add("any simulator error", se)
	p.Legend.Add("critical error", sc)
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(rows))-0.4
	p.Y.Min, p.Y.Max = 0, 1
	w := vg.Points(float64(120 + 70*len(rows)))
	caption := fmt.Sprintf("Share of reviewed episodes with a simulator error (circles) and with a critical one (triangles), "+
		"per domain and over all %d episodes (reviewer: %s), with %s %.0f%% intervals of the pass share flipped. "+
		"Overall: error %s, critical %s.", st.Episodes, st.Reviewer, st.Method, 100*st.Level, cellOf(st)(st.Overall.Error), cellOf(st)(st.Overall.Critical))
	return &figure{name: FigReviewErrorShare, title: "Simulator error share", caption: caption, pic: single(p, w, vg.Points(260)), table: t}, nil
}

func (rs reviewSet) codes() (*figure, error) {
	st := rs.st
	if len(st.Codes) == 0 {
		return nil, missing(FigReviewCodes, "no simulator error recorded yet")
	}
	// Bars from the top: the most frequent code first.
	codes := st.Codes
	n := len(codes)
	names := make([]string, n)
	all, crit := make(plotter.Values, n), make(plotter.Values, n)
	t := table{header: []string{"code", "errors", "critical", "episodes"}}
	for i, c := range codes {
		j := n - 1 - i
		names[j] = c.Code
		all[j], crit[j] = float64(c.Errors), float64(c.Critical)
		t.add(c.Code, strconv.Itoa(c.Errors), strconv.Itoa(c.Critical), strconv.Itoa(c.Episodes))
	}
	p := newPlot("Simulator errors by code", fmt.Sprintf("errors in the %d reviewed episodes", st.Episodes), "")
	bw := vg.Points(7)
	ba, err := plotter.NewBarChart(all, bw)
	if err != nil {
		return nil, err
	}
	ba.Horizontal, ba.Color, ba.LineStyle.Width, ba.Offset = true, palette[0], 0, bw/2
	bc, err := plotter.NewBarChart(crit, bw)
	if err != nil {
		return nil, err
	}
	bc.Horizontal, bc.Color, bc.LineStyle.Width, bc.Offset = true, palette[5], 0, -bw/2
	p.Add(ba, bc)
	p.Legend.Add("all", ba)
	p.Legend.Add("critical", bc)
	p.Legend.Top = false // beside the shortest bars, at the bottom
	p.NominalY(names...)
	// The bars are as thick as their rows: the axis spans whole rows, so
	// the top bar stays below the title; x runs a step past the longest
	// bar, so that a legend finds room beside the short ones.
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	most := 0.0
	for _, v := range all {
		most = max(most, v)
	}
	p.X.Min, p.X.Max = 0, most+math.Max(1, math.Ceil(most/8))
	p.X.Tick.Marker = plot.TickerFunc(intTicks)
	caption := fmt.Sprintf("Simulator errors by code over the %d reviewed episodes (reviewer: %s): all errors (blue) and the critical ones (vermilion).",
		st.Episodes, st.Reviewer)
	return &figure{name: FigReviewCodes, title: "Simulator errors by code", caption: caption, pic: single(p, vg.Points(420), vg.Points(float64(90+22*n))), table: t}, nil
}

// intTicks marks whole numbers only (counts).
func intTicks(min, max float64) []plot.Tick {
	step := 1.0
	for (max-min)/step > 8 {
		step *= 2
	}
	var ts []plot.Tick
	for v := 0.0; v <= max+1e-9; v += step {
		if v >= min-1e-9 {
			ts = append(ts, plot.Tick{Value: v, Label: strconv.Itoa(int(v))})
		}
	}
	return ts
}

type reviewSet struct{ st analysis.ReviewStats }

// WriteReview writes the review figures (SVG, PNG, CSV each) and
// report.md, holding every table of SPEC section 7 (each table that is
// not a figure's also as table-*.csv, tablesAsCSV), into dir, and returns
// the files written, sorted. review-codes is left out (and said so in the
// report) when no error was recorded. The same statistics give
// byte-identical files.
func WriteReview(dir string, st analysis.ReviewStats) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	rs := reviewSet{st}
	var files []string
	var figs []*figure
	for _, b := range []func() (*figure, error){rs.errorShare, rs.codes} {
		f, err := b()
		if _, ok := err.(*MissingError); ok {
			continue
		}
		if err != nil {
			return nil, err
		}
		fs, err := writeFigureFiles(dir, f)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
		figs = append(figs, f)
	}
	md := filepath.Join(dir, "report.md")
	var b strings.Builder
	b.WriteString("# Simulator error rate (human review)\n\n")
	writeReviewSection(&b, st, figs, "##")
	text, tables := tablesAsCSV(b.String())
	csvs, err := writeTableCSVs(dir, tables)
	if err != nil {
		return nil, err
	}
	files = append(files, csvs...)
	if err := writeAtomic(md, []byte(text)); err != nil {
		return nil, err
	}
	files = append(files, md)
	sort.Strings(files)
	return files, nil
}

// ReviewMarkdown is every table of SPEC section 7 as Markdown, without
// figures: what ub review stats prints.
func ReviewMarkdown(st analysis.ReviewStats) string {
	var b strings.Builder
	writeReviewSection(&b, st, nil, "##")
	return b.String()
}

func writeReviewSection(b *strings.Builder, st analysis.ReviewStats, figs []*figure, h string) {
	cell := cellOf(st)
	fmt.Fprintf(b, "Reviewer: **%s**. %d episodes decided", mdText(st.Reviewer), st.Episodes)
	if st.Reviewer == "final" {
		fmt.Fprintf(b, " (%d agreed by two or more humans, %d adjudicated)", st.Agreed, st.Adjudicated)
	}
	fmt.Fprintf(b, "; %d failed reviews left out (a failed review is not a pass); %d episodes pending adjudication left out. "+
		"Intervals: %s, %.0f%%; error share = 1 - c/n with the pass share's interval flipped. Success = reward >= %s.\n\n",
		st.Failed, len(st.Pending), mdText(st.Method), 100*st.Level, strconv.FormatFloat(st.Threshold, 'g', -1, 64))
	if st.Weighted {
		b.WriteString("The decided episodes were drawn by a probe-guided batch: every share and pass rate is weighted back to the population " +
			"by 1 / inclusion probability (Hájek estimate, Wilson interval on the effective sample size); n, counts, codes and the cross tab are counts of reviewed episodes.\n\n")
	}
	if st.WeightNote != "" {
		fmt.Fprintf(b, "Not weighted: %s.\n\n", mdText(st.WeightNote))
	}
	for _, f := range figs {
		fmt.Fprintf(b, "![%s](%s.png)\n\n%s\n\n", f.name, f.name, mdText(f.caption))
	}
	fmt.Fprintf(b, "%s Error share and critical share\n\n", h)
	t := table{header: []string{"domain", "n", "simulator error", "critical error"}}
	for _, r := range append(append([]analysis.ShareRow(nil), st.Domains...), st.Overall) {
		t.add(r.Domain, strconv.Itoa(r.N), cell(r.Error), cell(r.Critical))
	}
	b.WriteString(mdTable(t))
	fmt.Fprintf(b, "\n%s Errors by code\n\n", h)
	if len(st.Codes) == 0 {
		b.WriteString("No simulator error recorded.\n")
	} else {
		t = table{header: []string{"code", "errors", "critical", "episodes"}}
		for _, c := range st.Codes {
			t.add(c.Code, strconv.Itoa(c.Errors), strconv.Itoa(c.Critical), strconv.Itoa(c.Episodes))
		}
		b.WriteString(mdTable(t))
	}
	fmt.Fprintf(b, "\n%s Agent failure against simulator error\n\n", h)
	if st.WithReward == 0 {
		b.WriteString("No decided episode has a reward in the workspace.\n")
	} else {
		c := st.CrossTab.Counts
		t = table{header: []string{"", "no simulator error", "simulator error", "total"}}
		t.add("agent success", strconv.Itoa(c[0][0]), strconv.Itoa(c[0][1]), strconv.Itoa(c[0][0]+c[0][1]))
		t.add("agent failure", strconv.Itoa(c[1][0]), strconv.Itoa(c[1][1]), strconv.Itoa(c[1][0]+c[1][1]))
		t.add("total", strconv.Itoa(c[0][0]+c[1][0]), strconv.Itoa(c[0][1]+c[1][1]), strconv.Itoa(st.WithReward))
		b.WriteString(mdTable(t))
	}
	fmt.Fprintf(b, "\n%s Policies for episodes with a critical simulator error\n\n", h)
	t = table{header: []string{"policy", "what", "result"}}
	rate := func(p analysis.PassRate) string {
		if p.Episodes == 0 {
			return "no episode"
		}
		return "agent pass rate " + cell(p.Pass)
	}
	t.add("drop", "agent pass rate on the episodes without a critical simulator error", rate(st.Drop))
	rr := fmt.Sprintf("%d tasks: %s", len(st.Rerun), strings.Join(st.Rerun, ", "))
	if st.RerunUnknown > 0 {
		rr += fmt.Sprintf(" (and %d episodes whose task is not in the workspace)", st.RerunUnknown)
	}
	t.add("re-run", "tasks to run again (ub review export --rerun)", rr)
	t.add("alongside", "agent pass rate on all, with the critical simulator error share beside it", rate(st.Alongside)+"; critical simulator error "+cell(st.Overall.Critical))
	b.WriteString(mdTable(t))
	fmt.Fprintf(b, "\n%s Reviewer agreement and adjudication\n\n", h)
	if len(st.Agreement) == 0 {
		b.WriteString("No two reviewers decided the same episode.\n")
	} else {
		t = table{header: []string{"reviewer A", "reviewer B", "episodes", "kappa: has error", "alpha: has error", "kappa: critical", "alpha: critical", "has error [both no, A only, B only, both]"}}
		for _, a := range st.Agreement {
			e := a.ErrorTable
			t.add(a.A+" ("+a.KindA+")", a.B+" ("+a.KindB+")", strconv.Itoa(a.N), kappaCell(a.HasError), fnumOr(a.AlphaHasError, 3, "undefined"),
				kappaCell(a.Critical), fnumOr(a.AlphaCritical, 3, "undefined"),
				fmt.Sprintf("%d, %d, %d, %d", e[0][0], e[1][0], e[0][1], e[1][1]))
		}
		b.WriteString(mdTable(t))
	}
	writeLLMReviews(b, st, h)
	if len(st.Pending) > 0 {
		fmt.Fprintf(b, "\nPending adjudication (humans disagree; record the final word as an adjudicator): %s\n", mdText(strings.Join(st.Pending, ", ")))
	}
}

// designCell prints a design share k/n = p [lo, hi], "n/a" when undefined,
// with the effective sample size when weighted.
func designCell(d analysis.DesignProportion) string {
	if d.N == 0 || math.IsNaN(d.P) {
		return "n/a"
	}
	s := shareCell(d.Proportion)
	if d.Weighted {
		s = fmt.Sprintf("%d/%d: %s [%s, %s] (weighted, n_eff %s)", d.K, d.N, pct(d.P), pct(d.Lo), pct(d.Hi), fnum(d.NEff, 1))
	}
	return s
}

// kappaCell is FormatKappa, or the kappa alone when it has no interval.
func kappaCell(k analysis.Kappa) string {
	if !math.IsNaN(k.Kappa) && math.IsNaN(k.Lo) {
		return fnum(k.Kappa, 3) + " (no interval)"
	}
	return analysis.FormatKappa(k)
}

// writeLLMReviews writes, per LLM reviewer, its accuracy against the final
// human decisions and the simulator error share corrected for it.
func writeLLMReviews(b *strings.Builder, st analysis.ReviewStats, h string) {
	if len(st.LLM) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s LLM reviewer against the people\n\n", h)
	b.WriteString("On the episodes with a final human decision and an LLM review: the LLM reviewer's sensitivity and specificity " +
		"(Wilson intervals), positive and negative agreement (Cicchetti & Feinstein), Krippendorff's alpha (nominal) and Cohen's kappa. " +
		"The corrected share applies Rogan-Gladen to the LLM reviewer's share over every episode it reviewed, " +
		"with a Monte Carlo interval over both samples (see docs/statistics.md).\n")
	for _, r := range st.LLM {
		salv := ""
		if r.Salvaged > 0 {
			salv = fmt.Sprintf("; %d of the reviews were salvaged from the raw response of a review tau2 failed to parse", r.Salvaged)
		}
		fmt.Fprintf(b, "\n**%s**: %d episodes reviewed (%d failed reviews left out), %d of them also decided by people%s.\n\n",
			mdText(r.Reviewer), r.Reviewed, r.Failed, r.Paired, salv)
		if r.Paired > 0 {
			t := table{header: []string{"question", "episodes", "sensitivity", "specificity", "positive agreement", "negative agreement", "alpha", "kappa"}}
			rows := append([]analysis.DiagnosticAccuracy{r.HasError, r.Critical}, r.Families...)
			for i, d := range rows {
				q := d.Question
				if i >= 2 {
					q = "family " + q
				}
				n := d.Table[0][0] + d.Table[0][1] + d.Table[1][0] + d.Table[1][1]
				t.add(q, strconv.Itoa(n), designCell(d.Sensitivity), designCell(d.Specificity), fnum(d.PosAgreement, 3),
					fnum(d.NegAgreement, 3), fnum(d.Alpha, 3), kappaCell(d.Kappa))
			}
			b.WriteString(mdTable(t))
			b.WriteString("\n")
		}
		t := table{header: []string{"share", "people (final decisions)", "LLM reviewer (all it reviewed)", "corrected (Rogan-Gladen)"}}
		corr := func(c analysis.CorrectedShare) string {
			if c.Why != "" {
				return "n/a: " + c.Why
			}
			s := fmt.Sprintf("%s [%s, %s]", pct(c.Estimate), pct(c.Lo), pct(c.Hi))
			if c.Dropped > 0 {
				s += fmt.Sprintf(" (%d of %d draws with Se + Sp <= 1 left out)", c.Dropped, c.B)
			}
			return s
		}
		t.add("simulator error", cellOf(st)(st.Overall.Error), shareCell(r.CorrectedError.Raw), corr(r.CorrectedError))
		t.add("critical error", cellOf(st)(st.Overall.Critical), shareCell(r.CorrectedCritical.Raw), corr(r.CorrectedCritical))
		b.WriteString(mdTable(t))
		if r.CorrectedError.B > 0 {
			fmt.Fprintf(b, "\nCorrected intervals: %d draws, seed %d.\n", r.CorrectedError.B, r.CorrectedError.Seed)
		}
	}
}

// reviewStats returns the workspace's review decisions, or a MissingError
// for fig naming the commands that make them.
func (r *Report) reviewStats(fig string) (reviewSet, error) {
	if r.in.Review == nil {
		return reviewSet{}, missing(fig, "no review decisions: run ub review sample, then ub review serve (or ub review import FILE)")
	}
	return reviewSet{*r.in.Review}, nil
}

func (r *Report) reviewErrorShare() (*figure, error) {
	rs, err := r.reviewStats(FigReviewErrorShare)
	if err != nil {
		return nil, err
	}
	return rs.errorShare()
}

func (r *Report) reviewCodes() (*figure, error) {
	rs, err := r.reviewStats(FigReviewCodes)
	if err != nil {
		return nil, err
	}
	return rs.codes()
}

// writeAttemptShare is the error share over every attempt beside the
// kept-only one, when attempts were discarded.
func writeAttemptShare(b *strings.Builder, a *analysis.AttemptShare, h string) {
	if a == nil {
		return
	}
	fmt.Fprintf(b, "\n%s Every attempt, not only the kept ones\n\n", h)
	fmt.Fprintf(b, "%d attempts were discarded before the decided episodes (the hallucination checker fired and the simulation was run again); "+
		"each counts as an attempt with a simulator error. The kept-only share leaves them out.\n\n", a.Discarded)
	t := table{header: []string{"unit", "n", "simulator error"}}
	t.add("kept episodes", strconv.Itoa(a.Kept.N), shareCell(a.Kept))
	t.add("every attempt", strconv.Itoa(a.PerAttempt.N), shareCell(a.PerAttempt))
	b.WriteString(mdTable(t))
}
