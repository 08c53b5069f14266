package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/reports/visible"
)

// tau2-bench's "dir" results format (Results._detect_format and
// Results.load in tau2's data_model/simulation.py): results.json holds
// the run's timestamp, info, tasks and a simulation_index; each
// simulation is its own file, simulations/<id>.json, beside it.

// tau2SimsDir is the folder of a dir-format run's simulation files.
const tau2SimsDir = "simulations"

// tau2DirPart is how many episodes of a dir-format run go to the sink at
// a time: memory holds one part of a run, not the run.
const tau2DirPart = 64

// tau2Dir is a dir-format run being read.
type tau2Dir struct {
	sims      string // the simulations folder
	index     []t2IndexEntry
	indexLine int // 0: results.json has no simulation_index
}

// t2IndexEntry is an entry of simulation_index (SimulationIndexEntry).
type t2IndexEntry struct {
	ID string `json:"id"`
}

// Tau2DirMeta returns the results.json of the dir-format run at path, and
// whether path is one: a folder holding results.json and a simulations
// folder, or a file with a simulations folder beside it (tau2's rule).
func Tau2DirMeta(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	dir, meta := filepath.Dir(path), path
	if fi.IsDir() {
		dir, meta = path, filepath.Join(path, "results.json")
		if m, err := os.Stat(meta); err != nil || !m.Mode().IsRegular() {
			return "", false
		}
	} else if isReviewedFile(path) {
		return "", false // a monolithic file beside the run's folder
	}
	if s, err := os.Stat(filepath.Join(dir, tau2SimsDir)); err != nil || !s.IsDir() {
		return "", false
	}
	return meta, true
}

// ParseTau2Dir reads a dir-format tau2 run from its results.json (meta).
// The simulation files are checked against simulation_index as tau2 checks
// them: a file missing or one not in the index refuses the run, naming
// them. They are read in the index's order (without an index, by name),
// one at a time, and given to sink in parts of tau2DirPart episodes.
func ParseTau2Dir(meta string, sink EpisodeSink) error {
	fh, err := os.Open(meta)
	if err != nil {
		return err
	}
	defer fh.Close()
	d := &tau2Dir{sims: filepath.Join(filepath.Dir(meta), tau2SimsDir)}
	return parseTau2Run(newJSONStream(meta, bufio.NewReaderSize(fh, 1<<16)), sink, d)
}

