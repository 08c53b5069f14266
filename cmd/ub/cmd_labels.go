package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/visible"
)

func newLabelsCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "labels",
		Usage: "labels from elsewhere (a human, another model)",
		Subcommands: []*cli.Command{{
			Name:      "import",
			Usage:     "import move labels (JSONL: id, label, optional fine) as judge imported:NAME",
			ArgsUsage: "FILE",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "name", Usage: "judge name after imported: (default: the file name)"},
				&cli.StringFlag{Name: "messages", Usage: "messages.jsonl (id, repo, session_start, message) to place labels of other ids on the workspace's turns"},
			},
			Action: func(c *cli.Context) error {
				a, err := args(c)
				if err != nil {
					return err
				}
				if len(a) != 1 {
					return usagef("labels import: name one FILE")
				}
				return runLabelsImport(c, sio, a[0], c.String("name"), c.String("messages"))
			},
		}},
	}
}

// runLabelsImport reads labels and stores them as judge imported:NAME
// (judge.ReadLabels). Bad lines are reported with their line and nothing is
// imported.
func runLabelsImport(c *cli.Context, sio *streams, path, name, messages string) error {
	if err := requireInputFiles("labels import", path, messages); err != nil {
		return err
	}
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	judgeName := "imported:" + name
	var msgs map[string]judge.LabelMessage
	if messages != "" {
		var err error
		msgs, err = judge.ReadLabelMessages(messages)
		var pe *ingest.ParseError
		if errors.As(err, &pe) {
			return badInputf("labels import: %v", pe) // exit 3: the messages file is bad input
		}
		if err != nil {
			return fmt.Errorf("labels import: %w", err)
		}
	}
	ws, err := createWorkspace(c)
	if err != nil {
		return err
	}
	defer ws.Close()
	imp, err := judge.ReadLabels(c.Context, ws.Conn(), path, judgeName, msgs)
	if err != nil {
		return fmt.Errorf("labels import: %w", err)
	}
	if len(imp.Bad) > 0 {
		for _, b := range imp.Bad {
			fmt.Fprintln(sio.err, visible.Line(b))
		}
		return badInputf("labels import: %d bad line(s), nothing imported", len(imp.Bad))
	}
	if len(imp.Labels) > 0 && imp.Unmatched == len(imp.Labels) {
		return badInputf("labels import: none of the %d labels in %s matches a point, generation or turn of this workspace (is it the right workspace, or does it need --messages?); nothing imported", len(imp.Labels), path)
	}
	if err := queries.ReplaceJudgeLabels(c.Context, ws, judgeName, imp.Labels); err != nil {
		return fmt.Errorf("labels import: %w", err)
	}
	fmt.Fprintf(sio.out, "imported %d labels as %s: %d on frozen points, %d on other turns of the workspace, %d not found in it\n",
		len(imp.Labels), judgeName, imp.OnPoints, imp.OnMessages, imp.Unmatched)
	return nil
}
