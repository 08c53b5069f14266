package ingest

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries"
)

// writer is the Sink of an ingest run. The parsing goroutine resolves each
// session's identity and hash and queues it; full batches go to a second
// goroutine that writes each in one transaction, so parsing and writing
// overlap. What to add, replace or skip is decided there, against the
// workspace itself (the batch's ids and hashes are looked up with a join), so
// memory stays bounded by a batch however many sessions the workspace holds.
type writer struct {
	ctx  context.Context
	ws   *queries.Workspace
	opts Options
	st   *Stats // parse side: Files, FilesSkipped, Skipped, Errors; write side: the session counts

	cur    *batch
	format string // of the file being read
	path   string
	spare  *bufio.Reader // the reader of the last episode file, for the next file

	// write side
	devs, repos map[string]bool
	edges       map[[3]string]bool

	out      chan *batch
	finished chan struct{}
	failed   chan struct{}
	werr     error // the first write error; read once failed or finished is closed

	done, total int64

	// What the workspace holds of episodes (write side, read when the run
	// begins and kept up to date): content hash by simulation id, run ids,
	// task keys.
	epHashes        map[string]string
	epRuns, epTasks map[string]bool
	// tau1Content maps the content hash of every stored tau-bench v1
	// episode to its id: a v1 episode has no id of its own (its id is made
	// of the file's name), so the same content under another file name is
	// the episode already present.
	tau1Content map[string]string
	// fileStatMu guards Stats.EpisodeFiles: the reading side appends to
	// it, the write side counts in its entries.
	fileStatMu sync.Mutex
	// epRW appends the episode rows of the open transaction (writeEpisodes);
	// write closes it before the commit.
	epRW *queries.RowWriter
	// storedHashes is epHashes as the run began, for the reading side
	// (probeFile), which must not read the map the write side changes.
	storedHashes map[string]string
	// prober runs the probes on the probing goroutine (probeFile).
	prober Prober
	// probeIn takes each parsed episode file to the probing goroutine
	// (probeLoop), started with the first.
	probeIn chan *probeJob
	// taskKeys holds the task keys computed so far (taskKey), by the hash
	// of the domain, the task id and the task's JSON as the file has it.
	taskKeys map[string]string
	// tasks holds the tau2 tasks made so far (taskSeen): the parsers copy
	// one instead of decoding the same task again from the next file. It
	// holds each distinct task's JSON once (a few kB a task: every file
	// of a domain embeds the same ones).
	tasks seenTasks
	// restore sets back (close) the DuckDB settings the run writes with:
	// checkpoints only at its last commit (DeferCheckpoints), one thread
	// (BulkWriteThreads), memory_limit at IngestMemoryShare of the
	// workspace's.
	restore func(context.Context) error
	// storedAny: the workspace held sessions when the run began. When
	// it held none, only ids the run has written (written, by idKey) can
	// be stored, and decide looks up those alone.
	storedAny bool
	written   map[uint64]struct{}
	// wroteTurns: the run appended sessions (appendSessions), whose
	// text the last checkpoint compresses with FSST.
	wroteTurns bool
	// errsStored: the workspace held ingest errors when the run began;
	// errPaths: the files the run recorded errors of. A file's earlier
	// errors are cleared (a statement per file) only when one of them
	// says it may have some.
	errsStored bool
	errPaths   map[string]bool
}

// batch is what one transaction writes.
type batch struct {
	sessions   []*ub.Session
	hashes     []string
	turns      int
	bytes      int      // text bytes of the turns
	clear      []string // files whose earlier errors are forgotten
	clearUnder []string // folders whose files' earlier errors are forgotten
	errs       []*ParseError
	errFormats []string
	edgesIn    [][3]string // manifest edges
	epFiles    []*EpisodeFile
	epStat     []int       // index of each epFiles entry in Stats.EpisodeFiles
	epProbes   []*probeJob // of each epFiles entry (probeFile)
	// open: the batch was sent to bound memory, not because it reached
	// BatchTurns or BatchBytes; its transaction stays open for the next.
	open bool
	// last: no batch follows (close).
	last bool
}

func (b *batch) empty() bool {
	return len(b.sessions) == 0 && len(b.clear) == 0 && len(b.clearUnder) == 0 && len(b.errs) == 0 && len(b.edgesIn) == 0 && len(b.epFiles) == 0
}

