package queries

import (
	"database/sql/driver"
	"encoding/json"
)

// The rows of the episode tables (schema 0005 to 0007), for RowWriter. A
// nil pointer and an empty JSON value are stored as NULL: an episode's
// reward 0 and "no reward recorded" are different things.
//
// ingest's parsed types (EpRun, EpTask, Episode, ... in ingest/episode.go)
// have the same fields, in the same order: they are what a file holds,
// these what a table holds. Where the two are equal the ingest type is an
// alias (ingest.EpRun = NewEpRun); the others carry what a file nests (a
// task's actions, an episode's messages) and lack the parent key a row
// repeats.

// NewEpRun is one row of ep_runs.
type NewEpRun struct {
	RunID, SourceFile, Format, Domain string
	GitCommit, Tau2Version, Started   *string
	UserImpl, UserModel               *string
	UserArgs                          json.RawMessage
	UserSim                           string
	AgentImpl, AgentModel             *string
	AgentArgs                         json.RawMessage
	Agent                             string
	Guidelines, PolicySHA             *string
	MaxSteps                          *int
	Seed                              *int64
	// NoUser marks a run without a simulated user (tau2's solo mode):
	// its episodes count in no user-simulator statistic.
	NoUser bool
}

// NoUserSim is the user_sim of a run without a simulated user (NoUser):
// no simulator took part, and none is named.
const NoUserSim = "none (solo mode)"

// NewEpTask is one row of ep_tasks.
type NewEpTask struct {
	Key, Domain, TaskID, Format                                      string
	ReasonForCall, KnownInfo, UnknownInfo, TaskInstructions, Persona *string
	Instruction, UserID, Purpose, Ticket                             *string
	RewardBasis, InitialState, CommunicateInfo, NLAssertions, Raw    json.RawMessage
	SourceFile                                                       string
}

// NewEpTaskAction is one row of ep_task_actions: the Idx-th gold action of
// the task TaskKey.
type NewEpTaskAction struct {
	TaskKey                string
	Idx                    int
	ActionID               *string
	Requestor, Name        string
	Arguments, CompareArgs json.RawMessage
	Info                   *string
}

// NewEpTaskAssertion is one row of ep_task_assertions.
type NewEpTaskAssertion struct {
	TaskKey           string
	Idx               int
	EnvType, FuncName string
	Arguments         json.RawMessage
	AssertValue       *bool
	Message           *string
}

// NewEpisode is one row of ep_episodes.
type NewEpisode struct {
	SimulationID, RunID, SourceFile string
	SourceIndex                     int
	ContentHash, Domain, TaskID     string
	TaskKey                         *string
	Trial                           *int
	Seed                            *int64
	Reward                          *float64
	RewardBasis, RewardBreakdown    json.RawMessage
	DBMatch                         *bool
	TerminationReason               *string
	UserCost, AgentCost             *float64
	UserTokensIn, UserTokensOut     *int64
	Duration                        *float64
	StartedAt                       *string
	NMessages                       int
	Extra                           json.RawMessage
}

// NewEpMessage is one row of ep_messages.
type NewEpMessage struct {
	SimulationID                   string
	Idx, TurnIdx                   int
	Role                           string
	Content, ToolCallID, Requestor *string
	ToolError                      *bool
	NToolCalls                     int
	PromptTokens, CompletionTokens *int64
	Cost                           *float64
	TS                             *string
	TickID                         *int // the tick it was built from (full-duplex episodes; nil: none)
}

// NewEpAttempt is one row of ep_attempts (the attempt ledger).
type NewEpAttempt struct {
	RunID, TaskID string
	Trial         int // -1: none recorded
	Attempt       int // 1-based
	Kept          bool
	Reason        *string // user_hallucination | infrastructure_error
	SimulationID  *string
	KeptID        string
	SourceFile    string
}

// NewEpTaskSplit is one row of ep_task_splits.
type NewEpTaskSplit struct {
	Domain, Split, TaskID, SourceFile string
}

// NewEpDomain is one row of ep_domains: a domain's agent policy.
type NewEpDomain struct {
	Domain, Policy, PolicySHA, SourceFile string
}

// NewEpToolCall is one row of ep_tool_calls.
type NewEpToolCall struct {
	SimulationID    string
	MsgIdx, CallIdx int
	CallID          *string
	Requestor, Name string
	Arguments       json.RawMessage
}

// NewEpCheck is one row of ep_checks.
type NewEpCheck struct {
	SimulationID string
	Kind         string
	Idx          int
	Name         *string
	Requestor    *string
	Met          *bool
	Reward       *float64
	Detail       json.RawMessage
}

