package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
)

func newAgreeCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "agree",
		Usage: "Cohen's kappa with a 95% interval, confusion matrix and per-move agreement for each pair of judges",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "judges", Usage: "two or more judge names, comma-separated (see: ub agree --list)"},
			&cli.BoolFlag{Name: "list", Usage: "list the judges and their label counts"},
			&cli.BoolFlag{Name: "json", Usage: "print the agreement as JSON"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			return runAgree(c, sio, c.String("judges"), c.Bool("list"), c.Bool("json"))
		},
	}
}

func runAgree(c *cli.Context, sio *streams, judges string, list, asJSON bool) error {
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	if list {
		js, err := queries.Judges(c.Context, ws.Conn())
		if err != nil {
			return err
		}
		for _, j := range js {
			fmt.Fprintf(sio.out, "%-32s %-10s %6d labels, %d unparseable\n", j.Judge, j.Target, j.N, j.Unparseable)
		}
		return nil
	}
	names := strings.Split(judges, ",")
	if len(names) < 2 {
		return usagef("agree: --judges needs two or more names, e.g. --judges builtin,imported:corpus")
	}
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if names[i] == "" || slices.Contains(names[:i], names[i]) {
			return usagef("agree: --judges %q: each judge once, no empty name", judges)
		}
	}
	var results []judge.JudgePair
	err = judge.AgreeJudges(c.Context, ws.Conn(), names, func(p judge.JudgePair) error {
		if asJSON {
			results = append(results, p)
			return nil
		}
		fmt.Fprintf(sio.out, "== %s vs %s: %d targets in common", p.JudgeA, p.JudgeB, p.N)
		if p.Unparseable > 0 {
			fmt.Fprintf(sio.out, " (%d more with an unparseable label, not compared)", p.Unparseable)
		}
		fmt.Fprintln(sio.out)
		if err := p.Agreement.Format(sio.out, p.JudgeA, p.JudgeB); err != nil {
			return err
		}
		if p.Fine != nil {
			if err := p.Fine.Format(sio.out); err != nil {
				return err
			}
		}
		fmt.Fprintln(sio.out)
		return nil
	})
	if err != nil || !asJSON {
		return err
	}
	enc := json.NewEncoder(sio.out)
	enc.SetIndent("", "  ")
	return enc.Encode(results)
}