func newWriter(ctx context.Context, ws *queries.Workspace, opts Options, st *Stats) (*writer, error) {
	w := &writer{ctx: ctx, ws: ws, opts: opts, st: st, cur: &batch{},
		devs: map[string]bool{}, repos: map[string]bool{}, edges: map[[3]string]bool{}}
	if w.opts.BatchTurns <= 0 {
		w.opts.BatchTurns = DefaultBatchTurns
	}
	if w.opts.BatchBytes <= 0 {
		w.opts.BatchBytes = DefaultBatchBytes
	}
	// Names are few next to sessions: keep them in memory to append only new ones.
	err := queries.Names(ctx, ws.Conn(), func(kind, a, b, c string) {
		switch kind {
		case "developer":
			w.devs[a] = true
		case "repo":
			w.repos[a] = true
		case "edge":
			w.edges[[3]string{a, b, c}] = true
		}
	})
	if err != nil {
		return nil, fmt.Errorf("ingest: read names: %w", err)
	}
	if err := queries.PrepareIngestKeys(ctx, ws.Conn()); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	// Episodes, runs and tasks are few next to turns: keep what is stored
	// in memory, read once per run.
	if w.epHashes, w.epRuns, w.epTasks, err = queries.EpStored(ctx, ws.Conn()); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	w.storedHashes = maps.Clone(w.epHashes)
	if w.storedAny, err = queries.SessionsAny(ctx, ws.Conn()); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	if w.errsStored, err = queries.IngestErrorsAny(ctx, ws.Conn()); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	w.errPaths = map[string]bool{}
	w.written = map[uint64]struct{}{}
	w.tau1Content = map[string]string{}
	for id, h := range w.epHashes {
		if strings.HasPrefix(id, tau1IDPrefix) {
			if old, ok := w.tau1Content[h]; !ok || id < old {
				w.tau1Content[h] = id
			}
		}
	}
	if w.restore, err = queries.ApplySettings(ctx, ws.Conn(), queries.DeferCheckpoints,
		queries.Threads(queries.BulkWriteThreads), queries.MemoryShare(queries.IngestMemoryShare, queries.IngestMemoryFloor)); err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	w.out = make(chan *batch) // one batch filling while one is written
	w.finished = make(chan struct{})
	w.failed = make(chan struct{})
	go w.writeLoop()
	return w, nil
}

func (w *writer) writeLoop() {
	defer close(w.finished)
	for b := range w.out {
		if w.werr != nil {
			continue // drain
		}
		if err := w.write(b); err != nil {
			w.werr = err
			close(w.failed)
		}
	}
}

// send hands the current batch to the write loop and starts a new one. It
// returns the write loop's error once it has failed.
func (w *writer) send() error {
	if !w.cur.empty() {
		select {
		case w.out <- w.cur:
		case <-w.failed:
		}
		w.cur = &batch{}
	}
	select {
	case <-w.failed:
		return w.werr
	default:
		return nil
	}
}

// close writes what is left and waits for the write loop.
func (w *writer) close() error {
	if w.probeIn != nil {
		close(w.probeIn) // no file follows; the jobs queued are done
	}
	w.cur.last = true
	err := w.send()
	close(w.out)
	<-w.finished
	if err == nil {
		err = w.werr
	}
	if rerr := w.restore(context.WithoutCancel(w.ctx)); err == nil && rerr != nil {
		err = fmt.Errorf("ingest: restore the settings: %w", rerr)
	}
	return err
}

// Error records bad input (Sink).
func (w *writer) Error(e *ParseError) {
	if e.Warning {
		if len(w.st.Warnings) < maxStatErrors {
			w.st.Warnings = append(w.st.Warnings, e.Error())
		}
		return
	}
	w.st.ErrorCount++
	if len(w.st.Errors) < maxStatErrors {
		w.st.Errors = append(w.st.Errors, e.Error())
	}
	w.cur.errs = append(w.cur.errs, e)
	w.cur.errFormats = append(w.cur.errFormats, w.format)
}

