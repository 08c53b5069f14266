package judge

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ub-bench/ub/sim/runner"
)

//go:embed prompts/judge_v1.txt
var judgePrompt string

// Prompt is the model judge's prompt, as sent (ub publish ships it).
func Prompt() string { return judgePrompt }

// PromptVersion is the version of the model judge's prompt: "judge/1+" and
// 12 hex digits of its sha256, recorded beside every label it makes.
func PromptVersion() string {
	h := sha256.Sum256([]byte(judgePrompt))
	return "judge/1+" + hex.EncodeToString(h[:6])
}

// maxPrevAgent and maxMessage cap what the judge sees, in bytes (the tails
// of the agent's reply and the head of the message carry the speech act).
const (
	maxPrevAgent = 1500
	maxMessage   = 4000
)

// PromptMessages returns the model judge's request for one developer
// message: the versioned instructions as the system message, then the end
// of the agent's previous reply (for context) and the message.
func PromptMessages(message, prevAgent string) []runner.Message {
	var b strings.Builder
	if prevAgent != "" {
		if len(prevAgent) > maxPrevAgent {
			prevAgent = "..." + validTail(prevAgent, maxPrevAgent)
		}
		b.WriteString("The agent's previous reply (end):\n<<<\n" + prevAgent + "\n>>>\n\n")
	}
	if len(message) > maxMessage {
		message = validHead(message, maxMessage) + "..."
	}
	b.WriteString("The developer's message:\n<<<\n" + message + "\n>>>")
	return []runner.Message{{Role: "system", Content: judgePrompt}, {Role: "user", Content: b.String()}}
}

func validTail(s string, n int) string {
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8Start(s[0]) {
		s = s[1:]
	}
	return s
}

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

// ParseAnswer reads a model judge's answer strictly: one JSON object
// (optionally inside a ```json fence) with "fine" (one of the 7 labels)
// and/or "move" (one of the 5); when both are given they must agree by
// Map7To4. Anything else is an error: the label is recorded as unparseable,
// never guessed.
func ParseAnswer(text string) (Move, Fine, error) {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
		s = strings.TrimSpace(s)
	}
	var a struct {
		Fine *string `json:"fine"`
		Move *string `json:"move"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return 0, 0, fmt.Errorf("not a JSON object with fine and move: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return 0, 0, fmt.Errorf("text after the JSON object")
	}
	if n := strings.Count(s, `"move"`) + strings.Count(s, `"fine"`); a.Fine != nil && a.Move != nil && n > 2 || (a.Fine == nil || a.Move == nil) && n > 1 {
		return 0, 0, fmt.Errorf("a key given twice")
	}
	var mv Move
	var fine Fine
	if a.Fine != nil {
		f, err := ParseFine(*a.Fine)
		if err != nil {
			return 0, 0, err
		}
		fine, mv = f, Map7To4(f)
	}
	if a.Move != nil {
		m, err := ParseMove(*a.Move)
		if err != nil {
			return 0, 0, err
		}
		if a.Fine != nil && m != mv {
			return 0, 0, fmt.Errorf("fine %s belongs to %s, not %s", fine, mv, m)
		}
		mv = m
	}
	if !mv.Valid() {
		return 0, 0, fmt.Errorf("no label in the answer")
	}
	return mv, fine, nil
}
