package queries

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ub-bench/ub"
)

// Criterion is one stored rubric criterion (ep_rubric_criteria).
type Criterion struct {
	CriterionID, Domain, TaskID, Family, Mode string
	Quote, QuoteSource, Text, AppliesWhen     string // AppliesWhen "" stored as NULL
	WrittenBy, VerifiedBy                     string // VerifiedBy "" stored as NULL
	Status, RejectReason, PromptVersion       string // "" stored as NULL (Status excepted)
	SourceFile                                string
	SourceLine                                int
}

// TaskSourceText is one text a quote may come from: source "" only marks
// that the task exists.
type TaskSourceText struct {
	Domain, TaskID, Source, Text string
}

// TaskSources lists every text of every stored task a rubric quote may be
// checked against (fidelity_sources.sql).
func TaskSources(ctx context.Context, db Querier) ([]TaskSourceText, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_sources"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TaskSourceText
	for rows.Next() {
		var t TaskSourceText
		if err := rows.Scan(&t.Domain, &t.TaskID, &t.Source, &t.Text); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func nullStr(s string) driver.Value {
	if s == "" {
		return nil
	}
	return s
}

// PutCriteria stores criteria in one transaction, replacing any stored
// criterion of the same id (its verdicts stay: they are keyed by id).
func PutCriteria(ctx context.Context, ws *Workspace, cs []Criterion) error {
	return ws.InTx(ctx, func(c *sql.Conn) error {
		del, err := c.PrepareContext(ctx, q("fidelity_delete_criterion"))
		if err != nil {
			return err
		}
		defer del.Close()
		for _, cr := range cs {
			if _, err := del.ExecContext(ctx, cr.CriterionID); err != nil {
				return err
			}
		}
		return appendRows(ctx, ws, "ep_rubric_criteria", len(cs), func(i int) []driver.Value { return criterionValues(cs[i]) })
	})
}

// RubricOf lists the stored criteria of task id (of every domain when
// domain is ""), accepted and rejected, by domain and criterion id.
func RubricOf(ctx context.Context, db Querier, domain, taskID string) ([]Criterion, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_rubric"), taskID, domain, domain)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Criterion
	for rows.Next() {
		var c Criterion
		if err := rows.Scan(&c.CriterionID, &c.Domain, &c.TaskID, &c.Family, &c.Mode, &c.Quote, &c.QuoteSource, &c.Text,
			&c.AppliesWhen, &c.WrittenBy, &c.VerifiedBy, &c.Status, &c.RejectReason); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// StoredVerdict is one verdict to store (ep_verdicts).
type StoredVerdict struct {
	SimulationID, CriterionID, Grader, Verdict string
	TurnIdx                                    *int
	Reason, PromptVersion, RequestKey          string // "" stored as NULL
	SourceFile                                 string
	SourceLine                                 int
}

// PutVerdicts stores verdicts in one transaction, replacing a stored
// verdict of the same (simulation, criterion, grader). vs giving one
// (simulation, criterion, grader) twice is an error, and nothing is
// stored: ep_verdicts holds one verdict per key, which no index enforces
// (schema 0019), so every writer deletes before it inserts.
func PutVerdicts(ctx context.Context, ws *Workspace, vs []StoredVerdict) error {
	if len(vs) == 0 {
		return nil
	}
	// The verdicts are staged in a temporary table, and the ones they
	// replace deleted by one statement: one DELETE per verdict made a
	// large grading quadratic in practice.
	return ws.InTx(ctx, func(c *sql.Conn) error {
		if _, err := c.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE ub_put_verdicts AS SELECT * FROM ep_verdicts LIMIT 0`); err != nil {
			return fmt.Errorf("stage verdicts: %w", err)
		}
		defer c.ExecContext(context.WithoutCancel(ctx), `DROP TABLE IF EXISTS temp.ub_put_verdicts`)
		app, err := ws.appender(ctx, "temp", "main", "ub_put_verdicts")
		if err != nil {
			return err
		}
		for _, v := range vs {
			if err := app.AppendRow(verdictValues(v)...); err != nil {
				app.Close()
				return fmt.Errorf("stage verdicts: %w", err)
			}
		}
		if err := app.Close(); err != nil {
			return fmt.Errorf("stage verdicts: %w", err)
		}
		var sim, crit, grader string
		switch err := c.QueryRowContext(ctx, q("fidelity_put_repeat")).Scan(&sim, &crit, &grader); {
		case err == nil:
			return fmt.Errorf("store verdicts: the verdict of %s on %s by %s is given twice", crit, sim, grader)
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("store verdicts: %w", err)
		}
		if _, err := c.ExecContext(ctx, q("fidelity_delete_verdicts")); err != nil {
			return err
		}
		_, err = c.ExecContext(ctx, `INSERT INTO ep_verdicts SELECT * FROM ub_put_verdicts`)
		return err
	})
}

// GraderCount is one grader's verdicts and episodes.
type GraderCount struct {
	Grader             string
	Verdicts, Episodes int
	Graded             int // verdicts ub grade gave; the rest were imported
}

// Graders lists every grader, by name.
func Graders(ctx context.Context, db Querier) ([]GraderCount, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_graders"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GraderCount
	for rows.Next() {
		var g GraderCount
		if err := rows.Scan(&g.Grader, &g.Verdicts, &g.Episodes, &g.Graded); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// LoadFidelity lists the episodes grader graded, by simulation id
// (fidelity_episodes.sql). One grader's only: the report and ub compare
// score with one, and a workspace of several graders held all of them.
// Family counts are over accepted criteria, in the order of
// ub.FidelityFamilies; an unknown reward or cost is NaN, an unrecorded trial
// 0. Simulator is the run's user simulator (analysis.LabelSimulators
// names it for a report). The report reads them through TapeFidelity
// instead, which holds none of them in memory.
func LoadFidelity(ctx context.Context, db Querier, grader string) ([]ub.FidelityEpisode, error) {
	var out []ub.FidelityEpisode
	err := EachFidelity(ctx, db, grader, func(e ub.FidelityEpisode) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// EachFidelity gives fn the episodes grader graded, one at a time, as
// LoadFidelity lists them. The names an episode shares with many others
// (grader, simulator, agent, domain, task, probes) are one copy each: at a
// million episodes their copies were most of the heap.
func EachFidelity(ctx context.Context, db Querier, grader string, fn func(ub.FidelityEpisode) error) error {
	in := interner{}
	probeLists := map[string][]string{}
	return eachRow(ctx, db, q("fidelity_episodes"), []any{grader}, func(scan func(...any) error) error {
		var e ub.FidelityEpisode
		var probes string
		var trial sql.NullInt64
		var reward, cost sql.NullFloat64
		if err := scan(&e.Grader, &e.ID, &e.Simulator, &e.Agent, &e.Domain, &e.Task, &trial,
			&reward, &cost, &e.CostEstimated,
			&e.Applicable[0], &e.Failed[0], &e.Applicable[1], &e.Failed[1],
			&e.Applicable[2], &e.Failed[2], &e.Applicable[3], &e.Failed[3],
			&e.AgentTurns, &e.AgentQuestions, &e.AgentToolCalls, &probes); err != nil {
			return err
		}
		e.Grader, e.Simulator, e.Agent, e.Domain, e.Task = in.str(e.Grader), in.str(e.Simulator), in.str(e.Agent), in.str(e.Domain), in.str(e.Task)
		e.Trial, e.Reward, e.Cost = int(trial.Int64), math.NaN(), math.NaN() // 0 and NaN: not recorded
		if reward.Valid {
			e.Reward = reward.Float64
		}
		if cost.Valid {
			e.Cost = cost.Float64
		}
		if probes != "" {
			ps, ok := probeLists[probes]
			if !ok {
				ps = strings.Split(probes, ",")
				probeLists[probes] = ps
			}
			e.Probes = ps
		}
		return fn(e)
	})
}

// VerdictPairs counts the verdicts graders a and b both gave, per episode,
// family and pair of verdicts, by simulation id, family, A and B.
func VerdictPairs(ctx context.Context, db Querier, a, b string) ([]ub.VerdictPair, error) {
	var out []ub.VerdictPair
	err := EachVerdictPair(ctx, db, a, b, func(p ub.VerdictPair) error {
		out = append(out, p)
		return nil
	})
	return out, err
}

// EachVerdictPair gives fn the rows of VerdictPairs one at a time, in its
// order (by simulation id): the report counts them as they come. The
// verdicts come from the workspace sorted by episode and criterion
// (fidelity_verdict_pairs.sql), each (episode, criterion) that both
// graders judged is a pair, and an episode's pairs are counted in memory
// (a few rows) and handed over when the next episode begins. The graders
// are two: a grader named twice has no pairs.
func EachVerdictPair(ctx context.Context, db Querier, a, b string, fn func(ub.VerdictPair) error) error {
	in := interner{} // families and verdicts: a few names, millions of pairs
	type key struct{ family, a, b string }
	counts := map[key]int{}
	var sim, crit string
	var firsts, seconds []string // the two graders' verdicts of (sim, crit)
	family := ""
	// pairCriterion counts the pairs of the current criterion: each of
	// a's verdicts with each of b's, as a join of the two would.
	pairCriterion := func() {
		for _, va := range firsts {
			for _, vb := range seconds {
				counts[key{family, va, vb}]++
			}
		}
		firsts, seconds = firsts[:0], seconds[:0]
	}
	// flush hands over the current episode's counts, by family, A and B.
	flush := func() error {
		pairCriterion()
		if len(counts) == 0 {
			return nil
		}
		ks := make([]key, 0, len(counts))
		for k := range counts {
			ks = append(ks, k)
		}
		slices.SortFunc(ks, func(x, y key) int {
			return cmp.Or(strings.Compare(x.family, y.family), strings.Compare(x.a, y.a), strings.Compare(x.b, y.b))
		})
		for _, k := range ks {
			if err := fn(ub.VerdictPair{SimulationID: sim, Family: k.family, A: k.a, B: k.b, N: counts[k]}); err != nil {
				return err
			}
		}
		clear(counts)
		return nil
	}
	started := false
	err := eachRow(ctx, db, q("fidelity_verdict_pairs"), []any{a, b}, func(scan func(...any) error) error {
		var s, c, fam, verdict string
		var first bool
		if err := scan(&s, &c, &first, &fam, &verdict); err != nil {
			return err
		}
		if !started || s != sim {
			if err := flush(); err != nil {
				return err
			}
			sim, crit, started = s, c, true
		} else if c != crit {
			pairCriterion()
			crit = c
		}
		family = in.str(fam)
		if first {
			firsts = append(firsts, in.str(verdict))
		} else {
			seconds = append(seconds, in.str(verdict))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// UserModelPrices lists the prices of the runs' user models, by model.
func UserModelPrices(ctx context.Context, db Querier) ([]Price, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_prices"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Price
	for rows.Next() {
		var p Price
		if err := rows.Scan(&p.Model, &p.PriceIn, &p.PriceOut, &p.ReadOn, &p.Source); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// GradeItem is one (episode, criterion) to grade, with what the grader may
// see: the criterion and the task blueprint (never the simulator or agent).
type GradeItem struct {
	SimulationID, CriterionID, Family, Mode, Quote, QuoteSource, Text, AppliesWhen string
	ReasonForCall, KnownInfo, UnknownInfo, TaskInstructions, Persona, Instruction  string
}

// GradeItems lists every (episode, accepted criterion of its task) of
// domain ("" for all), by simulation and criterion.
func GradeItems(ctx context.Context, db Querier, domain string) ([]GradeItem, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_grade_items"), domain, domain)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GradeItem
	for rows.Next() {
		var g GradeItem
		if err := rows.Scan(&g.SimulationID, &g.CriterionID, &g.Family, &g.Mode, &g.Quote, &g.QuoteSource, &g.Text, &g.AppliesWhen,
			&g.ReasonForCall, &g.KnownInfo, &g.UnknownInfo, &g.TaskInstructions, &g.Persona, &g.Instruction); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// TranscriptMessage is one message of an episode to grade.
type TranscriptMessage struct {
	SimulationID  string
	Idx, TurnIdx  int
	Role, Content string
	Calls         string // "name(arguments); ..." or ""
}

// Transcripts lists the messages of every episode of domain ("" for all)
// that has a criterion to grade, by simulation and position.
func Transcripts(ctx context.Context, db Querier, domain string) ([]TranscriptMessage, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_transcripts"), domain, domain)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TranscriptMessage
	for rows.Next() {
		var m TranscriptMessage
		if err := rows.Scan(&m.SimulationID, &m.Idx, &m.TurnIdx, &m.Role, &m.Content, &m.Calls); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// WriteTask is one task a rubric writer sees.
type WriteTask struct {
	Domain, TaskID                                                                string
	ReasonForCall, KnownInfo, UnknownInfo, TaskInstructions, Persona, Instruction string
	Guidelines, UserTools, SampleID                                               string // UserTools comma-separated
}

// WriteTasks lists the tasks of domain ("" for all) with what a rubric
// writer sees of each, by domain and task id.
func WriteTasks(ctx context.Context, db Querier, domain string) ([]WriteTask, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_write_tasks"), domain, domain)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []WriteTask
	for rows.Next() {
		var w WriteTask
		if err := rows.Scan(&w.Domain, &w.TaskID, &w.ReasonForCall, &w.KnownInfo, &w.UnknownInfo, &w.TaskInstructions,
			&w.Persona, &w.Instruction, &w.Guidelines, &w.UserTools, &w.SampleID); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// EpisodeMessages lists one episode's messages (turn, role, text) in order.
func EpisodeMessages(ctx context.Context, db Querier, simulationID string) ([]TranscriptMessage, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_episode_messages"), simulationID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TranscriptMessage
	for rows.Next() {
		m := TranscriptMessage{SimulationID: simulationID}
		if err := rows.Scan(&m.TurnIdx, &m.Role, &m.Content); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// RubricCount is a number of rubric criteria of one domain, task, family,
// mode, writer, verifier ("" for imports) and status.
type RubricCount struct {
	Domain, TaskID, Family, Mode, WrittenBy, VerifiedBy, Status string
	Criteria                                                    int
}

// RubricCounts counts the stored criteria (fidelity_rubric_counts.sql).
func RubricCounts(ctx context.Context, db Querier) ([]RubricCount, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_rubric_counts"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []RubricCount
	for rows.Next() {
		var c RubricCount
		if err := rows.Scan(&c.Domain, &c.TaskID, &c.Family, &c.Mode, &c.WrittenBy, &c.VerifiedBy, &c.Status, &c.Criteria); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RubricSummary describes the stored criteria as the report does, in rows
// that grow with the domains, families, modes and writers, not the tasks
// (fidelity_rubric_summary.sql).
type RubricSummary struct {
	Cells []RubricCell // accepted criteria, by domain, family and mode
	Whos  []RubricWho  // every criterion, by writer, verifier and status
	// PerTask counts the tasks with each number of accepted criteria, by
	// Criteria.
	PerTask []RubricTasks
}

// RubricCell is the accepted criteria of one domain, family and mode, and
// the tasks they are of.
type RubricCell struct {
	Domain, Family, Mode string
	Criteria, Tasks      int
}

// RubricWho is the criteria of one writer, verifier ("" for imports) and
// status.
type RubricWho struct {
	WrittenBy, VerifiedBy, Status string
	Criteria                      int
}

// RubricTasks is the number of tasks with Criteria accepted criteria.
type RubricTasks struct{ Criteria, Tasks int }

// LoadRubricSummary reads the summary of the stored criteria.
func LoadRubricSummary(ctx context.Context, db Querier) (*RubricSummary, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_rubric_summary"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	s := &RubricSummary{}
	for rows.Next() {
		var kind, a, b, c string
		var n, m int
		if err := rows.Scan(&kind, &a, &b, &c, &n, &m); err != nil {
			return nil, err
		}
		switch kind {
		case "cell":
			s.Cells = append(s.Cells, RubricCell{Domain: a, Family: b, Mode: c, Criteria: n, Tasks: m})
		case "who":
			s.Whos = append(s.Whos, RubricWho{WrittenBy: a, VerifiedBy: b, Status: c, Criteria: n})
		case "task":
			s.PerTask = append(s.PerTask, RubricTasks{Criteria: n, Tasks: m})
		}
	}
	return s, rows.Err()
}

// FailureMode is one grader's failing verdicts of one failure mode: the
// episodes and verdicts, and an example failing user turn (Turn -1 and
// Text "" when no failing verdict names a user turn with text).
type FailureMode struct {
	Grader, Mode                                 string
	Episodes, Verdicts                           int
	Family, SimulationID, CriterionID, Criterion string
	Turn                                         int
	Text                                         string
}

// FailureModes lists every grader's failure modes, by grader and mode
// (fidelity_failure_modes.sql).
func FailureModes(ctx context.Context, db Querier) ([]FailureMode, error) {
	rows, err := db.QueryContext(ctx, q("fidelity_failure_modes"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []FailureMode
	for rows.Next() {
		var m FailureMode
		if err := rows.Scan(&m.Grader, &m.Mode, &m.Episodes, &m.Verdicts, &m.Family, &m.SimulationID, &m.CriterionID, &m.Criterion, &m.Turn, &m.Text); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
