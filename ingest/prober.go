package ingest

import (
	"context"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries"
)

// Prober runs the judge-free probes (SPEC 6.3) on one parsed episode:
// the names of the probes that apply to it, in report order, and what
// they find. One Prober is used by one goroutine at a time; it may keep
// what it derives from a task for the next episodes of that task.
// probes.NewProber is ub's; ingest does not know the probes.
type Prober interface {
	Probe(e *ub.Episode) (applies []string, findings []ub.ProbeFinding)
}

// probeResults collects the probes' findings and applicability rows.
type probeResults struct {
	findings []ub.ProbeFinding
	apps     []probeApp
}

type probeApp struct{ sim, probe string }

func (r *probeResults) run(p Prober, e *ub.Episode) {
	applies, findings := p.Probe(e)
	for _, name := range applies {
		r.apps = append(r.apps, probeApp{e.SimulationID, name})
	}
	r.findings = append(r.findings, findings...)
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
	if w.opts.NewProber == nil {
		return out
	}
	if w.prober == nil {
		w.prober = w.opts.NewProber()
	}
	for i, e := range f.Episodes {
		if h, ok := w.storedHashes[e.SimulationID]; ok && h == e.ContentHash {
			continue
		}
		out[i] = &probeResults{}
		out[i].run(w.prober, e)
	}
	return out
}

// appendProbes appends the findings and applicability rows of episodes
// being added in the current transaction: the same rows probes.RunStored
// derives from the stored episodes, since the probes read the same data (JSON
// values as the appender stores them). probes holds each episode's results
// as probeFile found them; one it skipped (stored with this content when
// the run began, but replaced since by another file of the run) is probed
// here.
func (w *writer) appendProbes(rw *queries.RowWriter, eps []*ub.Episode, probes []*probeResults) {
	if w.opts.NewProber == nil {
		return
	}
	var res probeResults
	var p Prober // the write side's own: the probing goroutine's is in use
	for i, e := range eps {
		r := probes[i]
		if r == nil {
			if p == nil {
				p = w.opts.NewProber()
			}
			r = &probeResults{}
			r.run(p, e)
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
		rw.EpProbeFinding(f)
	}
	for _, a := range res.apps {
		rw.EpProbeApplicable(a.sim, a.probe)
	}
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
