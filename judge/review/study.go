package review

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports/visible"
)

// ErrNoData marks a step that lacks what an earlier step makes: no
// episodes to sample, no batch to serve, no decision to count.
var ErrNoData = errors.New("review: missing data")

// ErrInvalid marks a request that cannot be met as asked: a batch name
// taken or unknown, sampling options that do not fit, an unknown interval.
var ErrInvalid = errors.New("review: invalid request")

// kindError is err, marked as ErrNoData or ErrInvalid; its message is err's.
type kindError struct{ err, kind error }

func (e kindError) Error() string   { return e.err.Error() }
func (e kindError) Unwrap() []error { return []error{e.err, e.kind} }

func noData(format string, args ...any) error {
	return kindError{fmt.Errorf(format, args...), ErrNoData}
}

// BatchOptions configures CreateBatch. The zero value draws a batch named
// s0-n0 of SampleOptions' defaults.
type BatchOptions struct {
	Name      string // the batch's name; "" means s<Seed>-n<N>
	N         int
	Seed      uint64
	Stratify  []string // strata: any of domain, success
	Reviewers []string // empty means one reviewer named "reviewer"
	// OversampleProbes W: draw episodes where judge-free probes fired with
	// weight W (SampleOptions); 0 means not probe-guided.
	OversampleProbes float64
	// Prefill names an LLM reviewer whose decisions pre-fill the form of
	// each episode a reviewer has not decided ("": none, the default).
	// Decisions saved from such a form are marked with it.
	Prefill string
	// OnLeftOut, when not nil, is told the episodes no review can judge
	// (Reviewable), left out of the draw, when there are any.
	OnLeftOut func(LeftOut)
}

// CreateBatch draws a named review batch of the workspace's episodes
// (Sample) and stores it with its assignments. No episode is ErrNoData; a
// name already taken or options Sample refuses are ErrInvalid.
func CreateBatch(ctx context.Context, ws *queries.Workspace, opts BatchOptions) (queries.ReviewBatch, []queries.ReviewAssignment, error) {
	name := opts.Name
	if name == "" {
		name = fmt.Sprintf("s%d-n%d", opts.Seed, opts.N)
	}
	cands, err := queries.ReviewCandidates(ctx, ws.Conn())
	if err != nil {
		return queries.ReviewBatch{}, nil, err
	}
	if len(cands) == 0 {
		return queries.ReviewBatch{}, nil, noData("review sample: the workspace has no episodes: ingest tau2 result files first")
	}
	cands, lo := Reviewable(cands)
	if lo != (LeftOut{}) && opts.OnLeftOut != nil {
		opts.OnLeftOut(lo)
	}
	if len(cands) == 0 {
		return queries.ReviewBatch{}, nil, noData("review sample: the workspace has no episode with a simulated user to review, only %s: ingest tau2 result files of runs with a user simulator", lo)
	}
	if opts.Prefill != "" {
		n, err := queries.LLMDecisionCount(ctx, ws.Conn(), opts.Prefill)
		if err != nil {
			return queries.ReviewBatch{}, nil, err
		}
		if n == 0 {
			return queries.ReviewBatch{}, nil, kindError{fmt.Errorf("review sample: --prefill %s: no LLM review of that name (ub review import its file first)", opts.Prefill), ErrInvalid}
		}
	}
	dr, err := Draw(cands, SampleOptions{N: opts.N, Seed: opts.Seed, Stratify: opts.Stratify, Reviewers: opts.Reviewers,
		OversampleProbes: opts.OversampleProbes})
	if err != nil {
		return queries.ReviewBatch{}, nil, kindError{err, ErrInvalid}
	}
	as := dr.Assignments
	reviewers := opts.Reviewers
	if len(reviewers) == 0 {
		reviewers = []string{"reviewer"}
	}
	b := queries.ReviewBatch{Batch: name, Seed: int64(opts.Seed), N: opts.N, Stratify: strings.Join(opts.Stratify, ","), Reviewers: strings.Join(reviewers, ","),
		OversampleProbes: opts.OversampleProbes, Population: len(cands), Prefill: opts.Prefill}
	if err := queries.CreateReviewBatchDesign(ctx, ws, b, as, dr.Inclusion); err != nil {
		if errors.Is(err, queries.ErrBatchExists) {
			return b, nil, kindError{err, ErrInvalid}
		}
		return b, nil, err
	}
	return b, as, nil
}

