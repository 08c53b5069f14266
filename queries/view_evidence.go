package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// EpisodeEvidence is what an episode's page shows of it: ReviewEpisode's
// view, ViewEpisodeReward, ViewVerdicts of one grader, ViewChecks and
// ViewReviewDecisions.
type EpisodeEvidence struct {
	View     EpisodeView
	Reward   ViewReward
	Verdicts []ViewVerdict
	Checks   []ViewCheck
	Reviews  []ViewDecision
}

// EpisodeEvidenceOf returns the evidence of each episode ids names, by id,
// in eight queries for them all (the published site writes its episode
// pages a batch at a time: one episode's takes nine queries, each with
// DuckDB's cost of starting one). Each is what the functions of one
// episode return for it. An episode the workspace does not hold, or whose
// run it does not, is left out: its page reads it alone (and says what is
// missing).
func EpisodeEvidenceOf(ctx context.Context, db Querier, grader string, ids []string) (map[string]*EpisodeEvidence, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	out := map[string]*EpisodeEvidence{}
	each := func(name string, row func(*sql.Rows) error, args ...any) error {
		if err := epScan(ctx, db, name, row, args...); err != nil {
			return fmt.Errorf("episode evidence: %w", err)
		}
		return nil
	}
	// of returns the evidence of the row's episode (nil: not read).
	of := func(id string) *EpisodeEvidence { return out[id] }
	if err := each("view_fid_evidence_episodes", func(r *sql.Rows) error {
		var v EpisodeView
		if err := r.Scan(&v.SimulationID, &v.Domain, &v.TaskID, &v.Trial, &v.Reward, &v.Termination, &v.UserSim, &v.Agent,
			&v.ReasonForCall, &v.KnownInfo, &v.UnknownInfo, &v.Instructions, &v.Persona, &v.Instruction, &v.Guidelines); err != nil {
			return err
		}
		out[v.SimulationID] = &EpisodeEvidence{View: v}
		return nil
	}, string(list)); err != nil {
		return nil, err
	}
	byIdx := map[string]map[int]int{} // episode -> message idx -> position
	if err := each("view_fid_evidence_messages", func(r *sql.Rows) error {
		var id string
		var m EpisodeMessage
		if err := r.Scan(&id, &m.Idx, &m.TurnIdx, &m.Role, &m.Content, &m.Requestor, &m.ToolError, &m.ToolCallID); err != nil {
			return err
		}
		if e := of(id); e != nil {
			if byIdx[id] == nil {
				byIdx[id] = map[int]int{}
			}
			byIdx[id][m.Idx] = len(e.View.Messages)
			e.View.Messages = append(e.View.Messages, m)
		}
		return nil
	}, string(list)); err != nil {
		return nil, err
	}
	if err := each("view_fid_evidence_tool_calls", func(r *sql.Rows) error {
		var id string
		var msgIdx, callIdx int
		var c EpisodeToolCall
		if err := r.Scan(&id, &msgIdx, &callIdx, &c.Name, &c.Arguments, &c.CallID); err != nil {
			return err
		}
		if e := of(id); e != nil {
			if i, ok := byIdx[id][msgIdx]; ok {
				e.View.Messages[i].Calls = append(e.View.Messages[i].Calls, c)
			}
		}
		return nil
	}, string(list)); err != nil {
		return nil, err
	}
	if err := each("view_fid_evidence_probes", func(r *sql.Rows) error {
		var id string
		var p ProbeHit
		if err := r.Scan(&id, &p.Probe, &p.TurnIdx, &p.Evidence); err != nil {
			return err
		}
		if e := of(id); e != nil {
			e.View.Probes = append(e.View.Probes, p)
		}
		return nil
	}, string(list)); err != nil {
		return nil, err
	}
	rewarded := map[string]bool{}
	if err := each("view_fid_evidence_rewards", func(r *sql.Rows) error {
		var id string
		var w ViewReward
		if err := r.Scan(&id, &w.Reward, &w.Basis, &w.Breakdown, &w.DBMatch, &w.UserSim, &w.Agent); err != nil {
			return err
		}
		if e := of(id); e != nil {
			e.Reward, rewarded[id] = w, true
		}
		return nil
	}, string(list)); err != nil {
		return nil, err
	}
	if err := each("view_fid_evidence_verdicts", func(r *sql.Rows) error {
		var id string
		var v ViewVerdict
		if err := r.Scan(&id, &v.CriterionID, &v.Family, &v.Mode, &v.Text, &v.Quote, &v.Status, &v.Verdict, &v.TurnIdx, &v.Reason); err != nil {
			return err
		}
		if e := of(id); e != nil {
			e.Verdicts = append(e.Verdicts, v)
		}
		return nil
	}, grader, string(list)); err != nil {
		return nil, err
	}
	if err := each("view_fid_evidence_checks", func(r *sql.Rows) error {
		var id string
		var c ViewCheck
		if err := r.Scan(&id, &c.Kind, &c.Idx, &c.Name, &c.Requestor, &c.Met, &c.Detail); err != nil {
			return err
		}
		if e := of(id); e != nil {
			e.Checks = append(e.Checks, c)
		}
		return nil
	}, string(list)); err != nil {
		return nil, err
	}
	reviews, err := ViewReviewDecisionsOf(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	for id, e := range out {
		if !rewarded[id] {
			delete(out, id)
			continue
		}
		e.Reviews = reviews[id]
	}
	return out, nil
}

// ViewAnchorGenerationsOf returns ViewPointAnchor of each point points
// names, by point (a point with no generation at the anchor is left out),
// in one query: the texts joined, not read one generation at a time.
func ViewAnchorGenerationsOf(ctx context.Context, db Querier, points []string) (map[string][]ViewGeneration, error) {
	list, err := json.Marshal(points)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q("view_ub_anchor_generations_of"), string(list))
	if err != nil {
		return nil, fmt.Errorf("generations at the anchor: %w", err)
	}
	defer rows.Close()
	out := map[string][]ViewGeneration{}
	for rows.Next() {
		var id string
		var g ViewGeneration
		if err := rows.Scan(&id, &g.Simulator, &g.Condition, &g.Trial, &g.Failed, &g.Move, &g.Confidence, &g.Text, &g.Error); err != nil {
			return nil, err
		}
		out[id] = append(out[id], g)
	}
	return out, rows.Err()
}

