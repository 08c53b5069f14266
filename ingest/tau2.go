package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/ub-bench/ub"
)

// The tau2-bench result file (corpus/tau2/README.md section 3). Fields the
// readers do not know are ignored; pointers tell null or missing from zero.

type t2Info struct {
	GitCommit   *string  `json:"git_commit"`
	Version     *string  `json:"tau2_version"`
	MaxSteps    *int     `json:"max_steps"`
	Seed        *int64   `json:"seed"`
	UserInfo    *t2Actor `json:"user_info"`
	AgentInfo   *t2Actor `json:"agent_info"`
	Environment *struct {
		DomainName *string `json:"domain_name"`
		Policy     *string `json:"policy"`
	} `json:"environment_info"`
}

type t2Actor struct {
	Implementation *string         `json:"implementation"`
	LLM            *string         `json:"llm"`
	LLMArgs        json.RawMessage `json:"llm_args"`
	Guidelines     *string         `json:"global_simulation_guidelines"`
}

type t2Task struct {
	ID          json.RawMessage `json:"id"`
	Description *struct {
		Purpose *string `json:"purpose"`
	} `json:"description"`
	UserScenario *struct {
		Persona      *string         `json:"persona"`
		Instructions json.RawMessage `json:"instructions"`
	} `json:"user_scenario"`
	Ticket             *string         `json:"ticket"`
	InitialState       json.RawMessage `json:"initial_state"`
	EvaluationCriteria *struct {
		Actions         []t2Action      `json:"actions"`
		EnvAssertions   []t2Assertion   `json:"env_assertions"`
		CommunicateInfo json.RawMessage `json:"communicate_info"`
		NLAssertions    json.RawMessage `json:"nl_assertions"`
		RewardBasis     json.RawMessage `json:"reward_basis"`
	} `json:"evaluation_criteria"`
}

type t2Instructions struct {
	Domain           *string `json:"domain"`
	ReasonForCall    *string `json:"reason_for_call"`
	KnownInfo        *string `json:"known_info"`
	UnknownInfo      *string `json:"unknown_info"`
	TaskInstructions *string `json:"task_instructions"`
}

type t2Action struct {
	ActionID    *string         `json:"action_id"`
	Requestor   *string         `json:"requestor"`
	Name        string          `json:"name"`
	Arguments   json.RawMessage `json:"arguments"`
	Info        *string         `json:"info"`
	CompareArgs json.RawMessage `json:"compare_args"`
}

type t2Assertion struct {
	EnvType     string          `json:"env_type"`
	FuncName    string          `json:"func_name"`
	Arguments   json.RawMessage `json:"arguments"`
	AssertValue *bool           `json:"assert_value"`
	Message     *string         `json:"message"`
}

type t2Sim struct {
	ID                *string         `json:"id"`
	TaskID            json.RawMessage `json:"task_id"`
	Trial             *int            `json:"trial"`
	Seed              *int64          `json:"seed"`
	StartTime         *string         `json:"start_time"`
	Timestamp         *string         `json:"timestamp"`
	Duration          *float64        `json:"duration"`
	TerminationReason *string         `json:"termination_reason"`
	AgentCost         *float64        `json:"agent_cost"`
	// AgentUsage is the agent's provider usage of a voice run (newer
	// tau2): its cost is the agent's when agent_cost is null; null
	// itself when a record could not be priced.
	AgentUsage *t2AgentUsage `json:"agent_usage"`
	UserCost   *float64      `json:"user_cost"`
	RewardInfo *t2Reward     `json:"reward_info"`
	Messages   *[]t2Message  `json:"messages"`
	Ticks      *[]t2Tick     `json:"ticks"` // full-duplex: the conversation when messages is null
	// Voice runs re-run a simulation when the hallucination checker fires.
	HallucinationRetriesUsed *int `json:"hallucination_retries_used"`
	// Optional fields kept verbatim in extra.
	UserOnlyReview json.RawMessage `json:"user_only_review"`
	Review         json.RawMessage `json:"review"`
	Mode           json.RawMessage `json:"mode"`
}

