package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
)

func newRubricsCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "rubrics",
		Usage: "user-fidelity rubrics: import criteria (quotes checked against their tasks), show a task's rubric",
		Subcommands: []*cli.Command{
			{
				Name:      "import",
				Usage:     "import rubric criteria (JSONL, SPEC 6.2 fields); each quote must occur in its source of that task",
				ArgsUsage: "FILE.jsonl...",
				Action: func(c *cli.Context) error {
					files, err := args(c)
					if err != nil {
						return err
					}
					if len(files) == 0 {
						return usagef("rubrics import: name one or more JSONL files")
					}
					return runRubricsImport(c, io, files)
				},
			},
			newRubricsWriteCommand(io),
			{
				Name:      "show",
				Usage:     "print a task's criteria, accepted and rejected",
				ArgsUsage: "TASK",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "domain", Usage: "the task's `DOMAIN` (default: every domain with that task id)"}},
				Action: func(c *cli.Context) error {
					a, err := args(c)
					if err != nil {
						return err
					}
					if len(a) != 1 {
						return usagef("rubrics show: name one task id")
					}
					return runRubricsShow(c, io, c.String("domain"), a[0])
				},
			},
		},
	}
}

// refuse records refused lines in ingest_errors (the file's earlier errors
// replaced) and prints them; it returns the bad-input error to exit with,
// or nil when nothing was refused.
func refuse(ctx context.Context, sio *streams, ws *queries.Workspace, file, format string, refused []judge.LineError) error {
	if err := queries.ClearIngestErrors(ctx, ws.Conn(), file); err != nil {
		return err
	}
	for _, r := range refused {
		fmt.Fprintln(sio.err, r.Error())
		if err := queries.AddIngestError(ctx, ws.Conn(), file, r.Line, r.Msg, format); err != nil {
			return err
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%w: %s: %d lines refused", ingest.ErrBadInput, file, len(refused))
	}
	return nil
}

func runRubricsImport(c *cli.Context, sio *streams, files []string) error {
	ctx := c.Context
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	sources, err := judge.LoadQuoteSources(ctx, ws.Conn())
	if err != nil {
		return err
	}
	var bad []error
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		imp, err := judge.ParseRubrics(f, path, sources)
		f.Close()
		if err != nil {
			return err
		}
		for _, w := range imp.Warnings {
			fmt.Fprintln(sio.err, "warning:", w)
		}
		rows := make([]queries.Criterion, len(imp.Criteria))
		tasks := map[string]bool{}
		fams := map[string]int{}
		for i, cr := range imp.Criteria {
			rows[i] = queries.Criterion{CriterionID: cr.CriterionID, Domain: cr.Domain, TaskID: cr.TaskID, Family: cr.Family,
				Mode: cr.Mode, Quote: cr.Quote, QuoteSource: cr.QuoteSource, Text: cr.Text, AppliesWhen: cr.AppliesWhen,
				WrittenBy: "imported:" + filepath.Base(path), Status: "accepted", SourceFile: path, SourceLine: cr.Line}
			tasks[cr.Domain+"/"+cr.TaskID] = true
			fams[cr.Family]++
		}
		if err := queries.PutCriteria(ctx, ws, rows); err != nil {
			return fmt.Errorf("rubrics import %s: %w", path, err)
		}
		var fc []string
		for _, fam := range judge.FamilyNames() {
			fc = append(fc, fmt.Sprintf("%s %d", fam, fams[fam]))
		}
		fmt.Fprintf(sio.out, "%s: %d criteria of %d tasks imported (%s), %d refused\n", path, len(rows), len(tasks), strings.Join(fc, ", "), len(imp.Refused))
		if err := refuse(ctx, sio, ws, path, "rubrics", imp.Refused); err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) > 0 {
		return bad[0]
	}
	return nil
}

