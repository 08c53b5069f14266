package ingest

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"

	"github.com/ub-bench/ub"
)

// The tau-bench v1 trajectory array (corpus/tau2/README.md section 5).

type t1Episode struct {
	TaskID json.RawMessage `json:"task_id"`
	Trial  *int            `json:"trial"`
	Reward *float64        `json:"reward"`
	Traj   *[]t1Message    `json:"traj"`
	Info   *t1Info         `json:"info"`
}

type t1Info struct {
	Task       json.RawMessage `json:"task"`
	Source     *string         `json:"source"`
	UserCost   *float64        `json:"user_cost"`
	RewardInfo *t1RewardInfo   `json:"reward_info"`
}

type t1RewardInfo struct {
	Reward *float64        `json:"reward"`
	Info   json.RawMessage `json:"info"`
}

type t1Message struct {
	Role       string       `json:"role"`
	Content    *string      `json:"content"`
	ToolCalls  []t1ToolCall `json:"tool_calls"`
	ToolCallID *string      `json:"tool_call_id"`
}

type t1ToolCall struct {
	ID       *string    `json:"id"`
	Function t1Function `json:"function"`
}

type t1Function struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type t1Task struct {
	UserID      *string `json:"user_id"`
	Instruction *string `json:"instruction"`
	Actions     []struct {
		Name   string          `json:"name"`
		Kwargs json.RawMessage `json:"kwargs"`
	} `json:"actions"`
	Outputs json.RawMessage `json:"outputs"`
}

// ParseTau1 reads a tau-bench v1 trajectory array. The format records no
// domain, model or simulator: they come from what the user states
// (Options.Tau1, ingest's --domain, --agent and --user-simulator), else
// from the file's name (tau1NameIdent: ub's corpus naming
// <domain>__agent-<agent>__user-<user>.json, the name tau-bench's run.py
// writes, or that of its historical_trajectories), else the domain from
// the tools the tasks use (tau1ToolDomain). An agent nobody names is
// tau1_agent:unknown; a user simulator nobody names is named by the file
// stem (tau1_user:<stem>). Episodes have no id: simulation_id is
// tau1:<stem>:<index>, and content_hash tells a changed copy; the same
// content under another file name is the episode already present (the
// writer's tau1Content).
func ParseTau1(path string, r io.Reader, sink EpisodeSink) error {
	return readEpisodeFile(path, r, sink, parseTau1)
}

// Tau1Names is what the user states of tau-bench v1 files: their domain,
// the agent's model and the user simulator's model ("" for what the file
// name, or the tasks' tools, tell).
type Tau1Names struct {
	Domain, Agent, User string
}

// tau1Ident is what is known of a v1 file's run: the domain ("" unknown)
// and the agent's and user simulator's model and settings.
type tau1Ident struct {
	domain              string
	agent, user         string
	agentArgs, userArgs json.RawMessage
}

// runPyName is the name tau-bench's run.py gives its results:
// {agent_strategy}-{model}-{temperature}_range_{start}-{end}_user-{user_model}-{user_strategy}_{%m%d%H%M%S}.json.
var runPyName = regexp.MustCompile(`^(tool-calling|act|react|few-shot)-(.+)-(\d+(?:\.\d+)?)_range_(\d+)-(-?\d+)_user-(.+)-(human|llm|react|verify|reflection)_(\d+)$`)

// historicalName is the name of tau-bench's historical_trajectories files:
// {model}-{domain}.json (gpt-4o-airline.json, sonnet-35-new-retail.json).
var historicalName = regexp.MustCompile(`^(.+)-(airline|retail)$`)

// tau1NameIdent reads what a v1 file's name says of its run; an empty
// field is what it does not say.
func tau1NameIdent(path string) tau1Ident {
	stem := fileStem(path)
	if d := nameDomain(path); d != "" {
		return tau1Ident{domain: d, agent: namePart(path, "agent-"), user: namePart(path, "user-")}
	}
	if m := runPyName.FindStringSubmatch(stem); m != nil {
		temp, _ := strconv.ParseFloat(m[3], 64)
		agentArgs, _ := json.Marshal(map[string]any{"strategy": m[1], "temperature": temp})
		userArgs, _ := json.Marshal(map[string]any{"strategy": m[7]})
		return tau1Ident{agent: m[2], agentArgs: agentArgs, user: m[6], userArgs: userArgs}
	}
	if m := historicalName.FindStringSubmatch(stem); m != nil {
		// The user simulator is not named: tau-bench's default is
		// gpt-4o, but nothing in the file says it was.
		return tau1Ident{domain: m[2], agent: m[1], user: "unknown"}
	}
	return tau1Ident{}
}

