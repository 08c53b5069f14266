package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/judge/review"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/reports/visible"
)

type reportOptions struct {
	figure string
	out    string
	judge  string
	list   bool
	fid    fidelityOptions
	// taskSplit is --task-split, resolved into fid.split once the
	// workspace is open.
	taskSplit string
	scope     reportScope
}

// reportScope is what a report shows: its studies, simulators, the runs
// kept off the leaderboard, and the case study's developer and
// simulators. The zero value shows everything, as chosen by default.
type reportScope struct {
	studies        []string
	simulators     []string
	offLeaderboard []string
	caseDeveloper  string
	caseSimulators []string
}

func newReportCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "draw every figure (SVG, PNG, CSV) and write the Markdown report with its methods and manifest; or one figure",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "figure", Usage: "draw only figure `NAME` (see --list)"},
			&cli.StringFlag{Name: "out", Value: "report", Usage: "output `DIR`"},
			&cli.StringFlag{Name: "judge", Usage: "score with the labels of judge `NAME` (default: builtin if present, else the only judge, else the judge with the most labels)"},
			&cli.StringFlag{Name: "study", Usage: "write only the studies `NAMES`, comma-separated: userbench, fidelity, review (default: every study with data)"},
			&cli.StringFlag{Name: "simulators", Usage: "show only the simulators `NAMES`, comma-separated (a study none of whose simulators is named shows them all)"},
			&cli.StringFlag{Name: "off-leaderboard", Usage: "keep the simulators `NAMES` in the data and tables but leave them out of the ranking, pairwise tests and case study"},
			&cli.StringFlag{Name: "case-developer", Usage: "the case study follows developer `ID` (default: the one whose profile lift varies most across simulators)"},
			&cli.StringFlag{Name: "case-simulators", Usage: "the case study shows the simulators `NAMES`, comma-separated (default: every ranked one)"},
			&cli.BoolFlag{Name: "list", Usage: "list the figures and exit"},
			&cli.BoolFlag{Name: "json", Usage: "print what was written as JSON: report, figures, skipped (with reasons), files"},
			&cli.StringFlag{Name: "grader", Usage: "user fidelity: score with the verdicts of grader `NAME` (default: the grader with the most verdicts)"},
			&cli.StringFlag{Name: "q", Value: "0.75,0.84,0.86", Usage: "user fidelity: the frontier's required UFS `LEVELS`, comma-separated"},
			&cli.StringFlag{Name: "epoch", Value: "prompts=1000,rollouts=64", Usage: "user fidelity: the epoch whose cost is reported, `prompts=N,rollouts=M`"},
			&cli.StringFlag{Name: "task-split", Usage: "user fidelity: only the tasks of tau2 task split `NAME` (split_tasks.json, stored by ub ingest --tasks)"},
			&cli.StringFlag{Name: "frontier-rule", Value: "point", Usage: "user fidelity: choose U*(q) on the UFS `point` estimate or on the `lower` bound of its 95% interval"},
			&cli.IntFlag{Name: "bootstrap", Value: 1000, Usage: "bootstrap `B` replicates for the intervals over tasks"},
			&cli.Uint64Flag{Name: "bootstrap-seed", Value: analysis.DefaultBootstrapSeed, Usage: "`SEED` of the bootstrap (the same seed gives the same intervals)"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			qs, err := parseQs(c.String("q"))
			if err != nil {
				return err
			}
			prompts, rollouts, err := parseEpoch(c.String("epoch"))
			if err != nil {
				return err
			}
			rule := analysis.FrontierRule(c.String("frontier-rule"))
			if rule != analysis.RulePoint && rule != analysis.RuleLower {
				return usagef("report: --frontier-rule %q: want point or lower", rule)
			}
			if c.Int("bootstrap") < 1 {
				return usagef("report: --bootstrap %d: want at least 1 replicate", c.Int("bootstrap"))
			}
			if c.Uint64("bootstrap-seed") == 0 {
				return usagef("report: --bootstrap-seed 0: want a positive seed")
			}
			scope := reportScope{studies: splitList(c.String("study")), simulators: splitList(c.String("simulators")),
				offLeaderboard: splitList(c.String("off-leaderboard")), caseDeveloper: strings.TrimSpace(c.String("case-developer")),
				caseSimulators: splitList(c.String("case-simulators"))}
			for _, s := range scope.studies {
				if !contains(reports.Studies(), s) {
					return usagef("report: --study %q: want one of %s", s, strings.Join(reports.Studies(), ", "))
				}
			}
			return runReport(c, io, reportOptions{figure: c.String("figure"), out: c.String("out"), judge: c.String("judge"), list: c.Bool("list"), scope: scope,
				fid: fidelityOptions{grader: c.String("grader"), qs: qs, prompts: prompts, rollouts: rollouts, rule: rule,
					boot: analysis.BootstrapOptions{B: c.Int("bootstrap"), Seed: c.Uint64("bootstrap-seed")}}, taskSplit: strings.TrimSpace(c.String("task-split"))})
		},
	}
}

