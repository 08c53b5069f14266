package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/graph"
	"github.com/ub-bench/ub/graph/splits"
	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/ingest/lines"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/visible"
)

type pointsOptions struct {
	perDeveloper int
	seed         int64
}

func newPointsCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "points",
		Usage: "freeze the held-out moments every simulator is scored on",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "per-developer", Value: 30, Usage: "moments per eligible developer, at most"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the draw"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			return runPoints(c, sio, pointsOptions{perDeveloper: c.Int("per-developer"), seed: c.Int64("seed")})
		},
		Subcommands: []*cli.Command{
			{
				Name:  "export",
				Usage: "write the frozen points as JSONL, to publish them",
				Flags: []cli.Flag{&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "`FILE` (- for stdout)", Value: "-"}},
				Action: func(c *cli.Context) error {
					if _, err := args(c); err != nil {
						return err
					}
					return runPointsExport(c, sio, c.String("out"))
				},
			},
			{
				Name:      "import",
				Usage:     "replace the frozen points with a published set",
				ArgsUsage: "FILE",
				Action: func(c *cli.Context) error {
					a, err := args(c)
					if err != nil {
						return err
					}
					if len(a) != 1 {
						return usagef("points import: name one FILE")
					}
					return runPointsImport(c, sio, a[0])
				},
			},
		},
	}
}

func runPoints(c *cli.Context, sio *streams, opts pointsOptions) error {
	if opts.perDeveloper <= 0 {
		return usagef("points: --per-developer must be positive")
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	set, rows, err := freezePoints(c, ws, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "froze %d points (up to %d per eligible developer, seed %d): hash %s\n",
		len(rows), opts.perDeveloper, opts.seed, set.Hash)
	printFrozen(sio, rows)
	return nil
}

// printFrozen says whose points were frozen: per split, the developers and
// each one's count (the first 10 named).
func printFrozen(sio *streams, rows []queries.PointRow) {
	type dev struct {
		split, name string
	}
	per := map[dev]int{}
	var order []dev
	for _, r := range rows {
		d := dev{r.Split, r.Developer}
		if per[d] == 0 {
			order = append(order, d)
		}
		per[d]++
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].split != order[j].split {
			return order[i].split < order[j].split
		}
		return order[i].name < order[j].name
	})
	for i := 0; i < len(order); {
		j := i
		points := 0
		var names []string
		for ; j < len(order) && order[j].split == order[i].split; j++ {
			points += per[order[j]]
			if len(names) < 10 {
				names = append(names, fmt.Sprintf("%s %d", order[j].name, per[order[j]]))
			}
		}
		if more := j - i - len(names); more > 0 {
			names = append(names, fmt.Sprintf("and %d more", more))
		}
		devs := "developers"
		if j-i == 1 {
			devs = "developer"
		}
		fmt.Fprintf(sio.out, "  %-5s %d %s, %d points: %s\n", order[i].split, j-i, devs, points, strings.Join(names, ", "))
		i = j
	}
}

// freezePoints draws and stores the points; it returns their set and rows.
func freezePoints(c *cli.Context, ws *queries.Workspace, opts pointsOptions) (queries.PointSet, []queries.PointRow, error) {
	set, rows, err := splits.Freeze(c.Context, ws, splits.PointOptions{PerDeveloper: opts.perDeveloper, Seed: opts.seed})
	if err != nil {
		return set, nil, fmt.Errorf("points: %w", err)
	}
	return set, rows, nil
}

func runPointsExport(c *cli.Context, sio *streams, out string) error {
	ws, err := openWorkspace(c, true)
	if err != nil {
		return err
	}
	defer ws.Close()
	rows, err := queries.Points(c.Context, ws.Conn())
	if err != nil {
		return fmt.Errorf("points export: %w", err)
	}
	if len(rows) == 0 {
		return prerequisitef("points export: no frozen points (run ub points)")
	}
	b := queries.EncodePoints(rows)
	if out == "-" {
		_, err = sio.out.Write(b)
		return err
	}
	if err := writeOut(out, sio.out, func(path string) error { return writeFileAtomic(path, b) }); err != nil {
		return err
	}
	fmt.Fprintf(sio.err, "wrote %d points to %s\n", len(rows), out)
	return nil
}

