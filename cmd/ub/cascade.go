package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
)

// parseCascade reads --cascade builtin,NAME: the built-in judge first, then
// the model judge NAME.
func parseCascade(spec string) (string, error) {
	parts := strings.Split(spec, ",")
	if len(parts) != 2 || strings.TrimSpace(parts[0]) != judge.BuiltinName || strings.TrimSpace(parts[1]) == "" || strings.TrimSpace(parts[1]) == judge.BuiltinName {
		return "", usagef("judge: --cascade %q: want builtin,NAME (the built-in judge, then the model judge NAME)", spec)
	}
	return strings.TrimSpace(parts[1]), nil
}

// judgeCascade labels every point or generation with the cascade
// (judge.JudgeCascade) and reports it.
func judgeCascade(c *cli.Context, sio *streams, ws *queries.Workspace, b *judge.Builtin, name string, coverage float64, mj modelEndpoint, target string) error {
	bar, done := generateProgress(sio, "cascade "+name)
	res, err := judge.JudgeCascade(c.Context, ws, b, judge.CascadeJudgeOptions{Judge: name, Model: mj.model, Endpoint: mj.endpoint,
		Target: target, Coverage: coverage, RetryFailed: mj.retryFailed, Progress: bar, Clock: sio.clock})
	done()
	if err != nil {
		return err
	}
	st := res.Stats
	fmt.Fprintf(sio.out, "%s: %d labelled by %s: %d by builtin (%s, the most confident %.0f%%), %d by %s (model %s, %s): %d sent, %d cached, %d failed, %d unparseable, $%.4f\n",
		target, res.Labels, res.Judge, st.Builtin, b.Version(), 100*coverage, st.Model, name, mj.model, judge.PromptVersion(),
		st.Run.Sent, st.Run.Cached, st.Failed, st.Unparseable, st.Run.Cost)
	if m, err := judge.BuiltinMeasurement(); err == nil {
		if p, ok := m.At(coverage); ok {
			fmt.Fprintf(sio.out, "  expected: the built-in judge's kept labels agree with careful labels at kappa %.2f [%.2f, %.2f], accuracy %.2f (leave-one-repository-out, coverage %.2f)\n",
				p.Kappa, p.Lo, p.Hi, p.Accuracy, p.Coverage)
		}
	}
	if st.Failed > 0 {
		return fmt.Errorf("judge: %d request(s) failed (recorded in responses; --retry-failed sends the retryable ones again): %w", st.Failed, errGenerationsFailed)
	}
	return nil
}

// runCascade validates the cascade's flags and labels each target.
func runCascade(c *cli.Context, sio *streams, opts judgeOptions) error {
	name, err := parseCascade(opts.cascade)
	if err != nil {
		return err
	}
	switch {
	case opts.model.model == "" || opts.model.endpoint.BaseURL == "":
		return usagef("judge: --cascade needs the model judge's --model and --base-url")
	case opts.input != "":
		return usagef("judge: --input labels with the built-in judge only")
	case !(opts.coverage > 0 && opts.coverage <= 1):
		return usagef("judge: --coverage %v: want a share in (0, 1]", opts.coverage)
	}
	targets, err := judgeTargetKinds(opts.target)
	if err != nil {
		return err
	}
	b, err := judge.NewBuiltin()
	if err != nil {
		return err
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	for _, t := range targets {
		if err := judgeCascade(c, sio, ws, b, name, opts.coverage, opts.model, t); err != nil {
			return err
		}
	}
	return nil
}

func judgeTargetKinds(target string) ([]string, error) {
	switch target {
	case "points", "generations", "profile":
		return []string{target}, nil
	case "all":
		return []string{"points", "generations", "profile"}, nil
	}
	return nil, usagef("judge: --target %q: want points, generations, profile or all", target)
}