// NewEpProbeFinding is one row of ep_probe_findings; TurnIdx nil is a
// finding about the episode as a whole.
type NewEpProbeFinding struct {
	SimulationID, Probe string
	TurnIdx             *int
	Evidence            string
	Detail              json.RawMessage
}

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
func (w *RowWriter) EpRun(r NewEpRun) error {
	return w.append("ep_runs", r.RunID, r.SourceFile, r.Format, r.Domain, nptr(r.GitCommit), nptr(r.Tau2Version),
		nptr(r.Started), nptr(r.UserImpl), nptr(r.UserModel), njson(r.UserArgs), r.UserSim, nptr(r.AgentImpl),
		nptr(r.AgentModel), njson(r.AgentArgs), r.Agent, nptr(r.Guidelines), nptr(r.PolicySHA), nint32(r.MaxSteps),
		nptr(r.Seed), r.NoUser)
}

// EpTask appends a row of ep_tasks.
func (w *RowWriter) EpTask(t NewEpTask) error {
	return w.append("ep_tasks", t.Key, t.Domain, t.TaskID, t.Format, nptr(t.ReasonForCall), nptr(t.KnownInfo),
		nptr(t.UnknownInfo), nptr(t.TaskInstructions), nptr(t.Persona), nptr(t.Instruction), nptr(t.UserID),
		nptr(t.Purpose), nptr(t.Ticket), njson(t.RewardBasis), njson(t.InitialState), njson(t.CommunicateInfo),
		njson(t.NLAssertions), njson(t.Raw), t.SourceFile)
}

// EpTaskAction appends a row of ep_task_actions.
func (w *RowWriter) EpTaskAction(a NewEpTaskAction) error {
	return w.append("ep_task_actions", a.TaskKey, int32(a.Idx), nptr(a.ActionID), a.Requestor, a.Name,
		njson(a.Arguments), njson(a.CompareArgs), nptr(a.Info))
}

// EpTaskAssertion appends a row of ep_task_assertions.
func (w *RowWriter) EpTaskAssertion(a NewEpTaskAssertion) error {
	return w.append("ep_task_assertions", a.TaskKey, int32(a.Idx), a.EnvType, a.FuncName, njson(a.Arguments),
		nptr(a.AssertValue), nptr(a.Message))
}

// Episode appends a row of ep_episodes.
func (w *RowWriter) Episode(e NewEpisode) error {
	return w.append("ep_episodes", e.SimulationID, e.RunID, e.SourceFile, int32(e.SourceIndex), e.ContentHash,
		e.Domain, e.TaskID, nptr(e.TaskKey), nint32(e.Trial), nptr(e.Seed), nptr(e.Reward), njson(e.RewardBasis),
		njson(e.RewardBreakdown), nptr(e.DBMatch), nptr(e.TerminationReason), nptr(e.UserCost), nptr(e.AgentCost),
		nptr(e.UserTokensIn), nptr(e.UserTokensOut), nptr(e.Duration), nptr(e.StartedAt), int32(e.NMessages),
		njson(e.Extra))
}

// EpMessage appends a row of ep_messages.
func (w *RowWriter) EpMessage(m NewEpMessage) error {
	return w.append("ep_messages", m.SimulationID, int32(m.Idx), int32(m.TurnIdx), m.Role, nptr(m.Content),
		nptr(m.ToolCallID), nptr(m.Requestor), nptr(m.ToolError), int32(m.NToolCalls), nptr(m.PromptTokens),
		nptr(m.CompletionTokens), nptr(m.Cost), nptr(m.TS), nint32(m.TickID))
}

// EpAttempt appends a row of ep_attempts.
func (w *RowWriter) EpAttempt(a NewEpAttempt) error {
	return w.append("ep_attempts", a.RunID, a.TaskID, int32(a.Trial), int32(a.Attempt), a.Kept, nptr(a.Reason),
		nptr(a.SimulationID), a.KeptID, a.SourceFile)
}

// EpTaskSplit appends a row of ep_task_splits (EpDeleteTaskFolder clears
// a domain's first).
func (w *RowWriter) EpTaskSplit(s NewEpTaskSplit) error {
	return w.append("ep_task_splits", s.Domain, s.Split, s.TaskID, s.SourceFile)
}

// EpDomain appends a row of ep_domains (EpDeleteTaskFolder clears it
// first).
func (w *RowWriter) EpDomain(d NewEpDomain) error {
	return w.append("ep_domains", d.Domain, d.Policy, d.PolicySHA, d.SourceFile)
}

// EpToolCall appends a row of ep_tool_calls.
func (w *RowWriter) EpToolCall(c NewEpToolCall) error {
	return w.append("ep_tool_calls", c.SimulationID, int32(c.MsgIdx), int32(c.CallIdx), nptr(c.CallID), c.Requestor,
		c.Name, njson(c.Arguments))
}

// EpCheck appends a row of ep_checks.
func (w *RowWriter) EpCheck(c NewEpCheck) error {
	return w.append("ep_checks", c.SimulationID, c.Kind, int32(c.Idx), nptr(c.Name), nptr(c.Requestor), nptr(c.Met),
		nptr(c.Reward), njson(c.Detail))
}

// EpProbeFinding appends a row of ep_probe_findings.
func (w *RowWriter) EpProbeFinding(f NewEpProbeFinding) error {
	return w.append("ep_probe_findings", f.SimulationID, f.Probe, nint32(f.TurnIdx), f.Evidence, njson(f.Detail))
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
