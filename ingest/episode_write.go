package ingest

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/ub-bench/ub/queries"
)

// EpisodeFileStat is what one episode or task file brought.
type EpisodeFileStat struct {
	Path      string `json:"path"`
	Format    string `json:"format"`
	UserSim   string `json:"user_sim,omitempty"`
	Episodes  int    `json:"episodes"`  // read from the file (bad simulations not counted)
	Added     int    `json:"added"`     // new in the workspace
	Replaced  int    `json:"replaced"`  // stored with other content, replaced
	Unchanged int    `json:"unchanged"` // stored with the same content
	Tasks     int    `json:"tasks"`     // task contents new in the workspace
	// TaskMismatch counts the file's episodes flagged by probe P0 (the user
	// states another customer's identity), after the run.
	TaskMismatch int `json:"task_mismatch"`
}

// epBatchBytes bounds the message text of one batch of episode files. With
// 1 MiB (was 4 MiB) the peak Go heap increase of BenchmarkIngestTau2Corpus
// halves (about 42 to 23 MB); the change in time was within the noise of a
// shared 2-core machine. A batch closes after the file that crosses the
// bound; one batch fills while the one before is written. Such batches
// share one transaction until it holds BatchTurns or BatchBytes (write).
const epBatchBytes = 1 << 20

// EpisodeFile queues a parsed episode or task file (EpisodeSink).
func (w *writer) EpisodeFile(f *EpisodeFile) error {
	seen := map[string]bool{}
	keep := f.Episodes[:0]
	for _, e := range f.Episodes {
		if seen[e.SimulationID] {
			w.Error(&ParseError{Path: e.SourceFile, Line: e.Line, Reason: fmt.Sprintf("simulation %d (id %s): id repeated in the file; the first is kept", e.SourceIndex, e.SimulationID)})
			continue
		}
		seen[e.SimulationID] = true
		keep = append(keep, e)
	}
	f.Episodes = keep
	w.cur.epFiles = append(w.cur.epFiles, f)
	w.st.EpisodeFiles = append(w.st.EpisodeFiles, EpisodeFileStat{Path: f.Run.SourceFile, Format: f.Run.Format,
		UserSim: f.Run.UserSim, Episodes: len(f.Episodes)})
	w.cur.epStat = append(w.cur.epStat, len(w.st.EpisodeFiles)-1)
	for _, e := range f.Episodes {
		w.cur.turns += len(e.Messages)
		for _, m := range e.Messages {
			if m.Content != nil {
				w.cur.bytes += len(*m.Content)
			}
		}
	}
	// A parsed episode file weighs several times its text: write episodes
	// in batches of about a MiB of text so that memory stays near the
	// largest file, not the sum of all.
	if w.cur.turns >= w.opts.BatchTurns || w.cur.bytes >= w.opts.BatchBytes {
		return w.send()
	}
	if w.cur.bytes >= epBatchBytes {
		w.cur.open = true // memory, not the transaction, is full
		return w.send()
	}
	return nil
}

// writeEpisodes writes a batch's episode files in its transaction: a run and
// a task content once, an episode added when new, replaced when stored with
// another content hash, left alone when stored with the same.
func (w *writer) writeEpisodes(c *sql.Conn, b *batch) error {
	if len(b.epFiles) == 0 {
		return nil
	}
	if w.epHashes == nil {
		// Episodes, runs and tasks are few next to turns: keep what is
		// stored in memory, read once per run.
		var err error
		if w.epHashes, w.epRuns, w.epTasks, err = queries.EpStored(w.ctx, c); err != nil {
			return err
		}
	}
	for k, f := range b.epFiles {
		st := &w.st.EpisodeFiles[b.epStat[k]]
		if f.Run.RunID != "" && !w.epRuns[f.Run.RunID] {
			if err := w.appendRun(&f.Run); err != nil {
				return err
			}
			w.epRuns[f.Run.RunID] = true
		}
		var tasks []*EpTask
		seen := map[string]bool{}
		for _, t := range f.Tasks {
			if t.Key == "" || seen[t.Key] {
				continue
			}
			seen[t.Key] = true
			if !w.epTasks[t.Key] {
				tasks = append(tasks, t)
				w.epTasks[t.Key] = true
			}
		}
		if err := w.appendTasks(tasks); err != nil {
			return err
		}
		st.Tasks += len(tasks)
		w.st.Tasks += len(tasks)
		var eps []*Episode
		for _, e := range f.Episodes {
			hash, ok := w.epHashes[e.SimulationID]
			w.epHashes[e.SimulationID] = e.ContentHash
			switch {
			case ok && hash == e.ContentHash:
				st.Unchanged++
				w.st.EpisodesUnchanged++
				continue
			case ok:
				if err := queries.EpDeleteEpisode(w.ctx, c, e.SimulationID); err != nil {
					return err
				}
				st.Replaced++
				w.st.EpisodesReplaced++
			default:
				st.Added++
				w.st.Episodes++
			}
			eps = append(eps, e)
		}
		if err := w.appendEpisodes(eps); err != nil {
			return err
		}
		if err := w.appendProbes(eps); err != nil {
			return err
		}
	}
	return nil
}

// raw makes a JSON column value: nil for none, the object itself otherwise.
func raw(m json.RawMessage) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