type t2Reward struct {
	Reward            *float64          `json:"reward"`
	RewardBasis       json.RawMessage   `json:"reward_basis"`
	RewardBreakdown   json.RawMessage   `json:"reward_breakdown"`
	DBCheck           *t2DBCheck        `json:"db_check"`
	EnvAssertions     []t2EnvCheck      `json:"env_assertions"`
	ActionChecks      []t2ActionCheck   `json:"action_checks"`
	CommunicateChecks []json.RawMessage `json:"communicate_checks"`
	NLAssertions      []json.RawMessage `json:"nl_assertions"`
}

type t2AgentUsage struct {
	Cost *float64 `json:"cost"`
}

type t2DBCheck struct {
	DBMatch  *bool    `json:"db_match"`
	DBReward *float64 `json:"db_reward"`
}

type t2EnvCheck struct {
	EnvAssertion json.RawMessage `json:"env_assertion"`
	Met          *bool           `json:"met"`
	Reward       *float64        `json:"reward"`
}

type t2ActionCheck struct {
	Action      json.RawMessage `json:"action"`
	ActionMatch *bool           `json:"action_match"`
	Reward      *float64        `json:"action_reward"`
}

type t2Usage struct {
	PromptTokens     *int64 `json:"prompt_tokens"`
	CompletionTokens *int64 `json:"completion_tokens"`
}

type t2Message struct {
	Role      string       `json:"role"`
	Content   *string      `json:"content"`
	ToolCalls []t2ToolCall `json:"tool_calls"`
	TurnIdx   *int         `json:"turn_idx"`
	Timestamp *string      `json:"timestamp"`
	Cost      *float64     `json:"cost"`
	Usage     *t2Usage     `json:"usage"`
	ID        *string      `json:"id"`
	Requestor *string      `json:"requestor"`
	Error     *bool        `json:"error"`
	IsAudio   *bool        `json:"is_audio"` // content is base64 audio, not text
}

// t2Tick is one tick of a full-duplex simulation (tau2 message.py Tick).
type t2Tick struct {
	TickID           *int         `json:"tick_id"`
	Timestamp        *string      `json:"timestamp"`
	AgentChunk       *t2Message   `json:"agent_chunk"`
	UserChunk        *t2Message   `json:"user_chunk"`
	AgentToolCalls   []t2ToolCall `json:"agent_tool_calls"`
	UserToolCalls    []t2ToolCall `json:"user_tool_calls"`
	AgentToolResults []t2Message  `json:"agent_tool_results"`
	UserToolResults  []t2Message  `json:"user_tool_results"`
}

