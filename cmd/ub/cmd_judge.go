package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/visible"
)

type judgeOptions struct {
	judge    string
	target   string
	input    string
	model    modelEndpoint
	cascade  string  // builtin,NAME: the built-in judge, then model judge NAME
	coverage float64 // the built-in judge's share in a cascade
}

func newJudgeCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "judge",
		Usage: "label the move of every point's real message and every generation (or of the messages of a JSONL file)",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "judge", Value: "builtin", Usage: "judge `NAME`: builtin"},
			&cli.StringFlag{Name: "target", Value: "all", Usage: "points|generations|profile|all (profile: the moments of the profile sessions, for the chance and majority lines)"},
			&cli.StringFlag{Name: "input", Usage: "label the messages of this JSONL `FILE` (id, message, optional prev_agent) and print one JSON label per line; no workspace needed"},
			&cli.StringFlag{Name: "model", Usage: "a model judge: the model `NAME` at --base-url (then --judge names the judge)"},
			&cli.StringFlag{Name: "cascade", Usage: "`builtin,NAME`: label with the built-in judge and send its least confident labels to the model judge NAME (--model, --base-url); stored as judge builtin+NAME"},
			&cli.Float64Flag{Name: "coverage", Value: 0.7, Usage: "cascade: the share the built-in judge keeps (its most confident labels)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per target: judge, version, labels, new, already labelled (a model judge: model, sent, cached, failed, cost), counts per move"},
		}, endpointFlags("model judge")...),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			return runJudge(c, sio, judgeOptions{judge: c.String("judge"), target: c.String("target"), input: c.String("input"),
				model: endpointFromFlags(c), cascade: c.String("cascade"), coverage: c.Float64("coverage")})
		},
	}
}

func builtinJudge(name string) (*judge.Builtin, error) {
	if name != "builtin" {
		return nil, usagef("judge: unknown judge %q (the offline judge is builtin)", name)
	}
	return judge.NewBuiltin()
}

