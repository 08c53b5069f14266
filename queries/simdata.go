package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// What simulators read. Leak-freedom: everything here that describes a
// developer beyond the moment's own session (history, profile messages,
// pools) reads PROFILE sessions only (session_roles.role = 'profile'); a
// held-out session is read only as the session of a frozen point, up to the
// moment.

// ErrNoPoint is returned for a point id that is not frozen in the workspace.
var ErrNoPoint = errors.New("no such frozen point")

// TurnRow is one row of turns: a ub.Turn as the table holds it, written by
// RowWriter.Turn and read by the loaders (which leave SessionID, TS and
// Meta unset where they do not select them).
type TurnRow struct {
	SessionID string
	Idx       int
	Role      string
	Text      string
	TS        time.Time // zero is NULL
	IsCommand bool
	Meta      json.RawMessage // nil is NULL
}

// PointData is a frozen point with what a simulator sees and what it is
// scored against.
type PointData struct {
	Point  PointRow
	Repo   string
	Before []TurnRow // the session's turns before the moment, in order
	Real   string    // the developer's real message at the moment
}

// PointContext loads a frozen point: the turns of its session before the
// moment and the real message. A point id not in points gives ErrNoPoint.
func PointContext(ctx context.Context, db Querier, pointID string) (PointData, error) {
	var d PointData
	p := &d.Point
	err := db.QueryRowContext(ctx, q("simdata_point"), pointID).Scan(&p.ID, &p.Developer, &p.Split,
		&p.SessionID, &p.TurnIdx, &p.PriorTurns, &p.ConstantDose, &d.Repo)
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("point %s: %w", pointID, ErrNoPoint)
	}
	if err != nil {
		return d, fmt.Errorf("point %s: %w", pointID, err)
	}
	rows, err := db.QueryContext(ctx, q("simdata_turns"), p.SessionID, p.TurnIdx)
	if err != nil {
		return d, fmt.Errorf("point %s: turns: %w", pointID, err)
	}
	defer rows.Close()
	found := false
	for rows.Next() {
		var t TurnRow
		if err := rows.Scan(&t.Idx, &t.Role, &t.Text, &t.IsCommand); err != nil {
			return d, err
		}
		if t.Idx == p.TurnIdx {
			d.Real, found = t.Text, true
			continue
		}
		d.Before = append(d.Before, t)
	}
	if err := rows.Err(); err != nil {
		return d, err
	}
	if !found {
		return d, fmt.Errorf("point %s: session %s has no turn %d", pointID, p.SessionID, p.TurnIdx)
	}
	return d, nil
}

// NthPointID returns the id of the n-th frozen point (1-based) in id order,
// or ErrNoPoint when there are fewer than n.
func NthPointID(ctx context.Context, db Querier, n int) (string, error) {
	if n < 1 {
		return "", fmt.Errorf("point @%d: %w (counting starts at 1)", n, ErrNoPoint)
	}
	var id string
	err := db.QueryRowContext(ctx, q("simdata_point_nth"), n-1).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("point @%d: %w (fewer points frozen)", n, ErrNoPoint)
	}
	return id, err
}

// HistoryMessage is one earlier message of a developer.
type HistoryMessage struct {
	SessionID string
	TurnIdx   int
	Text      string
}

