package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
)

func newAgreeCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "agree",
		Usage: "Cohen's kappa with a 95% interval, confusion matrix and per-move agreement for each pair of judges",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "judges", Usage: "two or more judge names, comma-separated (see: ub agree --list)"},
			&cli.BoolFlag{Name: "list", Usage: "list the judges and their label counts"},
			&cli.BoolFlag{Name: "json", Usage: "print the agreement as JSON"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			return runAgree(c, io, c.String("judges"), c.Bool("list"), c.Bool("json"))
		},
	}
}

func runAgree(c *cli.Context, sio *streams, judges string, list, asJSON bool) error {
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	if list {
		js, err := queries.Judges(c.Context, ws.Conn())
		if err != nil {
			return err
		}
		for _, j := range js {
			fmt.Fprintf(sio.out, "%-32s %-10s %6d labels, %d unparseable\n", j.Judge, j.Target, j.N, j.Unparseable)
		}
		return nil
	}
	names := strings.Split(judges, ",")
	if len(names) < 2 {
		return usagef("agree: --judges needs two or more names, e.g. --judges builtin,imported:corpus")
	}
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if names[i] == "" || slices.Contains(names[:i], names[i]) {
			return usagef("agree: --judges %q: each judge once, no empty name", judges)
		}
	}
	var results []map[string]any
	for i := 0; i < len(names); i++ {
		for j := i + 1; j < len(names); j++ {
			a, b := strings.TrimSpace(names[i]), strings.TrimSpace(names[j])
			pairs, err := queries.LabelPairs(c.Context, ws.Conn(), a, b)
			if err != nil {
				return err
			}
			var ma, mb []judge.Move
			unparseable := 0
			for _, p := range pairs {
				x, errA := judge.ParseMove(p.MoveA)
				y, errB := judge.ParseMove(p.MoveB)
				if errA != nil || errB != nil { // 'unparseable': counted, not compared
					unparseable++
					continue
				}
				ma, mb = append(ma, x), append(mb, y)
			}
			if len(ma) == 0 {
				return fmt.Errorf("agree: judges %s and %s labelled no target in common (see ub agree --list)", a, b)
			}
			ag, err := judge.Agree(ma, mb)
			if err != nil {
				return fmt.Errorf("agree: %s vs %s: %w", a, b, err)
			}
			if asJSON {
				results = append(results, map[string]any{"judge_a": a, "judge_b": b, "n": len(ma), "unparseable": unparseable, "agreement": ag})
				continue
			}
			fmt.Fprintf(sio.out, "== %s vs %s: %d targets in common", a, b, len(ma))
			if unparseable > 0 {
				fmt.Fprintf(sio.out, " (%d more with an unparseable label, not compared)", unparseable)
			}
			fmt.Fprintln(sio.out)
			if err := ag.Format(sio.out, a, b); err != nil {
				return err
			}
			fmt.Fprintln(sio.out)
		}
	}
	if asJSON {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	return nil
}

func newLabelsCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "labels",
		Usage: "labels from elsewhere (a human, another model)",
		Subcommands: []*cli.Command{{
			Name:      "import",
			Usage:     "import move labels (JSONL: id, label, optional fine) as judge imported:NAME",
			ArgsUsage: "FILE",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "name", Usage: "judge name after imported: (default: the file name)"},
				&cli.StringFlag{Name: "messages", Usage: "messages.jsonl (id, repo, session_start, message) to place labels of other ids on the workspace's turns"},
			},
			Action: func(c *cli.Context) error {
				a, err := args(c)
				if err != nil {
					return err
				}
				if len(a) != 1 {
					return usagef("labels import: name one FILE")
				}
				return runLabelsImport(c, io, a[0], c.String("name"), c.String("messages"))
			},
		}},
	}
}

type importedMessage struct {
	Repo, SessionStart, Message string
}

