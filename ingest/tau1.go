package ingest

import (
	"encoding/json"
	"fmt"
	"io"
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
	Info   *struct {
		Task       json.RawMessage `json:"task"`
		Source     *string         `json:"source"`
		UserCost   *float64        `json:"user_cost"`
		RewardInfo *struct {
			Reward *float64        `json:"reward"`
			Info   json.RawMessage `json:"info"`
		} `json:"reward_info"`
	} `json:"info"`
}

type t1Message struct {
	Role      string  `json:"role"`
	Content   *string `json:"content"`
	ToolCalls []struct {
		ID       *string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID *string `json:"tool_call_id"`
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
// domain, model or simulator: they come from a corpus-style file name
// <domain>__agent-<agent>__user-<user>.json (domain "unknown", agent
// tau1_agent:unknown otherwise), the user simulator being named
// tau1_user:<user> (the file stem when the name does not follow the
// convention). Episodes have no id: simulation_id is tau1:<stem>:<index>, and
// content_hash tells a changed copy; the same content under another file
// name is the episode already present (the writer's tau1Content).
func ParseTau1(path string, r io.Reader, sink EpisodeSink) error {
	return readEpisodeFile(path, r, sink, parseTau1)
}

// parseTau1 is ParseTau1 on one stream.
func parseTau1(s *jsonStream, sink EpisodeSink) error {
	path := s.path
	f := &EpisodeFile{}
	run := &f.Run
	run.SourceFile, run.Format = path, FormatTau1
	run.Domain = nameDomain(path)
	if run.Domain == "" {
		run.Domain = "unknown"
	}
	user := namePart(path, "user-")
	if user == "" {
		user = fileStem(path)
	}
	agent := namePart(path, "agent-")
	if agent == "" {
		agent = "unknown"
	}
	run.UserImpl, run.UserModel = strp("tau1_user"), strp(user)
	run.AgentImpl, run.AgentModel = strp("tau1_agent"), strp(agent)
	run.UserSim = IdentityName("tau1_user", user, nil)
	run.Agent = IdentityName("tau1_agent", agent, nil)
	run.RunID = sha([]byte(FormatTau1), []byte(fileStem(path)), []byte(run.Domain))
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
		ep, task, err := tau1Decoded(&e, err, raw, run, i, stem, key)
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
	for _, e := range errs {
		sink.Error(e)
	}
	return sink.EpisodeFile(f)
}

// tau1IDPrefix begins the id of every tau-bench v1 episode.
const tau1IDPrefix = "tau1:"

// tau1Decoded makes the episode of an array element decoded into ep, with
// decErr the decoding error, raw its JSON.
func tau1Decoded(ep1 *t1Episode, decErr error, raw []byte, run *ub.Run, idx int, stem string, key taskKeyFunc) (*ub.Episode, *ub.Task, error) {
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
			if err := json.Unmarshal(tr, &t); err != nil {
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
			_ = json.Unmarshal(ri.Info, &in)
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
