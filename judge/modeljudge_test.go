package judge

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		name, in string
		move     Move
		fine     Fine
		bad      string
	}{
		{"fine and move", `{"fine": "bug_report", "move": "critical"}`, Critical, BugReport, ""},
		{"fenced", "```json\n{\"fine\": \"question\", \"move\": \"inquiry\"}\n```", Inquiry, Question, ""},
		{"fine only", `{"fine":"approve_proceed"}`, Approve, ApproveProceed, ""},
		{"move only", `{"move":"other"}`, Other, 0, ""},
		{"disagreeing pair", `{"fine":"pushback","move":"directive"}`, 0, 0, "belongs to critical"},
		{"unknown label", `{"move":"angry"}`, 0, 0, "angry"},
		{"prose", `The label is critical.`, 0, 0, "not a JSON object"},
		{"two objects", `{"move":"approve"} {"move":"critical"}`, 0, 0, "text after"},
		{"stray brace", `{"move":"approve"}}`, 0, 0, "text after"},
		{"trailing bracket", `{"move":"approve"} ] garbage`, 0, 0, "text after"},
		{"key twice", `{"move":"approve","move":"critical"}`, 0, 0, "twice"},
		{"extra field", `{"move":"approve","why":"ok"}`, 0, 0, "unknown field"},
		{"empty object", `{}`, 0, 0, "no label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, f, err := ParseAnswer(tt.in)
			if tt.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tt.bad) {
					t.Errorf("err = %v, want %q", err, tt.bad)
				}
				return
			}
			if err != nil || m != tt.move || f != tt.fine {
				t.Errorf("= %v %v %v, want %v %v", m, f, err, tt.move, tt.fine)
			}
		})
	}
}

func TestPromptMessages(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes, two per rune
	msgs := PromptMessages(long, long)
	if len(msgs) != 2 || msgs[0].Role != "system" || !strings.Contains(msgs[0].Content, "Fault first") {
		t.Fatalf("messages = %+v", msgs)
	}
	if !utf8.ValidString(msgs[1].Content) {
		t.Error("truncation split a rune")
	}
	if len(msgs[1].Content) > maxMessage+maxPrevAgent+200 {
		t.Errorf("user message %d bytes, not capped", len(msgs[1].Content))
	}
	if !strings.HasPrefix(PromptVersion(), "judge/1+") || len(PromptVersion()) != len("judge/1+")+12 {
		t.Errorf("version %q", PromptVersion())
	}
}