// taskKey is TaskKey, computed once per task text of the run (the
// episode parsers find it with sinkTaskKey). Reading side only.
func (w *writer) taskKey(domain, taskID string, raw json.RawMessage) string {
	h := sha([]byte(domain), []byte(taskID), raw)
	if k, ok := w.taskKeys[h]; ok {
		return k
	}
	if w.taskKeys == nil {
		w.taskKeys = map[string]string{}
	}
	k := TaskKey(domain, taskID, raw)
	w.taskKeys[h] = k
	return k
}

// taskSeen is the run's map of tau2 tasks made so far (sinkTaskSeen).
// Reading side only.
func (w *writer) taskSeen() seenTasks {
	if w.tasks == nil {
		w.tasks = seenTasks{}
	}
	return w.tasks
}

// tau1Names is what the user stated of tau-bench v1 files (ParseTau1).
func (w *writer) tau1Names() Tau1Names { return w.opts.Tau1 }

// Skip counts a session not kept (Sink).
func (w *writer) Skip(reason string) { w.st.Skipped[reason]++ }

// Session resolves a session's identity and hash and queues it (Sink).
func (w *writer) Session(s *ub.Session) error {
	Resolve(s, w.opts.Identity)
	hash := s.ContentHash()
	if s.ID == "" {
		s.ID = hash[:16]
	}
	w.cur.sessions = append(w.cur.sessions, s)
	w.cur.hashes = append(w.cur.hashes, hash)
	w.cur.turns += len(s.Turns)
	for _, t := range s.Turns {
		w.cur.bytes += len(t.Text)
	}
	if w.cur.turns >= w.opts.BatchTurns || w.cur.bytes >= w.opts.BatchBytes {
		return w.send()
	}
	if w.cur.bytes >= sessBatchBytes {
		w.cur.open = true // memory, not the transaction, is full
		return w.send()
	}
	return nil
}

// sessBatchBytes bounds the turn text of one batch of sessions: the batch
// filling, the batch being written and DuckDB's appender chunks of it are
// what the Go side holds of the input. Such batches share one transaction
// until it holds BatchTurns or BatchBytes (write). At 32 MiB a batch, peak
// RSS of a 400 MB file was about 230 MiB higher.
const sessBatchBytes = 4 << 20

// write writes one batch in one transaction, with the batches that follow
// it while they are open (sent to bound memory) and the transaction holds
// less than BatchTurns turns and BatchBytes of text: each commit costs
// DuckDB a write-ahead log flush, which made one commit per MiB of episodes
// the largest part of ingesting them. The counts of what was added change
// only when the transaction commits: after a failed commit (a full disk, a
// read-only directory, SIGINT) the summary says what is stored.
func (w *writer) write(b *batch) error {
	// The session counts are the write side's; the reading side changes
	// the other fields of Stats meanwhile.
	saved := Stats{Sessions: w.st.Sessions, Replaced: w.st.Replaced, Unchanged: w.st.Unchanged,
		Superseded: w.st.Superseded, Turns: w.st.Turns}
	checkpointed := false
	err := w.ws.InTx(w.ctx, func(c *sql.Conn) error {
		last, err := w.writeBatches(c, b)
		if w.epRW != nil {
			// The episode rows of the transaction's batches are
			// flushed once, before it commits.
			if cerr := w.epRW.Close(); err == nil {
				err = cerr
			}
			w.epRW = nil
		}
		if err == nil && last {
			// The run's last transaction commits as a checkpoint
			// (sessions and episodes alike): ub ingest closes the
			// workspace next, whose checkpoint would write the rows
			// to the file after the commit wrote them to the log.
			// Without FSST unless the run wrote turns of sessions.
			checkpointed = true
			err = queries.CheckpointOnCommit(w.ctx, c, !w.wroteTurns)
		}
		return err
	})
	if err != nil {
		w.st.Sessions, w.st.Replaced, w.st.Unchanged, w.st.Superseded, w.st.Turns =
			saved.Sessions, saved.Replaced, saved.Unchanged, saved.Superseded, saved.Turns
		err = fmt.Errorf("ingest: write: %w", err)
	}
	if checkpointed {
		if rerr := queries.ResetCheckpointOnCommit(context.WithoutCancel(w.ctx), w.ws.Conn()); err == nil && rerr != nil {
			err = fmt.Errorf("ingest: after the commit: %w", rerr)
		}
	}
	return err
}

