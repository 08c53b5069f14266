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

//go:embed prompts/grade_v1.txt
var gradePrompt string

// GradePromptVersion is the version of the fidelity grader's prompt:
// "grade/1+" and 12 hex digits of its sha256, stored with every verdict it
// gives.
func GradePromptVersion() string {
	h := sha256.Sum256([]byte(gradePrompt))
	return "grade/1+" + hex.EncodeToString(h[:6])
}

// Blueprint is the task's private instructions to the simulated user.
type Blueprint struct {
	ReasonForCall, KnownInfo, UnknownInfo, TaskInstructions, Persona, Instruction string
}

// writeLine writes a transcript line as the grader and the rubric writer
// see it: "[turn] role: text" on one line, the agent named agent, long
// texts cut at maxLine bytes (no newline).
func writeLine(b *strings.Builder, l TranscriptLine) {
	role := l.Role
	if role == "assistant" {
		role = "agent"
	}
	text := l.Text
	if len(text) > maxLine {
		text = validHead(text, maxLine) + "..."
	}
	fmt.Fprintf(b, "[%d] %s: %s", l.TurnIdx, role, strings.ReplaceAll(text, "\n", " "))
}

// TranscriptLine is one message of an episode as the grader sees it: no
// simulator or agent name is ever part of it.
type TranscriptLine struct {
	TurnIdx int
	Role    string // user | assistant | tool | system
	Text    string
	Calls   []string // tool calls made in the message: "name(arguments)"
}

// GradeItem is one (episode, criterion) to grade.
type GradeItem struct {
	Blueprint  Blueprint
	Criterion  Criterion
	Transcript []TranscriptLine
}

// maxLine caps one message of the transcript, in bytes.
const maxLine = 3000

// GradeMessages returns the grader's request for one criterion in one
// episode: the versioned instructions, then the blueprint, the criterion
// and the conversation. It is blind: nothing in it names the user
// simulator or the agent (their identities are not among its inputs).
func GradeMessages(it GradeItem) []runner.Message {
	var b strings.Builder
	b.WriteString("TASK BLUEPRINT (given to the user)\n")
	bp := it.Blueprint
	for _, f := range []struct{ name, v string }{
		{"reason_for_call", bp.ReasonForCall}, {"known_info", bp.KnownInfo}, {"unknown_info", bp.UnknownInfo},
		{"task_instructions", bp.TaskInstructions}, {"persona", bp.Persona}, {"instruction", bp.Instruction},
	} {
		if strings.TrimSpace(f.v) != "" {
			fmt.Fprintf(&b, "%s: %s\n", f.name, f.v)
		}
	}
	c := it.Criterion
	fmt.Fprintf(&b, "\nCRITERION %s (family %s, mode %s)\n%s\n", c.CriterionID, c.Family, c.Mode, c.Text)
	fmt.Fprintf(&b, "Grounded in %s: %q\n", c.QuoteSource, c.Quote)
	if c.AppliesWhen != "" {
		fmt.Fprintf(&b, "Applies only when: %s\n", c.AppliesWhen)
	}
	b.WriteString("\nCONVERSATION\n")
	for _, l := range it.Transcript {
		writeLine(&b, l)
		if len(l.Calls) > 0 {
			fmt.Fprintf(&b, " (tool calls: %s)", strings.Join(l.Calls, "; "))
		}
		b.WriteByte('\n')
	}
	return []runner.Message{{Role: "system", Content: gradePrompt}, {Role: "user", Content: b.String()}}
}

// ParseGrade reads a grader's answer strictly: one JSON object (optionally
// in a ```json fence) with "verdict" (pass, fail or na), "turn_idx" (a
// non-negative integer for fail, null or absent otherwise) and "reason";
// no other key, no key twice, nothing after it. A fail without its turn is
// an error: the answer is kept raw and not guessed.
func ParseGrade(text string) (verdict string, turn *int, reason string, err error) {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	var a struct {
		Verdict *string `json:"verdict"`
		TurnIdx *int    `json:"turn_idx"`
		Reason  *string `json:"reason"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return "", nil, "", fmt.Errorf("not a JSON object with verdict, turn_idx and reason: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", nil, "", errors.New("text after the JSON object")
	}
	for _, k := range []string{`"verdict"`, `"turn_idx"`, `"reason"`} {
		if strings.Count(s, k) > 1 {
			return "", nil, "", fmt.Errorf("key %s given twice", k)
		}
	}
	if a.Verdict == nil {
		return "", nil, "", errors.New("no verdict")
	}
	switch v := *a.Verdict; {
	case v != "pass" && v != "fail" && v != "na":
		return "", nil, "", fmt.Errorf("verdict %q: want pass, fail or na", v)
	case v == "fail" && a.TurnIdx == nil:
		return "", nil, "", errors.New("a fail without its turn_idx")
	case v == "fail" && *a.TurnIdx < 0:
		return "", nil, "", fmt.Errorf("turn_idx %d: negative", *a.TurnIdx)
	case v != "fail" && a.TurnIdx != nil:
		return "", nil, "", fmt.Errorf("turn_idx given for a %s verdict", v)
	}
	if a.Reason != nil {
		reason = *a.Reason
	}
	return *a.Verdict, a.TurnIdx, reason, nil
}

// validHead is the first n bytes of s (n <= len(s)), less a UTF-8
// sequence the cut left incomplete (the model judge's prompt cuts its
// texts the same way).
func validHead(s string, n int) string {
	s = s[:n]
	for len(s) > 0 && !utf8Start(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] >= 0xC0 {
		s = s[:len(s)-1]
	}
	return s
}

func utf8Start(b byte) bool { return b < 0x80 || b >= 0xC0 }
