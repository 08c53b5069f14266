package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/reports/visible"
	"github.com/ub-bench/ub/sim/synth"
)

// chooseTaskSplit is the stored task split called name (tau2's
// split_tasks.json, read by ub ingest --tasks); nil for "". An unknown
// name is a usage error naming the splits the workspace holds; cmd
// prefixes it.
func chooseTaskSplit(ctx context.Context, db queries.Querier, cmd, name string) (*reports.TaskSplit, error) {
	if name == "" {
		return nil, nil
	}
	tasks, err := queries.TaskSplitTasks(ctx, db)
	if err != nil {
		return nil, err
	}
	s, ok := reports.NewTaskSplit(tasks, name)
	if ok {
		return &s, nil
	}
	if len(tasks) == 0 {
		return nil, usagef("%s: --task-split %s: this workspace holds no task splits (ub ingest --tasks on a tau2 task folder with split_tasks.json stores them)", cmd, name)
	}
	return nil, usagef("%s: --task-split %q: no domain has that split (splits: %s)", cmd, name, visible.List(reports.SplitNames(tasks), 10))
}

// parseQs reads --q: comma-separated fidelity levels in [0, 1].
func parseQs(s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		q, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || q < 0 || q > 1 || math.IsNaN(q) {
			return nil, usagef("report: --q %q: want comma-separated levels in [0, 1], e.g. 0.75,0.84,0.86", f)
		}
		out = append(out, q)
	}
	return out, nil
}

// parseEpoch reads --epoch prompts=N,rollouts=M.
func parseEpoch(s string) (prompts, rollouts int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		n, perr := strconv.Atoi(v)
		if !ok || perr != nil || n <= 0 {
			return 0, 0, usagef("report: --epoch %q: want prompts=N,rollouts=M with positive integers", s)
		}
		switch k {
		case "prompts":
			prompts = n
		case "rollouts":
			rollouts = n
		default:
			return 0, 0, usagef("report: --epoch: unknown key %q (want prompts, rollouts)", k)
		}
	}
	return prompts, rollouts, nil
}

// runSynthFidelity writes the synthetic UserProxyBench study (seed 002).
func runSynthFidelity(c *cli.Context, sio *streams, opts synthOptions) error {
	// Any scale up to 1000 (2,625 episodes each: 381 is a million, the
	// largest run of scripts/bench-scale.sh).
	if opts.scale < 1 || opts.scale > 1000 {
		return usagef("synth: --study fidelity --scale %d: want 1 to 1000", opts.scale)
	}
	ws, err := queries.Open(c.Context, opts.db, queries.Options{MemoryLimit: c.String("memory-limit")})
	if err != nil {
		return err
	}
	defer ws.Close()
	// Each episode's f is drawn at its simulator's planted rate in its
	// domain (Sampled), so that the UFS carries the sampling noise of a real
	// study and its intervals can be checked against the planted value.
	st, err := synth.WriteFidelity(c.Context, ws, synth.FidelityOptions{Seed: opts.seed, Scale: opts.scale, Sampled: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "synthetic fidelity study, seed %d, scale %d\n", opts.seed, opts.scale)
	fmt.Fprintf(sio.out, "episodes   %d of %d simulators on %d tasks (%d messages, %d agent tool calls)\n", st.Episodes, st.Simulators, st.Tasks, st.Messages, st.ToolCalls)
	fmt.Fprintf(sio.out, "rubrics    %d criteria; %d verdicts of grader %s\n", st.Criteria, st.Verdicts, synth.FidelityGrader)
	fmt.Fprintf(sio.out, "each episode's fidelity drawn at its simulator's planted UFS in its domain: the UFS varies around the planted value as a real study's does\n")
	return nil
}
