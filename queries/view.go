package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// The reads of ub view: one page of evidence at a time, each bounded by a
// LIMIT so that a page costs the same whatever the workspace holds.

// ViewPage is which rows of a list a page shows: Limit rows from Offset.
type ViewPage struct{ Limit, Offset int }

// ViewDeveloper is one developer of a leaderboard row: scorable moments
// (one per point and trial; a point without a generation counts once),
// generations, hits and failed generations.
type ViewDeveloper struct {
	Developer                        string
	Moments, Generated, Hits, Failed int
}

// ViewSetting names a leaderboard row's setting: a simulator under a
// condition at live window N and history K.
type ViewSetting struct {
	Simulator, Condition string
	N, K                 int
}

// ViewDevelopers returns one page of the developers of a setting at the
// anchor, as the judge given to ViewWarm scored them, by name, and the
// number of developers.
func ViewDevelopers(ctx context.Context, db Querier, s ViewSetting, p ViewPage) ([]ViewDeveloper, int, error) {
	rows, err := db.QueryContext(ctx, q("view_ub_developers"), s.Simulator, s.Condition, p.Limit, p.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("developers of %s %s: %w", s.Simulator, s.Condition, err)
	}
	defer rows.Close()
	var out []ViewDeveloper
	total := 0
	for rows.Next() {
		var d ViewDeveloper
		if err := rows.Scan(&d.Developer, &d.Moments, &d.Generated, &d.Hits, &d.Failed, &total); err != nil {
			return nil, 0, err
		}
		out = append(out, d)
	}
	return out, total, rows.Err()
}

// ViewMomentFilter narrows a developer's moments: the real move, the
// generated move ("" either: any), the outcome ("hit", "miss", "": any)
// and the profile lift at the point and trial (LiftProfile: the
// simulator hit under condition profile and missed under noprofile;
// LiftNoProfile: the reverse; "": any).
type ViewMomentFilter struct {
	Real, Generated, Outcome string
	Lift                     string
}

// The profile lifts a ViewMomentFilter names.
const (
	LiftProfile   = "profile"
	LiftNoProfile = "noprofile"
)

// ViewMoment is one moment of a developer under a setting: the point, the
// trial (-1: no generation), the real message and its move, the
// generation's text and move ("" when unlabelled or missing), failed and
// hit.
type ViewMoment struct {
	GenID              sql.NullString // the generation's id (NULL: missing)
	PointID            string
	Trial              int
	RealMove, RealText string
	Generated, Text    string
	Failed, Hit        bool
}

