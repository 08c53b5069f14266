package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/sim"
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

// cascadeName is the judge name a cascade's labels are stored under.
func cascadeName(model string) string { return judge.BuiltinName + "+" + model }

// judgeCascade labels every point or generation with the built-in judge and
// sends the least confident share 1-coverage to the model judge through the
// runner; the labels are stored under builtin+NAME, each with the judge that
// decided it and the built-in judge's confidence.
func judgeCascade(c *cli.Context, sio *streams, ws *queries.Workspace, b *judge.Builtin, name string, coverage float64, mj modelEndpoint, target string) error {
	kind, targets, err := labelTargets(c, ws, target)
	if err != nil {
		return err
	}
	items := make([]sim.CascadeItem, len(targets))
	for i, t := range targets {
		items[i] = sim.CascadeItem{ID: t.ID, Text: t.Text, PrevAgent: t.PrevAgent}
	}
	price := sim.SimulatorConfig{PriceIn: mj.endpoint.PriceIn, PriceOut: mj.endpoint.PriceOut}
	bar, done := generateProgress(sio, "cascade "+name)
	labels, st, err := sim.Cascade(c.Context, items, b, sim.CascadeModel{Name: name, BaseURL: mj.endpoint.BaseURL, Model: mj.model},
		sim.NewOpenAI(sim.OpenAIConfig{BaseURL: mj.endpoint.BaseURL, APIKeyEnv: mj.endpoint.APIKeyEnv, Timeout: mj.endpoint.Timeout}), sim.NewDuckStore(ws),
		sim.CascadeOptions{Coverage: coverage, Run: sim.RunOptions{Concurrency: mj.endpoint.Concurrency, RatePerSecond: mj.endpoint.RateLimit,
			MaxAttempts: mj.endpoint.MaxAttempts, RetryFailed: mj.retryFailed,
			Cost:     func(_ sim.Request, r sim.Response) float64 { return price.Cost(r.TokensIn, r.TokensOut, r.ViaBatch) },
			Progress: bar}})
	done()
	if err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	store := cascadeName(name)
	var rows []queries.Label
	for _, l := range labels {
		if l.Failed != "" {
			continue
		}
		row := queries.Label{Target: kind, TargetID: l.ID, Judge: store, Move: l.Move.String(), Raw: l.Raw,
			RequestKey: l.RequestKey, Confidence: l.Confidence, DecidedBy: l.DecidedBy, PromptVersion: b.Version()}
		if l.DecidedBy != judge.BuiltinName {
			row.PromptVersion = judge.PromptVersion()
		}
		if l.Unparseable {
			row.Move = "unparseable"
		}
		if l.Fine != 0 {
			row.Label7 = l.Fine.String()
		}
		rows = append(rows, row)
	}
	if err := queries.ReplaceLabels(c.Context, ws, store, kind, rows); err != nil {
		return fmt.Errorf("judge: store: %w", err)
	}
	fmt.Fprintf(sio.out, "%s: %d labelled by %s: %d by builtin (%s, the most confident %.0f%%), %d by %s (model %s, %s): %d sent, %d cached, %d failed, %d unparseable, $%.4f\n",
		target, len(rows), store, st.Builtin, b.Version(), 100*coverage, st.Model, name, mj.model, judge.PromptVersion(),
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
	case "points", "generations":
		return []string{target}, nil
	case "all":
		return []string{"points", "generations"}, nil
	}
	return nil, usagef("judge: --target %q: want points, generations or all", target)
}

// judgeQuality gives the report the built-in judge's shipped measurement
// and who decided the labels of the report's judge.
func judgeQuality(c *cli.Context, ws *queries.Workspace, judgeName string) (*reports.JudgeQuality, []reports.Decider, error) {
	m, err := judge.BuiltinMeasurement()
	if err != nil {
		return nil, nil, err
	}
	b, err := judge.NewBuiltin()
	if err != nil {
		return nil, nil, err
	}
	kap := func(k judge.KappaCI) reports.JudgeKappa {
		return reports.JudgeKappa{N: k.N, Kappa: k.Kappa, Lo: k.Lo, Hi: k.Hi}
	}
	q := &reports.JudgeQuality{Judge: judge.BuiltinName, Version: b.Version(), Protocol: m.Protocol, Repos: m.Repos,
		All: kap(m.All), Unseen: kap(m.Unseen), ECE: m.ECE}
	for _, bn := range m.Bins {
		q.Bins = append(q.Bins, reports.CalibrationBin{From: bn.From, To: bn.To, N: bn.N, Confidence: bn.Confidence, Accuracy: bn.Accuracy})
	}
	for _, p := range m.Coverage {
		q.Coverage = append(q.Coverage, reports.CoveragePoint{Coverage: p.Coverage, N: p.N, Accuracy: p.Accuracy, Kappa: p.Kappa, Lo: p.Lo, Hi: p.Hi})
	}
	if judgeName == "" {
		return q, nil, nil
	}
	ds, err := queries.LabelDeciders(c.Context, ws.Conn(), judgeName)
	if err != nil {
		return nil, nil, fmt.Errorf("report: %w", err)
	}
	var out []reports.Decider
	for _, d := range ds {
		out = append(out, reports.Decider{DecidedBy: d.DecidedBy, Target: d.Target, N: d.N})
	}
	return q, out, nil
}