func runReport(c *cli.Context, io *streams, opts reportOptions) error {
	if opts.list {
		_, err := io.out.Write([]byte(figureList(reports.Figures())))
		return err
	}
	if opts.figure != "" && !contains(reports.FigureNames(), opts.figure) {
		return usagef("report: unknown figure %q (want one of %s)", opts.figure, strings.Join(reports.FigureNames(), ", "))
	}
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	if opts.fid.split, err = chooseTaskSplit(c.Context, ws.Conn(), "report", opts.taskSplit); err != nil {
		return err
	}
	rep, err := loadReport(c, io, ws, opts.judge, opts.scope)
	if err != nil {
		return err
	}
	for _, s := range opts.scope.studies {
		if !rep.Holds(s) {
			return prerequisitef("report: --study %s: %s", s, reports.MissingStudy(s))
		}
	}
	rep.SetBootstrap(opts.fid.boot)
	if err := loadFidelity(c.Context, ws, rep, opts.fid); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, f := range []struct {
		flag  string
		names []string
	}{{"--simulators", opts.scope.simulators}, {"--off-leaderboard", opts.scope.offLeaderboard}} {
		if bad := rep.UnknownSimulators(f.names); len(bad) > 0 {
			known := "none"
			if names := rep.SimulatorNames(); len(names) > 0 {
				known = visible.List(names, 10)
			}
			return usagef("report: %s: no study in this workspace has a simulator named %s (its simulators: %s)", f.flag, visible.List(bad, 5), known)
		}
	}
	if opts.figure != "" {
		files, err := rep.WriteFigure(opts.out, opts.figure)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		for _, f := range files {
			fmt.Fprintln(io.out, filepath.ToSlash(f))
		}
		return nil
	}
	sum, err := rep.WriteAll(opts.out)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if c.Bool("json") {
		type skipped struct {
			Figure string `json:"figure"`
			Reason string `json:"reason"`
		}
		out := struct {
			Report  string    `json:"report"`
			Studies []string  `json:"studies"`
			Figures []string  `json:"figures"`
			Skipped []skipped `json:"skipped"`
			Files   []string  `json:"files"`
		}{Report: filepath.ToSlash(filepath.Join(opts.out, "report.md")), Studies: append([]string{}, sum.Studies...), Figures: sum.Figures, Skipped: []skipped{}}
		for _, s := range sum.Skipped {
			out.Skipped = append(out.Skipped, skipped{s.Figure, s.Reason})
		}
		for _, f := range sum.Files {
			out.Files = append(out.Files, filepath.ToSlash(f))
		}
		return printJSON(io, out)
	}
	for _, s := range sum.Skipped {
		fmt.Fprintf(io.err, "skipped %s: %s\n", s.Figure, s.Reason)
	}
	fmt.Fprintf(io.out, "wrote %s: %d figures, %d skipped, %d files\n",
		filepath.ToSlash(filepath.Join(opts.out, "report.md")), len(sum.Figures), len(sum.Skipped), len(sum.Files))
	return nil
}

