package queries

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"

	"github.com/ub-bench/ub/queries/internal/appender"
)

// SplitEdges calls fn for every developer <-> repository edge with the
// number of the developer's sessions there, then for developers (repo "")
// and repositories (developer "") without any edge.
func SplitEdges(ctx context.Context, db Querier, fn func(developer, repo string, sessions int)) error {
	rows, err := db.QueryContext(ctx, q("split_edges"))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var d, r string
		var n int
		if err := rows.Scan(&d, &r, &n); err != nil {
			return err
		}
		fn(d, r, n)
	}
	return rows.Err()
}

// SplitRun is the parameters and result of one ub split.
type SplitRun struct {
	Seed               int64
	Ratios             string
	Measure            string
	Hash               string
	HeldoutFraction    float64
	MinHeldoutSessions int
	MinSessions        int
	MinHeldoutMoments  int
	Warnings           []string
}

// ComponentRow is one component of the developer <-> repository graph.
type ComponentRow struct {
	ID, Developers, Repos, Sessions int
	Split                           string
}

// NodeSplit places a developer or a repository.
type NodeSplit struct {
	Name      string
	Component int
	Split     string
}

// ErrNoSplit is returned where a split is needed and none was made.
var ErrNoSplit = errors.New("no split in this workspace (run ub split)")

// StoreSplit replaces the split in force, in one transaction: the run, the
// components, every developer's and repository's split, the time split of
// every developer's sessions and the eligibility of val and test developers.
// Frozen points of an earlier split are dropped with it.
func StoreSplit(ctx context.Context, ws *Workspace, run SplitRun, comps []ComponentRow, devs, repos []NodeSplit) error {
	return ws.InTx(ctx, func(c *sql.Conn) error {
		if _, err := c.ExecContext(ctx, q("clear_split")); err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, q("add_split_run"), run.Seed, run.Ratios, run.Measure, run.Hash,
			run.HeldoutFraction, run.MinHeldoutSessions, run.MinSessions, run.MinHeldoutMoments,
			strings.Join(run.Warnings, "\n")); err != nil {
			return err
		}
		if err := appendRows(ctx, ws, "components", len(comps), func(i int) []driver.Value {
			r := comps[i]
			return []driver.Value{int32(r.ID), int32(r.Developers), int32(r.Repos), int32(r.Sessions), r.Split}
		}); err != nil {
			return err
		}
		for table, nodes := range map[string][]NodeSplit{"developer_splits": devs, "repo_splits": repos} {
			if err := appendRows(ctx, ws, table, len(nodes), func(i int) []driver.Value {
				return []driver.Value{nodes[i].Name, int32(nodes[i].Component), nodes[i].Split}
			}); err != nil {
				return err
			}
		}
		if _, err := c.ExecContext(ctx, q("time_split"), run.MinHeldoutSessions, run.HeldoutFraction); err != nil {
			return fmt.Errorf("time split: %w", err)
		}
		if _, err := c.ExecContext(ctx, q("eligibility"), run.MinSessions, run.MinHeldoutSessions, run.MinHeldoutMoments); err != nil {
			return fmt.Errorf("eligibility: %w", err)
		}
		return nil
	})
}

func appendRows(ctx context.Context, ws *Workspace, table string, n int, row func(i int) []driver.Value) error {
	return appendRowsWith(ctx, ws, table, n, func(i int, r *appender.Row) {
		for _, v := range row(i) {
			r.Value(v)
		}
	})
}