// ViewMoments returns one page of a developer's moments under a setting
// at the anchor (ViewWarm), by point and trial, and the number that pass
// the filter.
func ViewMoments(ctx context.Context, db Querier, developer string, s ViewSetting, f ViewMomentFilter, p ViewPage) ([]ViewMoment, int, error) {
	rows, err := db.QueryContext(ctx, q("view_ub_moments"), developer, s.Simulator, s.Condition,
		f.Real, f.Generated, f.Outcome, p.Limit, p.Offset, f.Lift)
	if err != nil {
		return nil, 0, fmt.Errorf("moments of %s: %w", developer, err)
	}
	defer rows.Close()
	var out []ViewMoment
	total := 0
	for rows.Next() {
		var m ViewMoment
		var trial sql.NullInt64
		if err := rows.Scan(&m.PointID, &trial, &m.RealMove, &m.RealText, &m.Generated, &m.GenID, &m.Failed, &m.Hit, &total); err != nil {
			return nil, 0, err
		}
		m.Trial = -1
		if trial.Valid {
			m.Trial = int(trial.Int64)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	var ids []string
	for _, m := range out {
		if m.GenID.Valid && !m.Failed {
			ids = append(ids, m.GenID.String)
		}
	}
	texts, err := viewGenerationTexts(ctx, db, ids)
	if err != nil {
		return nil, 0, err
	}
	for i, m := range out {
		if m.GenID.Valid && !m.Failed {
			out[i].Text = texts[m.GenID.String][0]
		}
	}
	return out, total, nil
}

// viewGenerationTexts returns the text and error ("" when none) of each
// generation ids names, by id, in one query; an id not stored is left out.
func viewGenerationTexts(ctx context.Context, db Querier, ids []string) (map[string][2]string, error) {
	out := map[string][2]string{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := epScanList(ctx, db, "view_ub_generation_texts_of", ids, func(r *sql.Rows) error {
		var id, text, errText string
		if err := r.Scan(&id, &text, &errText); err != nil {
			return err
		}
		out[id] = [2]string{text, errText}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("generations: %w", err)
	}
	return out, nil
}

// ViewLabel is a judge's label of a text: the move, the 7-way label (""
// when none), the confidence (NULL when the judge gave none) and who
// decided it ("" when not recorded).
type ViewLabel struct {
	Move, Label7 string
	Confidence   sql.NullFloat64
	DecidedBy    string
}

// ViewPointLabel returns the label the judge given to ViewWarm gave the
// real message of a point; ok is false when it gave none.
func ViewPointLabel(ctx context.Context, db Querier, pointID string) (l ViewLabel, ok bool, err error) {
	err = db.QueryRowContext(ctx, q("view_ub_point_label_warm"), pointID).Scan(&l.Move, &l.Label7, &l.Confidence, &l.DecidedBy, &ok)
	if errors.Is(err, sql.ErrNoRows) {
		return l, false, nil
	}
	if err != nil {
		return l, false, fmt.Errorf("label of point %s: %w", pointID, err)
	}
	return l, ok, nil
}

// ViewGeneration is one simulator's generation at a point: its setting's
// simulator, condition and trial, the text, the error ("" when none),
// failed, and the judge's move ("" when unlabelled) and confidence.
type ViewGeneration struct {
	Simulator, Condition string
	Trial                int
	Text, Error          string
	Failed               bool
	Move                 string
	Confidence           sql.NullFloat64
}

// ViewPointGenerations returns every generation at a point at live window
// n and history k, by simulator, condition and trial.
func ViewPointGenerations(ctx context.Context, db Querier, judge, pointID string, n, k int) ([]ViewGeneration, error) {
	rows, err := db.QueryContext(ctx, q("view_ub_point_generations"), judge, pointID, n, k)
	if err != nil {
		return nil, fmt.Errorf("generations at %s: %w", pointID, err)
	}
	defer rows.Close()
	var out []ViewGeneration
	for rows.Next() {
		var g ViewGeneration
		if err := rows.Scan(&g.Simulator, &g.Condition, &g.Trial, &g.Text, &g.Error, &g.Failed, &g.Move, &g.Confidence); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// ViewPointAnchor returns every generation at a developer's point at the
// anchor setting given to ViewWarm, by simulator, condition and trial, as
// the judge scored it, the texts read at once; none for a point that is not
// scorable (use ViewPointGenerations).
func ViewPointAnchor(ctx context.Context, db Querier, developer, pointID string) ([]ViewGeneration, error) {
	rows, err := db.QueryContext(ctx, q("view_ub_point_anchor"), pointID, developer)
	if err != nil {
		return nil, fmt.Errorf("generations at %s: %w", pointID, err)
	}
	defer rows.Close()
	var out []ViewGeneration
	var ids []string
	for rows.Next() {
		var g ViewGeneration
		var id string
		if err := rows.Scan(&g.Simulator, &g.Condition, &g.Trial, &id, &g.Failed, &g.Move, &g.Confidence); err != nil {
			return nil, err
		}
		out, ids = append(out, g), append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	texts, err := viewGenerationTexts(ctx, db, ids)
	if err != nil {
		return nil, err
	}
	for i, id := range ids {
		out[i].Text, out[i].Error = texts[id][0], texts[id][1]
	}
	return out, nil
}

// ViewDomain is one domain of a user simulator's episodes: the episodes,
// those scored, those with f = 1, those P0 flagged and the mean reward
// (NULL when none is recorded).
type ViewDomain struct {
	Domain                         string
	Episodes, Scored, Faithful, P0 int
	MeanReward                     sql.NullFloat64
}

// ViewWarm writes, for the connection's session, the tables the lists of
// ub view read: every scorable moment of every setting at live window n
// and history k as judge scored it (view_ub_warm), every generation at a
// frozen point with its label, by setting (view_ub_warm_cells: the sweep
// cells' pages), and every episode with
// f as grader graded it (view_fid_warm). It reads the generations, labels,
// episodes and verdicts once; each list then reads the rows of one
// leaderboard row or user simulator.
func ViewWarm(ctx context.Context, db Querier, judge, grader string, n, k int) error {
	if _, err := db.ExecContext(ctx, q("view_ub_warm_points"), judge); err != nil {
		return fmt.Errorf("points as %s labelled them: %w", judge, err)
	}
	if _, err := db.ExecContext(ctx, q("view_ub_warm"), judge, n, k); err != nil {
		return fmt.Errorf("moments as %s scored them: %w", judge, err)
	}
	if _, err := db.ExecContext(ctx, q("view_ub_warm_devs")); err != nil {
		return fmt.Errorf("developers as %s scored them: %w", judge, err)
	}
	if _, err := db.ExecContext(ctx, q("view_ub_warm_cells"), judge); err != nil {
		return fmt.Errorf("generations as %s labelled them: %w", judge, err)
	}
	if _, err := db.ExecContext(ctx, q("view_fid_warm"), grader); err != nil {
		return fmt.Errorf("episodes as %s graded them: %w", grader, err)
	}
	return nil
}

// ViewDomains returns a user simulator's episodes per domain, by domain
// (after ViewWarm).
func ViewDomains(ctx context.Context, db Querier, userSim string) ([]ViewDomain, error) {
	rows, err := db.QueryContext(ctx, q("view_fid_domains"), userSim)
	if err != nil {
		return nil, fmt.Errorf("domains of %s: %w", userSim, err)
	}
	defer rows.Close()
	var out []ViewDomain
	for rows.Next() {
		var d ViewDomain
		if err := rows.Scan(&d.Domain, &d.Episodes, &d.Scored, &d.Faithful, &d.P0, &d.MeanReward); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// ViewEpisodeRow is one episode of a user simulator's list: the task, the
// trial and reward (NULL when not recorded), the criteria applicable and
// failed, f (NULL when not scored), P0 and the failing families.
type ViewEpisodeRow struct {
	SimulationID, UserSim string
	Domain, TaskID        string
	Trial                 sql.NullInt64
	Reward                sql.NullFloat64
	Applicable, Failed    int
	F                     sql.NullInt64
	P0                    bool
	Families, Probes      string // comma-separated, sorted
}

// ViewEpisodeFilter narrows a user simulator's episodes: a domain, one of
// ViewEpisodeFilters, a failing family and a probe that fired ("" each:
// any).
type ViewEpisodeFilter struct {
	Domain, Filter, Family, Probe string
}

// ViewEpisodeFilters are the values ViewEpisodes' filter takes.
var ViewEpisodeFilters = []string{"f1", "f0", "unscored", "success", "failure"}

// ViewEpisodes returns one page of a user simulator's episodes (userSim
// "": every user simulator's) that pass the filter, by domain, task, trial and id, and the number that pass
// (after ViewWarm).
func ViewEpisodes(ctx context.Context, db Querier, userSim string, f ViewEpisodeFilter, p ViewPage) ([]ViewEpisodeRow, int, error) {
	rows, err := db.QueryContext(ctx, q("view_fid_episodes"), userSim, f.Domain, f.Filter, p.Limit, p.Offset, f.Family, f.Probe)
	if err != nil {
		return nil, 0, fmt.Errorf("episodes of %s: %w", userSim, err)
	}
	defer rows.Close()
	var out []ViewEpisodeRow
	total := 0
	for rows.Next() {
		var e ViewEpisodeRow
		if err := rows.Scan(&e.SimulationID, &e.UserSim, &e.Domain, &e.TaskID, &e.Trial, &e.Reward, &e.Applicable, &e.Failed,
			&e.F, &e.P0, &e.Families, &e.Probes, &total); err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// ViewVerdict is one verdict on an episode with its criterion ("" fields
// when the criterion is not in the rubric), the user turn it names (NULL:
// none) and the grader's reason.
type ViewVerdict struct {
	CriterionID, Family, Mode, Text, Quote, Status string
	Verdict                                        string // pass | fail | na
	TurnIdx                                        sql.NullInt64
	Reason                                         string
}

// ViewVerdicts returns every verdict grader gave an episode, failures
// first, then by criterion.
func ViewVerdicts(ctx context.Context, db Querier, grader, simID string) ([]ViewVerdict, error) {
	rows, err := db.QueryContext(ctx, q("view_fid_verdicts"), grader, simID)
	if err != nil {
		return nil, fmt.Errorf("verdicts of %s: %w", simID, err)
	}
	defer rows.Close()
	var out []ViewVerdict
	for rows.Next() {
		var v ViewVerdict
		if err := rows.Scan(&v.CriterionID, &v.Family, &v.Mode, &v.Text, &v.Quote, &v.Status, &v.Verdict, &v.TurnIdx, &v.Reason); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ViewReward is an episode's reward with its basis and breakdown as stored
// (JSON, "" when none), whether the database matched, and its run's user
// simulator and agent.
type ViewReward struct {
	Reward           sql.NullFloat64
	Basis, Breakdown string
	DBMatch          sql.NullBool
	UserSim, Agent   string
}

// ViewEpisodeReward returns an episode's reward; ErrNoEpisode when the
// workspace has no such episode.
func ViewEpisodeReward(ctx context.Context, db Querier, simID string) (ViewReward, error) {
	var r ViewReward
	err := db.QueryRowContext(ctx, q("view_fid_episode"), simID).Scan(&r.Reward, &r.Basis, &r.Breakdown, &r.DBMatch, &r.UserSim, &r.Agent)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("episode %s: %w", simID, ErrNoEpisode)
	}
	return r, err
}

// ViewCheck is one check of an episode's reward evaluation: a gold action
// against the calls made, an assertion, ... (ep_checks).
type ViewCheck struct {
	Kind            string
	Idx             int
	Name, Requestor string
	Met             sql.NullBool
	Detail          string
}

// ViewChecks returns an episode's checks by kind and index.
func ViewChecks(ctx context.Context, db Querier, simID string) ([]ViewCheck, error) {
	rows, err := db.QueryContext(ctx, q("view_fid_checks"), simID)
	if err != nil {
		return nil, fmt.Errorf("checks of %s: %w", simID, err)
	}
	defer rows.Close()
	var out []ViewCheck
	for rows.Next() {
		var c ViewCheck
		if err := rows.Scan(&c.Kind, &c.Idx, &c.Name, &c.Requestor, &c.Met, &c.Detail); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ViewTaskEpisode is one episode of a task: its user simulator, trial,
// reward and f as the grader graded it (NULL: not scored).
type ViewTaskEpisode struct {
	SimulationID, UserSim string
	Trial                 sql.NullInt64
	Reward                sql.NullFloat64
	F                     sql.NullInt64
}

// ViewSameTask returns at most limit episodes of a task, every user
// simulator's, by simulator, trial and id (after ViewWarm).
func ViewSameTask(ctx context.Context, db Querier, domain, taskID string, limit int) ([]ViewTaskEpisode, error) {
	rows, err := db.QueryContext(ctx, q("view_fid_same_task"), domain, taskID, limit)
	if err != nil {
		return nil, fmt.Errorf("episodes of task %s %s: %w", domain, taskID, err)
	}
	defer rows.Close()
	var out []ViewTaskEpisode
	for rows.Next() {
		var e ViewTaskEpisode
		if err := rows.Scan(&e.SimulationID, &e.UserSim, &e.Trial, &e.Reward, &e.F); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ViewCounts is what a workspace holds, for ub view's status line.
type ViewCounts struct {
	Developers, Points, Generations, Labels, Episodes, Verdicts int64
}

// ViewSummary counts what the workspace holds.
func ViewSummary(ctx context.Context, db Querier) (ViewCounts, error) {
	var c ViewCounts
	err := db.QueryRowContext(ctx, q("view_summary")).Scan(&c.Developers, &c.Points, &c.Generations, &c.Labels, &c.Episodes, &c.Verdicts)
	return c, err
}

// ViewSettings returns the stored settings (simulator, condition, N, K)
// with their generations, by simulator, condition, N and K: what
// queries.Anchor chooses from.
func ViewSettings(ctx context.Context, db Querier) ([]StudySetting, error) {
	rows, err := db.QueryContext(ctx, q("view_settings"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StudySetting
	for rows.Next() {
		var s StudySetting
		if err := rows.Scan(&s.Simulator, &s.Condition, &s.N, &s.K, &s.Generations); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// ViewUserSims returns each stored user simulator with the domains it has
// episodes in, by name.
func ViewUserSims(ctx context.Context, db Querier) (map[string][]string, error) {
	rows, err := db.QueryContext(ctx, q("view_user_sims"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var s, d string
		if err := rows.Scan(&s, &d); err != nil {
			return nil, err
		}
		out[s] = append(out[s], d)
	}
	return out, rows.Err()
}

// ViewReviewError is one simulator error a reviewer recorded (Idx NULL: a
// decision without errors).
type ViewReviewError struct {
	Idx, TurnIdx         sql.NullInt64
	Code, Severity, Note string
}

// ViewDecision is one reviewer's standing decision on an episode with its
// errors.
type ViewDecision struct {
	Reviewer, Kind, Outcome string
	Revision                int
	Errors                  []ViewReviewError
}

// ViewReviewDecisions returns every reviewer's standing decision on an
// episode, the adjudicator's last.
func ViewReviewDecisions(ctx context.Context, db Querier, simID string) ([]ViewDecision, error) {
	rows, err := db.QueryContext(ctx, q("view_review_decisions"), simID)
	if err != nil {
		return nil, fmt.Errorf("review decisions of %s: %w", simID, err)
	}
	defer rows.Close()
	var out []ViewDecision
	for rows.Next() {
		var d ViewDecision
		var e ViewReviewError
		if err := rows.Scan(&d.Reviewer, &d.Kind, &d.Outcome, &d.Revision, &e.Idx, &e.TurnIdx, &e.Code, &e.Severity, &e.Note); err != nil {
			return nil, err
		}
		if n := len(out); n == 0 || out[n-1].Reviewer != d.Reviewer {
			out = append(out, d)
		}
		if e.Idx.Valid {
			out[len(out)-1].Errors = append(out[len(out)-1].Errors, e)
		}
	}
	return out, rows.Err()
}

// ViewReviewDecisionsOf returns ViewReviewDecisions of each of the
// episodes ids names, by id, in one query (a page of reviewed episodes).
func ViewReviewDecisionsOf(ctx context.Context, db Querier, ids []string) (map[string][]ViewDecision, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, q("view_review_decisions_of"), string(list))
	if err != nil {
		return nil, fmt.Errorf("review decisions: %w", err)
	}
	defer rows.Close()
	out := map[string][]ViewDecision{}
	for rows.Next() {
		var id string
		var d ViewDecision
		var e ViewReviewError
		if err := rows.Scan(&id, &d.Reviewer, &d.Kind, &d.Outcome, &d.Revision, &e.Idx, &e.TurnIdx, &e.Code, &e.Severity, &e.Note); err != nil {
			return nil, err
		}
		ds := out[id]
		if n := len(ds); n == 0 || ds[n-1].Reviewer != d.Reviewer {
			ds = append(ds, d)
		}
		if e.Idx.Valid {
			ds[len(ds)-1].Errors = append(ds[len(ds)-1].Errors, e)
		}
		out[id] = ds
	}
	return out, rows.Err()
}

// ViewReviewedEpisode is an episode some reviewer decided: its domain,
// task and user simulator ("" when the episode is not in the workspace),
// the reviewers with a standing decision, how many of them found a
// simulator error, and whether an adjudicator decided.
type ViewReviewedEpisode struct {
	SimulationID, Domain, TaskID, UserSim string
	Reviewers, Errors                     int
	Adjudicated                           bool
	Batches                               string // the review batches that assign it, comma-separated ("" none)
}

// ViewReviewedEpisodes returns one page of the reviewed episodes in a
// domain ("": every domain; notInWorkspace names the episodes the
// workspace does not hold), by domain and id, and how many there are.
func ViewReviewedEpisodes(ctx context.Context, db Querier, domain, notInWorkspace string, p ViewPage) ([]ViewReviewedEpisode, int, error) {
	rows, err := db.QueryContext(ctx, q("view_review_episodes"), domain, p.Limit, p.Offset, notInWorkspace)
	if err != nil {
		return nil, 0, fmt.Errorf("reviewed episodes: %w", err)
	}
	defer rows.Close()
	var out []ViewReviewedEpisode
	total := 0
	for rows.Next() {
		var e ViewReviewedEpisode
		if err := rows.Scan(&e.SimulationID, &e.Domain, &e.TaskID, &e.UserSim, &e.Reviewers, &e.Errors, &e.Adjudicated, &e.Batches, &total); err != nil {
			return nil, 0, err
		}
		out = append(out, e)
	}
	return out, total, rows.Err()
}

// ViewPointPair is a point two UserBench settings both generated at: the
// real move, and each side's hits, moments (one a trial) and generated
// moves in trial order ("(failed)" for a failed generation).
type ViewPointPair struct {
	Developer, PointID, RealMove string
	HitsA, MomentsA              int
	MovesA                       string
	HitsB, MomentsB              int
	MovesB                       string
}

// ViewComparePoints returns one page of the points settings a and b share
// at the anchor (ViewWarm), where their hit shares differ most first, with
// how many they share and on how many the shares differ.
func ViewComparePoints(ctx context.Context, db Querier, a, b ViewSetting, p ViewPage) (rows []ViewPointPair, total, disagree int, err error) {
	rs, err := db.QueryContext(ctx, q("view_ub_compare"), a.Simulator, a.Condition, b.Simulator, b.Condition, p.Limit, p.Offset, a.N, a.K)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("compare %s %s with %s %s: %w", a.Simulator, a.Condition, b.Simulator, b.Condition, err)
	}
	defer rs.Close()
	for rs.Next() {
		var x ViewPointPair
		if err := rs.Scan(&x.Developer, &x.PointID, &x.RealMove, &x.HitsA, &x.MomentsA, &x.MovesA,
			&x.HitsB, &x.MomentsB, &x.MovesB, &total, &disagree); err != nil {
			return nil, 0, 0, err
		}
		rows = append(rows, x)
	}
	return rows, total, disagree, rs.Err()
}

// ViewTaskSide is one user simulator's episodes of a task: how many, how
// many scored, how many faithful (f = 1), the mean reward (NULL: none)
// and the first episode.
type ViewTaskSide struct {
	Episodes, Scored, Faithful int
	MeanReward                 sql.NullFloat64
	First                      string
}

// ViewTaskPair is a task two user simulators both ran, side by side.
type ViewTaskPair struct {
	Domain, TaskID string
	A, B           ViewTaskSide
}

// ViewCompareTasks returns one page of the tasks user simulators a and b
// both ran (ViewWarm), where their shares of f = 1 differ most first,
// with how many they share and on how many the shares differ.
func ViewCompareTasks(ctx context.Context, db Querier, a, b string, p ViewPage) (rows []ViewTaskPair, total, disagree int, err error) {
	rs, err := db.QueryContext(ctx, q("view_fid_compare"), a, b, p.Limit, p.Offset)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("compare %s with %s: %w", a, b, err)
	}
	defer rs.Close()
	for rs.Next() {
		var x ViewTaskPair
		if err := rs.Scan(&x.Domain, &x.TaskID, &x.A.Episodes, &x.A.Scored, &x.A.Faithful, &x.A.MeanReward, &x.A.First,
			&x.B.Episodes, &x.B.Scored, &x.B.Faithful, &x.B.MeanReward, &x.B.First, &total, &disagree); err != nil {
			return nil, 0, 0, err
		}
		rows = append(rows, x)
	}
	return rows, total, disagree, rs.Err()
}

// ViewCellMoment is one moment of a sweep's setting: the developer, the
// point, the trial (-1: no generation), the real move, the generated move
// ("" when missing), failed and hit.
type ViewCellMoment struct {
	Developer, PointID  string
	Trial               int
	RealMove, Generated string
	Failed, Hit         bool
}

// ViewCell returns one page of the moments of a setting at any N and K
// (a cell of a sweep), as ViewWarm's judge scored them, the constant-dose points
// only when dose, by developer, point and trial, and the number of them.
// It reads the setting's rows of ViewWarm's table of every generation.
func ViewCell(ctx context.Context, db Querier, s ViewSetting, dose bool, p ViewPage) ([]ViewCellMoment, int, error) {
	rows, err := db.QueryContext(ctx, q("view_ub_cell"), s.Simulator, s.Condition, s.N, s.K, dose, p.Limit, p.Offset)
	if err != nil {
		return nil, 0, fmt.Errorf("moments of %s %s at N = %d, K = %d: %w", s.Simulator, s.Condition, s.N, s.K, err)
	}
	defer rows.Close()
	var out []ViewCellMoment
	total := 0
	for rows.Next() {
		var m ViewCellMoment
		var trial sql.NullInt64
		if err := rows.Scan(&m.Developer, &m.PointID, &trial, &m.RealMove, &m.Generated, &m.Failed, &m.Hit, &total); err != nil {
			return nil, 0, err
		}
		m.Trial = -1
		if trial.Valid {
			m.Trial = int(trial.Int64)
		}
		out = append(out, m)
	}
	return out, total, rows.Err()
}

// ViewCellScore is one developer's hits and moments at a sweep's setting.
type ViewCellScore struct {
	Developer     string
	Hits, Moments int
}

// ViewCellScores returns every developer's hits and moments at a setting
// at any N and K, as ViewWarm's judge scored them and the report counts them
// (study_scores), the constant-dose points only when dose, by developer.
func ViewCellScores(ctx context.Context, db Querier, s ViewSetting, dose bool) ([]ViewCellScore, error) {
	rows, err := db.QueryContext(ctx, q("view_ub_cell_developers"), s.Simulator, s.Condition, s.N, s.K, dose)
	if err != nil {
		return nil, fmt.Errorf("scores of %s %s at N = %d, K = %d: %w", s.Simulator, s.Condition, s.N, s.K, err)
	}
	defer rows.Close()
	var out []ViewCellScore
	for rows.Next() {
		var x ViewCellScore
		if err := rows.Scan(&x.Developer, &x.Hits, &x.Moments); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}
