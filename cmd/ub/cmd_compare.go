package main

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	model "github.com/ub-bench/ub" // the data model (ub is a test helper of this package)
	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/cmd/internal/load"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/reports/visible"
)

type compareOptions struct {
	a, b, study, condition, judge, grader string
	taskSplit                             string // --task-split; "": every task
	json                                  bool
	margin                                *float64 // --fail-on-regression; nil when not asked
	boot                                  analysis.BootstrapOptions
}

func newCompareCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "compare simulator B with A on the same points or tasks (paired), as a regression check",
		ArgsUsage: "A B",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "study", Usage: "`STUDY` to compare in: userbench or fidelity (default: the one that has both)"},
			&cli.StringFlag{Name: "condition", Usage: "UserBench `CONDITION` of both sides (default noprofile; SIM@CONDITION sets one side's)"},
			&cli.StringFlag{Name: "judge", Usage: "UserBench: score with judge `NAME`'s labels (default as ub report)"},
			&cli.StringFlag{Name: "grader", Usage: "fidelity: score with grader `NAME`'s verdicts (default the one with most)"},
			&cli.StringFlag{Name: "task-split", Usage: "fidelity: only the tasks of tau2 task split `NAME` (split_tasks.json, stored by ub ingest --tasks)"},
			&cli.Float64Flag{Name: "fail-on-regression", Usage: "exit 8 when B is worse than A by more than `MARGIN` with confidence (the upper bound of B - A below -MARGIN)"},
			&cli.BoolFlag{Name: "json", Usage: "print the comparison as JSON"},
			&cli.IntFlag{Name: "bootstrap", Value: analysis.DefaultBootstrapB, Usage: "`B` bootstrap replicates of every interval"},
			&cli.Uint64Flag{Name: "bootstrap-seed", Value: analysis.DefaultBootstrapSeed, Usage: "`SEED` of the bootstrap and the sign-flip test"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usagef("compare: want two simulators, A and B (got %d arguments; flags go before them)", c.NArg())
			}
			opts := compareOptions{a: c.Args().Get(0), b: c.Args().Get(1), study: c.String("study"), condition: c.String("condition"),
				judge: c.String("judge"), grader: c.String("grader"), json: c.Bool("json"), taskSplit: strings.TrimSpace(c.String("task-split")),
				boot: analysis.BootstrapOptions{B: c.Int("bootstrap"), Seed: c.Uint64("bootstrap-seed")}}
			if c.IsSet("fail-on-regression") {
				m := c.Float64("fail-on-regression")
				if !(m >= 0) || math.IsInf(m, 0) {
					return usagef("compare: --fail-on-regression %v: want a margin of 0 or more", m)
				}
				opts.margin = &m
			}
			if opts.study != "" && opts.study != reports.StudyUserBench && opts.study != reports.StudyFidelity {
				return usagef("compare: --study %q: want userbench or fidelity", opts.study)
			}
			if opts.taskSplit != "" {
				if opts.study == reports.StudyUserBench {
					return usagef("compare: --task-split restricts the fidelity study's tasks, not UserBench")
				}
				opts.study = reports.StudyFidelity
			}
			if opts.condition != "" && !slices.Contains(queries.Conditions(), opts.condition) {
				return usagef("compare: --condition %q: want one of %s", opts.condition, strings.Join(queries.Conditions(), ", "))
			}
			if opts.boot.B < 1 {
				return usagef("compare: --bootstrap %d: want at least 1", opts.boot.B)
			}
			return runCompare(c, sio, opts)
		},
	}
}