func runRubricsShow(c *cli.Context, sio *streams, domain, task string) error {
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	cs, err := queries.RubricOf(c.Context, ws.Conn(), domain, task)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		return fmt.Errorf("rubrics show: task %s has no criteria (run ub rubrics import)", task)
	}
	for _, cr := range cs {
		fmt.Fprintf(sio.out, "%s  %s/%s  %s.%s  [%s]\n", cr.CriterionID, cr.Domain, cr.TaskID, cr.Family, cr.Mode, cr.Status)
		fmt.Fprintf(sio.out, "  %s\n", cr.Text)
		fmt.Fprintf(sio.out, "  quote (%s): %q\n", cr.QuoteSource, cr.Quote)
		if cr.AppliesWhen != "" {
			fmt.Fprintf(sio.out, "  applies when: %s\n", cr.AppliesWhen)
		}
		fmt.Fprintf(sio.out, "  written by %s", cr.WrittenBy)
		if cr.VerifiedBy != "" {
			fmt.Fprintf(sio.out, ", verified by %s", cr.VerifiedBy)
		}
		fmt.Fprintln(sio.out)
		if cr.RejectReason != "" {
			fmt.Fprintf(sio.out, "  rejected: %s\n", cr.RejectReason)
		}
	}
	return nil
}

func newVerdictsCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "verdicts",
		Usage: "user-fidelity verdicts: import a grader's verdicts per (episode, criterion)",
		Subcommands: []*cli.Command{{
			Name:      "import",
			Usage:     "import verdicts (JSONL: simulation_id, criterion_id, verdict, turn_idx, reason, grader)",
			ArgsUsage: "FILE.jsonl...",
			Flags:     []cli.Flag{&cli.StringFlag{Name: "grader", Usage: "grader `NAME` of every line (default: each line's grader)"}},
			Action: func(c *cli.Context) error {
				files, err := args(c)
				if err != nil {
					return err
				}
				if len(files) == 0 {
					return usagef("verdicts import: name one or more JSONL files")
				}
				return runVerdictsImport(c, io, c.String("grader"), files)
			},
		}},
	}
}

func runVerdictsImport(c *cli.Context, sio *streams, grader string, files []string) error {
	ctx := c.Context
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	crit, err := queries.CriterionIndex(ctx, ws.Conn())
	if err != nil {
		return err
	}
	eps, err := queries.EpisodeIndex(ctx, ws.Conn())
	if err != nil {
		return err
	}
	var bad []error
	for _, path := range files {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		imp, err := judge.ParseVerdicts(f, path, grader)
		f.Close()
		if err != nil {
			return err
		}
		var rows []queries.StoredVerdict
		graders := map[string]bool{}
		refused := imp.Refused
		for _, v := range imp.Verdicts {
			cr, okC := crit[v.CriterionID]
			ep, okE := eps[v.SimulationID]
			msg := ""
			switch {
			case !okC:
				msg = fmt.Sprintf("criterion %s is not in the workspace (run ub rubrics import)", v.CriterionID)
			case !okE:
				msg = fmt.Sprintf("simulation %s is not in the workspace (ingest its result file)", v.SimulationID)
			case cr.Domain != ep.Domain || cr.TaskID != ep.TaskID:
				msg = fmt.Sprintf("criterion %s is of task %s/%s, simulation %s of task %s/%s", v.CriterionID, cr.Domain, cr.TaskID, v.SimulationID, ep.Domain, ep.TaskID)
			}
			if msg != "" {
				refused = append(refused, judge.LineError{File: path, Line: v.Line, Msg: msg})
				continue
			}
			graders[v.Grader] = true
			rows = append(rows, queries.StoredVerdict{SimulationID: v.SimulationID, CriterionID: v.CriterionID, Grader: v.Grader,
				Verdict: v.Verdict, TurnIdx: v.TurnIdx, Reason: v.Reason, SourceFile: path, SourceLine: v.Line})
		}
		sort.Slice(refused, func(i, j int) bool { return refused[i].Line < refused[j].Line })
		if err := queries.PutVerdicts(ctx, ws, rows); err != nil {
			return fmt.Errorf("verdicts import %s: %w", path, err)
		}
		names := make([]string, 0, len(graders))
		for g := range graders {
			names = append(names, g)
		}
		sort.Strings(names)
		fmt.Fprintf(sio.out, "%s: %d verdicts imported (grader %s), %d refused\n", path, len(rows), strings.Join(names, ", "), len(refused))
		if err := refuse(ctx, sio, ws, path, "verdicts", refused); err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) > 0 {
		return bad[0]
	}
	return nil
}
