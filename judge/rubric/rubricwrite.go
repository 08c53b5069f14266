package rubric

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ub-bench/ub/sim/runner"
)

//go:embed prompts/rubric_writer_v1.txt
var writerPrompt string

//go:embed prompts/rubric_verifier_v1.txt
var verifierPrompt string

// WriterPromptVersion and VerifierPromptVersion version the rubric
// writer's and verifier's prompts: a name and 12 hex digits of the
// prompt's sha256, stored with every criterion they make.
func WriterPromptVersion() string   { return promptVersion("write/1+", writerPrompt) }
func VerifierPromptVersion() string { return promptVersion("verify/1+", verifierPrompt) }

func promptVersion(name, p string) string {
	h := sha256.Sum256([]byte(p))
	return name + hex.EncodeToString(h[:6])
}

// WriterInput is what the rubric writer sees of one task.
type WriterInput struct {
	Domain, TaskID string
	Blueprint      Blueprint
	Guidelines     string
	UserTools      []string         // the user's tool interface (names), empty when the user has no tools
	Sample         []TranscriptLine // an optional sample conversation: not an oracle
}

// WriterMessages returns the writer's request for one task.
func WriterMessages(in WriterInput) []runner.Message {
	var b strings.Builder
	fmt.Fprintf(&b, "TASK %s/%s\n\nBLUEPRINT (private to the user)\n", in.Domain, in.TaskID)
	bp := in.Blueprint
	for _, f := range []struct{ name, v string }{
		{"reason_for_call", bp.ReasonForCall}, {"known_info", bp.KnownInfo}, {"unknown_info", bp.UnknownInfo},
		{"task_instructions", bp.TaskInstructions}, {"persona", bp.Persona}, {"instruction", bp.Instruction},
	} {
		if strings.TrimSpace(f.v) != "" {
			fmt.Fprintf(&b, "%s: %s\n", f.name, f.v)
		}
	}
	fmt.Fprintf(&b, "\nGUIDELINES (given to every simulated user)\n%s\n", orDash(in.Guidelines))
	tools := "none: the user has no tools"
	if len(in.UserTools) > 0 {
		tools = strings.Join(in.UserTools, ", ")
	}
	fmt.Fprintf(&b, "\nUSER TOOLS\n%s\n", tools)
	if len(in.Sample) > 0 {
		b.WriteString("\nSAMPLE CONVERSATION (not an oracle: it only shows which situations arise)\n")
		for _, l := range in.Sample {
			writeLine(&b, l)
			b.WriteByte('\n')
		}
	}
	return []runner.Message{{Role: "system", Content: writerPrompt}, {Role: "user", Content: b.String()}}
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// strictObject decodes s (optionally in a ```json fence) into v, refusing
// unknown keys and anything after the object.
func strictObject(text string, v any) error {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not the asked-for JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("text after the JSON object")
	}
	return nil
}

// ParseWriterAnswer reads the writer's answer strictly into criteria of
// the task (ids domain-task-wN in answer order). A criterion missing a
// field is still returned, so that its rejection is kept with the reason
// (CheckWritten); an answer that is not the asked-for object is an error.
func ParseWriterAnswer(text, domain, taskID string) ([]Criterion, error) {
	var a struct {
		Criteria []struct {
			Family      string `json:"family"`
			Mode        string `json:"mode"`
			Quote       string `json:"quote"`
			QuoteSource string `json:"quote_source"`
			Text        string `json:"text"`
			AppliesWhen string `json:"applies_when"`
		} `json:"criteria"`
	}
	if err := strictObject(text, &a); err != nil {
		return nil, err
	}
	if len(a.Criteria) == 0 {
		return nil, errors.New("no criteria")
	}
	out := make([]Criterion, len(a.Criteria))
	for i, c := range a.Criteria {
		out[i] = Criterion{TaskID: taskID, Domain: domain, CriterionID: fmt.Sprintf("%s-%s-w%d", domain, taskID, i+1),
			Family: c.Family, Mode: c.Mode, Quote: c.Quote, QuoteSource: c.QuoteSource, Text: c.Text, AppliesWhen: c.AppliesWhen}
	}
	return out, nil
}

// CheckWritten applies the import's checks (fields, family and mode, the
// quote verbatim in its source) to a written criterion: "" when it
// passes, else the reason to reject it.
func CheckWritten(c Criterion, sources QuoteSourceFunc) string { return checkCriterion(c, sources) }

// VerifierMessages returns the verifier's request for one task's criteria
// that passed CheckWritten.
func VerifierMessages(in WriterInput, cs []Criterion) []runner.Message {
	w := WriterMessages(WriterInput{Domain: in.Domain, TaskID: in.TaskID, Blueprint: in.Blueprint, Guidelines: in.Guidelines, UserTools: in.UserTools})
	var b strings.Builder
	b.WriteString(w[1].Content)
	b.WriteString("\nRUBRIC TO VERIFY\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "%s (family %s, mode %s): %s\n  quote (%s): %q\n", c.CriterionID, c.Family, c.Mode, c.Text, c.QuoteSource, c.Quote)
		if c.AppliesWhen != "" {
			fmt.Fprintf(&b, "  applies when: %s\n", c.AppliesWhen)
		}
	}
	return []runner.Message{{Role: "system", Content: verifierPrompt}, {Role: "user", Content: b.String()}}
}

// Decision is the verifier's word on one criterion.
type Decision struct {
	Keep   bool
	Reason string
}

// ParseVerifierAnswer reads the verifier's answer strictly: one decision
// per criterion id of ids, no other id, none twice.
func ParseVerifierAnswer(text string, ids []string) (map[string]Decision, error) {
	var a struct {
		Decisions []struct {
			CriterionID string `json:"criterion_id"`
			Keep        *bool  `json:"keep"`
			Reason      string `json:"reason"`
		} `json:"decisions"`
	}
	if err := strictObject(text, &a); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[string]Decision{}
	for _, d := range a.Decisions {
		switch {
		case !want[d.CriterionID]:
			return nil, fmt.Errorf("decision on unknown criterion %q", d.CriterionID)
		case d.Keep == nil:
			return nil, fmt.Errorf("decision on %s without keep", d.CriterionID)
		}
		if _, dup := out[d.CriterionID]; dup {
			return nil, fmt.Errorf("two decisions on %s", d.CriterionID)
		}
		out[d.CriterionID] = Decision{Keep: *d.Keep, Reason: d.Reason}
	}
	return out, nil
}
