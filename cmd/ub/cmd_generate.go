package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
	"github.com/ub-bench/ub/sim/runner"
)

type generateOptions struct {
	experiment  string
	sims        []string
	conditions  []string
	window      int
	history     int
	seed        int64
	retryFailed bool
	persona     string
	json        bool
	batchDir    string
	trials      int // 0: the experiment's (1 without --experiment)
}

func newGenerateCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "make every missing generation of an experiment (simulators x frozen points x conditions x sweeps), nothing twice",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Usage: "experiment TOML `FILE` (simulators, prices, limits, conditions, sweeps)"},
			&cli.StringFlag{Name: "sim", Usage: "without --experiment: built-in simulators, comma-separated (mix,retrieve)"},
			&cli.StringFlag{Name: "conditions", Value: "profile,noprofile", Usage: "without --experiment: profile,noprofile,terse"},
			&cli.IntFlag{Name: "window", Value: sim.DefaultWindow, Usage: "without --experiment: turns before the moment (N)"},
			&cli.IntFlag{Name: "history", Value: 0, Usage: "without --experiment: earlier-session messages (K)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "without --experiment: seed of the offline simulators"},
			&cli.BoolFlag{Name: "retry-failed", Usage: "send again the requests that failed after all retries (permanent errors stay)"},
			&cli.StringFlag{Name: "persona", Value: "stats", Usage: "persona of the profile condition: stats|model"},
			&cli.IntFlag{Name: "trials", Usage: "make `K` generations (trials) per point in every cell, each its own request; overrides the experiment's trials (default: the experiment's, else 1)"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.StringFlag{Name: "batch-write", Usage: "write the unanswered requests of batch simulators (openai-batch, anthropic-batch) as provider batch files into `DIR`"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			opts := generateOptions{experiment: c.String("experiment"), window: c.Int("window"), history: c.Int("history"),
				seed: c.Int64("seed"), retryFailed: c.Bool("retry-failed"), persona: c.String("persona"), json: c.Bool("json"),
				batchDir: c.String("batch-write"), trials: c.Int("trials")}
			if c.IsSet("trials") && opts.trials < 1 {
				return usagef("generate: --trials %d: want at least 1", opts.trials)
			}
			if s := c.String("sim"); s != "" {
				opts.sims = strings.Split(s, ",")
			}
			opts.conditions = strings.Split(c.String("conditions"), ",")
			return runGenerate(c, sio, opts)
		},
	}
}

// experimentFromFlags builds the experiment of a quick run: built-in
// simulators only (a model endpoint needs prices and limits: use a file).
func experimentFromFlags(opts generateOptions) (sim.Experiment, error) {
	e := sim.Experiment{Name: "flags", Seed: opts.seed, Conditions: opts.conditions, WindowN: opts.window, HistoryK: opts.history,
		Trials: opts.trials}
	if len(opts.sims) == 0 {
		return e, usagef("generate: give --experiment FILE or --sim mix,retrieve")
	}
	for _, s := range opts.sims {
		s = strings.TrimSpace(s)
		if !sim.IsOffline(s) {
			return e, usagef("generate: --sim %q: only the built-in mix and retrieve run from flags; name model simulators in an --experiment file", s)
		}
		e.Simulators = append(e.Simulators, sim.SimulatorConfig{Name: s, Backend: s})
	}
	if err := e.Check(); err != nil {
		return e, usagef("generate: %v", err)
	}
	return e, nil
}

