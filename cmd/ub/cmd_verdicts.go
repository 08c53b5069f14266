package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge/rubric"
)

func newVerdictsCommand(sio *streams) *cli.Command {
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
				return runVerdictsImport(c, sio, c.String("grader"), files)
			},
		}},
	}
}

func runVerdictsImport(c *cli.Context, sio *streams, grader string, files []string) error {
	ctx := c.Context
	if err := requireInputFiles("verdicts import", files...); err != nil {
		return err
	}
	ws, err := createWorkspace(c)
	if err != nil {
		return err
	}
	defer ws.Close()
	var bad []error
	for _, path := range files {
		f, err := rubric.ImportVerdictFile(ctx, ws, path, grader)
		if err != nil {
			return err
		}
		by := "" // a file that holds no verdict names no grader
		if len(f.Graders) > 0 {
			by = " (grader " + strings.Join(f.Graders, ", ") + ")"
		}
		fmt.Fprintf(sio.out, "%s: %d verdicts imported%s, %d refused\n", path, f.Imported, by, len(f.Refused))
		if err := refused(sio, f); err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) > 0 {
		return bad[0]
	}
	return nil
}
