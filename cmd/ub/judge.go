package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
)

type judgeOptions struct {
	judge  string
	target string
	input  string
}

func newJudgeCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "judge",
		Usage: "label the move of every point's real message and every generation (or of the messages of a JSONL file)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "judge", Value: "builtin", Usage: "judge `NAME`: builtin"},
			&cli.StringFlag{Name: "target", Value: "all", Usage: "points|generations|all"},
			&cli.StringFlag{Name: "input", Usage: "label the messages of this JSONL `FILE` (id, message, optional prev_agent) and print one JSON label per line; no workspace needed"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			return runJudge(c, io, judgeOptions{judge: c.String("judge"), target: c.String("target"), input: c.String("input")})
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
	b, err := builtinJudge(opts.judge)
	if err != nil {
		return err
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
		n, counts, err := judgeTargets(c, ws, b, opts.judge, t)
		if err != nil {
			return err
		}
		fmt.Fprintf(sio.out, "%s: %d labelled by %s (%s)  %s\n", t, n, opts.judge, b.Version(), counts)
	}
	return nil
}

// judgeTargets labels every point or generation with the built-in judge and
// replaces that judge's labels of the target.
func judgeTargets(c *cli.Context, ws *queries.Workspace, b *judge.Builtin, name, target string) (int, string, error) {
	var items []queries.LabelTarget
	var err error
	kind := "point"
	if target == "points" {
		items, err = queries.PointMessages(c.Context, ws.Conn())
	} else {
		kind = "generation"
		items, err = queries.GenerationMessages(c.Context, ws.Conn())
	}
	if err != nil {
		return 0, "", fmt.Errorf("judge: %w", err)
	}
	labels := make([]queries.Label, len(items))
	count := map[judge.Move]int{}
	for i, it := range items {
		r := b.Label(it.Text, it.PrevAgent)
		count[r.Move]++
		l := queries.Label{Target: kind, TargetID: it.ID, Judge: name, Move: r.Move.String(), PromptVersion: b.Version(), Raw: r.Reason}
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
		Reason string  `json:"reason"`
		Judge  string  `json:"judge"`
	}
	enc := json.NewEncoder(sio.out)
	br := bufio.NewReader(r)
	bad := 0
	for line := 1; ; line++ {
		raw, rerr := br.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return fmt.Errorf("judge: %s:%d: %w", path, line, rerr)
		}
		if len(bytes.TrimSpace(raw)) > 0 {
			var it item
			if err := json.Unmarshal(raw, &it); err != nil || it.Message == nil {
				reason := `missing "message"`
				if err != nil {
					reason = "invalid JSON: " + err.Error()
				}
				fmt.Fprintln(sio.err, (&ingest.ParseError{Path: path, Line: line, Reason: reason}).Error())
				bad++
			} else {
				res := b.Label(*it.Message, it.PrevAgent)
				o := out{ID: it.ID, Label: res.Move.String(), Score: res.Score, Reason: res.Reason, Judge: b.Version()}
				if res.Fine != 0 {
					o.Fine = res.Fine.String()
				}
				if err := enc.Encode(o); err != nil {
					return err
				}
			}
		}
		if rerr == io.EOF {
			break
		}
	}
	if bad > 0 {
		return fmt.Errorf("judge: %d bad line(s) in %s: %w", bad, path, ingest.ErrBadInput)
	}
	return nil
}
