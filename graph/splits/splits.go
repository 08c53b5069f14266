package splits

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"

	"github.com/ub-bench/ub/graph"
	"github.com/ub-bench/ub/queries"
)

// Defaults of the time split and of eligibility (SPEC section 2.3-2.4).
const (
	DefaultHeldoutFraction    = 0.3
	DefaultMinHeldoutSessions = 2
	DefaultMinSessions        = 6
	DefaultMinHeldoutMoments  = 8
	DefaultPointsPerDeveloper = 30
)

// ErrNoDevelopers is returned by Make for a workspace without sessions.
var ErrNoDevelopers = errors.New("the workspace has no developers (run ub ingest first)")

// Options configures Make. The zero value is not the CLI's default: take
// the Default constants for the time split and eligibility.
type Options struct {
	Seed   int64
	Ratios []graph.Ratio // empty means graph.DefaultRatios
	By     graph.Measure // "" means graph.ByDevelopers
	// HeldoutFraction is the share of each developer's latest sessions held
	// out; the Min fields are the eligibility rules. They are stored with
	// the split and applied by the workspace's views.
	HeldoutFraction    float64
	MinHeldoutSessions int
	MinSessions        int
	MinHeldoutMoments  int
}

// OptionsError is Make's error for options the split cannot be made with
// (ratios, measure): the caller's input, not a fault of the workspace.
type OptionsError struct{ Err error }

func (e *OptionsError) Error() string { return e.Err.Error() }
func (e *OptionsError) Unwrap() error { return e.Err }

// Split is what Make stored.
type Split struct {
	Run        queries.SplitRun
	Components []graph.Component
	Developers []queries.NodeSplit // every developer with its component and split
}

// Make builds the developer <-> repository graph of the workspace's
// sessions, assigns whole components to splits (graph.Assign) and stores
// the split in force, replacing any earlier one. A bad option (ratios) is
// an *OptionsError.
func Make(ctx context.Context, ws *queries.Workspace, opts Options) (Split, error) {
	var g graph.Graph
	err := queries.SplitEdges(ctx, ws.Conn(), func(d, r string, n int) {
		g.Add(graph.Edge{Developer: d, Repo: r, Sessions: n})
	})
	if err != nil {
		return Split{}, err
	}
	comps := g.Components()
	if len(comps) == 0 {
		return Split{}, ErrNoDevelopers
	}
	a, err := graph.Assign(comps, graph.SplitOptions{Seed: opts.Seed, Ratios: opts.Ratios, By: opts.By})
	if err != nil {
		return Split{}, &OptionsError{err}
	}
	ratios := opts.Ratios
	if len(ratios) == 0 {
		ratios = graph.DefaultRatios()
	}
	rows := make([]queries.ComponentRow, len(comps))
	var devs, repos []queries.NodeSplit
	for i, comp := range comps {
		s := a.SplitName(i)
		rows[i] = queries.ComponentRow{ID: comp.ID, Developers: len(comp.Developers), Repos: len(comp.Repos), Sessions: comp.Sessions, Split: s}
		for _, d := range comp.Developers {
			devs = append(devs, queries.NodeSplit{Name: d, Component: comp.ID, Split: s})
		}
		for _, r := range comp.Repos {
			repos = append(repos, queries.NodeSplit{Name: r, Component: comp.ID, Split: s})
		}
	}
	run := queries.SplitRun{Seed: opts.Seed, Ratios: graph.FormatRatios(ratios), Measure: string(a.By), Hash: a.Hash,
		HeldoutFraction: opts.HeldoutFraction, MinHeldoutSessions: opts.MinHeldoutSessions,
		MinSessions: opts.MinSessions, MinHeldoutMoments: opts.MinHeldoutMoments, Warnings: a.Warnings}
	if err := queries.StoreSplit(ctx, ws, run, rows, devs, repos); err != nil {
		return Split{}, fmt.Errorf("store: %w", err)
	}
	return Split{Run: run, Components: comps, Developers: devs}, nil
}

// PointOptions configures Freeze.
type PointOptions struct {
	PerDeveloper int // points per eligible developer, at most; <= 0 keeps every held-out moment
	Seed         int64
}

// Freeze draws up to PerDeveloper held-out moments per eligible developer of
// the split in force (graph.FreezePoints) and stores them as the frozen
// points, replacing any earlier set, with their queries.PointSetHash. It
// returns the set and the points, sorted by developer, then id.
func Freeze(ctx context.Context, ws *queries.Workspace, opts PointOptions) (queries.PointSet, []queries.PointRow, error) {
	if _, err := queries.GetSplitRun(ctx, ws.Conn()); err != nil {
		return queries.PointSet{}, nil, err
	}
	ms, err := queries.HeldoutMoments(ctx, ws.Conn())
	if err != nil {
		return queries.PointSet{}, nil, err
	}
	gm := make([]graph.Moment, len(ms))
	for i, m := range ms {
		gm[i] = graph.Moment{Developer: m.Developer, Split: m.Split, SessionID: m.SessionID, TurnIdx: m.TurnIdx, PriorTurns: m.PriorTurns}
	}
	frozen := graph.FreezePoints(gm, opts.PerDeveloper, opts.Seed)
	rows := make([]queries.PointRow, len(frozen))
	for i, p := range frozen {
		rows[i] = queries.PointRow{ID: p.ID, Developer: p.Developer, Split: p.Split, SessionID: p.SessionID,
			TurnIdx: p.TurnIdx, PriorTurns: p.PriorTurns, ConstantDose: p.ConstantDose}
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Developer != rows[j].Developer {
			return rows[i].Developer < rows[j].Developer
		}
		return rows[i].ID < rows[j].ID
	})
	set := queries.PointSet{Seed: sql.NullInt64{Int64: opts.Seed, Valid: true},
		PerDeveloper: sql.NullInt64{Int64: int64(opts.PerDeveloper), Valid: true}, Source: "sampled", Hash: queries.PointSetHash(rows)}
	if err := queries.StorePoints(ctx, ws, set, rows); err != nil {
		return set, nil, fmt.Errorf("store: %w", err)
	}
	return set, rows, nil
}
