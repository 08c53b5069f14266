package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/analysis/probes"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/reports/visible"
)

type probesOptions struct {
	probe string
	json  bool
}

func newProbesCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "probes",
		Usage: "run the judge-free fidelity probes " + probes.Range() + " on the workspace's episodes",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "probe", Usage: "list the findings of one probe `P` (" + strings.Join(probes.Names(), ", ") + ")"},
			&cli.BoolFlag{Name: "json", Usage: "print rates and findings as JSON"},
		},
		Action: func(c *cli.Context) error {
			return runProbes(c, sio, probesOptions{probe: c.String("probe"), json: c.Bool("json")})
		},
	}
}

// probesOutput is the --json document.
type probesOutput struct {
	Rates    []probeRateJSON      `json:"rates"`
	Findings []queries.FindingRow `json:"findings"`
}

type probeRateJSON struct {
	SourceFile string  `json:"source_file"`
	UserSim    string  `json:"user_sim"`
	Probe      string  `json:"probe"`
	N          int     `json:"n"`
	Hits       int     `json:"hits"`
	Rate       float64 `json:"rate"`
}

func runProbes(c *cli.Context, sio *streams, opts probesOptions) error {
	if opts.probe != "" {
		if _, ok := probes.ByName(opts.probe); !ok {
			return usagef("probes: unknown probe %q (want one of %v)", opts.probe, probes.Names())
		}
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	defer debug.SetGCPercent(debug.SetGCPercent(probes.GCPercent))
	st, err := probes.RunStored(c.Context, ws)
	if err != nil {
		return err
	}
	if st.Episodes == 0 {
		return &reports.MissingError{Figure: "probes", Reason: "the workspace has no episodes (ub ingest a tau2 result file first)"}
	}
	rates, err := queries.ProbeRatesByFile(c.Context, ws.Conn())
	if err != nil {
		return err
	}
	var findings []queries.FindingRow
	if opts.probe != "" || opts.json {
		if findings, err = queries.Findings(c.Context, ws.Conn(), opts.probe); err != nil {
			return err
		}
	}
	var out probesOutput
	out.Findings = findings
	for _, r := range rates {
		if opts.probe != "" && r.Probe != opts.probe {
			continue
		}
		rate := 0.0
		if r.N > 0 {
			rate = float64(r.Hits) / float64(r.N)
		}
		out.Rates = append(out.Rates, probeRateJSON{SourceFile: r.SourceFile, UserSim: r.UserSim, Probe: r.Probe, N: r.N, Hits: r.Hits, Rate: rate})
	}
	if opts.json {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(sio.err, "probed %d episodes, %d findings\n", st.Episodes, st.Findings)
	if st.NotRun > 0 {
		fmt.Fprintf(sio.err, "of them %d %s of simulations that never ran (termination reason infrastructure_error): no probe applies to them\n", st.NotRun, map[bool]string{true: "placeholder", false: "placeholders"}[st.NotRun == 1])
	}
	fmt.Fprintf(sio.out, "%-5s %9s %7s  %-40s %s\n", "probe", "hits/n", "rate", "user simulator", "file")
	for _, r := range out.Rates {
		fmt.Fprintf(sio.out, "%-5s %4d/%-4d %6.1f%%  %-40s %s\n", r.Probe, r.Hits, r.N, 100*r.Rate, visible.Text(r.UserSim), visible.Text(filepath.Base(r.SourceFile)))
	}
	if opts.probe != "" {
		pr, _ := probes.ByName(opts.probe)
		fmt.Fprintf(sio.out, "\n%s: %s\n", opts.probe, pr.Description)
		for _, f := range findings {
			t := "-"
			if f.TurnIdx != nil {
				t = fmt.Sprint(*f.TurnIdx)
			}
			fmt.Fprintf(sio.out, "%s  turn %-3s %s\n", visible.Text(f.SimulationID), t, visible.Text(f.Evidence))
		}
	}
	return nil
}
