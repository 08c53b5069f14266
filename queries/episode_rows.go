package queries

import (
	"database/sql/driver"
	"encoding/json"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries/internal/appender"
)

// The episode tables (schema 0005 to 0007) store the data model's tau2
// types (ub.Run, ub.Task, ub.Episode, ...) field by field, in column order:
// only this file knows the order, so a migration that adds a column changes
// the type in package ub and this file. A child row (a message, a tool
// call, a check, a gold action, an assertion) is written with its parent's
// key, which the type leaves out. A nil pointer and an empty JSON value are
// stored as NULL.

func nptr[T any](p *T) driver.Value {
	if p == nil {
		return nil
	}
	return *p
}

func nint32(p *int) driver.Value {
	if p == nil {
		return nil
	}
	return int32(*p)
}

func njson(m json.RawMessage) driver.Value {
	if len(m) == 0 {
		return nil
	}
	return m
}

// EpRun appends a row of ep_runs.
func (w *RowWriter) EpRun(r ub.Run) error {
	return w.append("ep_runs", r.RunID, r.SourceFile, r.Format, r.Domain, nptr(r.GitCommit), nptr(r.Tau2Version),
		nptr(r.Started), nptr(r.UserImpl), nptr(r.UserModel), njson(r.UserArgs), r.UserSim, nptr(r.AgentImpl),
		nptr(r.AgentModel), njson(r.AgentArgs), r.Agent, nptr(r.Guidelines), nptr(r.PolicySHA), nint32(r.MaxSteps),
		nptr(r.Seed), r.NoUser)
}

// EpTask appends a row of ep_tasks (not its actions and assertions:
// EpTaskAction, EpTaskAssertion).
func (w *RowWriter) EpTask(t *ub.Task) error {
	return w.append("ep_tasks", t.Key, t.Domain, t.TaskID, t.Format, nptr(t.ReasonForCall), nptr(t.KnownInfo),
		nptr(t.UnknownInfo), nptr(t.TaskInstructions), nptr(t.Persona), nptr(t.Instruction), nptr(t.UserID),
		nptr(t.Purpose), nptr(t.Ticket), njson(t.RewardBasis), njson(t.InitialState), njson(t.CommunicateInfo),
		njson(t.NLAssertions), njson(t.Raw), t.SourceFile)
}

// EpTaskAction appends a row of ep_task_actions: the idx-th gold action
// of the task taskKey.
func (w *RowWriter) EpTaskAction(taskKey string, idx int, a ub.TaskAction) error {
	return w.append("ep_task_actions", taskKey, int32(idx), nptr(a.ActionID), a.Requestor, a.Name,
		njson(a.Arguments), njson(a.CompareArgs), nptr(a.Info))
}

// EpTaskAssertion appends a row of ep_task_assertions: the idx-th
// assertion of the task taskKey.
func (w *RowWriter) EpTaskAssertion(taskKey string, idx int, a ub.TaskAssertion) error {
	return w.append("ep_task_assertions", taskKey, int32(idx), a.EnvType, a.FuncName, njson(a.Arguments),
		nptr(a.AssertValue), nptr(a.Message))
}

// Episode appends a row of ep_episodes (not its messages, calls, checks
// and attempts, which have writers of their own).
func (w *RowWriter) Episode(e *ub.Episode) error {
	return w.append("ep_episodes", e.SimulationID, e.RunID, e.SourceFile, int32(e.SourceIndex), e.ContentHash,
		e.Domain, e.TaskID, nptr(e.TaskKey), nint32(e.Trial), nptr(e.Seed), nptr(e.Reward), njson(e.RewardBasis),
		njson(e.RewardBreakdown), nptr(e.DBMatch), nptr(e.TerminationReason), nptr(e.UserCost), nptr(e.AgentCost),
		nptr(e.UserTokensIn), nptr(e.UserTokensOut), nptr(e.Duration), nptr(e.StartedAt), int32(e.NMessages),
		njson(e.Extra))
}

// EpMessage appends a row of ep_messages: a message of the episode
// simulationID. The tables with a row per message or call are set column
// by column (typed setters: no value boxed in an interface).
func (w *RowWriter) EpMessage(simulationID string, m *ub.Message) error {
	return w.appendWith("ep_messages", func(r *appender.Row) {
		r.String(simulationID).Int32(int32(m.Idx)).Int32(int32(m.TurnIdx)).String(m.Role)
		optString(r, m.Content)
		optString(r, m.ToolCallID)
		optString(r, m.Requestor)
		optBool(r, m.ToolError)
		r.Int32(int32(m.NToolCalls))
		optInt64(r, m.PromptTokens)
		optInt64(r, m.CompletionTokens)
		optFloat64(r, m.Cost)
		optString(r, m.TS)
		optInt32(r, m.TickID)
	})
}