func runGenerate(c *cli.Context, sio *streams, opts generateOptions) error {
	var e sim.Experiment
	var err error
	if opts.experiment != "" {
		if err := requireInputFiles("generate", opts.experiment); err != nil {
			return err
		}
		if e, err = sim.LoadExperiment(opts.experiment); err != nil {
			return usageError{fmt.Errorf("generate: %w", err)}
		}
		if opts.trials > 0 {
			e.Trials = opts.trials
			if err := e.Check(); err != nil {
				return usagef("generate: --trials: %v", err)
			}
		}
	} else if e, err = experimentFromFlags(opts); err != nil {
		return err
	}
	if opts.persona != "stats" && opts.persona != "model" {
		return usagef("generate: --persona %q: want stats or model", opts.persona)
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	return generateIn(c, sio, ws, e, opts)
}

// runGenerateOn runs a flags experiment on an open workspace (ub demo).
func runGenerateOn(c *cli.Context, sio *streams, ws *queries.Workspace, opts generateOptions) error {
	e, err := experimentFromFlags(opts)
	if err != nil {
		return err
	}
	return generateIn(c, sio, ws, e, opts)
}

func generateIn(c *cli.Context, sio *streams, ws *queries.Workspace, e sim.Experiment, opts generateOptions) error {
	var failed int
	res, err := sim.Generate(c.Context, ws, e, sim.GenerateOptions{Persona: opts.persona, RetryFailed: opts.retryFailed, Clock: sio.clock,
		Preflight: func(s sim.SimulatorConfig) error { return requireAPIKey(s.APIKeyEnv) },
		Progress:  func(name string) (func(runner.RunStats), func()) { return generateProgress(sio, name) },
		Awaiting: func(s sim.SimulatorConfig, reqs []runner.Request) error {
			return writeBatch(sio, opts.batchDir, s, reqs)
		},
		Done: func(s sim.SimulatorConfig, sum sim.SimSummary) {
			if sim.IsOffline(s.Backend) && sum.Failed > 0 {
				// Deterministic facts of the data (a developer with no answered
				// agent turn in their profile sessions has an empty pool):
				// recorded, reported, and not a fault of the run.
				fmt.Fprintf(sio.err, "note: %s: %d generation(s) recorded with an error (e.g. an empty pool); see ub sql \"select simulator, condition, error, count(*) from generations where error is not null group by all\"\n", s.Name, sum.Failed)
			} else {
				failed += sum.Failed
			}
		}})
	if err != nil {
		return err
	}
	if opts.json {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"experiment": e.Name, "points": res.Points, "simulators": res.Simulators}); err != nil {
			return err
		}
	} else {
		if opts.experiment == "" {
			fmt.Fprintf(sio.out, "--sim %s: %d points\n", strings.Join(opts.sims, ","), res.Points)
		} else {
			fmt.Fprintf(sio.out, "experiment %s: %d points\n", e.Name, res.Points)
		}
		fmt.Fprintf(sio.out, "%-20s %11s %8s %10s %6s %7s %7s %10s %10s %10s\n", "simulator", "generations", "written", "unchanged", "sent", "cached", "failed", "tokens in", "tokens out", "cost USD")
		for _, s := range res.Simulators {
			fmt.Fprintf(sio.out, "%-20s %11d %8d %10d %6d %7d %7d %10d %10d %10.4f\n", s.Simulator, s.Generations, s.Written, s.Unchanged,
				s.Sent, s.Cached, s.Failed, s.TokensIn, s.TokensOut, s.Cost)
		}
	}
	if failed > 0 {
		return fmt.Errorf("generate: %d generation(s) failed (recorded with their error; see ub sql \"select * from generations where error is not null\"; ub generate --retry-failed sends the retryable ones again): %w", failed, errGenerationsFailed)
	}
	return nil
}

// errGenerationsFailed marks a run that recorded failed generations; exit 7.
var errGenerationsFailed = errModelCalls

// writeBatch writes the requests a batch simulator still waits for as
// provider batch files (with --batch-write DIR).
func writeBatch(sio *streams, dir string, s sim.SimulatorConfig, reqs []runner.Request) error {
	if dir == "" {
		fmt.Fprintf(sio.err, "note: %s: %d requests await a batch answer; write them with ub generate --batch-write DIR\n", s.Name, len(reqs))
		return nil
	}
	provider := runner.OpenAIBatch
	if s.Backend == "anthropic-batch" {
		provider = runner.AnthropicBatch
	}
	files, err := runner.WriteBatchFiles(dir, s.Name, provider, reqs, runner.BatchOptions{DefaultMaxTokens: s.MaxTokens})
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(sio.err, "wrote %s (%d requests, %d bytes) and %s\n", f.Path, f.Requests, f.Bytes, f.KeysPath)
	}
	fmt.Fprintf(sio.err, "submit them to the provider's batch API, then: ub batch import --provider %s --keys %s RESULT...; and ub generate again\n",
		provider, files[0].KeysPath)
	return nil
}
