package queries

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"
)

// The review workbench's tables (migration 0008, SPEC section 7).

// ErrNoEpisode is returned for a simulation id that is not in the workspace.
var ErrNoEpisode = errors.New("no such episode")

// ErrBatchExists is returned when a batch name is taken.
var ErrBatchExists = errors.New("review batch exists")

// ReviewCandidate is an episode that can be sampled for review.
type ReviewCandidate struct {
	SimulationID, Domain, TaskID string
	Reward                       sql.NullFloat64
}

// ReviewCandidates lists every episode, by simulation id.
func ReviewCandidates(ctx context.Context, db Querier) ([]ReviewCandidate, error) {
	rows, err := db.QueryContext(ctx, q("review_candidates"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ReviewCandidate
	for rows.Next() {
		var c ReviewCandidate
		if err := rows.Scan(&c.SimulationID, &c.Domain, &c.TaskID, &c.Reward); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ReviewBatch is a named sample of episodes.
type ReviewBatch struct {
	Batch     string
	Seed      int64
	N         int
	Stratify  string
	Reviewers string // comma-separated
}

// ReviewAssignment places an episode in a reviewer's queue.
type ReviewAssignment struct {
	Reviewer     string
	Position     int // 1-based
	SimulationID string
}

// CreateReviewBatch stores a batch and its assignments in one transaction.
// A batch name already used gives ErrBatchExists.
func CreateReviewBatch(ctx context.Context, ws *Workspace, b ReviewBatch, as []ReviewAssignment) error {
	return ws.InTx(ctx, func(c *sql.Conn) error {
		var n int
		if err := c.QueryRowContext(ctx, q("review_batch_count"), b.Batch).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("batch %q: %w (choose another --name)", b.Batch, ErrBatchExists)
		}
		if _, err := c.ExecContext(ctx, q("review_batch_insert"), b.Batch, b.Seed, b.N, b.Stratify, b.Reviewers); err != nil {
			return err
		}
		return appendRows(ctx, ws, "rv_assignments", len(as), func(i int) []driver.Value {
			a := as[i]
			return []driver.Value{b.Batch, a.Reviewer, int32(a.Position), a.SimulationID}
		})
	})
}

// ReviewBatches lists the batches by name.
func ReviewBatches(ctx context.Context, db Querier) ([]ReviewBatch, error) {
	rows, err := db.QueryContext(ctx, q("review_batches"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ReviewBatch
	for rows.Next() {
		var b ReviewBatch
		if err := rows.Scan(&b.Batch, &b.Seed, &b.N, &b.Stratify, &b.Reviewers); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// BatchEpisodes lists the distinct episodes of a batch.
func BatchEpisodes(ctx context.Context, db Querier, batch string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q("review_batch_episodes"), batch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// QueueItem is one episode of a reviewer's queue.
type QueueItem struct {
	Position       int
	SimulationID   string
	Domain, TaskID string
	Reward         sql.NullFloat64
	Outcome        string // "" when not reviewed yet
	Kind           string
}

// ReviewQueue lists a reviewer's queue in a batch, in order.
func ReviewQueue(ctx context.Context, db Querier, batch, reviewer string) ([]QueueItem, error) {
	return queue(ctx, db, "review_queue", batch, reviewer)
}

// AdjudicationQueue lists the episodes of a batch whose human reviewers
// disagree on "has a simulator error" or "critical", by id, with the
// adjudicator's decision state.
func AdjudicationQueue(ctx context.Context, db Querier, batch, adjudicator string) ([]QueueItem, error) {
	return queue(ctx, db, "review_adjudication_queue", batch, adjudicator)
}

func queue(ctx context.Context, db Querier, query, batch, reviewer string) ([]QueueItem, error) {
	rows, err := db.QueryContext(ctx, q(query), batch, reviewer)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []QueueItem
	for rows.Next() {
		var it QueueItem
		if err := rows.Scan(&it.Position, &it.SimulationID, &it.Domain, &it.TaskID, &it.Reward, &it.Outcome, &it.Kind); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// EpisodeMessage is one message of an episode, with its tool calls.
type EpisodeMessage struct {
	Idx, TurnIdx int
	Role         string // user | assistant | tool | system
	Content      string
	Requestor    string // tool messages: who made the call
	ToolError    bool
	ToolCallID   string
	Calls        []EpisodeToolCall
}

// EpisodeToolCall is one tool call of a message.
type EpisodeToolCall struct {
	Name, Arguments, CallID string
}

// ProbeHit is a judge-free probe finding (SPEC 6.3).
type ProbeHit struct {
	Probe    string
	TurnIdx  sql.NullInt64
	Evidence string
}

// EpisodeView is what a reviewer sees of one episode: the conversation,
// the simulator's private blueprint and the probes that fired.
type EpisodeView struct {
	SimulationID, Domain, TaskID string
	Trial                        sql.NullInt64
	Reward                       sql.NullFloat64
	Termination                  string
	UserSim, Agent               string
	ReasonForCall, KnownInfo     string
	UnknownInfo, Instructions    string
	Persona, Instruction         string
	Guidelines                   string
	Messages                     []EpisodeMessage
	Probes                       []ProbeHit
}

// ReviewEpisode loads one episode for review; an unknown id gives
// ErrNoEpisode.
func ReviewEpisode(ctx context.Context, db Querier, simID string) (EpisodeView, error) {
	var v EpisodeView
	err := db.QueryRowContext(ctx, q("review_episode"), simID).Scan(&v.SimulationID, &v.Domain, &v.TaskID, &v.Trial,
		&v.Reward, &v.Termination, &v.UserSim, &v.Agent, &v.ReasonForCall, &v.KnownInfo, &v.UnknownInfo,
		&v.Instructions, &v.Persona, &v.Instruction, &v.Guidelines)
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("episode %s: %w", simID, ErrNoEpisode)
	}
	if err != nil {
		return v, fmt.Errorf("episode %s: %w", simID, err)
	}
	rows, err := db.QueryContext(ctx, q("review_messages"), simID)
	if err != nil {
		return v, err
	}
	byIdx := map[int]int{}
	for rows.Next() {
		var m EpisodeMessage
		if err := rows.Scan(&m.Idx, &m.TurnIdx, &m.Role, &m.Content, &m.Requestor, &m.ToolError, &m.ToolCallID); err != nil {
			rows.Close()
			return v, err
		}
		byIdx[m.Idx] = len(v.Messages)
		v.Messages = append(v.Messages, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return v, err
	}
	rows, err = db.QueryContext(ctx, q("review_tool_calls"), simID)
	if err != nil {
		return v, err
	}
	for rows.Next() {
		var msgIdx, callIdx int
		var c EpisodeToolCall
		if err := rows.Scan(&msgIdx, &callIdx, &c.Name, &c.Arguments, &c.CallID); err != nil {
			rows.Close()
			return v, err
		}
		if i, ok := byIdx[msgIdx]; ok {
			v.Messages[i].Calls = append(v.Messages[i].Calls, c)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return v, err
	}
	rows, err = db.QueryContext(ctx, q("review_probes"), simID)
	if err != nil {
		return v, err
	}
	defer rows.Close()
	for rows.Next() {
		var p ProbeHit
		if err := rows.Scan(&p.Probe, &p.TurnIdx, &p.Evidence); err != nil {
			return v, err
		}
		v.Probes = append(v.Probes, p)
	}
	return v, rows.Err()
}

// Review outcomes and kinds (rv_decisions).
const (
	OutcomeNoError = "no_error"
	OutcomeError   = "error"
	OutcomeFailed  = "failed"

	KindHuman       = "human"
	KindLLM         = "llm"
	KindAdjudicator = "adjudicator"
)

// ReviewError is one simulator error a reviewer recorded.
type ReviewError struct {
	TurnIdx sql.NullInt64 // null: the episode as a whole
	// TickStart and TickEnd: the tick span a full-duplex review gave
	// (rv_error_ticks); null for turn-based reviews.
	TickStart, TickEnd sql.NullInt64
	Code               string
	Severity           string // minor | critical_helped | critical_hindered
	Note               string
}

// Decision is one reviewer's decision on one episode.
type Decision struct {
	SimulationID string
	Reviewer     string
	Kind         string // human | llm | adjudicator
	Outcome      string // no_error | error | failed
	Batch        string // "" when imported
	Source       string // "web" or file:line
	DecidedAt    time.Time
	Revision     int // set by SaveDecision
	Errors       []ReviewError
	// Model is the model an LLM decision was made with ("" unknown);
	// Salvaged marks one read from the raw response of a review tau2
	// failed to parse (rv_llm_reviews).
	Model    string
	Salvaged bool
	// Domain, TaskID and Reward come from the episode (ReviewDecisions
	// only); Domain is "" and Reward null when it is not in the workspace.
	Domain, TaskID string
	Reward         sql.NullFloat64
}

// GetDecision returns a reviewer's decision on an episode; ok is false when
// there is none.
func GetDecision(ctx context.Context, db Querier, simID, reviewer string) (d Decision, ok bool, err error) {
	d.SimulationID, d.Reviewer = simID, reviewer
	err = db.QueryRowContext(ctx, q("review_decision_get"), simID, reviewer).Scan(&d.Kind, &d.Outcome, &d.Batch, &d.Source, &d.DecidedAt, &d.Revision)
	if errors.Is(err, sql.ErrNoRows) {
		return d, false, nil
	}
	if err != nil {
		return d, false, err
	}
	rows, err := db.QueryContext(ctx, q("review_errors_get"), simID, reviewer)
	if err != nil {
		return d, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var idx int
		var e ReviewError
		if err := rows.Scan(&idx, &e.TurnIdx, &e.Code, &e.Severity, &e.Note); err != nil {
			return d, false, err
		}
		d.Errors = append(d.Errors, e)
	}
	d.DecidedAt = d.DecidedAt.UTC()
	return d, true, rows.Err()
}

func checkDecision(d Decision) error {
	switch d.Outcome {
	case OutcomeNoError, OutcomeFailed:
		if len(d.Errors) > 0 {
			return fmt.Errorf("decision on %s: outcome %s with %d errors", d.SimulationID, d.Outcome, len(d.Errors))
		}
	case OutcomeError:
		if len(d.Errors) == 0 {
			return fmt.Errorf("decision on %s: outcome error without an error", d.SimulationID)
		}
	default:
		return fmt.Errorf("decision on %s: unknown outcome %q", d.SimulationID, d.Outcome)
	}
	if d.Reviewer == "" {
		return fmt.Errorf("decision on %s: no reviewer", d.SimulationID)
	}
	return nil
}

// SaveDecision replaces a reviewer's decision on an episode, in one
// transaction: when it returns nil the decision is committed (DuckDB
// writes its WAL at commit), so a server that acknowledges after it loses
// nothing if killed. It returns the stored revision (1 for a first save).
func SaveDecision(ctx context.Context, ws *Workspace, d Decision) (int, error) {
	if err := checkDecision(d); err != nil {
		return 0, err
	}
	rev := 0
	err := ws.InTx(ctx, func(c *sql.Conn) error {
		var prev sql.NullInt64
		err := c.QueryRowContext(ctx, q("review_decision_revision"), d.SimulationID, d.Reviewer).Scan(&prev)
		if err != nil {
			return err
		}
		rev = int(prev.Int64) + 1
		return writeDecision(ctx, c, d, rev)
	})
	return rev, err
}

func writeDecision(ctx context.Context, c Querier, d Decision, rev int) error {
	if _, err := c.ExecContext(ctx, q("review_errors_delete"), d.SimulationID, d.Reviewer); err != nil {
		return err
	}
	for _, name := range []string{"review_error_ticks_delete", "review_llm_delete"} {
		if _, err := c.ExecContext(ctx, q(name), d.SimulationID, d.Reviewer); err != nil {
			return err
		}
	}
	if _, err := c.ExecContext(ctx, q("review_decision_delete"), d.SimulationID, d.Reviewer); err != nil {
		return err
	}
	var batch any
	if d.Batch != "" {
		batch = d.Batch
	}
	if _, err := c.ExecContext(ctx, q("review_decision_insert"), d.SimulationID, d.Reviewer, d.Kind, d.Outcome, batch, d.Source, d.DecidedAt.UTC(), rev); err != nil {
		return err
	}
	for i, e := range d.Errors {
		var turn any
		if e.TurnIdx.Valid {
			turn = e.TurnIdx.Int64
		}
		if _, err := c.ExecContext(ctx, q("review_error_insert"), d.SimulationID, d.Reviewer, i, turn, e.Code, e.Severity, e.Note); err != nil {
			return err
		}
		if e.TickStart.Valid || e.TickEnd.Valid {
			if _, err := c.ExecContext(ctx, q("review_error_ticks_insert"), d.SimulationID, d.Reviewer, i, nullInt(e.TickStart), nullInt(e.TickEnd)); err != nil {
				return err
			}
		}
	}
	if d.Kind == KindLLM && (d.Model != "" || d.Salvaged) {
		if _, err := c.ExecContext(ctx, q("review_llm_insert"), d.SimulationID, d.Reviewer, nullStr(d.Model), d.Salvaged); err != nil {
			return err
		}
	}
	return nil
}

// TickTurn returns the turn_idx a tick span [start, end] of an episode
// lands on (review_tick_turn); ok is false when no message of the episode
// was built from those ticks.
func TickTurn(ctx context.Context, db Querier, simID string, start, end int64) (turn int64, ok bool, err error) {
	err = db.QueryRowContext(ctx, q("review_tick_turn"), simID, start, end).Scan(&turn)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return turn, err == nil, err
}

func nullInt(n sql.NullInt64) any {
	if !n.Valid {
		return nil
	}
	return n.Int64
}

// ReplaceReviewer replaces every decision of reviewer with ds (all of that
// reviewer), in one transaction: an import is the reviewer's whole word.
func ReplaceReviewer(ctx context.Context, ws *Workspace, reviewer string, ds []Decision) error {
	for _, d := range ds {
		if d.Reviewer != reviewer {
			return fmt.Errorf("replace reviewer %s: decision of %s", reviewer, d.Reviewer)
		}
		if err := checkDecision(d); err != nil {
			return err
		}
	}
	return ws.InTx(ctx, func(c *sql.Conn) error {
		if _, err := c.ExecContext(ctx, q("review_reviewer_errors_delete"), reviewer); err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, q("review_reviewer_delete"), reviewer); err != nil {
			return err
		}
		for _, name := range []string{"review_reviewer_ticks_delete", "review_reviewer_llm_delete"} {
			if _, err := c.ExecContext(ctx, q(name), reviewer); err != nil {
				return err
			}
		}
		for _, d := range ds {
			if err := writeDecision(ctx, c, d, 1); err != nil {
				return fmt.Errorf("%s: %w", d.Source, err)
			}
		}
		return nil
	})
}

// ReviewDecisions lists every decision with its errors, by episode and
// reviewer.
func ReviewDecisions(ctx context.Context, db Querier) ([]Decision, error) {
	rows, err := db.QueryContext(ctx, q("review_decisions_all"))
	if err != nil {
		return nil, err
	}
	var out []Decision
	at := map[[2]string]int{}
	for rows.Next() {
		var d Decision
		var dom, task sql.NullString
		if err := rows.Scan(&d.SimulationID, &d.Reviewer, &d.Kind, &d.Outcome, &d.Batch, &d.Source, &d.DecidedAt, &d.Revision, &dom, &task, &d.Reward); err != nil {
			rows.Close()
			return nil, err
		}
		d.DecidedAt = d.DecidedAt.UTC()
		d.Domain, d.TaskID = dom.String, task.String
		at[[2]string{d.SimulationID, d.Reviewer}] = len(out)
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = db.QueryContext(ctx, q("review_errors_all"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var sim, rev string
		var idx int
		var e ReviewError
		if err := rows.Scan(&sim, &rev, &idx, &e.TurnIdx, &e.Code, &e.Severity, &e.Note); err != nil {
			return nil, err
		}
		if i, ok := at[[2]string{sim, rev}]; ok {
			out[i].Errors = append(out[i].Errors, e)
		}
	}
	return out, rows.Err()
}