// read checks and reads the simulation files of the run whose results.json
// p read.
func (d *tau2Dir) read(p *tau2File, sink EpisodeSink) error {
	for _, e := range p.errs {
		sink.Error(e)
	}
	p.errs = nil
	order, pe := d.order(p.path)
	if pe != nil {
		sink.Error(pe)
		return nil
	}
	discarded, pe := readDiscarded(filepath.Join(filepath.Dir(p.path), tau2DiscardedFile))
	if pe != nil {
		sink.Error(pe)
		return nil
	}
	reviewed, pe := ReadTau2Reviewed(filepath.Dir(p.path))
	if pe != nil {
		sink.Error(pe)
		return nil
	}
	part := &EpisodeFile{Run: p.f.Run, Tasks: p.f.Tasks}
	sent := false
	flush := func() error {
		if err := sink.EpisodeFile(part); err != nil {
			return err
		}
		sent = true
		part = &EpisodeFile{Run: p.f.Run, Continued: true}
		return nil
	}
	for i, id := range order {
		ep, pe := d.simulation(p, i, id)
		if pe != nil {
			sink.Error(pe)
			continue
		}
		attemptIDs(ep, discarded)
		if rv, ok := reviewed[ep.SimulationID]; ok {
			withReviews(ep, rv)
		}
		part.Episodes = append(part.Episodes, ep)
		if len(part.Episodes) == tau2DirPart {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if len(part.Episodes) > 0 || !sent {
		return flush()
	}
	return nil
}

// order is the ids of the run's simulation files in reading order,
// checked against the index of its results.json (meta) as tau2 checks
// them: the index's order, a file missing or one not in the index
// refusing the run, naming them; without an index, every file by name.
func (d *tau2Dir) order(meta string) ([]string, *ParseError) {
	entries, err := os.ReadDir(d.sims)
	if err != nil {
		return nil, &ParseError{Path: d.sims, Reason: err.Error()}
	}
	var onDisk []string
	disk := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		stem := strings.TrimSuffix(e.Name(), ".json")
		onDisk = append(onDisk, stem)
		disk[stem] = true
	}
	sort.Strings(onDisk)
	order := onDisk
	if d.indexLine > 0 {
		order = make([]string, 0, len(d.index))
		indexed := map[string]bool{}
		var missing, extra []string
		for i, e := range d.index {
			if e.ID == "" {
				return nil, &ParseError{Path: meta, Line: d.indexLine, Reason: fmt.Sprintf("simulation_index %d: missing \"id\"", i)}
			}
			if indexed[e.ID] {
				return nil, &ParseError{Path: meta, Line: d.indexLine, Reason: fmt.Sprintf("simulation_index %d: id %s repeated", i, visible.Quote(e.ID))}
			}
			indexed[e.ID] = true
			order = append(order, e.ID)
			if !disk[e.ID] {
				missing = append(missing, filepath.Join(d.sims, e.ID+".json"))
			}
		}
		for _, stem := range onDisk {
			if !indexed[stem] {
				extra = append(extra, filepath.Join(d.sims, stem+".json"))
			}
		}
		if len(missing)+len(extra) > 0 {
			var why []string
			if len(missing) > 0 {
				sort.Strings(missing)
				why = append(why, "simulation files of the index missing: "+visible.List(missing, 5))
			}
			if len(extra) > 0 {
				why = append(why, "simulation files not in the index: "+visible.List(extra, 5))
			}
			return nil, &ParseError{Path: meta, Line: d.indexLine, Reason: "dir-format run refused (nothing of it read): " + strings.Join(why, "; ")}
		}
	}
	return order, nil
}

// simulation reads the idx-th simulation file, simulations/<id>.json.
func (d *tau2Dir) simulation(p *tau2File, idx int, id string) (*ub.Episode, *ParseError) {
	path := filepath.Join(d.sims, id+".json")
	raw, pe := ReadTau2Simulation(path)
	if pe != nil {
		return nil, pe
	}
	if pe := syntaxCheck(path, raw); pe != nil {
		return nil, pe
	}
	var sim t2Sim
	decErr := json.Unmarshal(raw, &sim)
	raw = bytes.TrimSpace(raw)
	ep, err := tau2Decoded(&sim, decErr, raw, &p.f.Run, idx)
	if err != nil {
		return nil, &ParseError{Path: path, Line: 1, Reason: err.Error()}
	}
	if ep.SimulationID != id {
		return nil, &ParseError{Path: path, Line: 1, Reason: fmt.Sprintf("simulation %d: id %s in a file named for %s", idx, ep.SimulationID, id)}
	}
	ep.Line = 1
	if t := p.byID[ep.TaskID]; t != nil {
		ep.TaskKey, ep.TaskRef = strp(t.Key), t
	}
	return ep, nil
}

// MaxTau2SimulationBytes bounds the size of one simulation file of a
// dir-format run, which is read whole (a variable so that tests can lower
// it). 256 MiB is far above a voice simulation with its ticks.
var MaxTau2SimulationBytes int64 = 256 << 20

// ReadTau2Simulation reads a simulation file of a dir-format run whole.
// Only a regular file
// (or a symbolic link to one) is read, and one of at most
// MaxTau2SimulationBytes: a device, a FIFO or a socket named
// simulations/<id>.json would be read without end or block for ever.
func ReadTau2Simulation(path string) ([]byte, *ParseError) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &ParseError{Path: path, Reason: err.Error()}
	}
	if what := notRegular(fi.Mode()); what != "" {
		if target, err := os.Readlink(path); err == nil {
			what = "a symbolic link to " + target + ", " + what
		}
		return nil, &ParseError{Path: path, Reason: "not a regular file but " + what + " (only a regular file is read as a simulation)"}
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, &ParseError{Path: path, Reason: err.Error()}
	}
	defer fh.Close()
	if fi, err = fh.Stat(); err != nil {
		return nil, &ParseError{Path: path, Reason: err.Error()}
	}
	if what := notRegular(fi.Mode()); what != "" { // replaced since the first look
		return nil, &ParseError{Path: path, Reason: "not a regular file but " + what}
	}
	tooBig := &ParseError{Path: path, Reason: fmt.Sprintf("simulation file larger than the limit of %d MiB", MaxTau2SimulationBytes>>20)}
	if fi.Size() > MaxTau2SimulationBytes {
		return nil, tooBig
	}
	raw, err := io.ReadAll(io.LimitReader(fh, MaxTau2SimulationBytes+1))
	if err != nil {
		return nil, &ParseError{Path: path, Reason: err.Error()}
	}
	if int64(len(raw)) > MaxTau2SimulationBytes {
		return nil, tooBig
	}
	return raw, nil
}

// notRegular names what a file of mode m is when it is not a regular file
// ("a FIFO", "a device", ...), and is "" for a regular file.
func notRegular(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file (mode " + m.String() + ")"
}

// tau2DiscardedFile is where tau2 keeps the attempts its hallucination
// checker discarded (runner/batch.py), beside results.json: a monolithic
// result file of simulations that are no episodes of the run.
var tau2DiscardedFile = filepath.Join("hallucination_discarded", "results_user_hallucination.json")