// tau1Tools are the tools only one of tau-bench's two domains has
// (tau_bench/envs/<domain>/tools; calculate, think, get_user_details and
// transfer_to_human_agents are both's).
var tau1Tools = map[string]string{
	"book_reservation": "airline", "cancel_reservation": "airline", "get_reservation_details": "airline",
	"list_all_airports": "airline", "search_direct_flight": "airline", "search_onestop_flight": "airline",
	"send_certificate": "airline", "update_reservation_baggages": "airline", "update_reservation_flights": "airline",
	"update_reservation_passengers": "airline",
	"cancel_pending_order":          "retail", "exchange_delivered_order_items": "retail", "find_user_id_by_email": "retail",
	"find_user_id_by_name_zip": "retail", "get_order_details": "retail", "get_product_details": "retail",
	"list_all_product_types": "retail", "modify_pending_order_address": "retail", "modify_pending_order_items": "retail",
	"modify_pending_order_payment": "retail", "modify_user_address": "retail", "return_delivered_order_items": "retail",
}

// tau1ToolDomain is the domain of the tools a file's tasks and episodes
// call: the one domain whose own tools they use, "" when they use none or
// both's.
func tau1ToolDomain(f *EpisodeFile) string {
	seen := map[string]bool{}
	for _, t := range f.Tasks {
		for _, a := range t.Actions {
			if d := tau1Tools[a.Name]; d != "" {
				seen[d] = true
			}
		}
	}
	for _, e := range f.Episodes {
		for _, c := range e.Calls {
			if d := tau1Tools[c.Name]; d != "" {
				seen[d] = true
			}
		}
	}
	if len(seen) != 1 {
		return ""
	}
	for d := range seen {
		return d
	}
	return ""
}

// sinkTau1Names returns what the user stated of v1 files when the sink
// knows it (the writer, from Options.Tau1).
func sinkTau1Names(sink EpisodeSink) Tau1Names {
	if k, ok := sink.(interface{ tau1Names() Tau1Names }); ok {
		return k.tau1Names()
	}
	return Tau1Names{}
}

// parseTau1 is ParseTau1 on one stream.
func parseTau1(s *jsonStream, sink EpisodeSink) error {
	path := s.path
	f := &EpisodeFile{}
	run := &f.Run
	run.SourceFile, run.Format = path, FormatTau1
	id := tau1NameIdent(path)
	stated := sinkTau1Names(sink)
	if stated.Domain != "" {
		id.domain = stated.Domain
	}
	if stated.Agent != "" {
		id.agent, id.agentArgs = stated.Agent, nil
	}
	if stated.User != "" {
		id.user, id.userArgs = stated.User, nil
	}
	if id.user == "" {
		id.user = fileStem(path)
	}
	if id.agent == "" {
		id.agent = "unknown"
	}
	run.Domain = id.domain
	run.UserImpl, run.UserModel, run.UserArgs = strp("tau1_user"), strp(id.user), id.userArgs
	run.AgentImpl, run.AgentModel, run.AgentArgs = strp("tau1_agent"), strp(id.agent), id.agentArgs
	run.UserSim = IdentityName("tau1_user", id.user, id.userArgs)
	run.Agent = IdentityName("tau1_agent", id.agent, id.agentArgs)
	seen := map[string]bool{}
	stem := fileStem(path)
	key := sinkTaskKey(sink)
	var errs []*ParseError
	ok := jsonArray(s, sink, "tau-bench v1 file: not a JSON array", func(i int, s *jsonStream) error {
		var e t1Episode
		raw, line, err := s.decode(&e)
		if raw == nil {
			return err
		}
		ep, task, err := tau1Decoded(&e, err, raw, run, i, stem, key, s.fast != nil)
		if err != nil {
			errs = append(errs, &ParseError{Path: path, Line: line, Reason: err.Error()})
			return nil
		}
		ep.Line = line
		if task != nil {
			ep.TaskKey, ep.TaskRef = strp(task.Key), task
			if !seen[task.Key] {
				seen[task.Key] = true
				f.Tasks = append(f.Tasks, task)
			}
		}
		f.Episodes = append(f.Episodes, ep)
		return nil
	})
	if !ok {
		return nil
	}
	if run.Domain == "" {
		run.Domain = tau1ToolDomain(f)
		if run.Domain == "" {
			run.Domain = "unknown"
		}
		for _, t := range f.Tasks {
			t.Domain = run.Domain
			t.Key = key(t.Domain, t.TaskID, t.Raw)
		}
		for _, e := range f.Episodes {
			e.Domain = run.Domain
			if e.TaskRef != nil {
				e.TaskKey = strp(e.TaskRef.Key)
			}
		}
	}
	run.RunID = sha([]byte(FormatTau1), []byte(stem), []byte(run.Domain))
	for _, e := range f.Episodes {
		e.RunID = run.RunID
		for i := range e.Attempts {
			e.Attempts[i].RunID = run.RunID
		}
	}
	for _, e := range errs {
		sink.Error(e)
	}
	return sink.EpisodeFile(f)
}

