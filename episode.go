package ub

import "encoding/json"

// The tau2-bench side of the data model: a Run of a user simulator and an
// agent on the Tasks of a domain, each simulation an Episode with its
// Messages, ToolCalls, reward Checks and Attempts. The fields are the
// columns of the ep_* tables (schema 0005 to 0007), in their order. A nil
// pointer and an empty JSON value mean "not recorded" and are stored as
// NULL: an episode's reward 0 and "no reward recorded" are different things.

// Run is one result file's configuration (ep_runs): who simulated the user
// (UserSim, a readable identity name) and who the agent was.
type Run struct {
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

// NoUserSim is the user_sim of a run without a simulated user (Run.NoUser):
// no simulator took part, and none is named.
const NoUserSim = "none (solo mode)"

// InfraError is the termination_reason of the placeholder tau2 writes for
// a simulation that never ran (a lost worker, retries exhausted): no
// messages, no reward; tau2 keeps it out of every metric.
const InfraError = "infrastructure_error"

// Tau2ReviewedFile is the file tau2 review writes beside a dir-format run:
// the run's results with each simulation's reviews, as a monolithic file.
const Tau2ReviewedFile = "results_reviewed.json"

// Task is one task definition (ep_tasks) with its gold actions and env
// assertions. Key is TaskKey: the same task content has the same key
// whichever file embeds it.
type Task struct {
	Key, Domain, TaskID, Format                                      string
	ReasonForCall, KnownInfo, UnknownInfo, TaskInstructions, Persona *string
	Instruction, UserID, Purpose, Ticket                             *string
	RewardBasis, InitialState, CommunicateInfo, NLAssertions, Raw    json.RawMessage
	SourceFile                                                       string
	Actions                                                          []TaskAction    // ep_task_actions, in order
	Assertions                                                       []TaskAssertion // ep_task_assertions, in order
}

// TaskAction is a gold action of a task; Requestor is "assistant" or
// "user". CompareArgs nil means every argument is compared.
type TaskAction struct {
	ActionID               *string
	Requestor, Name        string
	Arguments, CompareArgs json.RawMessage
	Info                   *string
}

// TaskAssertion is an env assertion of a task.
type TaskAssertion struct {
	EnvType, FuncName string
	Arguments         json.RawMessage
	AssertValue       *bool
	Message           *string
}

// Episode is one simulation (ep_episodes) with its messages, tool calls,
// reward checks and attempts. NMessages is the stored message count (the
// writer of a parsed episode sets it from Messages).
type Episode struct {
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

	Messages []Message
	Calls    []ToolCall
	Checks   []Check
	Line     int   // where the simulation starts in its file (not stored)
	TaskRef  *Task // the task of TaskKey, as parsed (nil: none; not stored)
	// Attempts is the attempt ledger of the episode's task and trial
	// (tau2 records hallucination retries); nil when nothing was retried
	// or failed.
	Attempts []Attempt
	// NoUser: the episode's run has no simulated user (Run.NoUser; not
	// stored with the episode).
	NoUser bool
}

// NotRun reports whether e is the placeholder of a simulation that never
// ran (termination_reason InfraError).
func (e *Episode) NotRun() bool {
	return e.TerminationReason != nil && *e.TerminationReason == InfraError
}

// Message is one message of an episode (ep_messages).
type Message struct {
	Idx, TurnIdx                   int
	Role                           string // user | assistant | tool
	Content, ToolCallID, Requestor *string
	ToolError                      *bool
	NToolCalls                     int
	PromptTokens, CompletionTokens *int64
	Cost                           *float64
	TS                             *string
	TickID                         *int // full-duplex: the tick it was built from (nil: none)
}

// ToolCall is one tool call made in message MsgIdx (ep_tool_calls).
type ToolCall struct {
	MsgIdx, CallIdx int
	CallID          *string
	Requestor, Name string
	Arguments       json.RawMessage
}

// Check is one item of an episode's reward evaluation (ep_checks).
type Check struct {
	Kind      string
	Idx       int
	Name      *string
	Requestor *string
	Met       *bool
	Reward    *float64
	Detail    json.RawMessage
}

// Attempt is one entry of the attempt ledger (ep_attempts).
type Attempt struct {
	RunID, TaskID string
	Trial         int // -1: none recorded
	Attempt       int // 1-based
	Kept          bool
	Reason        *string // user_hallucination | infrastructure_error
	SimulationID  *string
	KeptID        string
	SourceFile    string
}

// TaskSplit puts a task of a domain in a named split (ep_task_splits).
type TaskSplit struct {
	Domain, Split, TaskID, SourceFile string
}

// DomainPolicy is a domain's agent policy (ep_domains).
type DomainPolicy struct {
	Domain, Policy, PolicySHA, SourceFile string
}

// ProbeFinding is one finding of a judge-free probe on an episode
// (ep_probe_findings); TurnIdx nil is a finding about the episode as a
// whole.
type ProbeFinding struct {
	SimulationID, Probe string
	TurnIdx             *int
	Evidence            string
	Detail              json.RawMessage
}
