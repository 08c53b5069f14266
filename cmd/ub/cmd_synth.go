package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
	"github.com/ub-bench/ub/sim/synth"
)

type synthOptions struct {
	seed   uint64
	scale  int
	db     string
	trials int
}

func newSynthCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "synth",
		Usage: "write a synthetic UserBench study with planted effects into a fresh workspace (no network, no money)",
		Flags: []cli.Flag{
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of every draw"},
			&cli.IntFlag{Name: "scale", Value: 1, Usage: "userbench: multiply the developers, points and generations by 1 (the seed's shape), 10 or 100; fidelity: multiply the tasks by 1 to 1000"},
			&cli.StringFlag{Name: "db", Usage: "workspace `FILE` to create (default: the global --db)"},
			&cli.IntFlag{Name: "trials", Value: 1, Usage: "userbench: `K` generations per point in every setting, each drawn again (as ub generate --trials)"},
			&cli.StringFlag{Name: "study", Value: "userbench", Usage: "`STUDY` to write: userbench (seed 000) or fidelity (seed 002: UserProxyBench episodes, rubrics, verdicts; each episode's f drawn at random at its simulator's planted UFS, so the UFS has sampling noise and its intervals can be checked)"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			db := c.String("db")
			if db == "" {
				// The command's own --db shadows the global one; fall back to it.
				db = c.Lineage()[1].String("db")
			}
			opts := synthOptions{seed: c.Uint64("seed"), scale: c.Int("scale"), db: db, trials: c.Int("trials")}
			switch c.String("study") {
			case "userbench":
			case "fidelity":
				if c.IsSet("trials") {
					return usagef("synth: --trials is for --study userbench: the fidelity study writes one trial of each episode")
				}
				return runSynthFidelity(c, sio, opts)
			default:
				return usagef("synth: --study %q: want userbench or fidelity", c.String("study"))
			}
			return runSynth(c, sio, opts)
		},
	}
}

func runSynth(c *cli.Context, sio *streams, opts synthOptions) error {
	switch opts.scale {
	case 1, 10, 100:
	default:
		return usagef("synth: --scale %d: want 1, 10 or 100", opts.scale)
	}
	if opts.trials < 1 || opts.trials > sim.MaxTrials {
		return usagef("synth: --trials %d: want 1 .. %d", opts.trials, sim.MaxTrials)
	}
	ws, err := queries.Open(c.Context, opts.db, queries.Options{MemoryLimit: c.String("memory-limit")})
	if err != nil {
		return err
	}
	defer ws.Close()
	var progress func(string)
	if sio.tty {
		progress = func(stage string) { fmt.Fprintf(sio.err, "synth: %s\n", stage) }
	}
	st, err := synth.Write(c.Context, ws, synth.Options{Seed: opts.seed, Scale: opts.scale, Trials: opts.trials, Progress: progress})
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "synthetic study, seed %d, scale %d", opts.seed, opts.scale)
	if opts.trials > 1 {
		fmt.Fprintf(sio.out, ", trials %d", opts.trials)
	}
	fmt.Fprintln(sio.out)
	fmt.Fprintf(sio.out, "corpus      %d developers, %d repos, %d components, %d sessions, %d turns\n",
		st.Developers, st.Repos, st.Components, st.Sessions, st.Turns)
	fmt.Fprintf(sio.out, "split       hash %s\n", st.SplitHash)
	fmt.Fprintf(sio.out, "points      %d for %d eligible test developers: hash %s\n", st.Points, st.Eligible, st.PointSetHash)
	fmt.Fprintf(sio.out, "generations %d from %d simulators, %d labels (judges %s and %s)\n",
		st.Generations, st.Simulators, st.Labels, synth.Judge, synth.AltJudge)
	return nil
}
