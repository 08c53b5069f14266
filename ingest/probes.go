package ingest

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// ProbeStats summarises a probe run.
type ProbeStats struct {
	Episodes int // episodes probed
	Findings int // findings stored
	// NotRun counts the placeholders of simulations that never ran
	// (termination_reason infrastructure_error) among Episodes: no probe
	// applies to them.
	NotRun int
}

// RunProbes runs the judge-free probes (analysis.RunProbes, SPEC 6.3) on
// every stored episode and replaces the stored findings and applicability
// rows in one transaction. The result depends only on the stored episodes;
// it is what ingest stores for each episode it adds (appendProbes). The
// episodes stream from storage a range of rows at a time
// (queries.StreamProbeEpisodes) and their results are staged as they come
// (queries.StageProbeResults), so memory does not grow with the
// workspace; then only what changed is written.
func RunProbes(ctx context.Context, ws *queries.Workspace) (ProbeStats, error) {
	var st ProbeStats
	err := ws.InTx(ctx, func(c *sql.Conn) error {
		tasks, err := storedProbeTasks(ctx, c)
		if err != nil {
			return err
		}
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
		err = queries.StreamProbeEpisodes(ctx, c, func(ref queries.ProbeEpisodeRef, msgs []queries.ProbeMessageRow) error {
			e := &analysis.ProbeEpisode{SimulationID: ref.SimulationID, Messages: probeMessages(msgs), NoUser: ref.NoUser, NoRun: ref.NoRun}
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

// ProbeGCPercent is the GOGC that ub probes runs RunProbes with: the
// streamed rows are garbage as soon as their episode is probed, so the
// heap is collected sooner than at Go's default (twice the live heap).
// It is the command's to set, for its process, not the library's.
const ProbeGCPercent = 25

// probeFlushRows is how many result rows RunProbes holds before it
// appends them, and how many an appender holds before it is flushed.
const probeFlushRows = 8192

// probeResults collects the probes' findings and applicability rows.
type probeResults struct {
	findings []analysis.Finding
	apps     []probeApp
}

type probeApp struct{ sim, probe string }

func (r *probeResults) run(e *analysis.ProbeEpisode) {
	pr := analysis.RunProbes(e, nil)
	for _, p := range analysis.Probes() {
		if pr.Applies[p] {
			r.apps = append(r.apps, probeApp{e.SimulationID, p})
		}
	}
	r.findings = append(r.findings, pr.Findings...)
}

// probeJob is the probing of one parsed file: out is probeFile's result,
// set when done is closed.
type probeJob struct {
	f    *EpisodeFile
	out  []*probeResults
	done chan struct{}
}

// probe queues f for the probing goroutine, which it starts with the first
// file, and returns its job. Reading, probing and writing each have a
// goroutine: the probes of a file run while the next is decoded and the
// batch before is written. The reading side hands the file over parsed
// and does not change it again; the probes only read it, as the writing
// side does.
func (w *writer) probe(f *EpisodeFile) *probeJob {
	if w.probeIn == nil {
		// A few files may wait for their probes: each is in a batch,
		// which bounds memory.
		w.probeIn = make(chan *probeJob, 8)
		go w.probeLoop(w.probeIn)
	}
	job := &probeJob{f: f, done: make(chan struct{})}
	w.probeIn <- job
	return job
}

// probeLoop probes the files queued, in order, until the queue is closed.
func (w *writer) probeLoop(in <-chan *probeJob) {
	for job := range in {
		job.out = w.probeFile(job.f)
		job.f = nil
		close(job.done)
	}
}

// probeFile runs the probes on the episodes of a parsed file, in memory,
// on the probing goroutine (probeLoop), so that they overlap with the
// reading of the next file and the writing of the batch before. It skips
// the episodes the workspace held with the same content when the run
// began (they will not be written); the others' results go with the
// batch, by episode (nil: skipped).
func (w *writer) probeFile(f *EpisodeFile) []*probeResults {
	out := make([]*probeResults, len(f.Episodes))
	if w.probeTasks == nil {
		w.probeTasks = map[string]*analysis.ProbeTask{}
	}
	for i, e := range f.Episodes {
		if h, ok := w.storedHashes[e.SimulationID]; ok && h == e.ContentHash {
			continue
		}
		out[i] = &probeResults{}
		out[i].run(probeEpisodeOf(e, w.probeTasks))
	}
	return out
}

// appendProbes appends the findings and applicability rows of episodes
// being added in the current transaction: the same rows RunProbes derives
// from the stored episodes, since the probes read the same data (JSON
// values as the appender stores them). probes holds each episode's results
// as probeFile found them; one it skipped (stored with this content when
// the run began, but replaced since by another file of the run) is probed
// here.
func (w *writer) appendProbes(rw *queries.RowWriter, eps []*Episode, probes []*probeResults) {
	var res probeResults
	tasks := map[string]*analysis.ProbeTask{}
	for i, e := range eps {
		r := probes[i]
		if r == nil {
			r = &probeResults{}
			r.run(probeEpisodeOf(e, tasks))
		}
		res.findings = append(res.findings, r.findings...)
		res.apps = append(res.apps, r.apps...)
	}
	appendProbeResults(rw, &res)
}

// appendProbeResults appends findings and applicability rows on rw, which
// keeps the first error for its Close.
func appendProbeResults(rw *queries.RowWriter, res *probeResults) {
	for _, f := range res.findings {
		var detail json.RawMessage
		if len(f.Detail) > 0 {
			detail, _ = json.Marshal(f.Detail) // a map[string]string always marshals
		}
		rw.EpProbeFinding(queries.NewEpProbeFinding{SimulationID: f.SimulationID, Probe: f.Probe,
			TurnIdx: f.TurnIdx, Evidence: f.Evidence, Detail: detail})
	}
	for _, a := range res.apps {
		rw.EpProbeApplicable(a.sim, a.probe)
	}
}

// probeTasks are the probes' tasks of the stored episodes, made from the
// stored blueprints and gold user actions, one per task key: the
// episodes of a task share it (and what the probes derive from it), as
// ingest's do (probeEpisodeOf).
type probeTasks struct {
	made    map[string]*analysis.ProbeTask
	actions map[string][]analysis.GoldAction
}

// storedProbeTasks reads the tasks the stored episodes refer to.
func storedProbeTasks(ctx context.Context, db queries.Querier) (*probeTasks, error) {
	rows, acts, err := queries.ProbeTasks(ctx, db)
	if err != nil {
		return nil, err
	}
	t := &probeTasks{made: map[string]*analysis.ProbeTask{}, actions: map[string][]analysis.GoldAction{}}
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
	return t, nil
}

// task is the probes' task of key. A key no stored task has gives a task
// without blueprint (and the key's gold user actions, if any).
func (t *probeTasks) task(key string) *analysis.ProbeTask {
	pt := t.made[key]
	if pt == nil {
		pt = probeTask([7]*string{}, nil, t.actions[key])
		t.made[key] = pt
	}
	return pt
}

// probeEpisodeOf makes the probes' episode from a parsed one. tasks holds
// the probes' tasks made so far, by task key: episodes of one task content
// share it (and what the probes derive from it), whichever file embeds it,
// as RunProbes makes one per stored task.
func probeEpisodeOf(e *Episode, tasks map[string]*analysis.ProbeTask) *analysis.ProbeEpisode {
	pe := &analysis.ProbeEpisode{SimulationID: e.SimulationID, Messages: make([]analysis.ProbeMessage, len(e.Messages)),
		NoUser: e.NoUser, NoRun: e.noRun()}
	if t := e.TaskRef; t != nil && e.TaskKey != nil {
		if pe.Task = tasks[*e.TaskKey]; pe.Task == nil {
			pe.Task = probeTaskOf(t)
			tasks[*e.TaskKey] = pe.Task
		}
	}
	for i, m := range e.Messages {
		pe.Messages[i] = analysis.ProbeMessage{TurnIdx: m.TurnIdx, Role: m.Role, Content: deref(m.Content),
			Requestor: deref(m.Requestor), CallID: deref(m.ToolCallID)}
	}
	for _, c := range e.Calls {
		pm := &pe.Messages[c.MsgIdx]
		pm.Calls = append(pm.Calls, analysis.ProbeCall{ID: deref(c.CallID), Name: c.Name, Arguments: c.Arguments})
	}
	return pe
}

// probeTaskOf makes the probes' task from a parsed one.
func probeTaskOf(t *EpTask) *analysis.ProbeTask {
	var acts []analysis.GoldAction
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
func goldAction(name string, args, compareArgs []byte) analysis.GoldAction {
	g := analysis.GoldAction{Name: name, Arguments: args}
	if compareArgs != nil {
		_ = json.Unmarshal(compareArgs, &g.CompareArgs)
	}
	return g
}

// probeTask makes the probes' task. fields are reason_for_call,
// known_info, unknown_info, task_instructions, persona, instruction and
// user_id (nil when the task lacks one); initialState is the task's
// initial_state JSON (nil for none).
func probeTask(fields [7]*string, initialState []byte, userActions []analysis.GoldAction) *analysis.ProbeTask {
	t := &analysis.ProbeTask{KnownInfo: deref(fields[1]), UserActions: userActions}
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
				t.InitActions = append(t.InitActions, analysis.GoldAction{Name: a.FuncName, Arguments: a.Arguments})
			}
		}
	}
	return t
}

// probeMessages converts one episode's stored messages.
func probeMessages(msgs []queries.ProbeMessageRow) []analysis.ProbeMessage {
	out := make([]analysis.ProbeMessage, len(msgs))
	for i, m := range msgs {
		pm := analysis.ProbeMessage{TurnIdx: m.TurnIdx, Role: m.Role, Content: deref(m.Content),
			Requestor: deref(m.Requestor), CallID: deref(m.ToolCallID)}
		for _, c := range m.Calls {
			pm.Calls = append(pm.Calls, analysis.ProbeCall{ID: deref(c.CallID), Name: c.Name, Arguments: c.Arguments})
		}
		out[i] = pm
	}
	return out
}

// episodeChecks fills the P0 counts of the run's files and of the
// workspace. The probes of each episode were stored with it.
func episodeChecks(ctx context.Context, ws *queries.Workspace, st *Stats) error {
	if st.TotalEpisodes == 0 {
		return nil
	}
	byFile, err := queries.TaskMismatchByFile(ctx, ws.Conn())
	if err != nil {
		return err
	}
	for _, hits := range byFile {
		st.TaskMismatch += hits
	}
	for i := range st.EpisodeFiles {
		st.EpisodeFiles[i].TaskMismatch = byFile[st.EpisodeFiles[i].Path]
	}
	return nil
}