// tau1IDPrefix begins the id of every tau-bench v1 episode.
const tau1IDPrefix = "tau1:"

// tau1Decoded makes the episode of an array element decoded into ep, with
// decErr the decoding error, raw its JSON; fast: read in the fast pass
// (unmarshal).
func tau1Decoded(ep1 *t1Episode, decErr error, raw []byte, run *ub.Run, idx int, stem string, key taskKeyFunc, fast bool) (*ub.Episode, *ub.Task, error) {
	e := *ep1
	where := fmt.Sprintf("episode %d", idx)
	if decErr != nil {
		return nil, nil, fmt.Errorf("%s: %v", where, decErr)
	}
	taskID, ok := idString(e.TaskID)
	if !ok {
		return nil, nil, fmt.Errorf("%s: missing \"task_id\"", where)
	}
	where += " (task " + taskID + ")"
	if e.Traj == nil {
		return nil, nil, fmt.Errorf("%s: missing \"traj\"", where)
	}
	ep := &ub.Episode{SimulationID: tau1IDPrefix + stem + ":" + strconv.Itoa(idx),
		RunID: run.RunID, SourceFile: run.SourceFile, SourceIndex: idx, ContentHash: sha(raw), Domain: run.Domain,
		TaskID: taskID, Trial: e.Trial, Reward: e.Reward}
	var task *ub.Task
	if e.Info != nil {
		if e.Info.Source != nil {
			if *e.Info.Source == "user" {
				ep.TerminationReason = strp("user_stop")
			} else {
				ep.TerminationReason = e.Info.Source
			}
		}
		ep.UserCost = e.Info.UserCost
		if tr := nullRaw(e.Info.Task); tr != nil {
			var t t1Task
			if err := unmarshal(fast, tr, &t); err != nil {
				return nil, nil, fmt.Errorf("%s: info.task: %v", where, err)
			}
			task = &ub.Task{Domain: run.Domain, TaskID: taskID, Format: FormatTau1,
				Instruction: t.Instruction, UserID: t.UserID, CommunicateInfo: nullRaw(t.Outputs), Raw: tr,
				SourceFile: run.SourceFile, Key: key(run.Domain, taskID, tr)}
			for _, a := range t.Actions {
				task.Actions = append(task.Actions, ub.TaskAction{Requestor: "assistant", Name: a.Name, Arguments: nullRaw(a.Kwargs)})
			}
		}
		if ri := e.Info.RewardInfo; ri != nil {
			var in struct {
				RActions  *float64        `json:"r_actions"`
				ROutputs  *float64        `json:"r_outputs"`
				Outputs   map[string]bool `json:"outputs"`
				GTHash    *string         `json:"gt_data_hash"`
				rawIgnore json.RawMessage
			}
			if err := unmarshal(fast, ri.Info, &in); err != nil && fast && len(ri.Info) > 0 {
				// The exact pass ignores the error; the fast one need
				// not decide what encoding/json makes of it.
				return nil, nil, fmt.Errorf("%s: info.reward_info.info: %v", where, err)
			}
			if in.RActions != nil {
				met := *in.RActions == 1
				ep.DBMatch = &met
				ep.Checks = append(ep.Checks, ub.Check{Kind: "db", Name: strp("r_actions"), Met: &met, Reward: in.RActions, Detail: nullRaw(ri.Info)})
			}
			keys := make([]string, 0, len(in.Outputs))
			for k := range in.Outputs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for i, k := range keys {
				met := in.Outputs[k]
				ep.Checks = append(ep.Checks, ub.Check{Kind: "output", Idx: i, Name: strp(k), Met: &met})
			}
		}
	}
	for i, m := range *e.Traj {
		switch m.Role {
		case "user", "assistant", "tool", "system":
		default:
			return nil, nil, fmt.Errorf("%s: message %d: role %q (want user, assistant, tool or system)", where, i, m.Role)
		}
		em := ub.Message{Idx: i, TurnIdx: i, Role: m.Role, Content: m.Content, NToolCalls: len(m.ToolCalls)}
		if m.Role == "tool" {
			em.ToolCallID, em.Requestor = m.ToolCallID, strp("assistant")
		}
		ep.Messages = append(ep.Messages, em)
		for j, c := range m.ToolCalls {
			args := json.RawMessage(c.Function.Arguments)
			if !json.Valid(args) {
				b, _ := json.Marshal(c.Function.Arguments)
				args = b
			}
			ep.Calls = append(ep.Calls, ub.ToolCall{MsgIdx: i, CallIdx: j, CallID: c.ID, Requestor: "assistant",
				Name: c.Function.Name, Arguments: nullRaw(args)})
		}
	}
	return ep, task, nil
}