// runPointsImport reads a published point set, checks every point against
// the workspace (the turn exists and is a moment of that developer) and
// replaces the frozen points with it. Any bad line fails the whole import:
// a study is scored on exactly the published points or not at all.
func runPointsImport(c *cli.Context, sio *streams, path string) error {
	if err := requireInputFiles("points import", path); err != nil {
		return err
	}
	ws, err := createWorkspace(c)
	if err != nil {
		return err
	}
	defer ws.Close()
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("points import: %w", err)
	}
	defer f.Close()
	var rows []queries.PointRow
	var bad []error
	seen := map[string]int{}
	err = lines.ReadJSONL(f, path, func(line int, b []byte) error {
		p, reason := checkPoint(c, ws, b, seen, line)
		if reason != "" {
			bad = append(bad, &ingest.ParseError{Path: path, Line: line, Reason: reason})
		} else {
			rows = append(rows, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("points import: %w", err)
	}
	if len(bad) > 0 {
		for _, e := range bad {
			fmt.Fprintln(sio.err, visible.Line(e.Error()))
		}
		return badInputf("points import: %d bad line(s), nothing imported", len(bad))
	}
	if len(rows) == 0 {
		return badInputf("points import: %s holds no points", path)
	}
	set := queries.PointSet{Source: "imported:" + filepath.Base(path), Hash: queries.PointSetHash(rows)}
	if err := queries.StorePoints(c.Context, ws, set, rows); err != nil {
		return fmt.Errorf("points import: %w", err)
	}
	fmt.Fprintf(sio.out, "imported %d points from %s: hash %s\n", len(rows), path, set.Hash)
	return nil
}

func checkPoint(c *cli.Context, ws *queries.Workspace, b []byte, seen map[string]int, line int) (queries.PointRow, string) {
	var p queries.PointRow
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, "invalid point: " + lines.JSONReason(err)
	}
	if p.SessionID == "" || p.Developer == "" {
		return p, `missing "session_id" or "developer"`
	}
	if want := graph.PointID(p.SessionID, p.TurnIdx); p.ID != want {
		return p, fmt.Sprintf("id %q does not match session %s turn %d (want %s)", p.ID, p.SessionID, p.TurnIdx, want)
	}
	if first, dup := seen[p.ID]; dup {
		return p, fmt.Sprintf("point %s repeats line %d", p.ID, first)
	}
	seen[p.ID] = line
	m, ok, err := queries.MomentOwner(c.Context, ws.Conn(), p.SessionID, p.TurnIdx)
	switch {
	case err != nil:
		return p, err.Error()
	case !ok:
		return p, fmt.Sprintf("session %s turn %d is not a moment in this workspace", p.SessionID, p.TurnIdx)
	case m.Developer != p.Developer:
		return p, fmt.Sprintf("session %s belongs to %s, not %s", p.SessionID, m.Developer, p.Developer)
	case m.Split != p.Split:
		return p, fmt.Sprintf("developer %s is in split %q here, %q in the file", m.Developer, m.Split, p.Split)
	case m.Role != "heldout":
		return p, fmt.Sprintf("session %s is not a held-out session here (%q): scoring it would leak", p.SessionID, m.Role)
	case !m.Eligible:
		return p, fmt.Sprintf("developer %s is not an eligible val or test developer here", m.Developer)
	}
	if p.PriorTurns != p.TurnIdx {
		return p, fmt.Sprintf("prior_turns %d, but turn %d has %d turns before it", p.PriorTurns, p.TurnIdx, p.TurnIdx)
	}
	if want := p.PriorTurns >= graph.ConstantDoseTurns; p.ConstantDose != want {
		return p, fmt.Sprintf("constant_dose %v, but a point with %d prior turns is %v (at least %d)", p.ConstantDose, p.PriorTurns, want, graph.ConstantDoseTurns)
	}
	return p, ""
}
