package review

import (
	"bytes"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries"
)

// ImportError is a bad record of an imported file.
type ImportError struct {
	Path  string
	Line  int    // CSV line (0 for JSON)
	Where string // JSON: e.g. simulations[3]
	Msg   string
}

func (e *ImportError) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	case e.Where != "":
		return fmt.Sprintf("%s: %s: %s", e.Path, e.Where, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// ImportStats counts what an import read.
type ImportStats struct {
	Decisions int // decisions made
	Errors    int // simulator errors in them
	Failed    int // failed reviews (LLM reviews that did not parse)
	Skipped   int // records with no decision (no review, unresolved)
	// Salvaged counts the failed reviews whose raw response (kept by tau2
	// in the failure's reasoning) parsed: they are decisions, marked.
	Salvaged int
}

// tau2's user_only_review (SPEC 7): user_error, critical_user_error and
// errors with turn_idx, error_tags, severity; an error at turn_idx -1
// means the review itself failed to parse.
type userOnlyReview struct {
	UserError         *bool              `json:"user_error"`
	CriticalUserError *bool              `json:"critical_user_error"`
	Errors            []userOnlyRevError `json:"errors"`
}

// userOnlyRevError is an error of a user_only_review; full-duplex reviews
// place it by tick_start and tick_end instead of turn_idx.
type userOnlyRevError struct {
	TurnIdx   *int64  `json:"turn_idx"`
	TickStart *int64  `json:"tick_start"`
	TickEnd   *int64  `json:"tick_end"`
	ErrorTags tagList `json:"error_tags"`
	Severity  string  `json:"severity"`
	Reasoning string  `json:"reasoning"`
}

// tagList is error_tags: a list, or one tag as a string (tau2's parser
// takes both).
type tagList []string

func (t *tagList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*t = many
	return nil
}

// failedPrefix begins the reasoning of the error tau2 gives a review it
// could not parse (review_llm_judge_user_only.py): "Failed to parse LLM
// response: <exception>. Response: <the model's response>".
const failedPrefix = "Failed to parse LLM response: "

// salvage reads the model's response kept in a failed review's reasoning,
// as tau2's own parser would (extract_json_from_llm_response: a fenced
// block, else the text from the first { to the last }), but taking every
// severity its prompt asks for. tau2 release 1.0.1's UserOnlyReviewError
// allows only minor or critical, so every review with a critical_helped
// or critical_hindered error fails there. ok is false when no response
// is there or it does not parse.
func salvage(reasoning string) (rv userOnlyReview, ok bool) {
	if !strings.HasPrefix(reasoning, failedPrefix) {
		return rv, false
	}
	rest := reasoning[len(failedPrefix):]
	// The exception's text may itself hold ". Response: ": try each.
	for i := strings.Index(rest, ". Response: "); i >= 0; {
		resp := rest[i+len(". Response: "):]
		var got struct {
			UserError         *bool               `json:"user_error"`
			CriticalUserError *bool               `json:"critical_user_error"`
			Errors            *[]userOnlyRevError `json:"errors"`
		}
		if json.Unmarshal([]byte(extractJSON(resp)), &got) == nil && got.Errors != nil {
			// The response's own user_error and critical_user_error stand:
			// an error claimed without details is an error, never a pass.
			t := len(*got.Errors) > 0 || (got.UserError != nil && *got.UserError)
			crit := got.CriticalUserError != nil && *got.CriticalUserError
			for _, e := range *got.Errors {
				crit = crit || e.Severity == "critical_helped" || e.Severity == "critical_hindered"
			}
			return userOnlyReview{UserError: &t, CriticalUserError: &crit, Errors: *got.Errors}, true
		}
		j := strings.Index(resp, ". Response: ")
		if j < 0 {
			break
		}
		i += len(". Response: ") + j
	}
	return rv, false
}

// fenceRE is a fenced block, ```json ... ``` or ``` ... ```.
var fenceRE = regexp.MustCompile("```(?:json)?\\s*([\\s\\S]*?)```")

// extractJSON is tau2's extract_json_from_llm_response.
func extractJSON(s string) string {
	if m := fenceRE.FindStringSubmatch(s); m != nil {
		return strings.TrimSpace(m[1])
	}
	if i, j := strings.Index(s, "{"), strings.LastIndex(s, "}"); i >= 0 && j > i {
		return s[i : j+1]
	}
	return s
}

// ParseUserOnlyReviews reads a tau2 results file (an object with
// "simulations") and returns one LLM decision of reviewer per simulation
// that holds a user_only_review. A review that is not an object, has
// neither user_error nor errors, or carries an error at turn_idx -1 is a
// failed review (outcome failed, never a pass). Each error tag becomes
// one error; a tag outside the codebook is recorded as other with the tag
// in the note. Severity: minor, critical_helped and critical_hindered as
// given; "critical" (or a missing severity when critical_user_error is
// true) is critical_hindered, anything else minor with the given word in
// the note. Simulations without a review are skipped and counted.
func ParseUserOnlyReviews(path string, r io.Reader, reviewer string, at time.Time) ([]queries.Decision, ImportStats, error) {
	var st ImportStats
	var file struct {
		Simulations []json.RawMessage `json:"simulations"`
	}
	if err := json.NewDecoder(r).Decode(&file); err != nil {
		return nil, st, &ImportError{Path: path, Msg: "not a tau2 results file: " + err.Error()}
	}
	if file.Simulations == nil {
		return nil, st, &ImportError{Path: path, Msg: `no "simulations" array: not a tau2 results file`}
	}
	return reviewsOf(path, file.Simulations, nil, reviewer, at)
}

// reviewsOf makes the decisions of simulations read from path; where, when
// given, names each (else simulations[i]).
func reviewsOf(path string, sims []json.RawMessage, wheres []string, reviewer string, at time.Time) ([]queries.Decision, ImportStats, error) {
	var st ImportStats
	var out []queries.Decision
	seen := map[string]int{}
	for i, raw := range sims {
		where := fmt.Sprintf("simulations[%d]", i)
		if wheres != nil {
			where = wheres[i]
		}
		var sim struct {
			ID     string          `json:"id"`
			Review json.RawMessage `json:"user_only_review"`
		}
		if err := json.Unmarshal(raw, &sim); err != nil {
			return nil, st, &ImportError{Path: path, Where: where, Msg: err.Error()}
		}
		if sim.ID == "" {
			return nil, st, &ImportError{Path: path, Where: where, Msg: "simulation without an id"}
		}
		if prev, dup := seen[sim.ID]; dup {
			return nil, st, &ImportError{Path: path, Where: where, Msg: fmt.Sprintf("simulation %s repeats simulation %d", sim.ID, prev)}
		}
		seen[sim.ID] = i
		if len(sim.Review) == 0 || string(bytes.TrimSpace(sim.Review)) == "null" {
			st.Skipped++
			continue
		}
		d := queries.Decision{SimulationID: sim.ID, Reviewer: reviewer, Kind: queries.KindLLM, DecidedAt: at,
			Source: fmt.Sprintf("%s: %s", path, where)}
		var rv userOnlyReview
		failed := json.Unmarshal(sim.Review, &rv) != nil || (rv.UserError == nil && rv.Errors == nil)
		for _, e := range rv.Errors {
			if e.TurnIdx != nil && *e.TurnIdx == -1 {
				failed = true
				if len(rv.Errors) == 1 {
					if got, ok := salvage(e.Reasoning); ok {
						rv, failed, d.Salvaged = got, false, true
						st.Salvaged++
						d.Source += " (salvaged from the raw response)"
					}
				}
				break
			}
		}
		if failed {
			d.Outcome = queries.OutcomeFailed
			st.Failed++
			out = append(out, d)
			continue
		}
		critical := rv.CriticalUserError != nil && *rv.CriticalUserError
		for _, e := range rv.Errors {
			sev, note := e.Severity, e.Reasoning
			switch {
			case ValidSeverity(sev):
			case sev == "critical" || (sev == "" && critical):
				sev = "critical_hindered"
			default:
				if sev != "" {
					note = strings.TrimSpace("severity " + sev + ". " + note)
				}
				sev = "minor"
			}
			tags := e.ErrorTags
			if len(tags) == 0 {
				tags = []string{"other"}
			}
			for _, tag := range tags {
				code, n := tag, note
				if !ValidCode(tag) {
					code, n = "other", strings.TrimSpace("tag "+tag+". "+note)
				}
				re := queries.ReviewError{Code: code, Severity: sev, Note: n}
				if e.TurnIdx != nil {
					re.TurnIdx = sql.NullInt64{Int64: *e.TurnIdx, Valid: true}
				}
				if e.TickStart != nil {
					re.TickStart = sql.NullInt64{Int64: *e.TickStart, Valid: true}
				}
				if e.TickEnd != nil {
					re.TickEnd = sql.NullInt64{Int64: *e.TickEnd, Valid: true}
				}
				d.Errors = append(d.Errors, re)
			}
		}
		switch {
		case len(d.Errors) > 0:
			d.Outcome = queries.OutcomeError
		case rv.UserError != nil && *rv.UserError:
			// An error claimed without details: one error on the episode.
			sev := "minor"
			if critical {
				sev = "critical_hindered"
			}
			d.Outcome = queries.OutcomeError
			d.Errors = []queries.ReviewError{{Code: "other", Severity: sev, Note: "user_error without details"}}
		default:
			d.Outcome = queries.OutcomeNoError
		}
		st.Decisions++
		st.Errors += len(d.Errors)
		out = append(out, d)
	}
	return out, st, nil
}

// ParseLabelsCSV reads human review labels, one episode per row, with a
// header. Columns: simulation_id, and either
//
//   - has_error (true/false, yes/no, 1/0), with optional code (default
//     other), severity (default minor), turn_idx and note; or
//   - error_source (agent | user | system | no_error | unresolved) with
//     optional error_subtype: tau-elicit's failure-source tables. user
//     is a simulator error that decided the outcome (critical_hindered; code
//     hallucination when the subtype is one, else other with the subtype
//     in the note); agent, system and no_error are no simulator error;
//     unresolved is no decision (skipped, counted).
//
// Optional domain, task_id and reward columns say what the file knows of
// the episode; they are kept with the decision and used only while the
// episode is not in the workspace (the cross tab and the policies need a
// reward and a task). Every bad row is reported with its line; any bad row
// fails the import.
func ParseLabelsCSV(path string, r io.Reader, reviewer string, at time.Time) ([]queries.Decision, ImportStats, []error) {
	var st ImportStats
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0
	head, err := cr.Read()
	if err != nil {
		return nil, st, []error{&ImportError{Path: path, Line: 1, Msg: "no header: " + err.Error()}}
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	if _, ok := col["simulation_id"]; !ok {
		return nil, st, []error{&ImportError{Path: path, Line: 1, Msg: "no simulation_id column"}}
	}
	_, hasErr := col["has_error"]
	_, hasSrc := col["error_source"]
	if !hasErr && !hasSrc {
		return nil, st, []error{&ImportError{Path: path, Line: 1, Msg: "need a has_error or an error_source column"}}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out []queries.Decision
	var bad []error
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// FieldPos panics after a failed Read: the line is the error's.
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			bad = append(bad, &ImportError{Path: path, Line: line, Msg: err.Error()})
			if pe == nil || pe.Err != csv.ErrFieldCount {
				break
			}
			continue
		}
		line, _ := cr.FieldPos(0)
		fail := func(format string, args ...any) {
			bad = append(bad, &ImportError{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
		}
		if i := slices.IndexFunc(rec, func(f string) bool { return !utf8.ValidString(f) }); i >= 0 {
			name := fmt.Sprintf("column %d", i+1)
			if i < len(head) {
				name = strings.TrimSpace(strings.TrimPrefix(head[i], "\ufeff"))
			}
			fail("%s: not valid UTF-8", name)
			continue
		}
		id := get(rec, "simulation_id")
		if id == "" {
			fail("empty simulation_id")
			continue
		}
		if prev, dup := seen[id]; dup {
			fail("simulation %s repeats line %d", id, prev)
			continue
		}
		seen[id] = line
		d := queries.Decision{SimulationID: id, Reviewer: reviewer, Kind: queries.KindHuman, DecidedAt: at, Source: fmt.Sprintf("%s:%d", path, line),
			Domain: get(rec, "domain"), TaskID: get(rec, "task_id")}
		if v := get(rec, "reward"); v != "" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				fail("reward %q is not a number", v)
				continue
			}
			d.Reward = sql.NullFloat64{Float64: x, Valid: true}
		}
		if hasSrc {
			switch src := get(rec, "error_source"); src {
			case "unresolved":
				st.Skipped++
				continue
			case "agent", "system", "no_error":
				d.Outcome = queries.OutcomeNoError
			case "user":
				code, sub := "other", get(rec, "error_subtype")
				if ValidCode(sub) {
					code = sub
				}
				d.Outcome = queries.OutcomeError
				d.Errors = []queries.ReviewError{{Code: code, Severity: "critical_hindered", Note: strings.TrimSpace("failure source user; subtype " + sub)}}
			default:
				fail("error_source %q: want agent, user, system, no_error or unresolved", src)
				continue
			}
		} else {
			has, err := parseBool(get(rec, "has_error"))
			if err != nil {
				fail("has_error: %v", err)
				continue
			}
			if !has {
				d.Outcome = queries.OutcomeNoError
			} else {
				e := queries.ReviewError{Code: get(rec, "code"), Severity: get(rec, "severity"), Note: get(rec, "note")}
				if e.Code == "" {
					e.Code = "other"
				}
				if e.Severity == "" {
					e.Severity = "minor"
				}
				if !ValidCode(e.Code) {
					fail("code %q is not in the codebook", e.Code)
					continue
				}
				if !ValidSeverity(e.Severity) {
					fail("severity %q: want minor, critical_hindered or critical_helped", e.Severity)
					continue
				}
				if t := get(rec, "turn_idx"); t != "" {
					n, err := strconv.ParseInt(t, 10, 64)
					if err != nil || n < 0 {
						fail("turn_idx %q is not a turn number", t)
						continue
					}
					e.TurnIdx = sql.NullInt64{Int64: n, Valid: true}
				}
				d.Outcome = queries.OutcomeError
				d.Errors = []queries.ReviewError{e}
			}
		}
		st.Decisions++
		st.Errors += len(d.Errors)
		out = append(out, d)
	}
	if len(bad) > 0 {
		return nil, st, bad
	}
	return out, st, nil
}

func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "true", "yes", "1", "y":
		return true, nil
	case "false", "no", "0", "n":
		return false, nil
	}
	return false, fmt.Errorf("%q is not true/false", s)
}

