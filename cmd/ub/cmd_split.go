package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/cmd/internal/load"
	"github.com/ub-bench/ub/graph"
	"github.com/ub-bench/ub/graph/splits"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
)

type splitOptions struct {
	seed               int64
	ratios             string
	by                 string
	heldoutFraction    float64
	minHeldoutSessions int
	minSessions        int
	minHeldoutMoments  int
	report             bool
	out                string
}

// The defaults of the time split and eligibility: the seed's cutoffs
// (>= 6 sessions, >= 2 held-out sessions, >= 8 held-out moments) and the
// latest 30% of a developer's sessions held out.
const (
	defaultHeldoutFraction    = splits.DefaultHeldoutFraction
	defaultMinHeldoutSessions = splits.DefaultMinHeldoutSessions
	defaultMinSessions        = splits.DefaultMinSessions
	defaultMinHeldoutMoments  = splits.DefaultMinHeldoutMoments
)

func splitFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the assignment"},
		&cli.StringFlag{Name: "ratios", Value: "train=0.7,val=0.1,test=0.2", Usage: "target share of each split"},
		&cli.StringFlag{Name: "by", Value: "developers", Usage: "what the ratios count: developers|sessions"},
		&cli.Float64Flag{Name: "heldout-fraction", Value: defaultHeldoutFraction, Usage: "share of each developer's latest sessions held out"},
		&cli.IntFlag{Name: "min-heldout-sessions", Value: defaultMinHeldoutSessions, Usage: "held-out sessions per developer, at least (and to be eligible)"},
		&cli.IntFlag{Name: "min-sessions", Value: defaultMinSessions, Usage: "sessions an eligible developer has, at least"},
		&cli.IntFlag{Name: "min-heldout-moments", Value: defaultMinHeldoutMoments, Usage: "held-out moments an eligible developer has, at least"},
	}
}

func newSplitCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "split",
		Usage: "assign whole developer <-> repository components to train/val/test, time-split each developer, apply eligibility",
		Flags: append(splitFlags(),
			&cli.BoolFlag{Name: "report", Usage: "print the split report of the split in force (and draw its figure with --out) instead of splitting"},
			&cli.StringFlag{Name: "out", Usage: "`DIR` for the split-summary figure and table (with --report)"},
			&cli.BoolFlag{Name: "json", Usage: "print the split report as JSON (run, components, splits, funnel, points per developer)"},
		),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			opts := splitOptions{seed: c.Int64("seed"), ratios: c.String("ratios"), by: c.String("by"),
				heldoutFraction: c.Float64("heldout-fraction"), minHeldoutSessions: c.Int("min-heldout-sessions"),
				minSessions: c.Int("min-sessions"), minHeldoutMoments: c.Int("min-heldout-moments"),
				report: c.Bool("report"), out: c.String("out")}
			if opts.report {
				return runSplitReport(c, sio, opts.out)
			}
			return runSplit(c, sio, opts)
		},
	}
}

func (o splitOptions) validate() ([]graph.Ratio, error) {
	ratios, err := graph.ParseRatios(o.ratios)
	if err != nil {
		return nil, usagef("split: --ratios: %v", err)
	}
	for _, r := range ratios {
		if r.Name != "train" && r.Name != "val" && r.Name != "test" {
			return nil, usagef("split: --ratios: unknown split %q (the splits are train, val and test)", r.Name)
		}
	}
	if o.by != string(graph.ByDevelopers) && o.by != string(graph.BySessions) {
		return nil, usagef("split: --by %q: want developers or sessions", o.by)
	}
	if o.heldoutFraction < 0 || o.heldoutFraction >= 1 {
		return nil, usagef("split: --heldout-fraction %v: want 0 <= f < 1", o.heldoutFraction)
	}
	if o.minHeldoutSessions < 0 || o.minSessions < 0 || o.minHeldoutMoments < 0 {
		return nil, usagef("split: minimums must not be negative")
	}
	return ratios, nil
}

