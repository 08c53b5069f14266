package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
	"github.com/ub-bench/ub/sim/runner"
)

func newCacheCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "cache",
		Usage: "the response cache",
		Subcommands: []*cli.Command{{
			Name:      "explain",
			Usage:     "say why a generation's request would miss the cache: which part of its key changed",
			ArgsUsage: "POINT|@N",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "experiment", Usage: "experiment TOML `FILE` naming the simulator"},
				&cli.StringFlag{Name: "sim", Usage: "simulator `NAME` (mix or retrieve need no --experiment)"},
				&cli.StringFlag{Name: "condition", Value: sim.CondProfile, Usage: "profile|noprofile|terse"},
				&cli.IntFlag{Name: "window", Value: sim.DefaultWindow, Usage: "N"},
				&cli.IntFlag{Name: "history", Value: 0, Usage: "K"},
				&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of an offline simulator without --experiment"},
				&cli.StringFlag{Name: "persona", Value: "stats", Usage: "stats|model"},
				&cli.IntFlag{Name: "trial", Value: 1, Usage: fmt.Sprintf("the trial `T` (1 .. the trials generate made, at most %d)", sim.MaxTrials)},
			},
			Action: func(c *cli.Context) error {
				a, err := args(c)
				if err != nil {
					return err
				}
				if len(a) != 1 || c.String("sim") == "" {
					return usagef("cache explain: give --sim NAME and one POINT (or @N)")
				}
				return runCacheExplain(c, sio, a[0])
			},
		}},
	}
}

func runCacheExplain(c *cli.Context, sio *streams, arg string) error {
	opts := generateOptions{experiment: c.String("experiment"), sims: []string{c.String("sim")},
		conditions: []string{c.String("condition")}, window: c.Int("window"), history: c.Int("history"),
		seed: c.Int64("seed"), persona: c.String("persona")}
	if trial := c.Int("trial"); trial < 1 || trial > sim.MaxTrials {
		return usagef("cache explain: --trial %d: want 1 .. %d (trials count from 1; ub generate makes at most %d)", trial, sim.MaxTrials, sim.MaxTrials)
	}
	var e sim.Experiment
	var err error
	if opts.experiment != "" {
		if err := requireInputFiles("cache explain", opts.experiment); err != nil {
			return err
		}
		if e, err = sim.LoadExperiment(opts.experiment); err != nil {
			return usageError{fmt.Errorf("cache explain: %w", err)}
		}
	} else if e, err = experimentFromFlags(opts); err != nil {
		// experimentFromFlags speaks for ub generate; this is cache explain.
		return usagef("cache explain: %s", strings.TrimPrefix(err.Error(), "generate: "))
	}
	s, ok := e.Simulator(opts.sims[0])
	if !ok {
		return usagef("cache explain: no simulator %q in the experiment", opts.sims[0])
	}
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	id, err := resolvePoint(c.Context, ws.Conn(), arg)
	if err != nil {
		return err
	}
	trial := c.Int("trial")
	cell := sim.Cell{Simulator: s.Name, Condition: opts.conditions[0], WindowN: opts.window, HistoryK: opts.history}
	gen, err := sim.PrepareGeneration(c.Context, ws.Conn(), s, cell, id, trial-1, sim.InputsOptions{PersonaKind: opts.persona})
	if errors.Is(err, queries.ErrNoPoint) {
		return usagef("cache explain: point %s: no such frozen point (see ub points export)", id)
	}
	if err != nil {
		return err
	}
	key, partsJSON, genErr, ok, err := queries.GetGeneration(c.Context, ws.Conn(), gen.ID)
	if err != nil {
		return err
	}
	of := ""
	if trial > 1 {
		of = fmt.Sprintf(", trial %d", trial)
	}
	fmt.Fprintf(sio.out, "generation %s (simulator %s, point %s, %s, N=%d, K=%d%s)\nrequest key now: %s\n",
		gen.ID, s.Name, id, cell.Condition, cell.WindowN, cell.HistoryK, of, gen.Request.Key())
	if !ok {
		fmt.Fprintln(sio.out, "no stored generation: ub generate has not made it yet")
		return nil
	}
	fmt.Fprintf(sio.out, "request key stored: %s\n", key)
	if key == gen.Request.Key() {
		if genErr != "" {
			fmt.Fprintf(sio.out, "same key: the stored generation failed (%s); ub generate --retry-failed sends it again if it may succeed\n", genErr)
		} else {
			fmt.Fprintln(sio.out, "same key: a re-run is served from the cache and sends nothing")
		}
		return nil
	}
	var was runner.KeyParts
	if err := json.Unmarshal(partsJSON, &was); err != nil {
		return fmt.Errorf("cache explain: stored key parts: %w", err)
	}
	fmt.Fprintln(sio.out, "the key changed, so ub generate would send a new request:")
	for _, r := range runner.ExplainMiss(was, gen.Parts) {
		fmt.Fprintln(sio.out, "  -", r)
	}
	return nil
}