// runLabelsImport reads labels and stores them as judge imported:NAME. An id
// that is a point or a generation labels it; with --messages, an id of that
// file is placed on the developer turn with its text in the session of its
// repository and start time (a point when that turn is one). Bad lines are
// reported with their line and nothing is imported.
func runLabelsImport(c *cli.Context, sio *streams, path, name, messages string) error {
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	judgeName := "imported:" + name
	msgs := map[string]importedMessage{}
	if messages != "" {
		err := ingest.ReadJSONLFile(messages, func(line int, raw []byte) error {
			var m struct {
				ID           string `json:"id"`
				Repo         string `json:"repo"`
				Message      string `json:"message"`
				SessionStart string `json:"session_start"`
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				return &ingest.ParseError{Path: messages, Line: line, Reason: "invalid JSON: " + ingest.JSONReason(err)}
			}
			msgs[m.ID] = importedMessage{m.Repo, m.SessionStart, m.Message}
			return nil
		})
		var pe *ingest.ParseError
		if errors.As(err, &pe) {
			return badInputf("labels import: %v", pe) // exit 3: the messages file is bad input
		}
		if err != nil {
			return fmt.Errorf("labels import: %w", err)
		}
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	pointIDs, genIDs := map[string]bool{}, map[string]bool{}
	pts, err := queries.PointMessages(c.Context, ws.Conn())
	if err != nil {
		return err
	}
	for _, p := range pts {
		pointIDs[p.ID] = true
	}
	gens, err := queries.GenerationMessages(c.Context, ws.Conn())
	if err != nil {
		return err
	}
	for _, g := range gens {
		genIDs[g.ID] = true
	}
	var labels []queries.Label
	var bad []string
	onPoints, onMessages, unmatched := 0, 0, 0
	used := map[string]bool{}
	seenLabel := map[string]int{} // target NUL id -> line
	err = ingest.ReadJSONLFile(path, func(line int, raw []byte) error {
		var l struct {
			ID    string `json:"id"`
			Label string `json:"label"`
			Fine  string `json:"fine"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			bad = append(bad, (&ingest.ParseError{Path: path, Line: line, Reason: "invalid JSON: " + ingest.JSONReason(err)}).Error())
			return nil
		}
		move, err := judge.ParseMove(l.Label)
		if err != nil {
			bad = append(bad, (&ingest.ParseError{Path: path, Line: line, Reason: err.Error()}).Error())
			return nil
		}
		lab := queries.Label{TargetID: l.ID, Judge: judgeName, Move: move.String(), Label7: l.Fine, Raw: strings.TrimSpace(string(raw))}
		if l.Fine != "" {
			if _, err := judge.ParseFine(l.Fine); err != nil {
				bad = append(bad, (&ingest.ParseError{Path: path, Line: line, Reason: err.Error()}).Error())
				return nil
			}
		}
		switch {
		case pointIDs[l.ID]:
			lab.Target = "point"
			onPoints++
		case genIDs[l.ID]:
			lab.Target = "generation"
		default:
			m, ok := msgs[l.ID]
			if ok && strings.TrimSpace(m.Message) == "" {
				bad = append(bad, (&ingest.ParseError{Path: path, Line: line, Reason: "message " + l.ID + " is empty in the messages file"}).Error())
				return nil
			}
			if !ok {
				lab.Target = "message"
				unmatched++
				break
			}
			matches, err := queries.TurnsByMessage(c.Context, ws.Conn(), m.Repo, m.SessionStart, m.Message)
			if err != nil {
				return err
			}
			// The same text typed twice in a session: each label takes the
			// next turn not yet taken.
			found, pid := false, ""
			for _, mt := range matches {
				k := fmt.Sprintf("%s\x00%d", mt.SessionID, mt.Idx)
				if !used[k] {
					used[k], found, pid = true, true, mt.PointID
					break
				}
			}
			switch {
			case found && pid != "":
				lab.Target, lab.TargetID = "point", pid
				onPoints++
			case found:
				lab.Target = "message"
				onMessages++
			default:
				lab.Target = "message"
				unmatched++
			}
		}
		k := lab.Target + "\x00" + lab.TargetID
		if first, dup := seenLabel[k]; dup {
			bad = append(bad, (&ingest.ParseError{Path: path, Line: line, Reason: fmt.Sprintf("label of %s %s repeats line %d", lab.Target, lab.TargetID, first)}).Error())
			return nil
		}
		seenLabel[k] = line
		labels = append(labels, lab)
		return nil
	})
	if err != nil {
		return fmt.Errorf("labels import: %w", err)
	}
	if len(bad) > 0 {
		for _, b := range bad {
			fmt.Fprintln(sio.err, b)
		}
		return badInputf("labels import: %d bad line(s), nothing imported", len(bad))
	}
	if len(labels) > 0 && unmatched == len(labels) {
		return badInputf("labels import: none of the %d labels in %s matches a point, generation or turn of this workspace (is it the right workspace, or does it need --messages?); nothing imported", len(labels), path)
	}
	if err := queries.ReplaceJudgeLabels(c.Context, ws, judgeName, labels); err != nil {
		return fmt.Errorf("labels import: %w", err)
	}
	fmt.Fprintf(sio.out, "imported %d labels as %s: %d on frozen points, %d on other turns of the workspace, %d not found in it\n",
		len(labels), judgeName, onPoints, onMessages, unmatched)
	return nil
}