func runSplit(c *cli.Context, sio *streams, opts splitOptions) error {
	ratios, err := opts.validate()
	if err != nil {
		return err
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	run, err := makeSplit(c, ws, opts, ratios)
	if err != nil {
		return err
	}
	for _, w := range run.Warnings {
		fmt.Fprintln(sio.err, "warning:", w)
	}
	return printSplitReport(c, sio, ws, "")
}

// makeSplit builds the graph from the workspace, assigns its components and
// stores the split, the time split and eligibility.
func makeSplit(c *cli.Context, ws *queries.Workspace, opts splitOptions, ratios []graph.Ratio) (queries.SplitRun, error) {
	sp, err := splits.Make(c.Context, ws, splits.Options{Seed: opts.seed, Ratios: ratios, By: graph.Measure(opts.by),
		HeldoutFraction: opts.heldoutFraction, MinHeldoutSessions: opts.minHeldoutSessions,
		MinSessions: opts.minSessions, MinHeldoutMoments: opts.minHeldoutMoments})
	var oe *splits.OptionsError
	switch {
	case errors.As(err, &oe):
		return sp.Run, usagef("split: %v", err)
	case err != nil:
		return sp.Run, fmt.Errorf("split: %w", err)
	}
	return sp.Run, nil
}

func runSplitReport(c *cli.Context, sio *streams, out string) error {
	if err := requireOutDir("split", out); err != nil {
		return err
	}
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	return printSplitReport(c, sio, ws, out)
}

// printSplitReport prints the split in force: components, the largest,
// per-split counts, the eligibility funnel and points per developer; with
// out, it also writes the split-summary figure and table there.
func printSplitReport(c *cli.Context, sio *streams, ws *queries.Workspace, out string) error {
	data, err := load.SplitSummary(c.Context, ws)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if err := printJSON(sio, splitJSON(data)); err != nil {
			return err
		}
	} else if err := reports.WriteSplitSummaryText(sio.out, data); err != nil {
		return err
	}
	if out != "" {
		files, err := reports.WriteSplitSummaryFigure(out, data)
		if err != nil {
			return fmt.Errorf("split report: %w", err)
		}
		for _, f := range files {
			fmt.Fprintln(sio.err, "wrote", filepath.ToSlash(f))
		}
	}
	return nil
}

// splitJSON is the split report as ub split --json prints it: snake_case
// keys, the same rows as the text report in the same order.
func splitJSON(d reports.SplitSummary) any {
	type component struct {
		ID         int    `json:"id"`
		Split      string `json:"split"`
		Developers int    `json:"developers"`
		Repos      int    `json:"repos"`
		Sessions   int    `json:"sessions"`
	}
	type split struct {
		Split      string `json:"split"`
		Components int    `json:"components"`
		Developers int    `json:"developers"`
		Repos      int    `json:"repos"`
		Sessions   int    `json:"sessions"`
	}
	type funnel struct {
		Split                 string `json:"split"`
		Developers            int    `json:"developers"`
		EnoughSessions        int    `json:"enough_sessions"`
		EnoughHeldoutSessions int    `json:"enough_heldout_sessions"`
		Eligible              int    `json:"eligible"`
	}
	type points struct {
		Developer    string `json:"developer"`
		Split        string `json:"split"`
		Points       int    `json:"points"`
		ConstantDose int    `json:"constant_dose"`
	}
	r := d.Run
	out := struct {
		Seed               int64       `json:"seed"`
		Ratios             string      `json:"ratios"`
		By                 string      `json:"by"`
		Hash               string      `json:"hash"`
		HeldoutFraction    float64     `json:"heldout_fraction"`
		MinHeldoutSessions int         `json:"min_heldout_sessions"`
		MinSessions        int         `json:"min_sessions"`
		MinHeldoutMoments  int         `json:"min_heldout_moments"`
		Components         []component `json:"components"`
		Splits             []split     `json:"splits"`
		Funnel             []funnel    `json:"funnel"`
		Points             []points    `json:"points"`
	}{Seed: int64(r.Seed), Ratios: r.Ratios, By: string(r.Measure), Hash: r.Hash, HeldoutFraction: r.HeldoutFraction,
		MinHeldoutSessions: r.MinHeldoutSessions, MinSessions: r.MinSessions, MinHeldoutMoments: r.MinHeldoutMoments,
		Components: []component{}, Splits: []split{}, Funnel: []funnel{}, Points: []points{}}
	for _, c := range d.Components {
		out.Components = append(out.Components, component{c.ID, c.Split, c.Developers, c.Repos, c.Sessions})
	}
	for _, s := range d.Splits {
		out.Splits = append(out.Splits, split{s.Split, s.Components, s.Developers, s.Repos, s.Sessions})
	}
	for _, f := range d.Funnel {
		out.Funnel = append(out.Funnel, funnel{f.Split, f.Developers, f.EnoughSessions, f.EnoughHeldoutSessions, f.Eligible})
	}
	for _, p := range d.Points {
		out.Points = append(out.Points, points{p.Developer, p.Split, p.Points, p.ConstantDose})
	}
	return out
}
