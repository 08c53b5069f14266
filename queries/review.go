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
	ProbesFired                  bool // a judge-free probe (SPEC 6.3) has a finding on it
	NoUser                       bool // its run has no simulated user (solo mode)
	NotRun                       bool // a placeholder of a simulation that never ran
}

// ReviewCandidates lists every episode, by simulation id, solo-mode
// episodes and placeholders included (marked).
func ReviewCandidates(ctx context.Context, db Querier) ([]ReviewCandidate, error) {
	rows, err := db.QueryContext(ctx, q("review_candidates"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ReviewCandidate
	for rows.Next() {
		var c ReviewCandidate
		if err := rows.Scan(&c.SimulationID, &c.Domain, &c.TaskID, &c.Reward, &c.ProbesFired, &c.NoUser, &c.NotRun); err != nil {
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
	// OversampleProbes is the weight W of episodes where probes fired (0:
	// not probe-guided); Population the episodes it was drawn from (0 for
	// a batch made before the design was recorded).
	OversampleProbes float64
	Population       int
	// Prefill is the LLM reviewer whose decisions pre-fill the form of an
	// episode a reviewer has not decided yet ("": none).
	Prefill string
}

// ReviewInclusion is a sampled episode's place in its batch's design.
type ReviewInclusion struct {
	SimulationID string
	Stratum      string
	ProbesFired  bool
	StratumSize  int     // episodes of the stratum in the population
	StratumN     int     // of them drawn
	Pi           float64 // inclusion probability, StratumN / StratumSize
}

// ReviewAssignment places an episode in a reviewer's queue.
type ReviewAssignment struct {
	Reviewer     string
	Position     int // 1-based
	SimulationID string
}

// CreateReviewBatch stores a batch and its assignments in one transaction,
// without a design ([CreateReviewBatchDesign] with none). A batch name
// already used gives ErrBatchExists.
func CreateReviewBatch(ctx context.Context, ws *Workspace, b ReviewBatch, as []ReviewAssignment) error {
	return CreateReviewBatchDesign(ctx, ws, b, as, nil)
}

// CreateReviewBatchDesign stores a batch, its design (b's oversampling
// weight and population, inc one row per episode drawn) and its
// assignments in one transaction. A batch name already used gives
// ErrBatchExists.
func CreateReviewBatchDesign(ctx context.Context, ws *Workspace, b ReviewBatch, as []ReviewAssignment, inc []ReviewInclusion) error {
	return ws.InTx(ctx, func(c *sql.Conn) error {
		var n int
		if err := c.QueryRowContext(ctx, q("review_batch_count"), b.Batch).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("batch %q: %w (choose another --name)", b.Batch, ErrBatchExists)
		}
		if _, err := c.ExecContext(ctx, q("review_batch_insert"), b.Batch, b.Seed, b.N, b.Stratify, b.Reviewers, b.Prefill); err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, q("review_batch_design_insert"), b.Batch, b.OversampleProbes, b.Population); err != nil {
			return err
		}
		if err := appendRows(ctx, ws, "rv_inclusion", len(inc), func(i int) []driver.Value {
			x := inc[i]
			return []driver.Value{b.Batch, x.SimulationID, x.Stratum, x.ProbesFired, int32(x.StratumSize), int32(x.StratumN), x.Pi}
		}); err != nil {
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
		if err := rows.Scan(&b.Batch, &b.Seed, &b.N, &b.Stratify, &b.Reviewers, &b.OversampleProbes, &b.Population, &b.Prefill); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// BatchInclusion lists a batch's episodes with their inclusion
// probabilities, by simulation id (none for a batch made before 0016).
func BatchInclusion(ctx context.Context, db Querier, batch string) ([]ReviewInclusion, error) {
	rows, err := db.QueryContext(ctx, q("review_inclusion"), batch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ReviewInclusion
	for rows.Next() {
		var x ReviewInclusion
		if err := rows.Scan(&x.SimulationID, &x.Stratum, &x.ProbesFired, &x.StratumSize, &x.StratumN, &x.Pi); err != nil {
			return nil, err
		}
		out = append(out, x)
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
	Outcome        string // "" when not reviewed yet, "skipped" when skipped
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
	return scanQueue(rows)
}

func scanQueue(rows *sql.Rows) ([]QueueItem, error) {
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

// RowSpan is where one episode's rows lie in a table: the least and
// greatest rowid and the number of rows.
type RowSpan struct {
	Lo, Hi int64
	N      int
}

// EpisodeSpans are an episode's rows in ep_messages, ep_tool_calls and
// ep_probe_findings.
type EpisodeSpans struct {
	Messages, ToolCalls, Probes RowSpan
}

// BatchSpans finds, in one scan of each conversation table, where each
// episode of a batch lies (an episode with no row in a table has a zero
// span there). The rowids hold while no one writes those tables: the
// review server, the workspace's one writer while it runs, never does.
func BatchSpans(ctx context.Context, db Querier, batch string) (map[string]EpisodeSpans, error) {
	rows, err := db.QueryContext(ctx, q("review_batch_spans"), batch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]EpisodeSpans{}
	for rows.Next() {
		var table, id string
		var sp RowSpan
		if err := rows.Scan(&table, &id, &sp.Lo, &sp.Hi, &sp.N); err != nil {
			return nil, err
		}
		e := out[id]
		switch table {
		case "m":
			e.Messages = sp
		case "c":
			e.ToolCalls = sp
		default:
			e.Probes = sp
		}
		out[id] = e
	}
	return out, rows.Err()
}

// ReviewEpisode loads one episode for review; an unknown id gives
// ErrNoEpisode.
func ReviewEpisode(ctx context.Context, db Querier, simID string) (EpisodeView, error) {
	return ReviewEpisodeAt(ctx, db, simID, nil)
}

// ReviewEpisodeAt is ReviewEpisode reading the conversation tables only
// within the episode's spans (BatchSpans; nil: the whole tables). A span
// that no longer holds all the episode's rows (a table rewritten since)
// is read again whole.
func ReviewEpisodeAt(ctx context.Context, db Querier, simID string, sp *EpisodeSpans) (EpisodeView, error) {
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
	var msgs, calls, probes *RowSpan
	if sp != nil {
		msgs, calls, probes = &sp.Messages, &sp.ToolCalls, &sp.Probes
	}
	byIdx := map[int]int{}
	if err := spanRows(ctx, db, "review_messages", simID, msgs, func(rows *sql.Rows) error {
		var m EpisodeMessage
		if err := rows.Scan(&m.Idx, &m.TurnIdx, &m.Role, &m.Content, &m.Requestor, &m.ToolError, &m.ToolCallID); err != nil {
			return err
		}
		byIdx[m.Idx] = len(v.Messages)
		v.Messages = append(v.Messages, m)
		return nil
	}, func() { v.Messages, byIdx = nil, map[int]int{} }); err != nil {
		return v, err
	}
	var pending [][2]int // message index, call
	var callsOf []EpisodeToolCall
	if err := spanRows(ctx, db, "review_tool_calls", simID, calls, func(rows *sql.Rows) error {
		var msgIdx, callIdx int
		var c EpisodeToolCall
		if err := rows.Scan(&msgIdx, &callIdx, &c.Name, &c.Arguments, &c.CallID); err != nil {
			return err
		}
		pending = append(pending, [2]int{msgIdx, len(callsOf)})
		callsOf = append(callsOf, c)
		return nil
	}, func() { pending, callsOf = nil, nil }); err != nil {
		return v, err
	}
	for _, p := range pending {
		if i, ok := byIdx[p[0]]; ok {
			v.Messages[i].Calls = append(v.Messages[i].Calls, callsOf[p[1]])
		}
	}
	err = spanRows(ctx, db, "review_probes", simID, probes, func(rows *sql.Rows) error {
		var p ProbeHit
		if err := rows.Scan(&p.Probe, &p.TurnIdx, &p.Evidence); err != nil {
			return err
		}
		v.Probes = append(v.Probes, p)
		return nil
	}, func() { v.Probes = nil })
	return v, err
}

// spanRows runs query (one episode's rows of a table, in order) and calls
// row on each row. With a span it reads only the span's rowids (none when
// the span is empty); when that gives other than the span's count of rows,
// reset discards them and the whole table is read.
func spanRows(ctx context.Context, db Querier, query, simID string, sp *RowSpan, row func(*sql.Rows) error, reset func()) error {
	each := func(name string, args ...any) (int, error) {
		rows, err := db.QueryContext(ctx, q(name), args...)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			if err := row(rows); err != nil {
				return n, err
			}
			n++
		}
		return n, rows.Err()
	}
	if sp != nil {
		if sp.N == 0 {
			return nil
		}
		n, err := each(query+"_span", simID, sp.Lo, sp.Hi)
		if err != nil || n == sp.N {
			return err
		}
		reset()
	}
	_, err := each(query, simID)
	return err
}

// Review outcomes and kinds (rv_decisions).
const (
	OutcomeNoError = "no_error"
	OutcomeError   = "error"
	OutcomeFailed  = "failed"

	// OutcomeSkipped is a revision in the history only: the reviewer
	// passed on the episode and has no decision on it.
	OutcomeSkipped = "skipped"

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
	// LeadTime is the seconds from serving the episode page to receiving
	// the decision (measured by the server), ClientTime the seconds the
	// page was visible (measured by the browser); null when unknown.
	LeadTime, ClientTime sql.NullFloat64
	// Prefilled names the LLM reviewer whose decision pre-filled the form
	// ("": none).
	Prefilled string
	// Model is the model an LLM decision was made with ("" unknown);
	// Salvaged marks one read from the raw response of a review tau2
	// failed to parse (rv_llm_reviews).
	Model    string
	Salvaged bool
	// Domain, TaskID and Reward: read (ReviewDecisions), the episode's,
	// else what the imported file said of it ("" and null when neither
	// knows); written (ReplaceReviewer, SaveDecision), what the imported
	// file says, kept apart and used only while the episode is not in the
	// workspace.
	Domain, TaskID string
	Reward         sql.NullFloat64
	InWorkspace    bool // ReviewDecisions: the episode is in the workspace
	// Pi and Stratum: ReviewDecisions, for a decision made in a
	// probe-guided batch, the episode's inclusion probability (0
	// otherwise) and stratum in it.
	Pi      float64
	Stratum string
}

// GetDecision returns a reviewer's decision on an episode; ok is false when
// there is none.
func GetDecision(ctx context.Context, db Querier, simID, reviewer string) (d Decision, ok bool, err error) {
	d.SimulationID, d.Reviewer = simID, reviewer
	err = db.QueryRowContext(ctx, q("review_decision_get"), simID, reviewer).Scan(&d.Kind, &d.Outcome, &d.Batch, &d.Source, &d.DecidedAt, &d.Revision,
		&d.LeadTime, &d.ClientTime, &d.Prefilled)
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
		var err error
		if rev, err = nextRevision(ctx, c, d.SimulationID, d.Reviewer); err != nil {
			return err
		}
		return writeDecision(ctx, c, d, rev)
	})
	return rev, err
}

// writeDecision makes d the current decision at revision rev and adds it
// to the history.
func writeDecision(ctx context.Context, c Querier, d Decision, rev int) error {
	if err := writeCurrent(ctx, c, d, rev); err != nil {
		return err
	}
	return writeRevision(ctx, c, d, d.Outcome, rev)
}

// writeCurrent replaces the current decision of d's reviewer on d's
// episode with d, at revision rev.
func writeCurrent(ctx context.Context, c Querier, d Decision, rev int) error {
	if err := deleteCurrent(ctx, c, d.SimulationID, d.Reviewer); err != nil {
		return err
	}
	if d.Domain != "" || d.TaskID != "" || d.Reward.Valid {
		if _, err := c.ExecContext(ctx, q("review_context_delete"), d.SimulationID, d.Reviewer); err != nil {
			return err
		}
		var dom, task, reward any
		if d.Domain != "" {
			dom = d.Domain
		}
		if d.TaskID != "" {
			task = d.TaskID
		}
		if d.Reward.Valid {
			reward = d.Reward.Float64
		}
		if _, err := c.ExecContext(ctx, q("review_context_insert"), d.SimulationID, d.Reviewer, dom, task, reward); err != nil {
			return err
		}
	}
	if _, err := c.ExecContext(ctx, q("review_decision_insert"), d.SimulationID, d.Reviewer, d.Kind, d.Outcome, nullString(d.Batch), d.Source,
		d.DecidedAt.UTC(), rev, nullFloat(d.LeadTime), nullFloat(d.ClientTime), d.Prefilled); err != nil {
		return err
	}
	for i, e := range d.Errors {
		if _, err := c.ExecContext(ctx, q("review_error_insert"), d.SimulationID, d.Reviewer, i, nullInt(e.TurnIdx), e.Code, e.Severity, e.Note); err != nil {
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

func deleteCurrent(ctx context.Context, c Querier, simID, reviewer string) error {
	for _, name := range []string{"review_errors_delete", "review_error_ticks_delete", "review_llm_delete"} {
		if _, err := c.ExecContext(ctx, q(name), simID, reviewer); err != nil {
			return err
		}
	}
	_, err := c.ExecContext(ctx, q("review_decision_delete"), simID, reviewer)
	return err
}

// writeRevision adds d to the history as revision rev with outcome
// (d.Outcome, or OutcomeSkipped).
func writeRevision(ctx context.Context, c Querier, d Decision, outcome string, rev int) error {
	if _, err := c.ExecContext(ctx, q("review_revision_insert"), d.SimulationID, d.Reviewer, rev, d.Kind, outcome, nullString(d.Batch), d.Source,
		d.DecidedAt.UTC(), nullFloat(d.LeadTime), nullFloat(d.ClientTime), d.Prefilled); err != nil {
		return err
	}
	for i, e := range d.Errors {
		if _, err := c.ExecContext(ctx, q("review_revision_error_insert"), d.SimulationID, d.Reviewer, rev, i, nullInt(e.TurnIdx), e.Code, e.Severity, e.Note); err != nil {
			return err
		}
	}
	return nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullFloat(f sql.NullFloat64) any {
	if !f.Valid {
		return nil
	}
	return f.Float64
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

// TurnRef is a turn of an episode to check.
type TurnRef struct {
	SimulationID string
	Turn         int64
}

// TurnCheck is what ReviewTurnChecks found of a TurnRef.
type TurnCheck struct {
	EpisodeKnown bool // the episode is in the workspace
	LastTurn     int64
	IsTurn       bool // the turn is a turn of the episode
}

// ReviewTurnChecks says of each ref whether its episode is stored and its
// turn is one of the episode's turns, and the episode's last turn (-1
// without messages), in the order of refs. The refs are staged in a
// temporary table and checked by one query, so that the episodes'
// messages are read once, whatever the number of refs.
func ReviewTurnChecks(ctx context.Context, ws *Workspace, refs []TurnRef) ([]TurnCheck, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	if _, err := ws.conn.ExecContext(ctx, q("review_turn_stage")); err != nil {
		return nil, fmt.Errorf("turn check: %w", err)
	}
	defer ws.conn.ExecContext(context.WithoutCancel(ctx), q("review_turn_drop"))
	app, err := ws.appender(ctx, "temp", "main", "ub_review_turns")
	if err != nil {
		return nil, err
	}
	for i, r := range refs {
		if err := app.AppendRow(int32(i), r.SimulationID, r.Turn); err != nil {
			app.Close()
			return nil, fmt.Errorf("turn check: %w", err)
		}
	}
	if err := app.Close(); err != nil {
		return nil, fmt.Errorf("turn check: %w", err)
	}
	rows, err := ws.conn.QueryContext(ctx, q("review_turn_check"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]TurnCheck, len(refs))
	for rows.Next() {
		var i int
		var c TurnCheck
		if err := rows.Scan(&i, &c.EpisodeKnown, &c.LastTurn, &c.IsTurn); err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, rows.Err()
}

func nullInt(i sql.NullInt64) any {
	if !i.Valid {
		return nil
	}
	return i.Int64
}

// ReplaceReviewer replaces every decision of reviewer with ds (all of that
// reviewer), and its history with ds as first revisions, in one
// transaction: an import is the reviewer's whole word.
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
		if _, err := c.ExecContext(ctx, q("review_reviewer_context_delete"), reviewer); err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, q("review_reviewer_revision_errors_delete"), reviewer); err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, q("review_reviewer_revisions_delete"), reviewer); err != nil {
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

// ReviewDecisions lists every decision with its errors (and, for an LLM
// decision, its model and whether it was salvaged), by episode and
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
		var pi sql.NullFloat64
		if err := rows.Scan(&d.SimulationID, &d.Reviewer, &d.Kind, &d.Outcome, &d.Batch, &d.Source, &d.DecidedAt, &d.Revision, &dom, &task, &d.Reward,
			&d.InWorkspace, &pi, &d.Stratum, &d.LeadTime, &d.ClientTime, &d.Prefilled, &d.Model, &d.Salvaged); err != nil {
			rows.Close()
			return nil, err
		}
		d.DecidedAt = d.DecidedAt.UTC()
		d.Domain, d.TaskID, d.Pi = dom.String, task.String, pi.Float64
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
