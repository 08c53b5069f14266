package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/cmd/internal/load"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/reports/visible"
)

type reportOptions struct {
	figure string
	out    string
	judge  string
	list   bool
	fid    load.Fidelity
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

func newReportCommand(sio *streams) *cli.Command {
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
				if !slices.Contains(reports.Studies(), s) {
					return usagef("report: --study %q: want one of %s", s, strings.Join(reports.Studies(), ", "))
				}
			}
			return runReport(c, sio, reportOptions{figure: c.String("figure"), out: c.String("out"), judge: c.String("judge"), list: c.Bool("list"), scope: scope,
				fid: load.Fidelity{Grader: c.String("grader"), Qs: qs, Prompts: prompts, Rollouts: rollouts, Rule: rule,
					Bootstrap: analysis.BootstrapOptions{B: c.Int("bootstrap"), Seed: c.Uint64("bootstrap-seed")}}, taskSplit: strings.TrimSpace(c.String("task-split"))})
		},
	}
}

func runReport(c *cli.Context, sio *streams, opts reportOptions) error {
	if opts.list {
		_, err := sio.out.Write([]byte(figureList(reports.Figures())))
		return err
	}
	if err := requireOutDir("report", opts.out); err != nil {
		return err
	}
	if opts.figure != "" && !slices.Contains(reports.FigureNames(), opts.figure) {
		return usagef("report: unknown figure %q (want one of %s)", opts.figure, strings.Join(reports.FigureNames(), ", "))
	}
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer debug.SetGCPercent(debug.SetGCPercent(load.GCPercent))
	if opts.fid.Split, err = chooseTaskSplit(c.Context, ws.Conn(), "report", opts.taskSplit); err != nil {
		return err
	}
	sc := opts.scope
	rep, err := loadStudy(c, sio, ws, load.Options{Judge: opts.judge, Studies: sc.studies, Simulators: sc.simulators,
		OffLeaderboard: sc.offLeaderboard, CaseDeveloper: sc.caseDeveloper, CaseSimulators: sc.caseSimulators, Fidelity: opts.fid})
	if err != nil {
		return err
	}
	for _, f := range []struct {
		flag  string
		names []string
	}{{"--simulators", sc.simulators}, {"--off-leaderboard", sc.offLeaderboard}, {"--case-simulators", sc.caseSimulators}} {
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
			fmt.Fprintln(sio.out, filepath.ToSlash(f))
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
		return printJSON(sio, out)
	}
	for _, s := range sum.Skipped {
		fmt.Fprintf(sio.err, "skipped %s: %s\n", s.Figure, s.Reason)
	}
	fmt.Fprintf(sio.out, "wrote %s: %d figures, %d skipped, %d files\n",
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

// loadStudy loads the report opts asks for (load.Report: ub report,
// publish and demo draw the same report), saying on stderr which judge
// scores when there was a choice and --judge made none, and marking an
// option that does not fit the workspace as a usage error.
func loadStudy(c *cli.Context, sio *streams, ws *queries.Workspace, opts load.Options) (*reports.Report, error) {
	opts.Build.Version, opts.Build.Commit = buildVersion()
	opts.OnJudge = func(judge string, judges int) {
		if judge != "" && c.String("judge") == "" && judges > 1 {
			fmt.Fprintf(sio.err, "report: scoring with judge %s (pass --judge to choose another)\n", judge)
		}
	}
	rep, err := load.Report(c.Context, ws, opts)
	return rep, usageIfOption(err)
}

// usageIfOption marks err as a usage error when it is a load.OptionError
// (an option that does not fit the workspace), and as a missing
// prerequisite when it is a load.MissingStudyError.
func usageIfOption(err error) error {
	var oe *load.OptionError
	if errors.As(err, &oe) {
		return usageError{err}
	}
	var me *load.MissingStudyError
	if errors.As(err, &me) {
		return prerequisiteError{err}
	}
	return err
}