// PickBatch returns the batch named name, or the only batch when name is
// "". No batch is ErrNoData; an unknown name, or "" among several, is
// ErrInvalid. The errors do not name the command: the caller does.
func PickBatch(ctx context.Context, db queries.Querier, name string) (queries.ReviewBatch, error) {
	bs, err := queries.ReviewBatches(ctx, db)
	if err != nil {
		return queries.ReviewBatch{}, err
	}
	var names []string
	for _, b := range bs {
		if b.Batch == name || (name == "" && len(bs) == 1) {
			return b, nil
		}
		names = append(names, b.Batch)
	}
	if len(bs) == 0 {
		return queries.ReviewBatch{}, noData("no review batch: run ub review sample first")
	}
	if name == "" {
		return queries.ReviewBatch{}, kindError{fmt.Errorf("--batch is needed: the workspace has %s", visible.List(names, 10)), ErrInvalid}
	}
	return queries.ReviewBatch{}, kindError{fmt.Errorf("--batch: no batch %s (have %s)", visible.Quote(name), visible.List(names, 10)), ErrInvalid}
}

// StatsOptions configures Stats. The zero value gives the final human
// decisions' statistics with Wilson 95% intervals.
type StatsOptions struct {
	Interval  string  // wilson, cp or jeffreys; "" means wilson
	Level     float64 // confidence level; 0 means 0.95
	Threshold float64 // success is reward >= Threshold
	Reviewer  string  // one reviewer's decisions; "" means the final human decisions
	Seed      uint64  // seed of the corrected share's draws; 0 means analysis.DefaultBootstrapSeed
}

// Stats computes the review statistics of every stored decision
// (analysis.ReviewStatistics). No decision is ErrNoData; an unknown
// interval is ErrInvalid.
func Stats(ctx context.Context, db queries.Querier, opts StatsOptions) (analysis.ReviewStats, error) {
	method := opts.Interval
	if method == "" {
		method = "wilson"
	}
	iv, err := analysis.IntervalByName(method)
	if err != nil {
		return analysis.ReviewStats{}, kindError{err, ErrInvalid}
	}
	ds, err := queries.ReviewDecisions(ctx, db)
	if err != nil {
		return analysis.ReviewStats{}, err
	}
	if len(ds) == 0 {
		return analysis.ReviewStats{}, noData("review: no review decision yet: ub review serve (or ub review import) first")
	}
	level := opts.Level
	if level == 0 {
		level = 0.95
	}
	return analysis.ReviewStatistics(Items(ds), analysis.ReviewOptions{Level: level, Interval: iv, Method: method,
		Threshold: opts.Threshold, Reviewer: opts.Reviewer, Family: Family, Bootstrap: analysis.BootstrapOptions{Seed: opts.Seed}})
}

// ReportStats is the review statistics for the study report (final human
// decisions, Wilson 95%), or nil when no human decision counts.
func ReportStats(ctx context.Context, db queries.Querier) (*analysis.ReviewStats, error) {
	ds, err := queries.ReviewDecisions(ctx, db)
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	st, err := analysis.ReviewStatistics(Items(ds), analysis.ReviewOptions{Family: Family})
	if err != nil {
		return nil, nil // e.g. only LLM reviews: nothing final to report
	}
	return &st, nil
}