func optString(r *appender.Row, p *string) {
	if p == nil {
		r.Value(nil)
	} else {
		r.String(*p)
	}
}

func optBool(r *appender.Row, p *bool) {
	if p == nil {
		r.Value(nil)
	} else {
		r.Bool(*p)
	}
}

func optInt64(r *appender.Row, p *int64) {
	if p == nil {
		r.Value(nil)
	} else {
		r.Int64(*p)
	}
}

func optInt32(r *appender.Row, p *int) {
	if p == nil {
		r.Value(nil)
	} else {
		r.Int32(int32(*p))
	}
}

func optFloat64(r *appender.Row, p *float64) {
	if p == nil {
		r.Value(nil)
	} else {
		r.Float64(*p)
	}
}

// EpAttempt appends a row of ep_attempts.
func (w *RowWriter) EpAttempt(a ub.Attempt) error {
	return w.append("ep_attempts", a.RunID, a.TaskID, int32(a.Trial), int32(a.Attempt), a.Kept, nptr(a.Reason),
		nptr(a.SimulationID), a.KeptID, a.SourceFile)
}

// EpTaskSplit appends a row of ep_task_splits (EpDeleteTaskFolder clears
// a domain's first).
func (w *RowWriter) EpTaskSplit(s ub.TaskSplit) error {
	return w.append("ep_task_splits", s.Domain, s.Split, s.TaskID, s.SourceFile)
}

// EpDomain appends a row of ep_domains (EpDeleteTaskFolder clears it
// first).
func (w *RowWriter) EpDomain(d ub.DomainPolicy) error {
	return w.append("ep_domains", d.Domain, d.Policy, d.PolicySHA, d.SourceFile)
}

// EpToolCall appends a row of ep_tool_calls: a call of the episode
// simulationID.
func (w *RowWriter) EpToolCall(simulationID string, c ub.ToolCall) error {
	return w.appendWith("ep_tool_calls", func(r *appender.Row) {
		r.String(simulationID).Int32(int32(c.MsgIdx)).Int32(int32(c.CallIdx))
		optString(r, c.CallID)
		r.String(c.Requestor).String(c.Name).JSON(c.Arguments)
	})
}

// EpCheck appends a row of ep_checks: a check of the episode
// simulationID.
func (w *RowWriter) EpCheck(simulationID string, c ub.Check) error {
	return w.appendWith("ep_checks", func(r *appender.Row) {
		r.String(simulationID).String(c.Kind).Int32(int32(c.Idx))
		optString(r, c.Name)
		optString(r, c.Requestor)
		optBool(r, c.Met)
		optFloat64(r, c.Reward)
		r.JSON(c.Detail)
	})
}

// EpProbeFinding appends a row of ep_probe_findings.
func (w *RowWriter) EpProbeFinding(f ub.ProbeFinding) error {
	return w.appendWith("ep_probe_findings", func(r *appender.Row) {
		r.String(f.SimulationID).String(f.Probe)
		optInt32(r, f.TurnIdx)
		r.String(f.Evidence).JSON(f.Detail)
	})
}

// EpProbeApplicable appends a row of ep_probe_applicable: probe applies to
// the episode simulationID.
func (w *RowWriter) EpProbeApplicable(simulationID, probe string) error {
	return w.append("ep_probe_applicable", simulationID, probe)
}

// EpPrice appends a row of ep_prices (EpStorePrices replaces a stored one).
func (w *RowWriter) EpPrice(p Price) error {
	return w.append("ep_prices", p.Model, p.PriceIn, p.PriceOut, p.ReadOn, p.Source)
}

// Criterion appends a row of ep_rubric_criteria (PutCriteria replaces a
// stored one).
func (w *RowWriter) Criterion(c Criterion) error {
	return w.append("ep_rubric_criteria", criterionValues(c)...)
}

func criterionValues(c Criterion) []driver.Value {
	return []driver.Value{c.CriterionID, c.Domain, c.TaskID, c.Family, c.Mode, c.Quote, c.QuoteSource, c.Text,
		nullStr(c.AppliesWhen), c.WrittenBy, nullStr(c.VerifiedBy), c.Status, nullStr(c.RejectReason),
		nullStr(c.PromptVersion), c.SourceFile, int32(c.SourceLine)}
}

// Verdict appends a row of ep_verdicts (PutVerdicts replaces a stored one).
func (w *RowWriter) Verdict(v StoredVerdict) error {
	return w.append("ep_verdicts", verdictValues(v)...)
}

func verdictValues(v StoredVerdict) []driver.Value {
	return []driver.Value{v.SimulationID, v.CriterionID, v.Grader, v.Verdict, nint32(v.TurnIdx), nullStr(v.Reason),
		nullStr(v.PromptVersion), nullStr(v.RequestKey), v.SourceFile, int32(v.SourceLine)}
}
