package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
)

type judgeOptions struct {
	judge    string
	target   string
	input    string
	model    modelEndpoint
	cascade  string  // builtin,NAME: the built-in judge, then model judge NAME
	coverage float64 // the built-in judge's share in a cascade
}

func newJudgeCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "judge",
		Usage: "label the move of every point's real message and every generation (or of the messages of a JSONL file)",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "judge", Value: "builtin", Usage: "judge `NAME`: builtin"},
			&cli.StringFlag{Name: "target", Value: "all", Usage: "points|generations|all"},
			&cli.StringFlag{Name: "input", Usage: "label the messages of this JSONL `FILE` (id, message, optional prev_agent) and print one JSON label per line; no workspace needed"},
			&cli.StringFlag{Name: "model", Usage: "a model judge: the model `NAME` at --base-url (then --judge names the judge)"},
			&cli.StringFlag{Name: "cascade", Usage: "`builtin,NAME`: label with the built-in judge and send its least confident labels to the model judge NAME (--model, --base-url); stored as judge builtin+NAME"},
			&cli.Float64Flag{Name: "coverage", Value: 0.7, Usage: "cascade: the share the built-in judge keeps (its most confident labels)"},
		}, endpointFlags("model judge")...),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			return runJudge(c, io, judgeOptions{judge: c.String("judge"), target: c.String("target"), input: c.String("input"),
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
		return judgeFile(sio, b, opts.input)
	}
	var targets []string
	switch opts.target {
	case "points", "generations":
		targets = []string{opts.target}
	case "all":
		targets = []string{"points", "generations"}
	default:
		return usagef("judge: --target %q: want points, generations or all", opts.target)
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	for _, t := range targets {
		if b == nil {
			if err := judgeWithModel(c, sio, ws, opts.judge, opts.model, t); err != nil {
				return err
			}
			continue
		}
		n, counts, err := judgeTargets(c, ws, b, opts.judge, t)
		if err != nil {
			return err
		}
		fmt.Fprintf(sio.out, "%s: %d labelled by %s (%s)  %s\n", t, n, opts.judge, b.Version(), counts)
	}
	return nil
}

// judgeWithModel labels every point or generation with a model judge,
// through the runner (cache, retries, rate limit, costs). An answer that
// does not parse is stored as 'unparseable' with the raw answer; a request
// that failed leaves its target unlabelled and is reported.
func judgeWithModel(c *cli.Context, sio *streams, ws *queries.Workspace, name string, mj modelEndpoint, target string) error {
	kind, items, err := labelTargets(c, ws, target)
	if err != nil {
		return err
	}
	if err := requireAPIKey(mj.endpoint.APIKeyEnv); err != nil {
		return err
	}
	bar, done := generateProgress(sio, "judge "+name)
	res, err := sim.RunStep(c.Context, sim.NewDuckStore(ws), items, modelJudgeStep(mj, name, kind),
		sim.StepOptions{RetryFailed: mj.retryFailed, Progress: bar})
	done()
	if err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	labels, st, failed := res.Rows, res.Stats, len(res.Failures)
	count := map[string]int{}
	for _, l := range labels {
		count[l.Move]++
	}
	if err := queries.ReplaceLabels(c.Context, ws, name, kind, labels); err != nil {
		return fmt.Errorf("judge: store: %w", err)
	}
	fmt.Fprintf(sio.out, "%s: %d labelled by %s (%s, model %s): %d sent, %d cached, %d failed, $%.4f; ", target, len(labels), name,
		judge.PromptVersion(), mj.model, st.Sent, st.Cached, failed, st.Cost)
	var parts []string
	for _, m := range []string{"approve", "critical", "directive", "inquiry", "other", "unparseable"} {
		parts = append(parts, fmt.Sprintf("%s %d", m, count[m]))
	}
	fmt.Fprintln(sio.out, strings.Join(parts, ", "))
	if failed > 0 {
		return fmt.Errorf("judge: %d request(s) failed (recorded in responses; --retry-failed sends the retryable ones again): %w", failed, errGenerationsFailed)
	}
	return nil
}

// modelJudgeStep is the model judge as a sim.Step: one request per message
// (the versioned judge prompt, temperature 0), one label per stored answer.
// An answer that does not parse is the label 'unparseable' with the raw
// answer; a request that failed or is unanswered is a failure, no label.
func modelJudgeStep(mj modelEndpoint, name, kind string) sim.Step[queries.LabelTarget, queries.Label] {
	zero := 0.0
	return sim.Step[queries.LabelTarget, queries.Label]{
		Endpoint: mj.endpoint,
		Build: func(it queries.LabelTarget) (sim.Request, error) {
			var msgs []sim.Message
			for _, m := range judge.PromptMessages(it.Text, it.PrevAgent) {
				msgs = append(msgs, sim.Message{Role: m.Role, Content: m.Content})
			}
			return sim.Request{Backend: "openai", BaseURL: mj.endpoint.BaseURL, Model: mj.model,
				Params: sim.Params{Temperature: &zero, MaxTokens: 64}, Messages: msgs}, nil
		},
		Parse: func(it queries.LabelTarget, a sim.Answer) ([]queries.Label, error) {
			if !a.Stored {
				return nil, fmt.Errorf("%s %s: no answer", kind, it.ID)
			}
			if a.Err != "" {
				return nil, fmt.Errorf("%s %s: %s", kind, it.ID, a.Err)
			}
			l := queries.Label{Target: kind, TargetID: it.ID, Judge: name, PromptVersion: judge.PromptVersion(), RequestKey: a.Key, Raw: a.Text}
			mv, fine, perr := judge.ParseAnswer(a.Text)
			if perr != nil {
				l.Move = "unparseable"
			} else {
				l.Move = mv.String()
				if fine != 0 {
					l.Label7 = fine.String()
				}
			}
			return []queries.Label{l}, nil
		},
	}
}

// labelTargets loads what a judge labels for target "points" or
// "generations", and the labels' target kind.
func labelTargets(c *cli.Context, ws *queries.Workspace, target string) (string, []queries.LabelTarget, error) {
	load, kind := queries.PointMessages, "point"
	if target == "generations" {
		load, kind = queries.GenerationMessages, "generation"
	}
	items, err := load(c.Context, ws.Conn())
	if err != nil {
		return "", nil, fmt.Errorf("judge: %w", err)
	}
	return kind, items, nil
}

// judgeTargets labels every point or generation with the built-in judge and
// replaces that judge's labels of the target.
func judgeTargets(c *cli.Context, ws *queries.Workspace, b *judge.Builtin, name, target string) (int, string, error) {
	kind, items, err := labelTargets(c, ws, target)
	if err != nil {
		return 0, "", err
	}
	return storeBuiltinLabels(c, ws, b, name, kind, items)
}

// storeBuiltinLabels labels items with b and stores them under judge name,
// replacing that judge's labels of the kind; it returns how many and the
// count of each move.
func storeBuiltinLabels(c *cli.Context, ws *queries.Workspace, b *judge.Builtin, name, kind string, items []queries.LabelTarget) (int, string, error) {
	labels := make([]queries.Label, len(items))
	count := map[judge.Move]int{}
	for i, it := range items {
		r := b.Label(it.Text, it.PrevAgent)
		count[r.Move]++
		l := queries.Label{Target: kind, TargetID: it.ID, Judge: name, Move: r.Move.String(), PromptVersion: b.Version(), Raw: r.Reason, Confidence: r.Confidence}
		if r.Fine != 0 {
			l.Label7 = r.Fine.String()
		}
		labels[i] = l
	}
	if err := queries.ReplaceLabels(c.Context, ws, name, kind, labels); err != nil {
		return 0, "", fmt.Errorf("judge: store: %w", err)
	}
	var parts []string
	for _, m := range judge.Moves() {
		parts = append(parts, fmt.Sprintf("%s %d", m, count[m]))
	}
	return len(items), strings.Join(parts, ", "), nil
}

// judgeFile labels the messages of a JSONL file and prints one JSON label per
// line, in file order. A bad line is reported as path:line and skipped.
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
	type item struct {
		ID        string  `json:"id"`
		Message   *string `json:"message"`
		PrevAgent string  `json:"prev_agent"`
	}
	type out struct {
		ID     string  `json:"id"`
		Label  string  `json:"label"`
		Fine   string  `json:"fine,omitempty"`
		Score  float64 `json:"score"`
		Conf   float64 `json:"confidence"`
		Reason string  `json:"reason"`
		Judge  string  `json:"judge"`
	}
	enc := json.NewEncoder(sio.out)
	bad := 0
	err := ingest.ReadJSONL(r, path, func(line int, raw []byte) error {
		var it item
		if err := json.Unmarshal(raw, &it); err != nil || it.Message == nil || it.ID == "" {
			reason := `missing "message"`
			switch {
			case err != nil:
				reason = "invalid JSON: " + ingest.JSONReason(err)
			case it.ID == "":
				reason = `missing "id" (each label is matched to its message by id)`
			}
			fmt.Fprintln(sio.err, (&ingest.ParseError{Path: path, Line: line, Reason: reason}).Error())
			bad++
			return nil
		}
		res := b.Label(*it.Message, it.PrevAgent)
		o := out{ID: it.ID, Label: res.Move.String(), Score: res.Score, Conf: res.Confidence, Reason: res.Reason, Judge: b.Version()}
		if res.Fine != 0 {
			o.Fine = res.Fine.String()
		}
		return enc.Encode(o)
	})
	if err != nil {
		return fmt.Errorf("judge: %w", err)
	}
	if bad > 0 {
		return badInputf("judge: %d bad line(s) in %s", bad, path)
	}
	return nil
}
