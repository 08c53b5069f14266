package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
)

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
	q.Coverage = m.Coverage
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
