package probes

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries"
)

// Stats summarises a probe run over the stored episodes.
type Stats struct {
	Episodes int // episodes probed
	Findings int // findings stored
	// NotRun counts the placeholders of simulations that never ran
	// (termination_reason infrastructure_error) among Episodes: no probe
	// applies to them.
	NotRun int
}

// RunStored runs the judge-free probes (Run, SPEC 6.3) on every stored
// episode and replaces the stored findings and applicability rows in one
// transaction (what ub probes does). The result depends only on the stored
// episodes; it is what ingest stores for each episode it adds (through
// NewProber). The
// episodes stream from storage a range of rows at a time, with the tasks
// of the next few ranges (queries.StreamProbeEpisodes), and their results
// are staged in DuckDB as they come (queries.StageProbeResults), so the
// Go heap holds a few ranges, not the workspace; then only what changed
// is written.
func RunStored(ctx context.Context, ws *queries.Workspace) (Stats, error) {
	var st Stats
	restore, err := queries.ApplySettings(ctx, ws.Conn(), queries.MemoryShare(queries.ScanMemoryShare, queries.ImportMemoryFloor))
	if err != nil {
		return st, err
	}
	defer restore(context.WithoutCancel(ctx))
	err = ws.InTx(ctx, func(c *sql.Conn) error {
		var tasks *probeTasks
		rw := queries.NewRowWriter(ctx, ws)
		replace, err := queries.StageProbeResults(ctx, c, rw)
		if err != nil {
			return err
		}
		var res probeResults
		flush := func() error {
			st.Findings += len(res.findings)
			appendProbeResults(rw, &res)
			res = probeResults{}
			return rw.FlushLarge(probeFlushRows)
		}
		newTasks := func(rows []queries.ProbeTaskRow, acts []queries.ProbeActionRow) error {
			tasks = newProbeTasks(rows, acts)
			return nil
		}
		err = queries.StreamProbeEpisodes(ctx, c, newTasks, func(ref queries.ProbeEpisodeRef, msgs []queries.ProbeMessageRow) error {
			e := &View{SimulationID: ref.SimulationID, Messages: probeMessages(msgs), NoUser: ref.NoUser, NoRun: ref.NoRun}
			if ref.TaskKey != nil {
				e.Task = tasks.task(*ref.TaskKey)
			}
			res.run(e)
			st.Episodes++
			if ref.NoRun {
				st.NotRun++
			}
			if len(res.findings)+len(res.apps) >= probeFlushRows {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
		if cerr := rw.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		return replace(ctx)
	})
	return st, err
}

// GCPercent is the GOGC that ub probes runs RunStored with: the
// streamed rows are garbage as soon as their episode is probed, so the
// heap is collected sooner than at Go's default (twice the live heap).
// It is the command's to set, for its process, not the library's.
const GCPercent = 25

// probeFlushRows is how many result rows RunStored holds before it
// appends them, and how many an appender holds before it is flushed.
const probeFlushRows = 8192

// probeResults collects the probes' findings and applicability rows.
type probeResults struct {
	findings []Finding
	apps     []probeApp
}

type probeApp struct{ sim, probe string }

func (r *probeResults) run(e *View) {
	pr := Run(e, nil)
	for _, p := range Names() {
		if pr.Applies[p] {
			r.apps = append(r.apps, probeApp{e.SimulationID, p})
		}
	}
	r.findings = append(r.findings, pr.Findings...)
}

// appendProbeResults appends findings and applicability rows on rw, which
// keeps the first error for its Close.
func appendProbeResults(rw *queries.RowWriter, res *probeResults) {
	for _, f := range res.findings {
		rw.EpProbeFinding(f.row())
	}
	for _, a := range res.apps {
		rw.EpProbeApplicable(a.sim, a.probe)
	}
}

// probeTasks are the probes' tasks of some stored episodes, made from the
// stored blueprints and gold user actions, one per task key: the
// episodes of a task share it (and what the probes derive from it), as
// parsed ones do (probeEpisodeOf). What the probes find depends only on
// the task's texts, so a task made again for later episodes gives them
// the same findings.
type probeTasks struct {
	made    map[string]*ViewTask
	actions map[string][]GoldAction
}

// newProbeTasks makes the probes' tasks of stored rows.
func newProbeTasks(rows []queries.ProbeTaskRow, acts []queries.ProbeActionRow) *probeTasks {
	t := &probeTasks{made: map[string]*ViewTask{}, actions: map[string][]GoldAction{}}
	for _, a := range acts {
		var args, cmp []byte
		if a.Arguments != nil {
			args = []byte(*a.Arguments)
		}
		if a.CompareArgs != nil {
			cmp = []byte(*a.CompareArgs)
		}
		t.actions[a.TaskKey] = append(t.actions[a.TaskKey], goldAction(a.Name, args, cmp))
	}
	for _, r := range rows {
		var is []byte
		if r.InitialState != nil {
			is = []byte(*r.InitialState)
		}
		t.made[r.TaskKey] = probeTask([7]*string{r.ReasonForCall, r.KnownInfo, r.UnknownInfo, r.TaskInstructions, r.Persona, r.Instruction, r.UserID},
			is, t.actions[r.TaskKey])
	}
	return t
}

// task is the probes' task of key. A key no stored task has gives a task
// without blueprint (and the key's gold user actions, if any).
func (t *probeTasks) task(key string) *ViewTask {
	pt := t.made[key]
	if pt == nil {
		pt = probeTask([7]*string{}, nil, t.actions[key])
		t.made[key] = pt
	}
	return pt
}

// Prober runs every probe on parsed episodes (ingest.Prober), keeping
// the probes' task of each task key it met: the episodes of one task
// content share it, and what the probes derive from it, whichever file
// embeds it, as RunStored makes one per stored task. Not for concurrent
// use.
type Prober struct{ tasks map[string]*ViewTask }

// NewProber returns a Prober that has met no task yet.
func NewProber() *Prober { return &Prober{tasks: map[string]*ViewTask{}} }

// Probe returns the probes that apply to e, in report order, and their
// findings as stored rows.
func (p *Prober) Probe(e *ub.Episode) (applies []string, findings []ub.ProbeFinding) {
	var r probeResults
	r.run(probeEpisodeOf(e, p.tasks))
	for _, a := range r.apps {
		applies = append(applies, a.probe)
	}
	findings = make([]ub.ProbeFinding, len(r.findings))
	for i, f := range r.findings {
		findings[i] = f.row()
	}
	return applies, findings
}

// row is the finding as ep_probe_findings holds it.
func (f Finding) row() ub.ProbeFinding {
	var detail json.RawMessage
	if len(f.Detail) > 0 {
		detail, _ = json.Marshal(f.Detail) // a map[string]string always marshals
	}
	return ub.ProbeFinding{SimulationID: f.SimulationID, Probe: f.Probe, TurnIdx: f.TurnIdx, Evidence: f.Evidence, Detail: detail}
}

// probeEpisodeOf makes the probes' episode from a parsed one. tasks holds
// the probes' tasks made so far, by task key: episodes of one task content
// share it (and what the probes derive from it), whichever file embeds it,
// as RunProbes makes one per stored task.
func probeEpisodeOf(e *ub.Episode, tasks map[string]*ViewTask) *View {
	pe := &View{SimulationID: e.SimulationID, Messages: make([]ViewMessage, len(e.Messages)),
		NoUser: e.NoUser, NoRun: e.NotRun()}
	if t := e.TaskRef; t != nil && e.TaskKey != nil {
		if pe.Task = tasks[*e.TaskKey]; pe.Task == nil {
			pe.Task = probeTaskOf(t)
			tasks[*e.TaskKey] = pe.Task
		}
	}
	for i, m := range e.Messages {
		pe.Messages[i] = ViewMessage{TurnIdx: m.TurnIdx, Role: m.Role, Content: deref(m.Content),
			Requestor: deref(m.Requestor), CallID: deref(m.ToolCallID)}
	}
	for _, c := range e.Calls {
		pm := &pe.Messages[c.MsgIdx]
		pm.Calls = append(pm.Calls, ViewCall{ID: deref(c.CallID), Name: c.Name, Arguments: c.Arguments})
	}
	return pe
}

// probeTaskOf makes the probes' task from a parsed one.
func probeTaskOf(t *ub.Task) *ViewTask {
	var acts []GoldAction
	for _, a := range t.Actions {
		if a.Requestor != "user" {
			continue
		}
		var args []byte
		if len(a.Arguments) > 0 {
			// The evidence quotes the arguments as stored: the
			// appender stores a JSON value as json.Marshal writes it.
			args, _ = json.Marshal(a.Arguments)
		}
		acts = append(acts, goldAction(a.Name, args, a.CompareArgs))
	}
	return probeTask([7]*string{t.ReasonForCall, t.KnownInfo, t.UnknownInfo, t.TaskInstructions, t.Persona, t.Instruction, t.UserID},
		t.InitialState, acts)
}

// goldAction makes a gold user action from its arguments and compare_args
// JSON (nil for none).
func goldAction(name string, args, compareArgs []byte) GoldAction {
	g := GoldAction{Name: name, Arguments: args}
	if compareArgs != nil {
		_ = json.Unmarshal(compareArgs, &g.CompareArgs)
	}
	return g
}

// probeTask makes the probes' task. fields are reason_for_call,
// known_info, unknown_info, task_instructions, persona, instruction and
// user_id (nil when the task lacks one); initialState is the task's
// initial_state JSON (nil for none).
func probeTask(fields [7]*string, initialState []byte, userActions []GoldAction) *ViewTask {
	t := &ViewTask{KnownInfo: deref(fields[1]), UserActions: userActions}
	if fields[1] == nil {
		t.KnownInfo = deref(fields[5])
	}
	for _, s := range fields {
		if s != nil {
			t.Blueprint = append(t.Blueprint, *s)
		}
	}
	if initialState != nil {
		var is struct {
			Actions []struct {
				EnvType   string          `json:"env_type"`
				FuncName  string          `json:"func_name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"initialization_actions"`
		}
		_ = json.Unmarshal(initialState, &is)
		for _, a := range is.Actions {
			if a.EnvType == "user" {
				t.InitActions = append(t.InitActions, GoldAction{Name: a.FuncName, Arguments: a.Arguments})
			}
		}
	}
	return t
}

// probeMessages converts one episode's stored messages.
func probeMessages(msgs []queries.ProbeMessageRow) []ViewMessage {
	out := make([]ViewMessage, len(msgs))
	for i, m := range msgs {
		pm := ViewMessage{TurnIdx: m.TurnIdx, Role: m.Role, Content: deref(m.Content),
			Requestor: deref(m.Requestor), CallID: deref(m.ToolCallID)}
		for _, c := range m.Calls {
			pm.Calls = append(pm.Calls, ViewCall{ID: deref(c.CallID), Name: c.Name, Arguments: c.Arguments})
		}
		out[i] = pm
	}
	return out
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