// PointContextsOf returns PointContext of each point ids names, by id, in
// two queries for them all. A point PointContext would refuse (unknown, or
// its session lacks its turn) is left out: its page reads it alone.
func PointContextsOf(ctx context.Context, db Querier, ids []string) (map[string]*PointData, error) {
	out := map[string]*PointData{}
	if err := epScanList(ctx, db, "simdata_points_of", ids, func(r *sql.Rows) error {
		d := &PointData{}
		p := &d.Point
		if err := r.Scan(&p.ID, &p.Developer, &p.Split, &p.SessionID, &p.TurnIdx, &p.PriorTurns, &p.ConstantDose, &d.Repo); err != nil {
			return err
		}
		out[p.ID] = d
		return nil
	}); err != nil {
		return nil, fmt.Errorf("points: %w", err)
	}
	found := map[string]bool{}
	if err := epScanList(ctx, db, "simdata_turns_of", ids, func(r *sql.Rows) error {
		var id string
		var t TurnRow
		if err := r.Scan(&id, &t.Idx, &t.Role, &t.Text, &t.IsCommand); err != nil {
			return err
		}
		d := out[id]
		if d == nil {
			return nil
		}
		if t.Idx == d.Point.TurnIdx {
			d.Real, found[id] = t.Text, true
			return nil
		}
		d.Before = append(d.Before, t)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("points: turns: %w", err)
	}
	for id := range out {
		if !found[id] {
			delete(out, id)
		}
	}
	return out, nil
}

// PointLabel is ViewPointLabel's answer for one point.
type PointLabel struct {
	Label    ViewLabel
	Labelled bool
}

// ViewPointLabelsOf returns ViewPointLabel of each point ids names, by id,
// in one query; a point with no label is left out (ViewPointLabel gives
// it no label, and no error).
func ViewPointLabelsOf(ctx context.Context, db Querier, ids []string) (map[string]PointLabel, error) {
	out := map[string]PointLabel{}
	if err := epScanList(ctx, db, "view_ub_point_labels_of", ids, func(r *sql.Rows) error {
		var id string
		var l PointLabel
		if err := r.Scan(&id, &l.Label.Move, &l.Label.Label7, &l.Label.Confidence, &l.Label.DecidedBy, &l.Labelled); err != nil {
			return err
		}
		out[id] = l
		return nil
	}); err != nil {
		return nil, fmt.Errorf("labels of points: %w", err)
	}
	return out, nil
}

// PointSetting is a point at one live window N and history K.
type PointSetting struct {
	Point string `json:"point"`
	N     int    `json:"n"`
	K     int    `json:"k"`
}

// ViewPointGenerationsOf returns ViewPointGenerations at each setting of
// settings, by setting (one with no generation is left out), in one
// query.
func ViewPointGenerationsOf(ctx context.Context, db Querier, judge string, settings []PointSetting) (map[PointSetting][]ViewGeneration, error) {
	out := map[PointSetting][]ViewGeneration{}
	if err := epScanList(ctx, db, "view_ub_point_generations_of", settings, func(r *sql.Rows) error {
		var s PointSetting
		var g ViewGeneration
		if err := r.Scan(&s.Point, &s.N, &s.K, &g.Simulator, &g.Condition, &g.Trial, &g.Text, &g.Error, &g.Failed, &g.Move, &g.Confidence); err != nil {
			return err
		}
		out[s] = append(out[s], g)
		return nil
	}, judge); err != nil {
		return nil, fmt.Errorf("generations at points: %w", err)
	}
	return out, nil
}