// runCompare compares simulator B with A. In turn: it opens the workspace
// read-only and resolves --task-split; loads the UserBench study (each
// simulator's settings) unless --study fidelity, and the graded fidelity
// episodes unless --study userbench; resolves A and B in each study and
// picks the study both are found in (or the one --study names); computes
// the paired comparison and prints it (text or --json); and returns the
// regression error (exit 8) when --fail-on-regression finds one.
func runCompare(c *cli.Context, sio *streams, opts compareOptions) error {
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	ctx, db := c.Context, ws.Conn()
	split, err := chooseTaskSplit(ctx, db, "compare", opts.taskSplit)
	if err != nil {
		return err
	}
	res := reports.Comparison{Boot: opts.boot.Resolved(), Margin: opts.margin}
	if res.Synthetic, err = queries.Provenance(ctx, db); err != nil {
		return err
	}
	// UserBench: each simulator's conditions at the anchor setting.
	var st *queries.Study
	var settings map[string][]string
	if opts.study != reports.StudyFidelity {
		judges, err := queries.StudyJudges(ctx, db)
		if err != nil {
			return err
		}
		if res.Scorer, err = load.ChooseJudge(judges, opts.judge); err != nil {
			return usageIfOption(err)
		}
		if res.Scorer != "" {
			if st, err = queries.LoadStudy(ctx, db, res.Scorer); err != nil {
				return err
			}
			settings = reports.AnchorSettings(st)
		}
	}
	// Fidelity: the graded episodes, labelled as the report labels them.
	var eps []model.FidelityEpisode
	fidSims := map[string]bool{}
	grader := ""
	if opts.study != reports.StudyUserBench {
		graders, err := queries.Graders(ctx, db)
		if err != nil {
			return err
		}
		if grader, _ = load.ChooseGraders(graders, opts.grader); grader == "" && opts.grader != "" {
			return usagef("compare: --grader %s gave no verdicts here", opts.grader)
		}
		if grader != "" {
			rows, err := queries.LoadFidelity(ctx, db, grader)
			if err != nil {
				return err
			}
			eps = reports.FidelityEpisodes(rows, grader)
			if split != nil {
				eps, _ = reports.RestrictTaskSplit(eps, nil, *split)
				res.TaskSplit = split.Name
			}
			for _, e := range eps {
				fidSims[e.Simulator] = true
			}
		}
	}
	ubA, okA, errA := reports.ResolveUserBench(settings, opts.a, opts.condition)
	ubB, okB, errB := reports.ResolveUserBench(settings, opts.b, opts.condition)
	fA, fokA := reports.ResolveFidelity(fidSims, opts.a)
	fB, fokB := reports.ResolveFidelity(fidSims, opts.b)
	study := opts.study
	if study == "" {
		switch ub, fid := okA && okB, fokA && fokB; {
		case ub && fid:
			return usagef("compare: %s and %s are in both studies: pass --study userbench or --study fidelity", opts.a, opts.b)
		case ub:
			study = reports.StudyUserBench
		case fid:
			study = reports.StudyFidelity
		case len(settings) == 0 && len(fidSims) == 0:
			return prerequisitef("compare: nothing to compare: no labelled generations (ub generate, ub judge) and no graded episodes (ub verdicts import, ub grade)")
		}
	}
	if study == reports.StudyFidelity && fokA && fokB {
		res.Study, res.Scorer, res.A, res.B = study, grader, reports.Compared{Simulator: fA}, reports.Compared{Simulator: fB}
		f := analysis.CompareFidelity(eps, fA, fB, 1, res.Boot)
		res.Fidelity = &f
	} else if study == reports.StudyUserBench && okA && okB {
		if err := cmp.Or(errA, errB); err != nil {
			return usagef("compare: %v", err)
		}
		res.Study, res.A, res.B = study, ubA, ubB
		res.N, res.K = queries.Anchor(st.Settings)
		a := analysis.CompareAccuracy(reports.AnchorScores(st, ubA.Simulator, ubA.Condition), reports.AnchorScores(st, ubB.Simulator, ubB.Condition), res.Boot)
		res.Accuracy = &a
	} else {
		return unknownSimulators(opts, study, settings, fidSims)
	}
	if opts.json {
		err = printJSON(sio, res.JSON())
	} else {
		_, err = sio.out.Write([]byte(res.Text()))
	}
	if err != nil {
		return err
	}
	if res.Regressed() {
		return regressionError{"compare: regression: " + res.Verdict()}
	}
	return nil
}

// unknownSimulators is the usage error for names the study asked (or
// either study) does not know: it names each unknown one with the nearest
// known name, and lists the simulators of each study.
func unknownSimulators(opts compareOptions, study string, settings map[string][]string, fid map[string]bool) error {
	var known, lists []string
	list := func(title string, names []string) {
		sort.Strings(names)
		known = append(known, names...)
		lists = append(lists, title+": "+visible.List(names, 10))
	}
	if study != reports.StudyFidelity && len(settings) > 0 {
		list("UserBench simulators", slices.Collect(maps.Keys(settings)))
	}
	if study != reports.StudyUserBench && len(fid) > 0 {
		list("fidelity simulators", slices.Collect(maps.Keys(fid)))
	}
	if len(lists) == 0 {
		return prerequisitef("compare: the %s study has no data here (%s)", study, map[string]string{
			reports.StudyUserBench: "ub generate, then ub judge", reports.StudyFidelity: "ub verdicts import or ub grade"}[study])
	}
	var bad []string
	for _, n := range []string{opts.a, opts.b} {
		_, okU, _ := reports.ResolveUserBench(settings, n, "")
		_, okF := reports.ResolveFidelity(fid, n)
		if !(okU && study != reports.StudyFidelity) && !(okF && study != reports.StudyUserBench) {
			bad = append(bad, "unknown simulator "+strconv.Quote(n)+suggestName(known, n))
		}
	}
	if len(bad) == 0 {
		bad = []string{"A and B are in different studies (compare within one)"}
	}
	return usagef("compare: %s; %s", strings.Join(bad, ", "), strings.Join(lists, "; "))
}

// suggestName is " (did you mean NAME?)" for the known name nearest to
// given, or "".
func suggestName(known []string, given string) string {
	best, score := "", 0.0
	for _, k := range known {
		if d := similarity(k, given); d > score {
			best, score = k, d
		}
	}
	if score < 0.6 {
		return ""
	}
	return " (did you mean " + best + "?)"
}