// appendRowsWith appends n rows of table, row i filled by set, through one
// appender.
func appendRowsWith(ctx context.Context, ws *Workspace, table string, n int, set func(i int, r *appender.Row)) error {
	if n == 0 {
		return nil
	}
	a, err := ws.tableAppender(ctx, table)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		r := a.Row()
		set(i, &r)
		if err := r.End(); err != nil {
			a.Close()
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	return a.Close()
}

// GetSplitRun returns the split in force, or ErrNoSplit.
func GetSplitRun(ctx context.Context, db Querier) (SplitRun, error) {
	var r SplitRun
	var warnings string
	err := db.QueryRowContext(ctx, q("split_run")).Scan(&r.Seed, &r.Ratios, &r.Measure, &r.Hash,
		&r.HeldoutFraction, &r.MinHeldoutSessions, &r.MinSessions, &r.MinHeldoutMoments, &warnings)
	if errors.Is(err, sql.ErrNoRows) {
		return r, ErrNoSplit
	}
	if warnings != "" {
		r.Warnings = strings.Split(warnings, "\n")
	}
	return r, err
}

// Moment is a held-out moment of an eligible developer.
type Moment struct {
	Developer, Split, SessionID string
	TurnIdx, PriorTurns         int
}

// HeldoutMoments lists the moments in held-out sessions of eligible
// developers, in each developer's time order.
func HeldoutMoments(ctx context.Context, db Querier) ([]Moment, error) {
	rows, err := db.QueryContext(ctx, q("heldout_moments"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Moment
	for rows.Next() {
		var m Moment
		if err := rows.Scan(&m.Developer, &m.Split, &m.SessionID, &m.TurnIdx, &m.PriorTurns); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// PointRow is one frozen point.
type PointRow struct {
	ID           string `json:"id"`
	Developer    string `json:"developer"`
	Split        string `json:"split"`
	SessionID    string `json:"session_id"`
	TurnIdx      int    `json:"turn_idx"`
	PriorTurns   int    `json:"prior_turns"`
	ConstantDose bool   `json:"constant_dose"`
}

// PointSet says how the frozen points were made.
type PointSet struct {
	Seed         sql.NullInt64
	PerDeveloper sql.NullInt64
	Source       string
	Hash         string
}

// StorePoints replaces the frozen points, in one transaction.
func StorePoints(ctx context.Context, ws *Workspace, set PointSet, points []PointRow) error {
	return ws.InTx(ctx, func(c *sql.Conn) error {
		if _, err := c.ExecContext(ctx, q("clear_points")); err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, q("add_point_set"), set.Seed, set.PerDeveloper, set.Source, set.Hash); err != nil {
			return err
		}
		return appendRows(ctx, ws, "points", len(points), func(i int) []driver.Value {
			p := points[i]
			return []driver.Value{p.ID, p.Developer, p.Split, p.SessionID, int32(p.TurnIdx), int32(p.PriorTurns), p.ConstantDose}
		})
	})
}

// Points lists the frozen points, by developer and id.
func Points(ctx context.Context, db Querier) ([]PointRow, error) {
	rows, err := db.QueryContext(ctx, q("points_export"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []PointRow
	for rows.Next() {
		var p PointRow
		if err := rows.Scan(&p.ID, &p.Developer, &p.Split, &p.SessionID, &p.TurnIdx, &p.PriorTurns, &p.ConstantDose); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// GetPointSet returns how the points were made; ok is false when there are none.
func GetPointSet(ctx context.Context, db Querier) (PointSet, bool, error) {
	var s PointSet
	err := db.QueryRowContext(ctx, q("point_set")).Scan(&s.Seed, &s.PerDeveloper, &s.Source, &s.Hash)
	if errors.Is(err, sql.ErrNoRows) {
		return s, false, nil
	}
	return s, err == nil, err
}

// MomentInfo says whose a moment is and whether it may be a point.
type MomentInfo struct {
	Developer, Split string
	Role             string // profile | heldout | "" (no time split yet)
	Eligible         bool
}

// MomentOwner describes the moment at (session, turn); ok is false when
// that turn is no moment.
func MomentOwner(ctx context.Context, db Querier, sessionID string, turnIdx int) (MomentInfo, bool, error) {
	var m MomentInfo
	err := db.QueryRowContext(ctx, q("turn_for_point"), sessionID, turnIdx).Scan(&m.Developer, &m.Split, &m.Role, &m.Eligible)
	if errors.Is(err, sql.ErrNoRows) {
		return m, false, nil
	}
	return m, err == nil, err
}

// Finding is one thing ub audit found wrong.
type Finding struct {
	Check    string
	Offender string
}

// auditChecks name the audit queries, in the order they run.
var auditChecks = []string{
	"developer_two_splits", "repo_two_splits", "edge_across_splits", "without_split",
	"profile_after_heldout", "point_not_heldout", "point_not_moment", "point_not_eligible",
}

// Audit runs every leak check and returns what each found; none means clean.
func Audit(ctx context.Context, db Querier) ([]Finding, error) {
	if _, err := GetSplitRun(ctx, db); err != nil {
		return nil, err
	}
	var out []Finding
	for _, c := range auditChecks {
		rows, err := db.QueryContext(ctx, q("audit_"+c))
		if err != nil {
			return nil, fmt.Errorf("audit %s: %w", c, err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, Finding{c, s})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SplitCount is one split's size.
type SplitCount struct {
	Split                                   string
	Developers, Repos, Sessions, Components int
}

// SplitSummary returns the size of each split, train, val, test first.
func SplitSummary(ctx context.Context, db Querier) ([]SplitCount, error) {
	rows, err := db.QueryContext(ctx, q("split_summary"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []SplitCount
	for rows.Next() {
		var s SplitCount
		if err := rows.Scan(&s.Split, &s.Developers, &s.Repos, &s.Sessions, &s.Components); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// FunnelRow is how many val or test developers pass each eligibility rule,
// cumulatively.
type FunnelRow struct {
	Split                                                       string
	Developers, EnoughSessions, EnoughHeldoutSessions, Eligible int
}

// Funnel returns the eligibility funnel per split.
func Funnel(ctx context.Context, db Querier) ([]FunnelRow, error) {
	rows, err := db.QueryContext(ctx, q("funnel"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FunnelRow
	for rows.Next() {
		var f FunnelRow
		if err := rows.Scan(&f.Split, &f.Developers, &f.EnoughSessions, &f.EnoughHeldoutSessions, &f.Eligible); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Components lists the stored components by id.
func Components(ctx context.Context, db Querier) ([]ComponentRow, error) {
	rows, err := db.QueryContext(ctx, q("components_list"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ComponentRow
	for rows.Next() {
		var c ComponentRow
		if err := rows.Scan(&c.ID, &c.Developers, &c.Repos, &c.Sessions, &c.Split); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// DeveloperPoints is how many frozen points a developer has.
type DeveloperPoints struct {
	Developer, Split     string
	Points, ConstantDose int
}

// PointsPerDeveloper counts frozen points per developer.
func PointsPerDeveloper(ctx context.Context, db Querier) ([]DeveloperPoints, error) {
	rows, err := db.QueryContext(ctx, q("points_per_developer"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []DeveloperPoints
	for rows.Next() {
		var d DeveloperPoints
		if err := rows.Scan(&d.Developer, &d.Split, &d.Points, &d.ConstantDose); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