func ns(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func ni(i *int) any {
	if i == nil {
		return nil
	}
	return int32(*i)
}

func ni64(i *int64) any {
	if i == nil {
		return nil
	}
	return *i
}

func nf(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func nb(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// appendRows appends n rows to table in one appender.
func (w *writer) appendRows(table string, n int, row func(i int) []driver.Value) error {
	if n == 0 {
		return nil
	}
	a, err := w.ws.Appender(w.ctx, table)
	if err != nil {
		return err
	}
	return fillAppender(a, table, n, row)
}

func fillAppender(a *duckdb.Appender, table string, n int, row func(i int) []driver.Value) error {
	for i := 0; i < n; i++ {
		if err := a.AppendRow(row(i)...); err != nil {
			a.Close()
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	return nil
}

func (w *writer) appendRun(r *EpRun) error {
	return w.appendRows("ep_runs", 1, func(int) []driver.Value {
		return []driver.Value{r.RunID, r.SourceFile, r.Format, r.Domain, ns(r.GitCommit), ns(r.Tau2Version), ns(r.Started),
			ns(r.UserImpl), ns(r.UserModel), raw(r.UserArgs), r.UserSim, ns(r.AgentImpl), ns(r.AgentModel), raw(r.AgentArgs),
			r.Agent, ns(r.Guidelines), ns(r.PolicySHA), ni(r.MaxSteps), ni64(r.Seed)}
	})
}

func (w *writer) appendTasks(ts []*EpTask) error {
	err := w.appendRows("ep_tasks", len(ts), func(i int) []driver.Value {
		t := ts[i]
		return []driver.Value{t.Key, t.Domain, t.TaskID, t.Format, ns(t.ReasonForCall), ns(t.KnownInfo), ns(t.UnknownInfo),
			ns(t.TaskInstructions), ns(t.Persona), ns(t.Instruction), ns(t.UserID), ns(t.Purpose), ns(t.Ticket),
			raw(t.RewardBasis), raw(t.InitialState), raw(t.CommunicateInfo), raw(t.NLAssertions), raw(t.Raw), t.SourceFile}
	})
	if err != nil {
		return err
	}
	type actRow struct {
		key string
		i   int
		a   *EpAction
	}
	type asRow struct {
		key string
		i   int
		a   *EpAssertion
	}
	var acts []actRow
	var asserts []asRow
	for _, t := range ts {
		for i := range t.Actions {
			acts = append(acts, actRow{t.Key, i, &t.Actions[i]})
		}
		for i := range t.Assertions {
			asserts = append(asserts, asRow{t.Key, i, &t.Assertions[i]})
		}
	}
	err = w.appendRows("ep_task_actions", len(acts), func(i int) []driver.Value {
		r := acts[i]
		return []driver.Value{r.key, int32(r.i), ns(r.a.ActionID), r.a.Requestor, r.a.Name, raw(r.a.Arguments), raw(r.a.CompareArgs), ns(r.a.Info)}
	})
	if err != nil {
		return err
	}
	return w.appendRows("ep_task_assertions", len(asserts), func(i int) []driver.Value {
		r := asserts[i]
		return []driver.Value{r.key, int32(r.i), r.a.EnvType, r.a.FuncName, raw(r.a.Arguments), nb(r.a.AssertValue), ns(r.a.Message)}
	})
}

func (w *writer) appendEpisodes(eps []*Episode) error {
	err := w.appendRows("ep_episodes", len(eps), func(i int) []driver.Value {
		e := eps[i]
		return []driver.Value{e.SimulationID, e.RunID, e.SourceFile, int32(e.SourceIndex), e.ContentHash, e.Domain, e.TaskID,
			ns(e.TaskKey), ni(e.Trial), ni64(e.Seed), nf(e.Reward), raw(e.RewardBasis), raw(e.RewardBreakdown), nb(e.DBMatch),
			ns(e.TerminationReason), nf(e.UserCost), nf(e.AgentCost), ni64(e.UserTokensIn), ni64(e.UserTokensOut),
			nf(e.Duration), ns(e.StartedAt), int32(len(e.Messages)), raw(e.Extra)}
	})
	if err != nil {
		return err
	}
	type ref struct{ e, i int }
	var msgs, calls, checks []ref
	for k, e := range eps {
		for i := range e.Messages {
			msgs = append(msgs, ref{k, i})
		}
		for i := range e.Calls {
			calls = append(calls, ref{k, i})
		}
		for i := range e.Checks {
			checks = append(checks, ref{k, i})
		}
	}
	err = w.appendRows("ep_messages", len(msgs), func(i int) []driver.Value {
		e := eps[msgs[i].e]
		m := &e.Messages[msgs[i].i]
		return []driver.Value{e.SimulationID, int32(m.Idx), int32(m.TurnIdx), m.Role, ns(m.Content), ns(m.ToolCallID),
			ns(m.Requestor), nb(m.ToolError), int32(m.NToolCalls), ni64(m.PromptTokens), ni64(m.CompletionTokens), nf(m.Cost), ns(m.TS)}
	})
	if err != nil {
		return err
	}
	err = w.appendRows("ep_tool_calls", len(calls), func(i int) []driver.Value {
		e := eps[calls[i].e]
		c := &e.Calls[calls[i].i]
		return []driver.Value{e.SimulationID, int32(c.MsgIdx), int32(c.CallIdx), ns(c.CallID), c.Requestor, c.Name, raw(c.Arguments)}
	})
	if err != nil {
		return err
	}
	return w.appendRows("ep_checks", len(checks), func(i int) []driver.Value {
		e := eps[checks[i].e]
		c := &e.Checks[checks[i].i]
		return []driver.Value{e.SimulationID, c.Kind, int32(c.Idx), ns(c.Name), ns(c.Requestor), nb(c.Met), nf(c.Reward), raw(c.Detail)}
	})
}
