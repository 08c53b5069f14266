package load

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/reports/visible"
)

// ChooseJudge returns the judge to score with: the one asked for, which
// must have labels; else builtin if it labelled anything; else the only
// judge; else the one with the most labels (ties by name). "" when no judge
// labelled anything: the report then draws what needs no labels.
func ChooseJudge(judges []queries.JudgeCount, want string) (string, error) {
	if want != "" {
		for _, j := range judges {
			if j.Judge == want {
				return want, nil
			}
		}
		var names []string
		for _, j := range judges {
			names = append(names, j.Judge)
		}
		if len(names) == 0 {
			return "", optionf("report: --judge %s: no judge labelled anything in this workspace (run ub judge)", want)
		}
		return "", optionf("report: --judge %s labelled nothing here (judges: %s)", visible.Quote(want), visible.List(names, 10))
	}
	best := ""
	most := -1
	for _, j := range judges {
		if j.Judge == "builtin" {
			return j.Judge, nil
		}
		if j.Total() > most {
			best, most = j.Judge, j.Total()
		}
	}
	return best, nil
}

// judgeAgreements measures the judges as the taxonomy is measured: each
// pair that labelled the same targets on the 7-way labels and on their
// 4-way collapse (when both gave 7-way labels), and Fleiss' kappa of every
// judge when three or more labelled targets in common.
func judgeAgreements(ctx context.Context, ws *queries.Workspace, st *queries.Study) ([]reports.FineKappa, *reports.FleissAgreement, error) {
	db := ws.Conn()
	fine, err := queries.FineJudges(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	var out []reports.FineKappa
	seen := map[[2]string]bool{}
	for _, a := range st.Agreement {
		pair := [2]string{a.JudgeA, a.JudgeB}
		if seen[pair] || !slices.Contains(fine, a.JudgeA) || !slices.Contains(fine, a.JudgeB) {
			continue
		}
		seen[pair] = true
		err := judge.AgreeJudges(ctx, db, pair[:], func(p judge.JudgePair) error {
			if p.Fine != nil {
				out = append(out, reports.FineKappa{A: p.JudgeA, B: p.JudgeB, N: p.Fine.N, Kappa7: p.Fine.Kappa7, Kappa4: p.Fine.Kappa4})
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if len(st.Judges) < 3 {
		return out, nil, nil
	}
	var names []string
	for _, j := range st.Judges {
		names = append(names, j.Judge)
	}
	fl, err := judge.FleissJudges(ctx, db, names)
	if errors.Is(err, judge.ErrNoCommonTargets) {
		return out, nil, nil // no Fleiss kappa, and nothing wrong
	}
	if err != nil {
		return nil, nil, err // a label the workspace cannot read is not "no kappa"
	}
	return out, &reports.FleissAgreement{Judges: fl.Judges, Items: fl.Items, Kappa: fl.Kappa}, nil
}

// judgeQuality gives the report the built-in judge's shipped measurement
// and who decided the labels of the report's judge.
func judgeQuality(ctx context.Context, ws *queries.Workspace, judgeName string) (*reports.JudgeQuality, []reports.Decider, error) {
	m, err := judge.BuiltinMeasurement()
	if err != nil {
		return nil, nil, err
	}
	b, err := judge.NewBuiltin()
	if err != nil {
		return nil, nil, err
	}
	kap := func(k judge.KappaCI) reports.JudgeKappa {
		return reports.JudgeKappa{N: k.N, Kappa: k.Kappa, Lo: k.Lo, Hi: k.Hi}
	}
	q := &reports.JudgeQuality{Judge: judge.BuiltinName, Version: b.Version(), Protocol: m.Protocol, Repos: m.Repos,
		All: kap(m.All), Unseen: kap(m.Unseen), ECE: m.ECE}
	for _, bn := range m.Bins {
		q.Bins = append(q.Bins, reports.CalibrationBin{From: bn.From, To: bn.To, N: bn.N, Confidence: bn.Confidence, Accuracy: bn.Accuracy})
	}
	q.Coverage = m.Coverage
	if judgeName == "" {
		return q, nil, nil
	}
	ds, err := queries.LabelDeciders(ctx, ws.Conn(), judgeName)
	if err != nil {
		return nil, nil, fmt.Errorf("report: %w", err)
	}
	var out []reports.Decider
	for _, d := range ds {
		out = append(out, reports.Decider{DecidedBy: d.DecidedBy, Target: d.Target, N: d.N})
	}
	return q, out, nil
}

// SplitSummary reads the split report (ub split, and the report's split
// section).
func SplitSummary(ctx context.Context, ws *queries.Workspace) (reports.SplitSummary, error) {
	var d reports.SplitSummary
	var err error
	db := ws.Conn()
	if d.Run, err = queries.GetSplitRun(ctx, db); err != nil {
		return d, err
	}
	if d.Components, err = queries.Components(ctx, db); err != nil {
		return d, err
	}
	if d.Splits, err = queries.SplitSummary(ctx, db); err != nil {
		return d, err
	}
	if d.Funnel, err = queries.Funnel(ctx, db); err != nil {
		return d, err
	}
	if d.Points, err = queries.PointsPerDeveloper(ctx, db); err != nil {
		return d, err
	}
	return d, nil
}

// loadFidelity gives the report its User fidelity section: the episodes as
// the chosen grader graded them (--grader, else the grader with the most
// verdicts, ties by name), and the agreement with the next grader.
func loadFidelity(ctx context.Context, ws *queries.Workspace, rep *reports.Report, opts Fidelity) error {
	db := ws.Conn()
	graders, err := queries.Graders(ctx, db)
	if err != nil {
		return err
	}
	if len(graders) == 0 {
		if opts.Grader != "" {
			return optionf("--grader %s: no verdicts in this workspace (run ub verdicts import)", opts.Grader)
		}
		if opts.Split != nil {
			return optionf("--task-split %s: it restricts the user fidelity study, and this workspace holds no verdicts (run ub verdicts import or ub grade)", opts.Split.Name)
		}
		return nil
	}
	grader, second := ChooseGraders(graders, opts.Grader)
	if grader == "" {
		var names []string
		for _, g := range graders {
			names = append(names, g.Grader)
		}
		return optionf("--grader %s gave no verdicts (graders: %s)", visible.Quote(opts.Grader), visible.List(names, 10))
	}
	// The episodes go to a tape, not to memory: the analyses read them
	// back from it, each as often as it needs (a million episodes held in
	// Go took gigabytes).
	tape, err := queries.TapeFidelity(ctx, ws.Streaming(), grader)
	if err != nil {
		return err
	}
	defer tape.Close()
	in := reports.FidelityInput{Grader: grader, SecondGrader: second, Qs: opts.Qs, EpochPrompts: opts.Prompts, EpochRollouts: opts.Rollouts,
		Rule: opts.Rule, Bootstrap: opts.Bootstrap}
	in.Source = reports.FidelitySource(tape.All(), grader)
	if opts.Split != nil {
		inSplit := map[[2]string]bool{}
		for _, t := range opts.Split.Tasks {
			inSplit[[2]string{t.Domain, t.TaskID}] = true
		}
		any := false
		for e := range in.Source {
			if any = inSplit[[2]string{e.Domain, e.Task}]; any {
				break
			}
		}
		if !any {
			return optionf("--task-split %s: grader %s graded no episode of its %d tasks", opts.Split.Name, grader, len(opts.Split.Tasks))
		}
		in.TaskSplit = opts.Split
	}
	for _, g := range graders {
		if g.Grader == grader {
			in.GraderImported = g.Graded < g.Verdicts
		}
	}
	var pairsErr error
	if second != "" {
		// Counted as they come, once: the pairs are never all in memory.
		in.PairSource = func(yield func(ub.VerdictPair) bool) {
			stop := errors.New("stop")
			err := queries.EachVerdictPair(ctx, ws.Streaming(), grader, second, func(p ub.VerdictPair) error {
				if !yield(p) {
					return stop
				}
				return nil
			})
			if err != nil && err != stop {
				pairsErr = err
			}
		}
	}
	prices, err := queries.UserModelPrices(ctx, db)
	if err != nil {
		return err
	}
	var ps []string
	for _, p := range prices {
		src := ""
		if p.Source != "" {
			src = ", " + filepath.Base(p.Source)
		}
		ps = append(ps, fmt.Sprintf("%s at $%g in / $%g out per million tokens (read %s%s)", p.Model, p.PriceIn, p.PriceOut, p.ReadOn, src))
	}
	in.Prices = strings.Join(ps, "; ")
	rep.SetFidelity(in)
	if pairsErr != nil {
		return pairsErr
	}
	return tape.Err()
}

// ChooseGraders returns the grader to score with and the grader to compare
// it with ("" when there is none).
func ChooseGraders(gs []queries.GraderCount, want string) (grader, second string) {
	best := func(skip string) string {
		name, most := "", -1
		for _, g := range gs {
			if g.Grader != skip && g.Verdicts > most {
				name, most = g.Grader, g.Verdicts
			}
		}
		return name
	}
	if want != "" {
		for _, g := range gs {
			if g.Grader == want {
				return want, best(want)
			}
		}
		return "", ""
	}
	grader = best("")
	return grader, best(grader)
}