// writeBatches writes b and the open batches that follow it in the open
// transaction (write).
func (w *writer) writeBatches(c *sql.Conn, b *batch) (last bool, err error) {
	turns, bytes := 0, 0
	for {
		if err := w.writeBatch(c, b); err != nil {
			return false, err
		}
		if w.epRW != nil {
			// The appenders buffer what they are given and copy it into
			// the transaction when flushed: flushed batch by batch, the
			// messages are copied while the next file is read, not all
			// after the last one.
			if err := w.epRW.FlushLarge(epFlushRows); err != nil {
				return false, err
			}
		}
		turns, bytes = turns+b.turns, bytes+b.bytes
		if !b.open || turns >= w.opts.BatchTurns || bytes >= w.opts.BatchBytes {
			return b.last, nil
		}
		next, ok := <-w.out
		if !ok {
			return true, nil
		}
		b = next
	}
}

// writeBatch writes one batch in the open transaction.
func (w *writer) writeBatch(c *sql.Conn, b *batch) error {
	for _, p := range b.clear {
		if !w.errsStored && !w.errPaths[p] {
			continue // no error of it stored
		}
		if err := queries.ClearIngestErrors(w.ctx, c, p); err != nil {
			return err
		}
	}
	for _, d := range b.clearUnder {
		if !w.errsStored && !w.errorUnder(d) {
			continue
		}
		if err := queries.ClearIngestErrorsUnder(w.ctx, c, d); err != nil {
			return err
		}
	}
	for i, e := range b.errs {
		if err := queries.AddIngestError(w.ctx, c, e.Path, e.Line, e.Reason, b.errFormats[i]); err != nil {
			return err
		}
		w.errPaths[e.Path] = true
	}
	keep, replace, err := w.decide(c, b)
	if err != nil {
		return err
	}
	for _, id := range replace {
		if err := queries.DeleteSession(w.ctx, c, id); err != nil {
			return err
		}
	}
	if len(replace) > 0 {
		// A replaced copy under another developer or repository must
		// not leave a ghost node or edge for the splits.
		o, err := queries.RemoveOrphans(w.ctx, c)
		if err != nil {
			return err
		}
		for _, e := range o.Edges {
			delete(w.edges, [3]string{e[0], e[1], "session"})
		}
		for _, d := range o.Developers {
			delete(w.devs, d)
		}
		for _, r := range o.Repos {
			delete(w.repos, r)
		}
	}
	if err := w.appendNames(b, keep); err != nil {
		return err
	}
	if err := w.appendSessions(b, keep); err != nil {
		return err
	}
	return w.writeEpisodes(c, b)
}