// ParseUserOnlyReviewsDir reads the reviews of a dir-format tau2 run (its
// results.json, meta, with simulations/<id>.json beside it), one file at a
// time, keeping of each only its id and review. run is the run as ingest
// reads it (FileOptions.Run): its simulation files in ingest's order,
// checked against the run's simulation_index, each read as ingest reads
// it, and the reviews tau2 review wrote beside it; a file whose id is not
// its name is refused.
func ParseUserOnlyReviewsDir(meta string, run DirRun, reviewer string, at time.Time) ([]queries.Decision, ImportStats, error) {
	var sims []json.RawMessage
	var wheres []string
	for _, p := range run.Files {
		data, err := run.Read(p)
		if err != nil {
			return nil, ImportStats{}, &ImportError{Path: p, Msg: err.Error()}
		}
		var sim struct {
			ID     json.RawMessage `json:"id"`
			Review json.RawMessage `json:"user_only_review"`
		}
		if err := json.Unmarshal(data, &sim); err != nil {
			return nil, ImportStats{}, &ImportError{Path: p, Msg: "not a tau2 simulation: " + err.Error()}
		}
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		var id string
		if json.Unmarshal(sim.ID, &id) == nil && id != "" && id != name {
			return nil, ImportStats{}, &ImportError{Path: p, Msg: fmt.Sprintf("simulation id %s in a file named for %s", id, name)}
		}
		// tau2 review writes the reviews of a dir-format run beside it, in a
		// monolithic file: a simulation file without a review takes its own
		// from there.
		where := "simulations/" + filepath.Base(p)
		own := bytes.TrimSpace(sim.Review)
		if rv := run.Reviews[name]; (len(own) == 0 || string(own) == "null") && rv != nil {
			sim.Review, where = rv, ub.Tau2ReviewedFile+" (simulation "+name+")"
		}
		small, _ := json.Marshal(map[string]json.RawMessage{"id": orNull(sim.ID), "user_only_review": orNull(sim.Review)})
		sims, wheres = append(sims, small), append(wheres, where)
	}
	return reviewsOf(meta, sims, wheres, reviewer, at)
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}
