package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/reports/visible"
	"github.com/ub-bench/ub/sim/synth"
)

// fidelityOptions are ub report's user-fidelity flags.
type fidelityOptions struct {
	grader   string
	qs       []float64
	prompts  int
	rollouts int
	rule     analysis.FrontierRule
	boot     analysis.BootstrapOptions
	split    *reports.TaskSplit // --task-split; nil: every task
}

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

// loadFidelity gives the report its User fidelity section: the episodes as
// the chosen grader graded them (--grader, else the grader with the most
// verdicts, ties by name), and the agreement with the next grader.
func loadFidelity(ctx context.Context, ws *queries.Workspace, rep *reports.Report, opts fidelityOptions) error {
	db := ws.Conn()
	graders, err := queries.Graders(ctx, db)
	if err != nil {
		return err
	}
	if len(graders) == 0 {
		if opts.grader != "" {
			return usagef("--grader %s: no verdicts in this workspace (run ub verdicts import)", opts.grader)
		}
		if opts.split != nil {
			return usagef("--task-split %s: it restricts the user fidelity study, and this workspace holds no verdicts (run ub verdicts import or ub grade)", opts.split.Name)
		}
		return nil
	}
	grader, second := chooseGraders(graders, opts.grader)
	if grader == "" {
		var names []string
		for _, g := range graders {
			names = append(names, g.Grader)
		}
		return usagef("--grader %s gave no verdicts (graders: %s)", visible.Quote(opts.grader), visible.List(names, 10))
	}
	rows, err := queries.LoadFidelity(ctx, db, grader)
	if err != nil {
		return err
	}
	in := reports.FidelityInput{Grader: grader, SecondGrader: second, Qs: opts.qs, EpochPrompts: opts.prompts, EpochRollouts: opts.rollouts,
		Rule: opts.rule, Bootstrap: opts.boot}
	in.Episodes = reports.FidelityEpisodes(rows, grader)
	if opts.split != nil {
		if eps, _ := reports.RestrictTaskSplit(in.Episodes, nil, *opts.split); len(eps) == 0 {
			return usagef("--task-split %s: grader %s graded no episode of its %d tasks", opts.split.Name, grader, len(opts.split.Tasks))
		}
		in.TaskSplit = opts.split
	}
	for _, g := range graders {
		if g.Grader == grader {
			in.GraderImported = g.Graded < g.Verdicts
		}
	}
	if second != "" {
		pairs, err := queries.VerdictPairs(ctx, db, grader, second)
		if err != nil {
			return err
		}
		in.Pairs = reports.FidelityPairs(pairs)
	}
	prices, err := queries.UserModelPrices(ctx, db)
	if err != nil {
		return err
	}
	var ps []string
	for _, p := range prices {
		src := ""
		if p.Source != "" {
			src = ", " + filepath.Base(p.Source)
		}
		ps = append(ps, fmt.Sprintf("%s at $%g in / $%g out per million tokens (read %s%s)", p.Model, p.PriceIn, p.PriceOut, p.ReadOn, src))
	}
	in.Prices = strings.Join(ps, "; ")
	rep.SetFidelity(in)
	return nil
}

// chooseGraders returns the grader to score with and the grader to compare
// it with ("" when there is none).
func chooseGraders(gs []queries.GraderCount, want string) (grader, second string) {
	best := func(skip string) string {
		name, most := "", -1
		for _, g := range gs {
			if g.Grader != skip && g.Verdicts > most {
				name, most = g.Grader, g.Verdicts
			}
		}
		return name
	}
	if want != "" {
		for _, g := range gs {
			if g.Grader == want {
				return want, best(want)
			}
		}
		return "", ""
	}
	grader = best("")
	return grader, best(grader)
}

// runSynthFidelity writes the synthetic UserProxyBench study (seed 002).
func runSynthFidelity(c *cli.Context, io *streams, opts synthOptions) error {
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
	st, err := synth.WriteFidelity(c.Context, ws, synth.FidelityOptions{Seed: opts.seed, Scale: opts.scale})
	if err != nil {
		return err
	}
	fmt.Fprintf(io.out, "synthetic fidelity study, seed %d, scale %d\n", opts.seed, opts.scale)
	fmt.Fprintf(io.out, "episodes   %d of %d simulators on %d tasks (%d messages, %d agent tool calls)\n", st.Episodes, st.Simulators, st.Tasks, st.Messages, st.ToolCalls)
	fmt.Fprintf(io.out, "rubrics    %d criteria; %d verdicts of grader %s\n", st.Criteria, st.Verdicts, synth.FidelityGrader)
	return nil
}
