package rubric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/ub-bench/ub/ingest/lines"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Families are the user-fidelity failure families of SPEC 6.2 (seed 002),
// with the modes the taxonomy defines for each. More modes may be added:
// a mode not listed here is accepted under any family, but a listed mode
// under the wrong family is refused.
var Families = map[string][]string{
	"disclosure":     {"volunteers_unasked_info", "preempts_diagnosis", "dumps_blueprint"},
	"groundedness":   {"unsupported_state", "claimed_unexecuted_action", "self_contradiction", "fabricates_unknown_info"},
	"goal_deviation": {"premature_stop", "accepts_forbidden_outcome", "accepts_insufficient_outcome", "abandons_goal"},
	"omitted_info":   {"withholds_asked_info", "skips_required_action"},
}

// FamilyNames are the families, sorted.
func FamilyNames() []string {
	out := make([]string, 0, len(Families))
	for f := range Families {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// QuoteSources are the places of a task a criterion's quote may come from.
var QuoteSources = []string{"reason_for_call", "known_info", "unknown_info", "task_instructions", "persona", "guidelines"}

// Criterion is one rubric criterion of a task (SPEC 6.2).
type Criterion struct {
	TaskID      string `json:"task_id"`
	Domain      string `json:"domain"`
	CriterionID string `json:"criterion_id"`
	Family      string `json:"family"`
	Mode        string `json:"mode"`
	Quote       string `json:"quote"`
	QuoteSource string `json:"quote_source"`
	Text        string `json:"text"`
	AppliesWhen string `json:"applies_when,omitempty"`
	Line        int    `json:"-"` // 1-based line in its file
}

// Normalize is the text normalisation of SPEC 6.1 applied before a quote
// is matched: NFKC, U+00A0 and U+202F as spaces, markdown emphasis (**)
// removed, case-folded; in addition (as the corpus' rubrics were checked)
// typographic quote marks become ASCII ones and runs of white space one
// space, so a quote wrapped differently from its source still matches.
func Normalize(s string) string {
	s = norm.NFKC.String(s)
	s = strings.ReplaceAll(s, "**", "")
	var b strings.Builder
	space := false
	for _, r := range s {
		switch r {
		case '\u00a0', '\u202f':
			r = ' '
		case '\u2018', '\u2019', '\u201a', '\u2032':
			r = '\''
		case '\u201c', '\u201d', '\u201e', '\u2033':
			r = '"'
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return cases.Fold().String(b.String())
}

// QuoteSourceFunc returns the texts of one source of one task (several when
// the task was stored in several versions, or several runs gave guidelines);
// nil when the task is unknown.
type QuoteSourceFunc func(domain, taskID, source string) (texts []string, taskKnown bool)

// LineError is a refused line of an input file.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// RubricImport is what ParseRubrics read.
type RubricImport struct {
	Criteria []Criterion // accepted, in file order
	Refused  []LineError // refused lines, in file order
	Warnings []string    // tasks with fewer than 4 or more than 8 criteria, sorted
}

// ParseRubrics reads rubric criteria, one JSON object per line (SPEC 6.2
// fields), checking every field and that the quote occurs verbatim (after
// Normalize) in the named source of that task. A bad line is refused with
// its file and line and the rest is read; a criterion id given twice is
// refused on its second line. sources may be nil only if no line needs it.
func ParseRubrics(r io.Reader, file string, sources QuoteSourceFunc) (RubricImport, error) {
	var out RubricImport
	seen := map[string]int{}
	perTask := map[[2]string]int{}
	err := eachLine(r, file, &out.Refused, func(n int, line []byte) {
		var c Criterion
		if err := strictUnmarshal(line, &c); err != nil {
			out.Refused = append(out.Refused, LineError{file, n, err.Error()})
			return
		}
		c.Line = n
		if msg := checkCriterion(c, sources); msg != "" {
			out.Refused = append(out.Refused, LineError{file, n, msg})
			return
		}
		if prev, ok := seen[c.CriterionID]; ok {
			out.Refused = append(out.Refused, LineError{file, n, fmt.Sprintf("criterion %s already given on line %d", c.CriterionID, prev)})
			return
		}
		seen[c.CriterionID] = n
		perTask[[2]string{c.Domain, c.TaskID}]++
		out.Criteria = append(out.Criteria, c)
	})
	if err != nil {
		return out, err
	}
	keys := make([][2]string, 0, len(perTask))
	for k := range perTask {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return lessTaskID(keys[i][1], keys[j][1])
	})
	for _, k := range keys {
		if n := perTask[k]; n < 4 || n > 8 {
			out.Warnings = append(out.Warnings, fmt.Sprintf("%s: task %s/%s has %d criteria (4-8 expected)", file, k[0], k[1], n))
		}
	}
	return out, nil
}

// lessTaskID orders task ids numerically when both are numbers.
func lessTaskID(a, b string) bool {
	if len(a) != len(b) && isDigits(a) && isDigits(b) {
		return len(a) < len(b)
	}
	return a < b
}

func checkCriterion(c Criterion, sources QuoteSourceFunc) string {
	for _, f := range []struct{ name, v string }{
		{"task_id", c.TaskID}, {"domain", c.Domain}, {"criterion_id", c.CriterionID}, {"family", c.Family},
		{"mode", c.Mode}, {"quote", c.Quote}, {"quote_source", c.QuoteSource}, {"text", c.Text},
	} {
		if strings.TrimSpace(f.v) == "" {
			return fmt.Sprintf("missing %q", f.name)
		}
	}
	modes, ok := Families[c.Family]
	if !ok {
		return fmt.Sprintf("criterion %s: unknown family %q (want one of %s)", c.CriterionID, c.Family, strings.Join(FamilyNames(), ", "))
	}
	if !slices.Contains(modes, c.Mode) {
		for f, ms := range Families {
			if slices.Contains(ms, c.Mode) {
				return fmt.Sprintf("criterion %s: mode %s belongs to family %s, not %s", c.CriterionID, c.Mode, f, c.Family)
			}
		}
	}
	if !slices.Contains(QuoteSources, c.QuoteSource) {
		return fmt.Sprintf("criterion %s: unknown quote_source %q (want one of %s)", c.CriterionID, c.QuoteSource, strings.Join(QuoteSources, ", "))
	}
	if sources == nil {
		return fmt.Sprintf("criterion %s: no task sources to check the quote against", c.CriterionID)
	}
	texts, known := sources(c.Domain, c.TaskID, c.QuoteSource)
	if !known {
		return fmt.Sprintf("criterion %s: task %s/%s is not in the workspace (ingest its result file first)", c.CriterionID, c.Domain, c.TaskID)
	}
	q := Normalize(c.Quote)
	for _, t := range texts {
		if strings.Contains(Normalize(t), q) {
			return ""
		}
	}
	return fmt.Sprintf("criterion %s: quote %q does not occur in %s of task %s/%s", c.CriterionID, clip(c.Quote, 60), c.QuoteSource, c.Domain, c.TaskID)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}

// Verdict is one grader's verdict on one criterion in one episode.
type Verdict struct {
	SimulationID string `json:"simulation_id"`
	CriterionID  string `json:"criterion_id"`
	Verdict      string `json:"verdict"`
	TurnIdx      *int   `json:"turn_idx"`
	Reason       string `json:"reason"`
	Grader       string `json:"grader"`
	Line         int    `json:"-"`
}

// VerdictImport is what ParseVerdicts read.
type VerdictImport struct {
	Verdicts []Verdict   // accepted, in file order
	Refused  []LineError // in file order
}

// ParseVerdicts reads verdicts, one JSON object per line (SPEC 6.2:
// simulation_id, criterion_id, verdict, turn_idx, reason, grader). grader,
// when not "", names the grader of every line (overriding the file's);
// otherwise each line must name one. turn_idx is the first failing user
// turn of a fail and must be absent or null otherwise. A (simulation,
// criterion, grader) given twice is refused on its second line.
func ParseVerdicts(r io.Reader, file, grader string) (VerdictImport, error) {
	var out VerdictImport
	seen := map[[3]string]int{}
	err := EachVerdict(r, file, grader, &out.Refused, func(v Verdict) error {
		k := [3]string{v.SimulationID, v.CriterionID, v.Grader}
		if prev, ok := seen[k]; ok {
			out.Refused = append(out.Refused, DuplicateVerdict(file, v.Line, prev, v.SimulationID, v.CriterionID, v.Grader))
			return nil
		}
		seen[k] = v.Line
		out.Verdicts = append(out.Verdicts, v)
		return nil
	})
	return out, err
}

// DuplicateVerdict is the refusal of line, whose (simulation, criterion,
// grader) was given already on line first.
func DuplicateVerdict(file string, line, first int, simulationID, criterionID, grader string) LineError {
	return LineError{file, line, fmt.Sprintf("verdict of %s on %s by %s already given on line %d", criterionID, simulationID, grader, first)}
}

// EachVerdict reads verdicts as ParseVerdicts does, one line at a time,
// and calls fn with every verdict that passes the checks of its own line;
// the lines that do not are added to refused. It does not look for a
// (simulation, criterion, grader) given twice: that needs every line
// (ParseVerdicts keeps them in memory; the import asks DuckDB).
func EachVerdict(r io.Reader, file, grader string, refused *[]LineError, fn func(Verdict) error) error {
	return lines.EachLine(r, file, MaxLineBytes, func(n int, raw []byte) error {
		line := bytes.TrimSpace(raw)
		var v Verdict
		if err := strictUnmarshal(line, &v); err != nil {
			*refused = append(*refused, LineError{file, n, err.Error()})
			return nil
		}
		v.Line = n
		if grader != "" {
			v.Grader = grader
		}
		msg := ""
		switch {
		case strings.TrimSpace(v.SimulationID) == "":
			msg = `missing "simulation_id"`
		case strings.TrimSpace(v.CriterionID) == "":
			msg = `missing "criterion_id"`
		case strings.TrimSpace(v.Grader) == "":
			msg = `missing "grader" (or pass --grader)`
		case v.Verdict != "pass" && v.Verdict != "fail" && v.Verdict != "na":
			msg = fmt.Sprintf("verdict %q: want pass, fail or na", v.Verdict)
		case v.Verdict == "fail" && v.TurnIdx == nil:
			msg = "a fail without its turn_idx (the first failing user turn)"
		case v.TurnIdx != nil && *v.TurnIdx < 0:
			msg = fmt.Sprintf("turn_idx %d: negative", *v.TurnIdx)
		case v.TurnIdx != nil && v.Verdict != "fail":
			msg = fmt.Sprintf("turn_idx %d given for a %s verdict (only a fail has a failing turn)", *v.TurnIdx, v.Verdict)
		}
		if msg != "" {
			*refused = append(*refused, LineError{file, n, msg})
			return nil
		}
		return fn(v)
	}, func(n int, reason string) error {
		*refused = append(*refused, LineError{file, n, reason})
		return nil
	})
}

// MaxLineBytes is the longest line a rubrics or verdicts file may hold
// (a variable so that tests can lower it); a longer line is refused with
// its file and line, and the lines after it are read.
var MaxLineBytes = 64 << 20

// eachLine calls fn with every non-blank line, trimmed, and its 1-based
// number (lines.EachLine). A line longer than MaxLineBytes, or one that is
// not valid UTF-8, is refused (added to refused, naming file and line)
// instead, and the next line is read.
func eachLine(r io.Reader, file string, refused *[]LineError, fn func(n int, line []byte)) error {
	return lines.EachLine(r, file, MaxLineBytes, func(n int, raw []byte) error {
		fn(n, bytes.TrimSpace(raw))
		return nil
	}, func(n int, reason string) error {
		*refused = append(*refused, LineError{file, n, reason})
		return nil
	})
}

// strictUnmarshal decodes one JSON object, refusing unknown fields,
// repeated keys' trailing garbage and anything after the object.
func strictUnmarshal(line []byte, v any) error {
	if len(line) == 0 || line[0] != '{' {
		return errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad JSON: %v", err)
	}
	if dec.More() {
		return errors.New("trailing text after the JSON object")
	}
	return nil
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