// errorUnder reports whether the run recorded errors of a file under the
// folder dir (ClearIngestErrorsUnder's match).
func (w *writer) errorUnder(dir string) bool {
	prefix := filepath.Clean(dir) + string(filepath.Separator)
	for p := range w.errPaths {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// decide returns the indexes of the batch's sessions to write and the ids of
// stored sessions they replace. A session stored (or met earlier in the
// batch) with the same id and content hash is unchanged; sessions without a
// native id take their id from the content hash, so their copies are caught
// too. Identity by id and hash together means no session is ever dropped
// because another id happens to hold the same content. A session whose id is stored with
// other content replaces the stored copy when it is more complete (more
// turns; on a tie the larger hash, so the outcome does not depend on the
// order files are read in), and is superseded otherwise.
func (w *writer) decide(c *sql.Conn, b *batch) (keep []int, replace []string, err error) {
	var ids []string
	for _, s := range b.sessions {
		if w.storedAny || w.wrote(s.ID) {
			ids = append(ids, s.ID)
		}
	}
	var stored map[string]queries.StoredSession
	if len(ids) > 0 {
		var err error
		if stored, err = queries.LookupSessions(w.ctx, c, w.ws, ids); err != nil {
			return nil, nil, err
		}
	}
	type entry struct {
		hash   string
		nTurns int
		at     int // index in keep, or -1 when stored
	}
	byID := map[string]entry{}
	for id, e := range stored {
		byID[id] = entry{e.ContentHash, e.NTurns, -1}
	}
	for i, s := range b.sessions {
		hash := b.hashes[i]
		old, ok := byID[s.ID]
		if ok && old.hash == hash {
			w.st.Unchanged++
			continue
		}
		if ok {
			if len(s.Turns) < old.nTurns || len(s.Turns) == old.nTurns && hash < old.hash {
				w.st.Superseded++
				continue
			}
			w.st.Replaced++
			w.st.Turns -= int64(old.nTurns)
			if old.at >= 0 {
				keep[old.at] = -1 // read earlier in this batch: not written after all
			} else {
				replace = append(replace, s.ID)
			}
		} else {
			w.st.Sessions++
		}
		byID[s.ID] = entry{hash, len(s.Turns), len(keep)}
		keep = append(keep, i)
		w.st.Turns += int64(len(s.Turns))
	}
	out := keep[:0]
	for _, k := range keep {
		if k >= 0 {
			out = append(out, k)
			if !w.storedAny {
				w.written[idKey(b.sessions[k].ID)] = struct{}{}
			}
		}
	}
	return out, replace, nil
}

// idKey is the key of a session id in writer.written: a hash, whose
// collisions cost a lookup in the workspace, never a wrong decision. The
// lookup of every batch's ids scans all sessions stored, the run's own
// included: a run into an empty workspace paid for it once per batch (0.1 s
// of the writer's time at 100 MB of sessions), growing with the square of
// its sessions. The keys take 8 bytes and a map entry a session.
func idKey(id string) uint64 {
	return maphash.String(idSeed, id)
}

// wrote reports whether the run may have written a session with this id.
func (w *writer) wrote(id string) bool {
	_, ok := w.written[idKey(id)]
	return ok
}

var idSeed = maphash.MakeSeed()

// appendNames appends the developers, repositories and edges of the kept
// sessions and of manifest lines that the workspace does not have yet.
func (w *writer) appendNames(b *batch, keep []int) error {
	var devs, repos []string
	var edges [][3]string
	note := func(dev, repo, source string) {
		if dev != "" && !w.devs[dev] {
			w.devs[dev] = true
			devs = append(devs, dev)
		}
		if !w.repos[repo] {
			w.repos[repo] = true
			repos = append(repos, repo)
		}
		if k := [3]string{dev, repo, source}; dev != "" && !w.edges[k] {
			w.edges[k] = true
			edges = append(edges, k)
		}
	}
	for _, e := range b.edgesIn {
		note(e[0], e[1], e[2])
	}
	for _, i := range keep {
		note(b.sessions[i].Developer, b.sessions[i].Repo, "session")
	}
	rw := queries.NewRowWriter(w.ctx, w.ws)
	for _, d := range devs {
		rw.Developer(d)
	}
	for _, r := range repos {
		rw.Repo(r)
	}
	for _, e := range edges {
		rw.DeveloperRepo(e[0], e[1], e[2])
	}
	return rw.Close()
}

// appendSessions appends the kept sessions and their turns.
func (w *writer) appendSessions(b *batch, keep []int) error {
	if len(keep) == 0 {
		return nil
	}
	w.wroteTurns = true
	rw := queries.NewRowWriter(w.ctx, w.ws)
	for _, i := range keep {
		s := b.sessions[i]
		err := rw.Session(queries.SessionRow{ID: s.ID, Developer: s.Developer, Repo: s.Repo, StartedAt: s.StartedAt,
			Format: s.Format, SourceFile: s.SourceFile, Line: s.Line, ContentHash: b.hashes[i], Turns: len(s.Turns), Meta: jsonOrNil(s.Meta)})
		if err != nil {
			rw.Close()
			return fmt.Errorf("%s:%d: session %s: %w", s.SourceFile, s.Line, s.ID, err)
		}
		for j, t := range s.Turns {
			err := rw.Turn(queries.TurnRow{SessionID: s.ID, Idx: j, Role: string(t.Role), Text: t.Text, TS: t.TS,
				IsCommand: t.IsCommand, Meta: jsonOrNil(t.Meta)})
			if err != nil {
				rw.Close()
				return fmt.Errorf("%s:%d: session %s turn %d: %w", s.SourceFile, s.Line, s.ID, j, err)
			}
		}
	}
	return rw.Close()
}

// jsonOrNil encodes meta for a JSON column: the appender marshals what it is
// given, so a json.RawMessage goes in as the object itself.
func jsonOrNil(m map[string]any) json.RawMessage {
	if len(m) == 0 {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"unmarshalable_meta": err.Error()})
	}
	return json.RawMessage(b)
}