// ProfileHistory returns the developer's k most recent messages (developer
// turns, not commands) from their profile sessions, MOST RECENT FIRST
// (sessions by time-split ordinal, turns by index). k <= 0 gives none.
func ProfileHistory(ctx context.Context, db Querier, developer string, k int) ([]HistoryMessage, error) {
	if k <= 0 {
		return nil, nil
	}
	rows, err := db.QueryContext(ctx, q("simdata_history"), developer, k)
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", developer, err)
	}
	defer rows.Close()
	var out []HistoryMessage
	for rows.Next() {
		var h HistoryMessage
		if err := rows.Scan(&h.SessionID, &h.TurnIdx, &h.Text); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// DeveloperMessage is a message (a developer turn, not a command) of a
// profile session.
type DeveloperMessage struct {
	Developer string
	SessionID string
	Ordinal   int // the session's place in the developer's time order, 1-based
	TurnIdx   int
	Text      string
}

// ProfileMessages returns the messages of profile sessions: of developer, or
// of every developer when developer is "", by developer, then time order.
func ProfileMessages(ctx context.Context, db Querier, developer string) ([]DeveloperMessage, error) {
	rows, err := db.QueryContext(ctx, q("simdata_profile_messages"), developer, developer)
	if err != nil {
		return nil, fmt.Errorf("profile messages: %w", err)
	}
	defer rows.Close()
	var out []DeveloperMessage
	for rows.Next() {
		var m DeveloperMessage
		if err := rows.Scan(&m.Developer, &m.SessionID, &m.Ordinal, &m.TurnIdx, &m.Text); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// ProfileDeveloper is a developer with profile sessions.
type ProfileDeveloper struct {
	Name     string
	Sessions int // profile sessions
}

// ProfileDevelopers lists every developer with profile sessions, by name.
func ProfileDevelopers(ctx context.Context, db Querier) ([]ProfileDeveloper, error) {
	rows, err := db.QueryContext(ctx, q("simdata_profile_developers"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ProfileDeveloper
	for rows.Next() {
		var d ProfileDeveloper
		if err := rows.Scan(&d.Name, &d.Sessions); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// ReplyPair is an agent turn and the developer reply that followed it: a
// moment of a profile session with the latest agent turn before it.
type ReplyPair struct {
	Developer string
	SessionID string
	AgentIdx  int
	Agent     string
	ReplyIdx  int
	Reply     string
}

func scanPairs(rows *sql.Rows) ([]ReplyPair, error) {
	defer rows.Close()
	var out []ReplyPair
	for rows.Next() {
		var p ReplyPair
		if err := rows.Scan(&p.Developer, &p.SessionID, &p.AgentIdx, &p.Agent, &p.ReplyIdx, &p.Reply); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ProfilePairs returns the (agent turn, reply) pairs of the developer's
// profile sessions, by session id and reply turn: the pool of an offline
// simulator with the profile.
func ProfilePairs(ctx context.Context, db Querier, developer string) ([]ReplyPair, error) {
	rows, err := db.QueryContext(ctx, q("simdata_reply_pairs"), developer)
	if err != nil {
		return nil, fmt.Errorf("pairs of %s: %w", developer, err)
	}
	return scanPairs(rows)
}

// TrainPairs returns the (agent turn, reply) pairs of the profile sessions of
// every train-split developer, by session id and reply turn: the pool of an
// offline simulator without the profile. A developer also placed in val or
// test (which ub audit reports) is left out.
func TrainPairs(ctx context.Context, db Querier) ([]ReplyPair, error) {
	rows, err := db.QueryContext(ctx, q("simdata_reply_pairs"), nil)
	if err != nil {
		return nil, fmt.Errorf("training pairs: %w", err)
	}
	return scanPairs(rows)
}

// ProfileRow is one stored profile.
type ProfileRow struct {
	Developer     string
	Kind          string // stats | model
	Model         string // the distilling model (kind model); "" stores NULL
	PromptVersion string // the persona (stats) or distillation (model) template version
	RequestKey    string // responses.key of the distillation (kind model)
	Text          string // the persona text prompts carry
	Stats         string // the statistical profile as JSON (kind stats); "" stores NULL
}

// StoreProfiles adds or replaces profiles, by (developer, kind), in one
// transaction.
func StoreProfiles(ctx context.Context, ws *Workspace, rows []ProfileRow) error {
	return ws.InTx(ctx, func(c *sql.Conn) error {
		for _, r := range rows {
			if r.Developer == "" || (r.Kind != "stats" && r.Kind != "model") {
				return fmt.Errorf("profile of %q: kind %q is not stats or model", r.Developer, r.Kind)
			}
			if _, err := c.ExecContext(ctx, q("simdata_store_profile"), r.Developer, r.Kind, r.Model,
				r.PromptVersion, r.RequestKey, r.Text, r.Stats); err != nil {
				return fmt.Errorf("profile of %s: %w", r.Developer, err)
			}
		}
		return nil
	})
}

// GetProfile returns the developer's profile of a kind; ok is false when
// none is stored.
func GetProfile(ctx context.Context, db Querier, developer, kind string) (ProfileRow, bool, error) {
	var r ProfileRow
	err := db.QueryRowContext(ctx, q("simdata_get_profile"), developer, kind).Scan(&r.Developer, &r.Kind,
		&r.Model, &r.PromptVersion, &r.RequestKey, &r.Text, &r.Stats)
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, err
}

// StorePromptTemplate records a template version in prompt_templates; a
// version already present is kept as it is.
func StorePromptTemplate(ctx context.Context, db Querier, version, name, text string) error {
	_, err := db.ExecContext(ctx, q("simdata_store_template"), version, name, text)
	return err
}