// figureList is ub report --list: one figure a line, the titles aligned
// after the longest name.
func figureList(figs []reports.FigureInfo) string {
	w := 0
	for _, f := range figs {
		w = max(w, len(f.Name))
	}
	var b strings.Builder
	for _, f := range figs {
		fmt.Fprintf(&b, "%-*s  %s\n", w, f.Name, f.Title)
	}
	return b.String()
}

// loadReport reads the study as scored by the chosen judge, with the split
// and the case-study texts, and prepares it for drawing.
func loadReport(c *cli.Context, io *streams, ws *queries.Workspace, judge string, scope reportScope) (*reports.Report, error) {
	ctx, db := c.Context, ws.Conn()
	judges, err := queries.StudyJudges(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	judge, err = chooseJudge(judges, judge)
	if err != nil {
		return nil, err
	}
	if judge != "" && c.String("judge") == "" && len(judges) > 1 {
		fmt.Fprintf(io.err, "report: scoring with judge %s (pass --judge to choose another)\n", judge)
	}
	st, err := queries.LoadStudy(ctx, db, judge)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	in := reports.Input{Study: st, Studies: scope.studies, Simulators: scope.simulators, OffLeaderboard: scope.offLeaderboard,
		CaseDeveloper: scope.caseDeveloper, CaseSimulators: scope.caseSimulators}
	if in.Synthetic, err = queries.Provenance(ctx, db); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	in.Build.Version, in.Build.Commit = buildVersion()
	if in.JudgeQuality, in.Deciders, err = judgeQuality(c, ws, judge); err != nil {
		return nil, err
	}
	if in.Episodes, err = queries.LoadEpisodeReport(ctx, db); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if st.Split != nil {
		split, err := loadSplitSummary(c, ws)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		in.Split = &split
	}
	if in.Review, err = review.ReportStats(c.Context, ws.Conn()); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if in.Rubrics, err = queries.RubricCounts(ctx, db); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if in.FailureModes, err = queries.FailureModes(ctx, db); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if in.Fine, in.Fleiss, err = judgeAgreements(c, ws, st); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if in.Review != nil {
		if in.Attempts, err = review.AttemptStats(c.Context, ws.Conn(), *in.Review); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	rep := reports.Prepare(in)
	if dev, n, k, ok := rep.CaseDeveloper(); ok {
		ct, err := queries.LoadCaseTexts(ctx, db, judge, dev, n, k)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		rep.SetCase(&ct)
	}
	return rep, nil
}

// chooseJudge returns the judge to score with: the one asked for, which
// must have labels; else builtin if it labelled anything; else the only
// judge; else the one with the most labels (ties by name). "" when no judge
// labelled anything: the report then draws what needs no labels.
func chooseJudge(judges []queries.JudgeCount, want string) (string, error) {
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
			return "", usagef("report: --judge %s: no judge labelled anything in this workspace (run ub judge)", want)
		}
		return "", usagef("report: --judge %s labelled nothing here (judges: %s)", visible.Quote(want), visible.List(names, 10))
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

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// judgeAgreements measures the judges as the taxonomy is measured: each
// pair that labelled the same targets on the 7-way labels and on their
// 4-way collapse (when both gave 7-way labels), and Fleiss' kappa of every
// judge when three or more labelled targets in common.
func judgeAgreements(c *cli.Context, ws *queries.Workspace, st *queries.Study) ([]reports.FineKappa, *reports.FleissAgreement, error) {
	ctx, db := c.Context, ws.Conn()
	fine, err := queries.FineJudges(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	var out []reports.FineKappa
	seen := map[[2]string]bool{}
	for _, a := range st.Agreement {
		pair := [2]string{a.JudgeA, a.JudgeB}
		if seen[pair] || !contains(fine, a.JudgeA) || !contains(fine, a.JudgeB) {
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
