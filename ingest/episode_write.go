package ingest

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/ub-bench/ub"
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

// epFlushRows is how many rows an episode table's appender holds before it
// is flushed at the end of a batch (writeBatches). A flush costs DuckDB
// about a millisecond however few its rows: the small tables (runs, tasks,
// findings) wait for the commit, the messages (about 2,000 rows a batch
// of corpus/tau2) are copied into the transaction while the next file is
// read. All flushed at the commit, they took about 0.16 s after the last
// file of corpus/tau2 was read; batch by batch, 0.04 s.
const epFlushRows = 1024

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
	w.cur.epProbes = append(w.cur.epProbes, w.probe(f))
	w.fileStatMu.Lock()
	if n := len(w.st.EpisodeFiles); f.Continued && n > 0 && w.st.EpisodeFiles[n-1].Path == f.Run.SourceFile {
		// The next part of a run given in parts: one entry for the run.
		w.st.EpisodeFiles[n-1].Episodes += len(f.Episodes)
	} else {
		w.st.EpisodeFiles = append(w.st.EpisodeFiles, EpisodeFileStat{Path: f.Run.SourceFile, Format: f.Run.Format,
			UserSim: f.Run.UserSim, Episodes: len(f.Episodes)})
	}
	w.cur.epStat = append(w.cur.epStat, len(w.st.EpisodeFiles)-1)
	w.fileStatMu.Unlock()
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
	// One writer for the transaction's files: each appender's flush costs
	// about a millisecond however few its rows, and a file has few runs,
	// tasks and findings. It is flushed before an episode is deleted, so
	// that the delete sees the rows of earlier files, and when the
	// transaction ends (write).
	if w.epRW == nil {
		w.epRW = queries.NewRowWriter(w.ctx, w.ws)
	}
	rw := w.epRW
	for k, f := range b.epFiles {
		// The reading side appends to Stats.EpisodeFiles meanwhile: count
		// here, add there when done with the file.
		st := &EpisodeFileStat{}
		defer w.addFileStat(b.epStat[k], st)
		if f.Run.RunID != "" && !w.epRuns[f.Run.RunID] {
			w.appendRun(rw, &f.Run)
			w.epRuns[f.Run.RunID] = true
		}
		var tasks []*ub.Task
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
		if len(f.Splits) > 0 || f.Policy != nil {
			// A task folder's splits and policy replace the domain's.
			if err := rw.Close(); err != nil {
				return err
			}
			dom := ""
			if len(f.Splits) > 0 {
				dom = f.Splits[0].Domain
			} else {
				dom = f.Policy.Domain
			}
			if err := queries.EpDeleteTaskFolder(w.ctx, c, dom, len(f.Splits) > 0, f.Policy != nil); err != nil {
				return err
			}
			for _, s := range f.Splits {
				rw.EpTaskSplit(s)
			}
			if f.Policy != nil {
				rw.EpDomain(*f.Policy)
			}
		}
		w.appendTasks(rw, tasks)
		st.Tasks += len(tasks)
		w.st.Tasks += len(tasks)
		var eps []*ub.Episode
		var idx []int // of eps in f.Episodes
		for i, e := range f.Episodes {
			hash, ok := w.epHashes[e.SimulationID]
			if !ok && strings.HasPrefix(e.SimulationID, tau1IDPrefix) {
				if _, dup := w.tau1Content[e.ContentHash]; dup { // the same v1 episode under another file name
					st.Unchanged++
					w.st.EpisodesUnchanged++
					continue
				}
			}
			w.epHashes[e.SimulationID] = e.ContentHash
			if strings.HasPrefix(e.SimulationID, tau1IDPrefix) {
				if _, dup := w.tau1Content[e.ContentHash]; !dup {
					w.tau1Content[e.ContentHash] = e.SimulationID
				}
			}
			switch {
			case ok && hash == e.ContentHash:
				st.Unchanged++
				w.st.EpisodesUnchanged++
				continue
			case ok:
				if err := rw.Close(); err != nil {
					return err
				}
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
			idx = append(idx, i)
		}
		w.appendEpisodes(rw, eps)
		// The probing goroutine has most likely finished the file by now.
		job := b.epProbes[k]
		<-job.done
		probes := make([]*probeResults, len(eps))
		for j, i := range idx {
			probes[j] = job.out[i]
		}
		w.appendProbes(rw, eps, probes)
		// What is appended is the appenders' (copied into DuckDB's
		// memory): the file's episodes can go while the batch's
		// other files are written.
		b.epFiles[k], b.epProbes[k] = nil, nil
	}
	return nil
}

// addFileStat adds d's counts of what the write side did to the idx-th
// entry of Stats.EpisodeFiles.
func (w *writer) addFileStat(idx int, d *EpisodeFileStat) {
	w.fileStatMu.Lock()
	defer w.fileStatMu.Unlock()
	st := &w.st.EpisodeFiles[idx]
	st.Added += d.Added
	st.Replaced += d.Replaced
	st.Unchanged += d.Unchanged
	st.Tasks += d.Tasks
}

// appendRun writes a run. The append functions write on the batch's
// writer: rw keeps the first error and its Close returns it.
func (w *writer) appendRun(rw *queries.RowWriter, r *ub.Run) {
	rw.EpRun(*r)
}

// appendTasks writes tasks, then their gold actions, then their assertions.
func (w *writer) appendTasks(rw *queries.RowWriter, ts []*ub.Task) {
	for _, t := range ts {
		rw.EpTask(t)
	}
	for _, t := range ts {
		for i, a := range t.Actions {
			rw.EpTaskAction(t.Key, i, a)
		}
	}
	for _, t := range ts {
		for i, a := range t.Assertions {
			rw.EpTaskAssertion(t.Key, i, a)
		}
	}
}

// appendEpisodes writes episodes, then their messages, tool calls and
// checks.
func (w *writer) appendEpisodes(rw *queries.RowWriter, eps []*ub.Episode) {
	for _, e := range eps {
		row := *e
		row.NMessages = len(e.Messages)
		rw.Episode(&row)
	}
	for _, e := range eps {
		for i := range e.Messages {
			rw.EpMessage(e.SimulationID, &e.Messages[i])
		}
	}
	for _, e := range eps {
		for _, c := range e.Calls {
			rw.EpToolCall(e.SimulationID, c)
		}
	}
	for _, e := range eps {
		for _, a := range e.Attempts {
			rw.EpAttempt(a)
		}
	}
	for _, e := range eps {
		for _, c := range e.Checks {
			rw.EpCheck(e.SimulationID, c)
		}
	}
}