// isDiscardedFile reports whether path is a run's file of discarded
// attempts.
func isDiscardedFile(path string) bool {
	return strings.HasSuffix(filepath.ToSlash(filepath.Clean(path)), "/"+filepath.ToSlash(tau2DiscardedFile)) ||
		filepath.ToSlash(filepath.Clean(path)) == filepath.ToSlash(tau2DiscardedFile)
}

// readDiscarded reads the ids of the discarded attempts, in the file's
// order, by task id and trial (attemptKey); nil when there is no file.
func readDiscarded(path string) (map[string][]string, *ParseError) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &ParseError{Path: path, Reason: "not a regular file but " + notRegular(fi.Mode()) + " (only a regular file is read)"}
	}
	fh, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, &ParseError{Path: path, Reason: err.Error()}
	}
	defer fh.Close()
	out := map[string][]string{}
	pe := eachResultSimulation(path, fh, "discarded attempts", func(s *jsonStream, i int) *ParseError {
		var sim struct {
			ID     string          `json:"id"`
			TaskID json.RawMessage `json:"task_id"`
			Trial  *int            `json:"trial"`
		}
		raw, line, err := s.decode(&sim)
		if raw == nil {
			return s.syntaxError(err)
		}
		task, ok := idString(sim.TaskID)
		if err != nil || sim.ID == "" || !ok {
			return &ParseError{Path: path, Line: line, Reason: fmt.Sprintf("discarded attempt %d: want an id and a task_id", i)}
		}
		k := attemptKey(task, sim.Trial)
		out[k] = append(out[k], sim.ID)
		return nil
	})
	if pe != nil {
		return nil, pe
	}
	return out, nil
}

// eachResultSimulation streams the tau2 result file path (read from r):
// every key but "simulations" is passed over, and each simulation of that
// array is handed to each with its index, which decodes it from s. what
// names the file's role in the errors.
func eachResultSimulation(path string, r io.Reader, what string, each func(s *jsonStream, i int) *ParseError) *ParseError {
	s := newJSONStream(path, bufio.NewReaderSize(r, 1<<16))
	if t, err := s.token(); err != nil {
		return s.syntaxError(err)
	} else if t != json.Delim('{') {
		return &ParseError{Path: path, Line: 1, Reason: what + ": not a tau2 result file"}
	}
	for s.more() {
		t, err := s.token()
		if err != nil {
			return s.syntaxError(err)
		}
		if t != "simulations" {
			if _, _, err := s.value(); err != nil {
				return s.syntaxError(err)
			}
			continue
		}
		if t, err := s.token(); err != nil {
			return s.syntaxError(err)
		} else if t != json.Delim('[') {
			return &ParseError{Path: path, Line: s.line(), Reason: what + `: "simulations" is not an array`}
		}
		for i := 0; s.more(); i++ {
			if pe := each(s, i); pe != nil {
				return pe
			}
		}
		if _, err := s.token(); err != nil {
			return s.syntaxError(err)
		}
	}
	return nil
}

func attemptKey(task string, trial *int) string {
	t := -1
	if trial != nil {
		t = *trial
	}
	return fmt.Sprintf("%s\x00%d", task, t)
}

// attemptIDs names the discarded attempts of ep's ledger by the
// simulations of the discarded file, in its order, when it lists as many.
func attemptIDs(ep *ub.Episode, discarded map[string][]string) {
	ids := discarded[attemptKey(ep.TaskID, ep.Trial)]
	n := 0
	for _, a := range ep.Attempts {
		if !a.Kept {
			n++
		}
	}
	if n == 0 || len(ids) < n {
		return
	}
	for i := range ep.Attempts {
		if !ep.Attempts[i].Kept {
			ep.Attempts[i].SimulationID = strp(ids[ep.Attempts[i].Attempt-1])
		}
	}
}

// Tau2DirFiles lists the simulation files of the dir-format run whose
// results.json is meta, in the order ParseTau2Dir reads them, checked
// against the run's simulation_index as ParseTau2Dir checks them (a file
// missing or one not in the index is an error naming them). The files
// are not read.
func Tau2DirFiles(meta string) ([]string, error) {
	fh, err := os.Open(meta)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	d := &tau2Dir{sims: filepath.Join(filepath.Dir(meta), tau2SimsDir)}
	s := newJSONStream(meta, bufio.NewReaderSize(fh, 1<<16))
	if t, err := s.token(); err != nil {
		return nil, s.syntaxError(err)
	} else if t != json.Delim('{') {
		return nil, &ParseError{Path: meta, Line: 1, Reason: "not a tau2 results file: want an object"}
	}
	for s.more() {
		t, err := s.token()
		if err != nil {
			return nil, s.syntaxError(err)
		}
		raw, line, err := s.value()
		if err != nil {
			return nil, s.syntaxError(err)
		}
		if t == "simulation_index" && nullRaw(raw) != nil {
			d.indexLine = line
			if err := json.Unmarshal(raw, &d.index); err != nil {
				return nil, &ParseError{Path: meta, Line: line, Reason: "simulation_index: " + err.Error()}
			}
		}
	}
	ids, pe := d.order(meta)
	if pe != nil {
		return nil, pe
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = filepath.Join(d.sims, id+".json")
	}
	return out, nil
}

