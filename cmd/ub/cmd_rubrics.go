package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge/rubric"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/visible"
)

func newRubricsCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "rubrics",
		Usage: "user-fidelity rubrics: import criteria (quotes checked against their tasks), show a task's rubric",
		Subcommands: []*cli.Command{
			{
				Name:      "import",
				Usage:     "import rubric criteria (JSONL: task_id, domain, criterion_id, family, mode, quote, quote_source, text; docs/fidelity.md); each quote must occur in its source of that task",
				ArgsUsage: "FILE.jsonl...",
				Action: func(c *cli.Context) error {
					files, err := args(c)
					if err != nil {
						return err
					}
					if len(files) == 0 {
						return usagef("rubrics import: name one or more JSONL files")
					}
					return runRubricsImport(c, sio, files)
				},
			},
			newRubricsWriteCommand(sio),
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
					return runRubricsShow(c, sio, c.String("domain"), a[0])
				},
			},
		},
	}
}

// refused prints a file's refused lines (recorded in ingest_errors by
// the import) and returns the bad-input error to exit with, or nil.
func refused(sio *streams, f rubric.ImportedFile) error {
	for _, r := range f.Refused {
		fmt.Fprintln(sio.err, visible.Line(r.Error()))
	}
	if len(f.Refused) > 0 {
		return fmt.Errorf("%w: %s: %d lines refused", ingest.ErrBadInput, f.Path, len(f.Refused))
	}
	return nil
}

func runRubricsImport(c *cli.Context, sio *streams, files []string) error {
	ctx := c.Context
	if err := requireInputFiles("rubrics import", files...); err != nil {
		return err
	}
	ws, err := createWorkspace(c)
	if err != nil {
		return err
	}
	defer ws.Close()
	sources, err := rubric.LoadQuoteSources(ctx, ws.Conn())
	if err != nil {
		return err
	}
	var bad []error
	for _, path := range files {
		f, err := rubric.ImportRubricFile(ctx, ws, path, sources)
		if err != nil {
			return err
		}
		for _, w := range f.Warnings {
			fmt.Fprintln(sio.err, "warning:", w)
		}
		var fc []string
		for _, fam := range rubric.FamilyNames() {
			fc = append(fc, fmt.Sprintf("%s %d", fam, f.Families[fam]))
		}
		fmt.Fprintf(sio.out, "%s: %d criteria of %d tasks imported (%s), %d refused\n", path, f.Imported, f.Tasks, strings.Join(fc, ", "), len(f.Refused))
		if err := refused(sio, f); err != nil {
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
	return rubric.WriteRubric(sio.out, cs)
}