// AttemptStats is the error share of st over every attempt of its
// episodes (analysis.AttemptErrorShare): the attempts tau2 discarded
// before the decided episodes (the attempt ledger) count as attempts with
// a simulator error. An episode is decided when it has a decision that is
// not a failed review, by st's reviewer (final: a human or an
// adjudicator) and is not pending adjudication. nil when no decided
// episode had an attempt discarded.
func AttemptStats(ctx context.Context, db queries.Querier, st analysis.ReviewStats) (*analysis.AttemptShare, error) {
	disc, err := queries.EpDiscardedAttempts(ctx, db)
	if err != nil || len(disc) == 0 {
		return nil, err
	}
	ds, err := queries.ReviewDecisions(ctx, db)
	if err != nil {
		return nil, err
	}
	pending := map[string]bool{}
	for _, id := range st.Pending {
		pending[id] = true
	}
	seen := map[string]bool{}
	n := 0
	for _, d := range ds {
		ok := d.Outcome != queries.OutcomeFailed && !pending[d.SimulationID] && !seen[d.SimulationID]
		if st.Reviewer == "final" || st.Reviewer == "" {
			ok = ok && d.Kind != queries.KindLLM
		} else {
			ok = ok && d.Reviewer == st.Reviewer
		}
		if ok {
			seen[d.SimulationID] = true
			n += disc[d.SimulationID]
		}
	}
	if n == 0 {
		return nil, nil
	}
	s, err := analysis.AttemptErrorShare(st.Overall.Error.K, st.Overall.N, n, st.Level, nil)
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// WriteRerun writes the tasks with a critical simulator error, one
// "domain TAB task id" line each, in the order of st.Rerun.
func WriteRerun(w io.Writer, st analysis.ReviewStats) error {
	for _, k := range st.Rerun {
		dom, task, _ := strings.Cut(k, "/")
		if _, err := fmt.Fprintf(w, "%s\t%s\n", dom, task); err != nil {
			return err
		}
	}
	return nil
}

// exportedDecision is one line of WriteDecisions.
type exportedDecision struct {
	SimulationID string   `json:"simulation_id"`
	Reviewer     string   `json:"reviewer"`
	Kind         string   `json:"kind"`
	Outcome      string   `json:"outcome"`
	Batch        string   `json:"batch,omitempty"`
	Source       string   `json:"source"`
	DecidedAt    string   `json:"decided_at"`
	Revision     int      `json:"revision"`
	Domain       string   `json:"domain,omitempty"`
	TaskID       string   `json:"task_id,omitempty"`
	Reward       *float64 `json:"reward"`
	// LeadTime (seconds from serving the episode page to the decision,
	// measured by the server) and ClientTime (seconds the page was
	// visible, measured by the browser) are null when unknown; Prefilled
	// names the LLM reviewer whose decision pre-filled the form ("": none).
	LeadTime   *float64        `json:"lead_time"`
	ClientTime *float64        `json:"client_time"`
	Prefilled  string          `json:"prefilled"`
	Errors     []exportedError `json:"errors"`
}

type exportedError struct {
	TurnIdx  *int64 `json:"turn_idx"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Note     string `json:"note"`
}

// WriteDecisions writes every stored decision as one JSON object a line,
// in the order of queries.ReviewDecisions (times in UTC, RFC 3339).
func WriteDecisions(ctx context.Context, db queries.Querier, w io.Writer) error {
	ds, err := queries.ReviewDecisions(ctx, db)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	for _, d := range ds {
		e := exportedDecision{SimulationID: d.SimulationID, Reviewer: d.Reviewer, Kind: d.Kind, Outcome: d.Outcome, Batch: d.Batch,
			Source: d.Source, DecidedAt: d.DecidedAt.UTC().Format(time.RFC3339), Revision: d.Revision, Domain: d.Domain, TaskID: d.TaskID,
			Errors: []exportedError{}}
		if d.Reward.Valid {
			e.Reward = &d.Reward.Float64
		}
		if d.LeadTime.Valid {
			e.LeadTime = &d.LeadTime.Float64
		}
		if d.ClientTime.Valid {
			e.ClientTime = &d.ClientTime.Float64
		}
		e.Prefilled = d.Prefilled
		for _, x := range d.Errors {
			ee := exportedError{Code: x.Code, Severity: x.Severity, Note: x.Note}
			if x.TurnIdx.Valid {
				ee.TurnIdx = &x.TurnIdx.Int64
			}
			e.Errors = append(e.Errors, ee)
		}
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
}

// ErrBadInput marks a file to import that is not what its format says.
var ErrBadInput = errors.New("review: bad input")

// FileOptions configures ParseFile. The zero value reads the format from
// the file's name and names the reviewer after the file.
type FileOptions struct {
	Format   string    // tau2, csv or label-studio; "" means by the extension (.json: tau2, .csv: csv)
	Reviewer string    // "" means llm:BASE for tau2 and csv:BASE for csv, BASE the file's name without extension
	At       time.Time // the decisions' time (tau2, csv; a Label Studio annotation has its own)
	// Annotator selects the Label Studio annotations of one completed_by
	// (0: each task's only one).
	Annotator int
	Model     string // the model of an LLM reviewer ("" unknown; tau2's default reviewer is claude-opus-4-5)
	// Run reads a dir-format tau2 run whose results.json is its argument
	// as ub ingest reads it (the command passes one made of ingest's
	// readers: the format is ingest's to know). nil refuses dir-format
	// runs.
	Run func(resultsJSON string) (DirRun, error)
}

// DirRun is a dir-format tau2 run as ingest reads it.
type DirRun struct {
	// Files are its simulation files, in the order ub ingest reads them,
	// checked against the run's index.
	Files []string
	// Read reads one simulation file as ingest does (a regular file
	// within ingest's size bound).
	Read func(path string) ([]byte, error)
	// Reviews are the user-only reviews of the run's ub.Tau2ReviewedFile
	// (what tau2 review writes beside it), by simulation id.
	Reviews map[string]json.RawMessage
}

// PlaceTicks gives each error of a full-duplex review that has a tick
// span but no turn the turn it lands on (queries.TickTurn: the first user
// message built from a tick of the span); one whose episode is not in the
// workspace, or has no message of those ticks, stays on the episode as a
// whole. It returns how many errors it placed.
func PlaceTicks(ctx context.Context, db queries.Querier, ds []queries.Decision) (int, error) {
	n := 0
	for i := range ds {
		for j := range ds[i].Errors {
			e := &ds[i].Errors[j]
			if e.TurnIdx.Valid || !e.TickStart.Valid {
				continue
			}
			end := e.TickStart.Int64
			if e.TickEnd.Valid && e.TickEnd.Int64 >= end {
				end = e.TickEnd.Int64
			}
			turn, ok, err := queries.TickTurn(ctx, db, ds[i].SimulationID, e.TickStart.Int64, end)
			if err != nil {
				return n, err
			}
			if ok {
				e.TurnIdx = sql.NullInt64{Int64: turn, Valid: true}
				n++
			}
		}
	}
	return n, nil
}

// CheckTurns checks the turn of every located error of ds as verdicts
// import checks a verdict's: a turn_idx must be a turn of its episode,
// which must be in the workspace (a turn of an episode ub has not read
// cannot be checked). Each refusal names the record the decision came
// from (its Source: the file and line or record); any refusal fails the
// import, reported in the order of ds. The turns are checked by one
// query over all of them (queries.ReviewTurnChecks). Run it after
// PlaceTicks.
func CheckTurns(ctx context.Context, ws *queries.Workspace, ds []queries.Decision) ([]error, error) {
	type at struct{ d, e int }
	var refs []queries.TurnRef
	var where []at
	refused := map[at]error{}
	for i, d := range ds {
		for j, e := range d.Errors {
			switch {
			case !e.TurnIdx.Valid:
			case e.TurnIdx.Int64 < 0:
				refused[at{i, j}] = fmt.Errorf("%s: turn_idx %d of simulation %s: turns count from 0", d.Source, e.TurnIdx.Int64, d.SimulationID)
			default:
				refs = append(refs, queries.TurnRef{SimulationID: d.SimulationID, Turn: e.TurnIdx.Int64})
				where = append(where, at{i, j})
			}
		}
	}
	checks, err := queries.ReviewTurnChecks(ctx, ws, refs)
	if err != nil {
		return nil, err
	}
	for k, c := range checks {
		d, turn := ds[where[k].d], refs[k].Turn
		var err error
		switch {
		case !c.EpisodeKnown:
			err = fmt.Errorf("%s: turn_idx %d of simulation %s cannot be checked: the simulation is not in the workspace (ingest its result file first)", d.Source, turn, d.SimulationID)
		case c.LastTurn < 0:
			err = fmt.Errorf("%s: turn_idx %d: simulation %s has no messages (an error on the episode as a whole has no turn)", d.Source, turn, d.SimulationID)
		case turn > c.LastTurn:
			err = fmt.Errorf("%s: turn_idx %d is past the end of simulation %s (its last turn is %d)", d.Source, turn, d.SimulationID, c.LastTurn)
		case !c.IsTurn:
			err = fmt.Errorf("%s: turn_idx %d is not a turn of simulation %s", d.Source, turn, d.SimulationID)
		}
		if err != nil {
			refused[where[k]] = err
		}
	}
	// In the order of the file.
	var bad []error
	for i, d := range ds {
		for j := range d.Errors {
			if err, ok := refused[at{i, j}]; ok {
				bad = append(bad, err)
			}
		}
	}
	return bad, nil
}

// tau2DirRun returns the results.json of a dir-format tau2 run at path (a
// folder holding results.json and simulations/, or a file with
// simulations/ beside it, as tau2 decides).
func tau2DirRun(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	dir, meta := filepath.Dir(path), path
	if fi.IsDir() {
		dir, meta = path, filepath.Join(path, "results.json")
	} else if filepath.Base(path) == ub.Tau2ReviewedFile {
		return "", false // tau2 review's monolithic file, reviews and all
	}
	if s, err := os.Stat(filepath.Join(dir, "simulations")); err != nil || !s.IsDir() {
		return "", false
	}
	return meta, true
}

// ParsedFile is a file of decisions read by ParseFile.
type ParsedFile struct {
	Reviewer  string
	Decisions []queries.Decision
	Stats     ImportStats
	// BadRows are the refused rows of a CSV file, each naming its line:
	// when there are any, nothing of the file may be imported.
	BadRows []error
}

// ParseFile reads the decisions of a file to import: tau2 results with
// user_only_review (ParseUserOnlyReviews, an LLM reviewer) or human labels
// in CSV (ParseLabelsCSV). A format it cannot tell or does not know is
// ErrInvalid; a tau2 file it cannot read is ErrBadInput.
func ParseFile(path string, opts FileOptions) (ParsedFile, error) {
	format := opts.Format
	if _, ok := tau2DirRun(path); ok && format == "" {
		format = "tau2"
	}
	if format == "" {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".csv":
			format = "csv"
		case ".json":
			format = "tau2"
		default:
			return ParsedFile{}, kindError{fmt.Errorf("review import: say --format tau2, csv or label-studio for %s", path), ErrInvalid}
		}
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	res := ParsedFile{Reviewer: opts.Reviewer}
	if meta, ok := tau2DirRun(path); ok && (format == "tau2" || opts.Format == "") {
		// A dir-format run: its simulations are files of their own.
		if res.Reviewer == "" {
			res.Reviewer = "llm:" + filepath.Base(filepath.Dir(meta))
		}
		if opts.Run == nil {
			return res, kindError{fmt.Errorf("review import: %s is a dir-format tau2 run, and no reader of its files was given", path), ErrInvalid}
		}
		run, err := opts.Run(meta)
		if err != nil {
			return res, kindError{fmt.Errorf("review import: %w", err), ErrBadInput}
		}
		if res.Decisions, res.Stats, err = ParseUserOnlyReviewsDir(meta, run, res.Reviewer, opts.At); err != nil {
			return res, kindError{fmt.Errorf("review import: %w", err), ErrBadInput}
		}
		for i := range res.Decisions {
			res.Decisions[i].Model = opts.Model
		}
		return res, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	defer f.Close()
	switch format {
	case "tau2":
		if res.Reviewer == "" {
			res.Reviewer = "llm:" + base
		}
		res.Decisions, res.Stats, err = ParseUserOnlyReviews(path, f, res.Reviewer, opts.At)
		if err != nil {
			return res, kindError{fmt.Errorf("review import: %w", err), ErrBadInput}
		}
		for i := range res.Decisions {
			res.Decisions[i].Model = opts.Model
		}
	case "csv":
		if res.Reviewer == "" {
			res.Reviewer = "csv:" + base
		}
		res.Decisions, res.Stats, res.BadRows = ParseLabelsCSV(path, f, res.Reviewer, opts.At)
	case "label-studio":
		if res.Reviewer == "" {
			res.Reviewer = "label-studio:" + base
		}
		res.Decisions, res.Stats, err = ParseLabelStudio(path, f, res.Reviewer, opts.Annotator)
		if err != nil {
			return res, kindError{fmt.Errorf("review import: %w", err), ErrBadInput}
		}
	default:
		return res, kindError{fmt.Errorf("review import: --format %q: want tau2, csv or label-studio", format), ErrInvalid}
	}
	return res, nil
}