// Tau2RunOfSimulations returns the folder of the dir-format run whose
// simulations folder path is, and whether it is one: path is named
// simulations and the folder above it holds the run's results.json. Such a
// folder is no input of its own (its files are no result files; ingest
// would pass them all by): the run is.
func Tau2RunOfSimulations(path string) (string, bool) {
	clean := filepath.Clean(path)
	if filepath.Base(clean) != tau2SimsDir {
		return "", false
	}
	if fi, err := os.Stat(clean); err != nil || !fi.IsDir() {
		return "", false
	}
	run := filepath.Dir(clean)
	if _, ok := Tau2DirMeta(run); !ok {
		return "", false
	}
	return run, true
}

// Tau2ReviewedFile is what `tau2 review` writes beside a dir-format run's
// results.json (scripts/review_conversation.py): the whole run as one
// monolithic result file, each simulation with the review made of it. It
// is no results.json of the run: named alone it is read as the monolithic
// file it is; the run's folder takes the reviews from it
// (ReadTau2Reviewed).
const Tau2ReviewedFile = ub.Tau2ReviewedFile

// isReviewedFile reports whether path is a run's Tau2ReviewedFile.
func isReviewedFile(path string) bool { return filepath.Base(path) == Tau2ReviewedFile }

// Tau2Reviews are the reviews a simulation of a Tau2ReviewedFile carries
// (nil: none).
type Tau2Reviews struct {
	Review, UserOnlyReview json.RawMessage
}

// ReadTau2Reviewed reads the reviews of the Tau2ReviewedFile in the folder
// dir, by simulation id, keeping of each simulation only its id and
// reviews; nil when there is no such file. A file that is not a tau2
// result file, or a simulation without an id, is an error naming the
// file and line.
func ReadTau2Reviewed(dir string) (map[string]Tau2Reviews, *ParseError) {
	path := filepath.Join(dir, Tau2ReviewedFile)
	fi, err := os.Stat(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, &ParseError{Path: path, Reason: err.Error()}
	}
	if !fi.Mode().IsRegular() {
		return nil, &ParseError{Path: path, Reason: "not a regular file but " + notRegular(fi.Mode()) + " (only a regular file is read)"}
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, &ParseError{Path: path, Reason: err.Error()}
	}
	defer fh.Close()
	out := map[string]Tau2Reviews{}
	pe := eachResultSimulation(path, fh, "reviewed results", func(s *jsonStream, i int) *ParseError {
		var sim struct {
			ID             string          `json:"id"`
			Review         json.RawMessage `json:"review"`
			UserOnlyReview json.RawMessage `json:"user_only_review"`
		}
		raw, line, err := s.decode(&sim)
		if raw == nil {
			return s.syntaxError(err)
		}
		if err != nil || sim.ID == "" {
			return &ParseError{Path: path, Line: line, Reason: fmt.Sprintf("reviewed simulation %d: want an id", i)}
		}
		r := Tau2Reviews{Review: nullRaw(sim.Review), UserOnlyReview: nullRaw(sim.UserOnlyReview)}
		if r.Review != nil || r.UserOnlyReview != nil {
			out[sim.ID] = Tau2Reviews{Review: bytes.Clone(r.Review), UserOnlyReview: bytes.Clone(r.UserOnlyReview)}
		}
		return nil
	})
	if pe != nil {
		return nil, pe
	}
	return out, nil
}

// withReviews adds to ep the reviews its simulation file lacks and rv
// (from the run's Tau2ReviewedFile) holds: kept in extra as a monolithic
// file's are, and in the content hash, so that a run reviewed since it
// was ingested is stored again with its reviews.
func withReviews(ep *ub.Episode, rv Tau2Reviews) {
	extra := map[string]json.RawMessage{}
	if len(ep.Extra) > 0 {
		_ = json.Unmarshal(ep.Extra, &extra)
	}
	added := false
	for k, v := range map[string]json.RawMessage{"review": rv.Review, "user_only_review": rv.UserOnlyReview} {
		if _, has := extra[k]; !has && v != nil {
			extra[k] = v
			added = true
		}
	}
	if !added {
		return
	}
	b, _ := json.Marshal(extra)
	ep.Extra = b
	ep.ContentHash = sha([]byte(ep.ContentHash), b)
}