type t2ToolCall struct {
	ID        *string         `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Requestor *string         `json:"requestor"`
}

// ParseTau2 reads a tau2-bench result file. A file that is not valid JSON is
// one error; a simulation with missing or mistyped fields is reported with
// its index and id and the others still land; a task that cannot be read is
// reported and its episodes keep a null task_key.
func ParseTau2(path string, r io.Reader, sink EpisodeSink) error {
	return readEpisodeFile(path, r, sink, parseTau2)
}

// parseTau2 is ParseTau2 on one stream.
func parseTau2(s *jsonStream, sink EpisodeSink) error { return parseTau2Run(s, sink, nil) }

// parseTau2Run reads a result file, or with dir the results.json of a
// dir-format run, whose simulations dir then reads.
func parseTau2Run(s *jsonStream, sink EpisodeSink, dir *tau2Dir) error {
	path := s.path
	// fail reports err when the rest of the file is valid JSON, and the
	// file's syntax error otherwise; depth is the nesting left open.
	fail := func(pe *ParseError, depth int) error {
		if se := s.drain(depth); se != nil {
			pe = se
		}
		sink.Error(pe)
		return nil
	}
	t, err := s.token()
	if err != nil {
		sink.Error(s.syntaxError(err))
		return nil
	}
	if t != json.Delim('{') {
		return fail(&ParseError{Path: path, Line: 1, Reason: "tau2 result file: not a JSON object"}, depthOf(t))
	}
	p := &tau2File{f: &EpisodeFile{}, path: path, key: sinkTaskKey(sink), fast: s.fast != nil, seen: sinkTaskSeen(sink)}
	p.f.Run.SourceFile, p.f.Run.Format = path, FormatTau2
	sawTasks, sawSims := false, false
	for s.more() {
		t, err := s.token()
		if err != nil {
			sink.Error(s.syntaxError(err))
			return nil
		}
		key, _ := t.(string)
		switch key {
		case "info":
			raw, line, err := s.value()
			if err != nil {
				sink.Error(s.syntaxError(err))
				return nil
			}
			p.infoRaw = raw
			if err := unmarshal(s.fast != nil, raw, &p.info); err != nil {
				return fail(&ParseError{Path: path, Line: line, Reason: "info: " + err.Error()}, 1)
			}
		case "timestamp":
			raw, _, err := s.value()
			if err != nil {
				sink.Error(s.syntaxError(err))
				return nil
			}
			var ts *string
			if json.Unmarshal(raw, &ts) == nil {
				p.started = ts
			}
		case "simulation_index":
			raw, line, err := s.value()
			if err != nil {
				sink.Error(s.syntaxError(err))
				return nil
			}
			if dir == nil || nullRaw(raw) == nil {
				// tau2 checks the files against the index only when
				// there is one ("simulation_index": null: none).
				continue
			}
			dir.indexLine = line
			if err := json.Unmarshal(raw, &dir.index); err != nil {
				return fail(&ParseError{Path: path, Line: line, Reason: "simulation_index: " + err.Error()}, 1)
			}
		case "tasks", "simulations":
			if key == "simulations" && dir != nil {
				// A dir-format run's simulations are its files (as
				// tau2's Results.load has it).
				if _, _, err := s.value(); err != nil {
					sink.Error(s.syntaxError(err))
					return nil
				}
				continue
			}
			t, err := s.token()
			if err != nil {
				sink.Error(s.syntaxError(err))
				return nil
			}
			if t != json.Delim('[') {
				if t == nil { // null
					continue
				}
				return fail(&ParseError{Path: path, Line: s.line(), Reason: fmt.Sprintf("%q is not an array", key)}, 1+depthOf(t))
			}
			if key == "simulations" {
				sawSims = true
			} else {
				sawTasks = true
			}
			// Simulations that follow info and tasks (as tau2 writes
			// them) are read one at a time; others wait for the end.
			now := key == "simulations" && p.infoRaw != nil && sawTasks
			if now {
				p.header()
			}
			for s.more() {
				if now {
					var sim t2Sim
					raw, line, err := s.decode(&sim)
					if raw == nil {
						sink.Error(s.syntaxError(err))
						return nil
					}
					p.simulation(&sim, err, rawAt{raw, line})
					continue
				}
				raw, line, err := s.value()
				if err != nil {
					sink.Error(s.syntaxError(err))
					return nil
				}
				if key == "tasks" {
					p.tasks = append(p.tasks, rawAt{raw, line})
				} else {
					p.sims = append(p.sims, rawAt{raw, line})
				}
			}
			if _, err := s.token(); err != nil {
				sink.Error(s.syntaxError(err))
				return nil
			}
		default:
			if _, _, err := s.value(); err != nil {
				sink.Error(s.syntaxError(err))
				return nil
			}
		}
	}
	if pe := s.finish(); pe != nil {
		sink.Error(pe)
		return nil
	}
	if p.infoRaw == nil {
		sink.Error(&ParseError{Path: path, Line: 1, Reason: `tau2 result file without "info"`})
		return nil
	}
	if dir != nil {
		p.header()
		return dir.read(p, sink)
	}
	if !sawSims {
		sink.Error(&ParseError{Path: path, Line: 1, Reason: `tau2 result file without "simulations"`})
		return nil
	}
	p.header()
	for _, r := range p.sims {
		var sim t2Sim
		err := json.Unmarshal(r.raw, &sim)
		p.simulation(&sim, err, r)
	}
	for _, e := range p.errs {
		sink.Error(e)
	}
	return sink.EpisodeFile(p.f)
}

// tau2SoloUser is the user implementation of tau2's solo ("no-user")
// mode.
const tau2SoloUser = "dummy_user"

// rawAt is a value of a file and the line it starts on.
type rawAt struct {
	raw  json.RawMessage
	line int
}

// tau2File is a tau2 result file being read.
type tau2File struct {
	f         *EpisodeFile
	path      string
	info      t2Info
	infoRaw   json.RawMessage
	started   *string
	key       taskKeyFunc
	seen      seenTasks // the sink's tasks made so far (sinkTaskSeen; nil: none)
	tasks     []rawAt   // until header
	sims      []rawAt   // simulations read before info and tasks
	byID      map[string]*ub.Task
	errs      []*ParseError // reported once the whole file is known to be JSON
	headerSet bool
	nSims     int
	fast      bool // read in the fast pass (unmarshal)
}

// header sets the run from info and reads the tasks, once.
func (p *tau2File) header() {
	if p.headerSet {
		return
	}
	p.headerSet = true
	info, path := &p.info, p.path
	run := &p.f.Run
	run.RunID = sha([]byte(FormatTau2), canonical(p.infoRaw), []byte(deref(p.started)))
	run.GitCommit, run.Tau2Version, run.Started, run.MaxSteps, run.Seed = info.GitCommit, info.Version, p.started, info.MaxSteps, info.Seed
	if u := info.UserInfo; u != nil {
		run.UserImpl, run.UserModel, run.UserArgs, run.Guidelines = u.Implementation, u.LLM, nullRaw(u.LLMArgs), u.Guidelines
		// tau2's solo mode: a dummy user that never speaks; the agent
		// works alone and performs the user's actions.
		run.NoUser = deref(u.Implementation) == tau2SoloUser
	}
	if a := info.AgentInfo; a != nil {
		run.AgentImpl, run.AgentModel, run.AgentArgs = a.Implementation, a.LLM, nullRaw(a.LLMArgs)
	}
	run.UserSim = IdentityName(deref(run.UserImpl), deref(run.UserModel), run.UserArgs)
	if run.NoUser {
		run.UserSim = ub.NoUserSim
	}
	run.Agent = IdentityName(deref(run.AgentImpl), deref(run.AgentModel), run.AgentArgs)
	if e := info.Environment; e != nil {
		if e.DomainName != nil {
			run.Domain = *e.DomainName
		}
		if e.Policy != nil {
			s := sha([]byte(*e.Policy))
			run.PolicySHA = &s
		}
	}
	p.byID = map[string]*ub.Task{}
	for i, t := range p.tasks {
		task, err := p.task(t.raw, run.Domain)
		if err != nil {
			p.errs = append(p.errs, &ParseError{Path: path, Line: t.line, Reason: fmt.Sprintf("task %d: %v", i, err)})
			continue
		}
		if run.Domain == "" {
			run.Domain = task.Domain
		}
		p.f.Tasks = append(p.f.Tasks, task)
		p.byID[task.TaskID] = task
	}
	p.tasks = nil
	if run.Domain == "" {
		run.Domain = nameDomain(path)
	}
	if run.Domain == "" {
		run.Domain = "unknown"
	}
	for _, task := range p.f.Tasks {
		if task.Domain == "" {
			task.Domain = run.Domain
			task.Key = p.key(task.Domain, task.TaskID, task.Raw)
		}
	}
}

// simulation makes the file's next episode from a simulation decoded into
// sim (decErr: the decoding error) and its JSON.
func (p *tau2File) simulation(sim *t2Sim, decErr error, s rawAt) {
	i := p.nSims
	p.nSims++
	ep, err := tau2Decoded(sim, decErr, s.raw, &p.f.Run, i)
	if err != nil {
		p.errs = append(p.errs, &ParseError{Path: p.path, Line: s.line, Reason: err.Error()})
		return
	}
	ep.Line = s.line
	if t := p.byID[ep.TaskID]; t != nil {
		ep.TaskKey, ep.TaskRef = strp(t.Key), t
	}
	p.f.Episodes = append(p.f.Episodes, ep)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// tau2Task reads one task object; domain "" takes the task's own
// instructions.domain; fast: read in the fast pass (unmarshal).
// task is tau2Task of one of the file's tasks. Every result file of a
// domain embeds the same tasks: one made from the same JSON for the same
// domain before (p.seen) is copied, with this file as its source.
func (p *tau2File) task(raw json.RawMessage, domain string) (*ub.Task, error) {
	if p.seen == nil {
		return tau2Task(raw, domain, p.path, p.key, p.fast)
	}
	byJSON := p.seen.of(p.fast, domain)
	if t, ok := byJSON[string(raw)]; ok {
		c := *t
		c.SourceFile, c.Raw = p.path, raw
		return &c, nil
	}
	t, err := tau2Task(raw, domain, p.path, p.key, p.fast)
	if err != nil {
		return nil, err
	}
	// The copy kept: the file may change its task (its domain, its key),
	// not this; its JSON is the map's key (a copy), not the file's bytes.
	c := *t
	c.Raw = nil
	byJSON[string(raw)] = &c
	return t, nil
}

// seenTasks are the tau2 tasks a run made so far, by how they were read
// (the fast pass or the exact one), their domain and their JSON.
type seenTasks map[seenKey]map[string]*ub.Task

type seenKey struct {
	fast   bool
	domain string
}

// of returns the tasks read one way for one domain, by JSON.
func (s seenTasks) of(fast bool, domain string) map[string]*ub.Task {
	k := seenKey{fast, domain}
	m := s[k]
	if m == nil {
		m = map[string]*ub.Task{}
		s[k] = m
	}
	return m
}

func tau2Task(raw json.RawMessage, domain, path string, key taskKeyFunc, fast bool) (*ub.Task, error) {
	var t t2Task
	if err := unmarshal(fast, raw, &t); err != nil {
		return nil, err
	}
	id, ok := idString(t.ID)
	if !ok {
		return nil, errors.New(`missing "id"`)
	}
	task := &ub.Task{TaskID: id, Format: FormatTau2, Raw: raw, SourceFile: path,
		InitialState: nullRaw(t.InitialState)}
	if t.Description != nil {
		task.Purpose = t.Description.Purpose
	}
	task.Ticket = t.Ticket
	if us := t.UserScenario; us != nil {
		task.Persona = us.Persona
		in := nullRaw(us.Instructions)
		if len(in) > 0 && in[0] == '"' {
			var s string
			if err := unmarshal(fast, in, &s); err == nil {
				task.Instruction = &s
			}
		} else if len(in) > 0 {
			var ins t2Instructions
			if err := unmarshal(fast, in, &ins); err != nil {
				return nil, fmt.Errorf("task %s: user_scenario.instructions: %v", id, err)
			}
			task.ReasonForCall, task.KnownInfo, task.UnknownInfo, task.TaskInstructions =
				ins.ReasonForCall, ins.KnownInfo, ins.UnknownInfo, ins.TaskInstructions
			if domain == "" && ins.Domain != nil {
				domain = *ins.Domain
			}
		}
	}
	if ec := t.EvaluationCriteria; ec != nil {
		task.RewardBasis, task.CommunicateInfo, task.NLAssertions = nullRaw(ec.RewardBasis), nullRaw(ec.CommunicateInfo), nullRaw(ec.NLAssertions)
		for _, a := range ec.Actions {
			req := "assistant"
			if a.Requestor != nil && *a.Requestor == "user" {
				req = "user"
			}
			task.Actions = append(task.Actions, ub.TaskAction{ActionID: a.ActionID, Requestor: req, Name: a.Name,
				Arguments: nullRaw(a.Arguments), CompareArgs: nullRaw(a.CompareArgs), Info: a.Info})
		}
		for _, a := range ec.EnvAssertions {
			task.Assertions = append(task.Assertions, ub.TaskAssertion{EnvType: a.EnvType, FuncName: a.FuncName,
				Arguments: nullRaw(a.Arguments), AssertValue: a.AssertValue, Message: a.Message})
		}
	}
	task.Domain = domain
	if domain != "" {
		task.Key = key(domain, id, raw)
	}
	return task, nil
}

// tau2Decoded makes the episode of a simulation decoded into sp (err: the
// decoding error, as json.Unmarshal gives it) from its JSON, raw; errors
// name its index and id.
func tau2Decoded(sp *t2Sim, err error, raw []byte, run *ub.Run, idx int) (*ub.Episode, error) {
	s := *sp
	where := fmt.Sprintf("simulation %d", idx)
	if s.ID != nil {
		where += " (id " + *s.ID + ")"
	} else {
		var probe struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(raw, &probe) == nil && probe.ID != nil {
			where += fmt.Sprintf(" (id %v)", probe.ID)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if s.ID == nil || *s.ID == "" {
		return nil, fmt.Errorf("%s: missing \"id\"", where)
	}
	taskID, ok := idString(s.TaskID)
	if !ok {
		return nil, fmt.Errorf("%s: missing \"task_id\"", where)
	}
	msgs, ticks := []t2Message(nil), []int(nil)
	switch {
	case s.Messages != nil:
		msgs = *s.Messages
	case s.Ticks != nil:
		var err error
		if msgs, ticks, err = tickMessages(*s.Ticks); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
	default:
		return nil, fmt.Errorf("%s: missing \"messages\" (and no \"ticks\")", where)
	}
	ep := &ub.Episode{SimulationID: *s.ID, RunID: run.RunID, SourceFile: run.SourceFile,
		SourceIndex: idx, ContentHash: sha(raw), Domain: run.Domain, TaskID: taskID, Trial: s.Trial, Seed: s.Seed,
		TerminationReason: s.TerminationReason, UserCost: s.UserCost, AgentCost: s.AgentCost, Duration: s.Duration,
		StartedAt: s.StartTime, NoUser: run.NoUser}
	if ep.StartedAt == nil {
		ep.StartedAt = s.Timestamp
	}
	if ep.AgentCost == nil && s.AgentUsage != nil {
		ep.AgentCost = s.AgentUsage.Cost // unknown (null) stays unknown
	}
	extra := map[string]json.RawMessage{}
	for k, v := range map[string]json.RawMessage{"user_only_review": s.UserOnlyReview, "review": s.Review, "mode": s.Mode} {
		if v = nullRaw(v); v != nil {
			extra[k] = v
		}
	}
	if len(extra) > 0 {
		b, _ := json.Marshal(extra)
		ep.Extra = b
	}
	if ri := s.RewardInfo; ri != nil {
		ep.Reward, ep.RewardBasis, ep.RewardBreakdown = ri.Reward, nullRaw(ri.RewardBasis), nullRaw(ri.RewardBreakdown)
		if ri.DBCheck != nil {
			ep.DBMatch = ri.DBCheck.DBMatch
			d, _ := json.Marshal(ri.DBCheck)
			ep.Checks = append(ep.Checks, ub.Check{Kind: "db", Idx: 0, Name: strp("db_match"), Met: ri.DBCheck.DBMatch, Reward: ri.DBCheck.DBReward, Detail: d})
		}
		for i, a := range ri.ActionChecks {
			var act struct {
				Name      string  `json:"name"`
				Requestor *string `json:"requestor"`
			}
			_ = json.Unmarshal(a.Action, &act)
			req := "assistant"
			if act.Requestor != nil && *act.Requestor == "user" {
				req = "user"
			}
			ep.Checks = append(ep.Checks, ub.Check{Kind: "action", Idx: i, Name: strp(act.Name), Requestor: strp(req),
				Met: a.ActionMatch, Reward: a.Reward, Detail: nullRaw(a.Action)})
		}
		for i, a := range ri.EnvAssertions {
			var as struct {
				FuncName string `json:"func_name"`
			}
			_ = json.Unmarshal(a.EnvAssertion, &as)
			ep.Checks = append(ep.Checks, ub.Check{Kind: "env_assertion", Idx: i, Name: strp(as.FuncName), Met: a.Met, Reward: a.Reward, Detail: nullRaw(a.EnvAssertion)})
		}
		for kind, list := range map[string][]json.RawMessage{"communicate": ri.CommunicateChecks, "nl_assertion": ri.NLAssertions} {
			for i, c := range list {
				var m struct {
					Met *bool `json:"met"`
				}
				_ = json.Unmarshal(c, &m)
				ep.Checks = append(ep.Checks, ub.Check{Kind: kind, Idx: i, Met: m.Met, Detail: nullRaw(c)})
			}
		}
		sort.SliceStable(ep.Checks, func(i, j int) bool { return ep.Checks[i].Kind < ep.Checks[j].Kind })
	}
	var tokIn, tokOut int64
	haveTok := false
	for i, m := range msgs {
		switch m.Role {
		case "user", "assistant", "tool", "system":
		default:
			return nil, fmt.Errorf("%s: message %d: role %q (want user, assistant, tool or system)", where, i, m.Role)
		}
		turn := i
		if m.TurnIdx != nil {
			turn = *m.TurnIdx
		}
		em := ub.Message{Idx: i, TurnIdx: turn, Role: m.Role, Content: m.Content, Cost: m.Cost, TS: m.Timestamp,
			NToolCalls: len(m.ToolCalls)}
		if ticks != nil {
			em.TickID = &ticks[i]
		}
		if m.IsAudio != nil && *m.IsAudio {
			em.Content = nil // base64 audio: not text to read or probe
		}
		if m.Role == "tool" {
			em.ToolCallID, em.Requestor, em.ToolError = m.ID, m.Requestor, m.Error
		}
		if m.Usage != nil {
			em.PromptTokens, em.CompletionTokens = m.Usage.PromptTokens, m.Usage.CompletionTokens
			if m.Role == "user" {
				if m.Usage.PromptTokens != nil {
					tokIn += *m.Usage.PromptTokens
					haveTok = true
				}
				if m.Usage.CompletionTokens != nil {
					tokOut += *m.Usage.CompletionTokens
				}
			}
		}
		ep.Messages = append(ep.Messages, em)
		for j, c := range m.ToolCalls {
			req := m.Role
			if c.Requestor != nil && (*c.Requestor == "user" || *c.Requestor == "assistant") {
				req = *c.Requestor
			}
			if req != "user" {
				req = "assistant"
			}
			if c.Name == "" {
				return nil, fmt.Errorf("%s: message %d: tool call %d without a name", where, i, j)
			}
			ep.Calls = append(ep.Calls, ub.ToolCall{MsgIdx: i, CallIdx: j, CallID: c.ID, Requestor: req, Name: c.Name, Arguments: nullRaw(c.Arguments)})
		}
	}
	if haveTok {
		ep.UserTokensIn, ep.UserTokensOut = &tokIn, &tokOut
	}
	ep.Attempts = keptAttempts(ep, s.HallucinationRetriesUsed)
	return ep, nil
}

// keptAttempts is the attempt ledger a kept simulation records: retries
// discarded attempts before it (hallucination_retries_used), and its own
// attempt, marked when it ended on an infrastructure error. nil when it
// is a first attempt that ended otherwise.
func keptAttempts(ep *ub.Episode, retries *int) []ub.Attempt {
	n := 0
	if retries != nil && *retries > 0 {
		n = *retries
	}
	infra := ep.NotRun()
	if n == 0 && !infra {
		return nil
	}
	trial := -1
	if ep.Trial != nil {
		trial = *ep.Trial
	}
	out := make([]ub.Attempt, 0, n+1)
	for a := 1; a <= n; a++ {
		out = append(out, ub.Attempt{RunID: ep.RunID, TaskID: ep.TaskID, Trial: trial, Attempt: a,
			Reason: strp("user_hallucination"), KeptID: ep.SimulationID, SourceFile: ep.SourceFile})
	}
	last := ub.Attempt{RunID: ep.RunID, TaskID: ep.TaskID, Trial: trial, Attempt: n + 1, Kept: true,
		SimulationID: strp(ep.SimulationID), KeptID: ep.SimulationID, SourceFile: ep.SourceFile}
	if infra {
		last.Reason = strp(ub.InfraError)
	}
	return append(out, last)
}

// tickMessages flattens a full-duplex simulation's ticks into messages as
// tau2 does (Tick.get_all_messages, SimulationRun.get_messages): per tick,
// the agent's chunk with the agent's tool calls, the agent's tool
// results, the user's chunk with the user's tool calls, the user's tool
// results; then all of them sorted by timestamp (stably) and renumbered
// (turn_idx = position). A chunk's cost and usage are kept, which tau2's
// flattening drops. ticks holds each message's tick id.
func tickMessages(in []t2Tick) (msgs []t2Message, ticks []int, err error) {
	seen := map[int]int{} // tick_id -> the tick that has it
	for i, t := range in {
		if t.TickID == nil {
			return nil, nil, fmt.Errorf("tick %d: missing \"tick_id\"", i)
		}
		id := *t.TickID
		if prev, dup := seen[id]; dup {
			return nil, nil, fmt.Errorf("tick %d: tick_id %d repeats that of tick %d", i, id, prev)
		}
		seen[id] = i
		chunk := func(role string, c *t2Message, calls []t2ToolCall) {
			if c == nil && len(calls) == 0 {
				return
			}
			m := t2Message{Role: role, ToolCalls: calls, Timestamp: t.Timestamp}
			if c != nil {
				m.Content, m.Timestamp, m.Cost, m.Usage, m.IsAudio = c.Content, c.Timestamp, c.Cost, c.Usage, c.IsAudio
			}
			msgs, ticks = append(msgs, m), append(ticks, id)
		}
		results := func(req string, rs []t2Message) error {
			for j, r := range rs {
				if r.Role != "tool" {
					return fmt.Errorf("tick %d: %s_tool_results %d: role %q (want tool)", id, req, j, r.Role)
				}
				if r.Requestor == nil {
					r.Requestor = strp(map[string]string{"agent": "assistant", "user": "user"}[req])
				}
				msgs, ticks = append(msgs, r), append(ticks, id)
			}
			return nil
		}
		chunk("assistant", t.AgentChunk, t.AgentToolCalls)
		if err := results("agent", t.AgentToolResults); err != nil {
			return nil, nil, err
		}
		chunk("user", t.UserChunk, t.UserToolCalls)
		if err := results("user", t.UserToolResults); err != nil {
			return nil, nil, err
		}
	}
	order := make([]int, len(msgs))
	for i := range order {
		order[i] = i
	}
	ts := func(i int) string { return deref(msgs[i].Timestamp) }
	sort.SliceStable(order, func(a, b int) bool { return ts(order[a]) < ts(order[b]) })
	outM, outT := make([]t2Message, len(msgs)), make([]int, len(msgs))
	for i, k := range order {
		outM[i], outT[i] = msgs[k], ticks[k]
		turn := i
		outM[i].TurnIdx = &turn
	}
	return outM, outT, nil
}

// ParseTaskFile reads a tau2 task file (a JSON array of tasks,
// tasks/<domain>/tasks.json). A task without instructions.domain takes the
// name of the file's folder as its domain.
func ParseTaskFile(path string, r io.Reader, sink EpisodeSink) error {
	return readEpisodeFile(path, r, sink, parseTaskFile)
}

// parseTaskFile is ParseTaskFile on one stream.
func parseTaskFile(s *jsonStream, sink EpisodeSink) error {
	path := s.path
	dirDomain := filepath.Base(filepath.Dir(path))
	key := sinkTaskKey(sink)
	f := &EpisodeFile{}
	f.Run.SourceFile, f.Run.Format = path, "tasks"
	var errs []*ParseError
	ok := jsonArray(s, sink, "task file: not a JSON array of tasks", func(i int, s *jsonStream) error {
		raw, line, err := s.value()
		if err != nil {
			return err
		}
		task, err := tau2Task(raw, "", path, key, s.fast != nil)
		if err != nil {
			errs = append(errs, &ParseError{Path: path, Line: line, Reason: fmt.Sprintf("task %d: %v", i, err)})
			return nil
		}
		if task.Domain == "" {
			task.Domain = dirDomain
			task.Key = key(task.Domain, task.TaskID, task.Raw)
		}
		f.Tasks = append(f.Tasks, task)
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