func runJudge(c *cli.Context, sio *streams, opts judgeOptions) error {
	if c.Bool("json") && (opts.cascade != "" || opts.input != "") {
		return usagef("judge: --json summarizes a judge's labelling of the workspace (--input already prints JSON; --cascade prints text)")
	}
	if opts.cascade != "" {
		return runCascade(c, sio, opts)
	}
	var b *judge.Builtin
	if opts.model.model != "" {
		if opts.judge == "builtin" {
			return usagef("judge: name the model judge with --judge NAME (builtin is the offline judge)")
		}
		if opts.input != "" {
			return usagef("judge: --input labels with the built-in judge only")
		}
	} else {
		var err error
		if b, err = builtinJudge(opts.judge); err != nil {
			return err
		}
	}
	if opts.input != "" {
		if err := requireInputFiles("judge", opts.input); err != nil {
			return err
		}
		return judgeFile(sio, b, opts.input)
	}
	targets, err := judgeTargetKinds(opts.target)
	if err != nil {
		return err
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	type judged struct {
		Target  string         `json:"target"`
		Judge   string         `json:"judge"`
		Version string         `json:"version"`
		Labels  int            `json:"labels"`
		New     int            `json:"new"`
		Already int            `json:"already"`
		Counts  map[string]int `json:"counts"`
	}
	var js []any
	for _, t := range targets {
		if b == nil {
			mj, err := judgeWithModel(c, sio, ws, opts.judge, opts.model, t)
			if mj != nil && c.Bool("json") {
				js = append(js, mj)
			}
			if err != nil {
				if c.Bool("json") && mj != nil {
					// The summary of what was paid for is printed,
					// failed requests and all, before the exit code.
					if perr := printJSON(sio, js); perr != nil {
						return perr
					}
				}
				return err
			}
			continue
		}
		sum, counts, err := judgeTargets(c, ws, b, opts.judge, t)
		if err != nil {
			return err
		}
		if c.Bool("json") {
			j := judged{Target: t, Judge: opts.judge, Version: b.Version(), Labels: sum.Labels, New: sum.Labels - sum.Already, Already: sum.Already, Counts: map[string]int{}}
			for _, m := range judge.Moves() {
				j.Counts[m.String()] = sum.Counts[m]
			}
			js = append(js, j)
			continue
		}
		fmt.Fprintf(sio.out, "%s: %d labelled by %s (%s): %d new, %d already labelled  %s\n",
			t, sum.Labels, opts.judge, b.Version(), sum.Labels-sum.Already, sum.Already, counts)
	}
	if c.Bool("json") {
		return printJSON(sio, js)
	}
	return nil
}

// modelJudged is the --json summary of a model judge's labelling of one
// target kind.
type modelJudged struct {
	Target  string         `json:"target"`
	Judge   string         `json:"judge"`
	Version string         `json:"version"` // of the judge prompt
	Model   string         `json:"model"`
	Labels  int            `json:"labels"`
	Sent    int            `json:"sent"`
	Cached  int            `json:"cached"`
	Failed  int            `json:"failed"`
	Cost    float64        `json:"cost_usd"`
	Counts  map[string]int `json:"counts"`
}

// judgeWithModel labels every point or generation with a model judge
// (judge.JudgeWithModel) and reports it: as text, or (--json) as the
// summary it returns. A run with failed requests returns its summary and
// an error.
func judgeWithModel(c *cli.Context, sio *streams, ws *queries.Workspace, name string, mj modelEndpoint, target string) (*modelJudged, error) {
	bar, done := generateProgress(sio, "judge "+name)
	res, err := judge.JudgeWithModel(c.Context, ws, judge.ModelJudgeOptions{Judge: name, Model: mj.model, Endpoint: mj.endpoint,
		Target: target, RetryFailed: mj.retryFailed, Progress: bar, Clock: sio.clock,
		Preflight: func() error { return requireAPIKey(mj.endpoint.APIKeyEnv) }})
	done()
	if err != nil {
		return nil, err
	}
	st := res.Stats
	moves := []string{"approve", "critical", "directive", "inquiry", "other", "unparseable"}
	out := &modelJudged{Target: target, Judge: name, Version: judge.PromptVersion(), Model: mj.model, Labels: res.Labels,
		Sent: st.Sent, Cached: st.Cached, Failed: res.Failed, Cost: st.Cost, Counts: map[string]int{}}
	for _, m := range moves {
		out.Counts[m] = res.Counts[m]
	}
	if !c.Bool("json") {
		fmt.Fprintf(sio.out, "%s: %d labelled by %s (%s, model %s): %d sent, %d cached, %d failed, $%.4f; ", target, res.Labels, name,
			judge.PromptVersion(), mj.model, st.Sent, st.Cached, res.Failed, st.Cost)
		var parts []string
		for _, m := range moves {
			parts = append(parts, fmt.Sprintf("%s %d", m, res.Counts[m]))
		}
		fmt.Fprintln(sio.out, strings.Join(parts, ", "))
	}
	if res.Failed > 0 {
		return out, fmt.Errorf("judge: %d request(s) failed (recorded in responses; --retry-failed sends the retryable ones again): %w", res.Failed, errGenerationsFailed)
	}
	return out, nil
}

// labelTargets loads what a judge labels for target "points" or
// "generations", and the labels' target kind.
func labelTargets(c *cli.Context, ws *queries.Workspace, target string) (string, []queries.LabelTarget, error) {
	return judge.Targets(c.Context, ws.Conn(), target)
}

// judgeTargets labels every point or generation with the built-in judge,
// replacing judge name's labels of the target; it returns how many and the
// count of each move.
func judgeTargets(c *cli.Context, ws *queries.Workspace, b *judge.Builtin, name, target string) (judge.LabelSummary, string, error) {
	sum, err := judge.LabelWorkspace(c.Context, ws, b, judge.LabelOptions{Judge: name, Target: target})
	if err != nil {
		return sum, "", err
	}
	var parts []string
	for _, m := range judge.Moves() {
		parts = append(parts, fmt.Sprintf("%s %d", m, sum.Counts[m]))
	}
	return sum, strings.Join(parts, ", "), nil
}

// judgeFile labels the messages of a JSONL file and prints one JSON label per
// line, in file order. A bad line is reported as path:line and skipped.
// maxNamedBadLines is how many bad lines of a file judge --input names
// on stderr; the rest are counted.
const maxNamedBadLines = 100

func judgeFile(sio *streams, b *judge.Builtin, path string) error {
	var r io.Reader = sio.in
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("judge: %w", err)
		}
		defer f.Close()
		r = f
	}
	enc := json.NewEncoder(sio.out)
	// Each bad line is named, up to maxNamedBadLines (as ub ingest names
	// its first errors); the rest are counted.
	named := 0
	bad, err := judge.LabelJSONL(r, path, b, func(l judge.FileLabel) error { return enc.Encode(l) },
		judge.LabelFileOptions{BadLine: func(err error) {
			if named < maxNamedBadLines {
				fmt.Fprintln(sio.err, visible.Line(err.Error()))
			}
			named++
		}})
	if err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	if bad > maxNamedBadLines {
		fmt.Fprintf(sio.err, "... and %d more bad lines\n", bad-maxNamedBadLines)
	}
	if bad > 0 {
		return badInputf("judge: %d bad line(s) in %s", bad, path)
	}
	return nil
}
