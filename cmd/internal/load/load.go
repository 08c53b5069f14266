package load

import (
	"context"
	"fmt"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/judge/review"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
)

// GCPercent is the GOGC that ub report and ub publish run with: the report
// reads its episodes back from temporary files once per analysis (and
// figure), and each episode read is garbage as soon as it is counted, so
// the heap is collected sooner than at Go's default (twice the live heap).
// At 100x, --memory-limit 128MiB, it took the peak RSS from 444 to 338 MiB
// for 10% more CPU. It is the command's to set, for its process, not the
// library's.
const GCPercent = 25

// MemoryShare is the share of the workspace's memory_limit that DuckDB
// keeps while a report is loaded (queries.ScaleMemoryLimit), but not less
// than queries.ImportMemoryFloor: 256 MiB of the default 512 MiB. The
// report holds state per (simulator, task) in Go beside DuckDB, up to
// 170 MB of live heap at one million episodes, and what DuckDB took while
// it read is not all given back. The report of
// ub synth --study fidelity --scale 381 with a second grader peaked at
// 670 MiB with DuckDB at 256 MiB, 858-994 MiB at 384 MiB (one thread
// reading the episodes, queries.ReadAllThreads, in both). Its large reads
// (the episodes, the verdict pairs) stream and sort, which spills.
const MemoryShare = 0.5

// Options says which report to load. The zero value loads every study the
// workspace holds, scored by the default judge and grader.
type Options struct {
	// Judge is the judge whose labels score the UserBench study; "" means
	// builtin if it labelled anything, else the only judge, else the one
	// with the most labels (ChooseJudge).
	Judge string
	// OnJudge, when not nil, is told the judge chosen and how many judges
	// labelled anything, before the study is read (ub report says which
	// judge it chose when there was a choice).
	OnJudge func(judge string, judges int)
	// Studies, Simulators, OffLeaderboard, CaseDeveloper and
	// CaseSimulators are reports.Input's: nil or "" shows everything.
	Studies        []string
	Simulators     []string
	OffLeaderboard []string
	CaseDeveloper  string
	CaseSimulators []string
	// Build is the ub drawing the report, recorded in its manifest.
	Build reports.Build
	// Fidelity configures the user-fidelity study.
	Fidelity Fidelity
}

// Fidelity configures the user-fidelity study of a report.
type Fidelity struct {
	Grader   string    // "" means the grader with the most verdicts
	Qs       []float64 // the frontier's required UFS levels
	Prompts  int       // the epoch whose cost is reported: prompts ...
	Rollouts int       // ... and rollouts
	Rule     analysis.FrontierRule
	// Bootstrap configures every bootstrap interval of the report.
	Bootstrap analysis.BootstrapOptions
	Split     *reports.TaskSplit // only the tasks of this split; nil: every task
}

// OptionError is an option that does not fit the workspace: a judge or a
// grader that gave nothing here, a task split restricting a study it does
// not hold. It is the caller's mistake, not the workspace's.
type OptionError struct{ err error }

func (e *OptionError) Error() string { return e.err.Error() }
func (e *OptionError) Unwrap() error { return e.err }

// MissingStudyError is a study asked for (Options.Studies) that the
// workspace does not hold: a missing prerequisite, not a wrong option.
type MissingStudyError struct{ err error }

func (e *MissingStudyError) Error() string { return e.err.Error() }
func (e *MissingStudyError) Unwrap() error { return e.err }

func optionf(format string, args ...any) error {
	return &OptionError{fmt.Errorf(format, args...)}
}

// Report loads the report opts asks for from ws. Its phases: choose the
// judge; read the UserBench study and what the report shows beside it
// (provenance, the built-in judge's measured quality, the episodes and
// their probe rates, the split, the review, rubric counts, failure modes,
// the judges' agreement); prepare the report and its case study; check the
// studies asked for are held; read the user-fidelity study. Errors say
// "report: ..."; an OptionError marks a bad option.
func Report(ctx context.Context, ws *queries.Workspace, opts Options) (*reports.Report, error) {
	db := ws.Conn()
	// DuckDB keeps MemoryShare of the limit while the report loads. A
	// configuration locked for the user's SQL (ub publish, ub view after a
	// query) keeps the whole limit.
	locked, err := queries.ConfigurationLocked(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if !locked {
		restore, err := queries.ApplySettings(ctx, db, queries.MemoryShare(MemoryShare, queries.ImportMemoryFloor))
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		defer restore(context.WithoutCancel(ctx))
	}
	judges, err := queries.StudyJudges(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	judgeName, err := ChooseJudge(judges, opts.Judge)
	if err != nil {
		return nil, err
	}
	if opts.OnJudge != nil {
		opts.OnJudge(judgeName, len(judges))
	}
	st, err := queries.LoadStudy(ctx, db, judgeName)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	in := reports.Input{Study: st, Studies: opts.Studies, Simulators: opts.Simulators, OffLeaderboard: opts.OffLeaderboard,
		CaseDeveloper: opts.CaseDeveloper, CaseSimulators: opts.CaseSimulators, Build: opts.Build}
	if in.Synthetic, err = queries.Provenance(ctx, db); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if in.JudgeQuality, in.Deciders, err = judgeQuality(ctx, ws, judgeName); err != nil {
		return nil, err
	}
	err = withThreads(ctx, ws, locked, queries.ReadAllThreads, func() (err error) {
		in.Episodes, err = queries.LoadEpisodeReport(ctx, ws.Streaming())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if st.Split != nil {
		split, err := SplitSummary(ctx, ws)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		in.Split = &split
	}
	if in.Review, err = review.ReportStats(ctx, db); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if in.RubricSummary, err = queries.LoadRubricSummary(ctx, db); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if in.FailureModes, err = queries.FailureModes(ctx, db); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if in.Fine, in.Fleiss, err = judgeAgreements(ctx, ws, st); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if in.Review != nil {
		if in.Attempts, err = review.AttemptStats(ctx, db, *in.Review); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
	rep := reports.Prepare(in)
	if dev, n, k, ok := rep.CaseDeveloper(); ok {
		ct, err := queries.LoadCaseTexts(ctx, db, judgeName, dev, n, k)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		rep.SetCase(&ct)
	}
	for _, s := range opts.Studies {
		if !rep.Holds(s) {
			msg := reports.MissingStudy(s)
			if note := rep.LeftOut(); note != "" && s == reports.StudyFidelity {
				msg += ". " + note
			}
			return nil, &MissingStudyError{fmt.Errorf("report: --study %s: %s", s, msg)}
		}
	}
	rep.SetBootstrap(opts.Fidelity.Bootstrap)
	if err := withThreads(ctx, ws, locked, queries.ReadAllThreads, func() error { return loadFidelity(ctx, ws, rep, opts.Fidelity) }); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return rep, nil
}

// withThreads runs fn with DuckDB at n threads (queries.LimitThreads),
// unless the configuration is locked (ub publish, ub view after a query).
func withThreads(ctx context.Context, ws *queries.Workspace, locked bool, n int, fn func() error) error {
	if !locked {
		restore, err := queries.LimitThreads(ctx, ws.Conn(), n)
		if err != nil {
			return err
		}
		defer restore(context.WithoutCancel(ctx))
	}
	return fn()
}
